//===- tilec-fuzz.cpp - libFuzzer target over the .tile frontend ----------===//
//
// Feeds arbitrary bytes through the lexer, parser and elaboration (Sema +
// MLIRGen), with diagnostics discarded. Any crash, sanitizer report or
// timeout is a bug: bad input must always end in a located error.
// Build: cmake -DTILEC_BUILD_FUZZERS=ON with clang (see docs/fuzzing.md;
// tools/tilec-fuzz/pipeline.py fuzzes the whole pipeline with valid kernels).
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/Parser.h"
#include "tilec/MLIRGen/MLIRGen.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.tile"),
      llvm::SMLoc());
  llvm::raw_null_ostream sink;
  tilec::DiagnosticEngine diag(sourceMgr, sink);
  std::unique_ptr<tilec::ast::Module> module =
      tilec::parseModule(sourceMgr, sourceMgr.getMainFileID(), diag);
  if (!module || diag.hasErrors())
    return 0;
  // A context is reused for speed but replaced every 1000 inputs: types
  // and attributes it uniques are never freed, so one context per run would
  // grow until libFuzzer reports a false out-of-memory.
  static std::unique_ptr<mlir::MLIRContext> context;
  static unsigned uses = 0;
  if (!context || ++uses % 1000 == 0) {
    context = std::make_unique<mlir::MLIRContext>();
    tilec::loadMLIRGenDialects(*context);
    context->printOpOnDiagnostic(false);
    // An MLIR error here means elaboration built invalid IR that Sema
    // should have rejected with a located message: that is a bug.
    context->getDiagEngine().registerHandler([](mlir::Diagnostic &d) {
      if (d.getSeverity() == mlir::DiagnosticSeverity::Error) {
        llvm::errs() << "invalid IR from elaboration: " << d << "\n";
        std::abort();
      }
      return mlir::success();
    });
  }
  tilec::MLIRGenOptions options;
  mlir::OwningOpRef<mlir::ModuleOp> ir =
      tilec::elaborate(*module, *context, diag, options);
  // Success without an error, or an error without a module: anything else
  // (an error yet a module, or neither) breaks the frontend's contract.
  if ((ir && diag.hasErrors()) || (!ir && !diag.hasErrors()))
    std::abort();
  return 0;
}
