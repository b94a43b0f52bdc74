//===- Diagnostics.h - Located diagnostics for .tile sources ----*- C++ -*-===//
//
// Every stage of the frontend (lexer, parser, Sema, MLIRGen) reports through
// one DiagnosticEngine so that all messages share clang's format
// (`file:line:col: error: message`, the source line, a caret), are counted in
// one place, and can be captured structurally by tests and by the driver's
// `-verify-diagnostics` mode instead of being printed.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_DIAGNOSTICS_H
#define TILEC_FRONTEND_DIAGNOSTICS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>
#include <utility>

namespace tilec {

enum class DiagSeverity { Error, Warning, Note, Remark };

/// One reported diagnostic, as handed to a custom handler.
struct Diagnostic {
  DiagSeverity severity = DiagSeverity::Error;
  llvm::SMLoc loc;
  llvm::SmallVector<llvm::SMRange, 1> ranges;
  std::string message;
};

/// Reports located diagnostics into an llvm::SourceMgr's buffers.
///
/// Messages follow the project style: lower case, no final period, code in
/// backticks, and say what was seen. Notes attach to the preceding error or
/// warning: when that one is dropped (error limit), its notes are dropped too.
class DiagnosticEngine {
public:
  using Handler = std::function<void(const Diagnostic &)>;

  explicit DiagnosticEngine(llvm::SourceMgr &sourceMgr,
                            llvm::raw_ostream &os = llvm::errs());

  llvm::SourceMgr &getSourceMgr() const { return sourceMgr; }
  /// Where diagnostics are printed; messages without a source position
  /// (command-line problems, notes) go there too.
  llvm::raw_ostream &getStream() const { return os; }

  /// Stop reporting after `limit` errors (0, the default, means no limit).
  /// The first error past the limit prints "too many errors emitted, stopping
  /// now" once; later ones are counted but not shown. Clients may poll
  /// `shouldStop()` to give up early.
  void setErrorLimit(unsigned limit) { errorLimit = limit; }
  unsigned getErrorLimit() const { return errorLimit; }

  /// Color output when the stream supports it (default on).
  void setShowColors(bool show) { showColors = show; }

  /// Route diagnostics to `handler` instead of printing them (tests,
  /// `-verify-diagnostics`). Counting and the error limit still apply.
  void setHandler(Handler newHandler) { handler = std::move(newHandler); }

  void error(llvm::SMLoc loc, const llvm::Twine &msg,
             llvm::ArrayRef<llvm::SMRange> ranges = {});
  void error(llvm::SMRange range, const llvm::Twine &msg);
  void warning(llvm::SMLoc loc, const llvm::Twine &msg,
               llvm::ArrayRef<llvm::SMRange> ranges = {});
  void warning(llvm::SMRange range, const llvm::Twine &msg);
  void note(llvm::SMLoc loc, const llvm::Twine &msg,
            llvm::ArrayRef<llvm::SMRange> ranges = {});
  void note(llvm::SMRange range, const llvm::Twine &msg);
  void remark(llvm::SMLoc loc, const llvm::Twine &msg,
              llvm::ArrayRef<llvm::SMRange> ranges = {});

  /// Generic entry point used by the helpers above.
  void report(DiagSeverity severity, llvm::SMLoc loc, const llvm::Twine &msg,
              llvm::ArrayRef<llvm::SMRange> ranges = {});

  /// Errors reported so far, including those dropped by the limit.
  unsigned errorCount() const { return numErrors; }
  unsigned warningCount() const { return numWarnings; }
  bool hasErrors() const { return numErrors != 0; }
  /// True once the error limit has been exceeded.
  bool shouldStop() const { return errorLimit != 0 && numErrors > errorLimit; }

  /// 1-based line and (byte) column of `loc` in the buffer containing it;
  /// {0, 0} for an invalid location or one outside every buffer.
  std::pair<unsigned, unsigned> lineCol(llvm::SMLoc loc) const;

  /// The identifier (usually the file name) of the buffer containing `loc`,
  /// or of the main buffer when `loc` is invalid. Together with `lineCol`
  /// this is all an mlir::FileLineColLoc needs.
  llvm::StringRef bufferIdentifier(llvm::SMLoc loc) const;

private:
  /// Prints one diagnostic in clang's format (see Diagnostics.cpp for the
  /// lines LLVM's printer would mangle).
  void printLocated(DiagSeverity severity, llvm::SMLoc loc,
                    const llvm::Twine &msg,
                    llvm::ArrayRef<llvm::SMRange> ranges);

  llvm::SourceMgr &sourceMgr;
  llvm::raw_ostream &os;
  Handler handler;
  unsigned errorLimit = 0;
  unsigned numErrors = 0;
  unsigned numWarnings = 0;
  bool showColors = true;
  /// Whether the last error/warning was dropped, so its notes are too.
  bool suppressNotes = false;
};

} // namespace tilec

#endif // TILEC_FRONTEND_DIAGNOSTICS_H
