//===- Diagnostics.cpp - Located diagnostics for .tile sources ------------===//
//
// Printing goes through llvm::SourceMgr::PrintMessage so that the output is
// byte-for-byte the format clang and MLIR tools use (and that FileCheck tests
// and editors already understand).
//
// One exception: LLVM prints a source line that holds any non-ASCII byte
// raw and without its caret line, and prints control bytes raw as well. A
// comment in Farsi on the offending line would lose its caret, and a binary
// file would write escape sequences to the terminal. Such lines are printed
// here instead, in the same format: printable UTF-8 as is (wide characters
// take two columns), control characters as `<U+001B>`, bytes that are not
// UTF-8 as `<FF>`, and the caret under the right column.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Unicode.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace tilec;

namespace {

/// A source line as displayed: its text, and the display column at which
/// each of its bytes starts (one entry per byte, plus one for the end).
struct DisplayLine {
  std::string text;
  std::vector<unsigned> columnOfByte;
};

constexpr unsigned kTabStop = 8; // as llvm::SMDiagnostic prints tabs

/// Whether LLVM would print `line` badly (see the file comment).
bool needsOwnPrinting(llvm::StringRef line) {
  return llvm::any_of(line, [](char c) {
    auto byte = static_cast<unsigned char>(c);
    return byte >= 0x80 || byte == 0x7f || (byte < 0x20 && byte != '\t');
  });
}

DisplayLine makeDisplayLine(llvm::StringRef line) {
  DisplayLine out;
  unsigned column = 0;
  auto emit = [&](llvm::StringRef shown, unsigned width, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i)
      out.columnOfByte.push_back(column);
    out.text += shown;
    column += width;
  };
  size_t i = 0;
  while (i < line.size()) {
    auto byte = static_cast<unsigned char>(line[i]);
    if (byte == '\t') {
      unsigned width = kTabStop - column % kTabStop;
      emit(std::string(width, ' '), width, 1);
      ++i;
      continue;
    }
    if (byte < 0x80) {
      if (byte < 0x20 || byte == 0x7f) {
        std::string shown;
        llvm::raw_string_ostream(shown)
            << "<U+" << llvm::format_hex_no_prefix(byte, 4, true) << ">";
        emit(shown, shown.size(), 1);
      } else {
        emit(line.substr(i, 1), 1, 1);
      }
      ++i;
      continue;
    }
    unsigned length = llvm::getNumBytesForUTF8(byte);
    if (i + length <= line.size() &&
        llvm::isLegalUTF8Sequence(
            reinterpret_cast<const llvm::UTF8 *>(line.data() + i),
            reinterpret_cast<const llvm::UTF8 *>(line.data() + i + length))) {
      llvm::StringRef seq = line.substr(i, length);
      int width = llvm::sys::unicode::columnWidthUTF8(seq);
      if (width >= 0) {
        emit(seq, static_cast<unsigned>(width), length);
      } else {
        llvm::UTF32 codePoint = 0;
        const auto *src = reinterpret_cast<const llvm::UTF8 *>(seq.data());
        llvm::convertUTF8Sequence(&src, src + length, &codePoint,
                                  llvm::strictConversion);
        std::string shown;
        llvm::raw_string_ostream(shown)
            << "<U+" << llvm::format_hex_no_prefix(codePoint, 4, true) << ">";
        emit(shown, shown.size(), length);
      }
      i += length;
      continue;
    }
    std::string shown;
    llvm::raw_string_ostream(shown)
        << "<" << llvm::format_hex_no_prefix(byte, 2, true) << ">";
    emit(shown, shown.size(), 1);
    ++i;
  }
  out.columnOfByte.push_back(column);
  return out;
}

/// Prints a diagnostic whose source line `needsOwnPrinting`, in the format
/// of llvm::SMDiagnostic::print.
void printWithDisplayLine(llvm::raw_ostream &os, llvm::StringRef fileName,
                          unsigned lineNo, llvm::StringRef line,
                          size_t byteColumn, llvm::SourceMgr::DiagKind kind,
                          const llvm::Twine &msg,
                          llvm::ArrayRef<std::pair<size_t, size_t>> ranges,
                          bool showColors) {
  llvm::ColorMode mode =
      showColors ? llvm::ColorMode::Auto : llvm::ColorMode::Disable;
  llvm::WithColor(os, llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true,
                  /*BG=*/false, mode)
      << fileName << ':' << lineNo << ':' << (byteColumn + 1) << ": ";
  switch (kind) {
  case llvm::SourceMgr::DK_Error:
    llvm::WithColor::error(os, "", !showColors);
    break;
  case llvm::SourceMgr::DK_Warning:
    llvm::WithColor::warning(os, "", !showColors);
    break;
  case llvm::SourceMgr::DK_Note:
    llvm::WithColor::note(os, "", !showColors);
    break;
  case llvm::SourceMgr::DK_Remark:
    llvm::WithColor::remark(os, "", !showColors);
    break;
  }
  llvm::WithColor(os, llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true,
                  /*BG=*/false, mode)
      << msg << '\n';

  DisplayLine display = makeDisplayLine(line);
  os << display.text << '\n';
  auto columnOf = [&](size_t byte) {
    return display.columnOfByte[std::min(byte, line.size())];
  };
  std::string caret(columnOf(line.size()) + 1, ' ');
  for (auto [begin, end] : ranges)
    for (unsigned c = columnOf(begin), e = columnOf(end); c < e; ++c)
      caret[c] = '~';
  caret[columnOf(byteColumn)] = '^';
  caret.erase(caret.find_last_not_of(' ') + 1);
  llvm::WithColor(os, llvm::raw_ostream::GREEN, /*Bold=*/true, /*BG=*/false,
                  mode)
      << caret << '\n';
}

} // namespace

DiagnosticEngine::DiagnosticEngine(llvm::SourceMgr &sourceMgr,
                                   llvm::raw_ostream &os)
    : sourceMgr(sourceMgr), os(os) {}

static llvm::SourceMgr::DiagKind toDiagKind(DiagSeverity severity) {
  switch (severity) {
  case DiagSeverity::Error:
    return llvm::SourceMgr::DK_Error;
  case DiagSeverity::Warning:
    return llvm::SourceMgr::DK_Warning;
  case DiagSeverity::Note:
    return llvm::SourceMgr::DK_Note;
  case DiagSeverity::Remark:
    return llvm::SourceMgr::DK_Remark;
  }
  llvm_unreachable("unknown severity");
}

void DiagnosticEngine::report(DiagSeverity severity, llvm::SMLoc loc,
                              const llvm::Twine &msg,
                              llvm::ArrayRef<llvm::SMRange> ranges) {
  switch (severity) {
  case DiagSeverity::Error:
    ++numErrors;
    suppressNotes = errorLimit != 0 && numErrors > errorLimit;
    if (suppressNotes) {
      // Say once why the output stops; the count keeps growing so that
      // callers still see every failure.
      if (numErrors == errorLimit + 1) {
        Diagnostic diag{DiagSeverity::Error,
                        llvm::SMLoc(),
                        {},
                        "too many errors emitted, stopping now"};
        if (handler)
          handler(diag);
        else
          sourceMgr.PrintMessage(
              os,
              llvm::SMDiagnostic("", llvm::SourceMgr::DK_Error, diag.message),
              showColors);
      }
      return;
    }
    break;
  case DiagSeverity::Warning:
    ++numWarnings;
    suppressNotes = shouldStop();
    if (suppressNotes)
      return;
    break;
  case DiagSeverity::Remark:
    suppressNotes = shouldStop();
    if (suppressNotes)
      return;
    break;
  case DiagSeverity::Note:
    if (suppressNotes)
      return;
    break;
  }

  if (handler) {
    Diagnostic diag{severity, loc, {}, msg.str()};
    diag.ranges.append(ranges.begin(), ranges.end());
    handler(diag);
    return;
  }
  printLocated(severity, loc, msg, ranges);
}

void DiagnosticEngine::printLocated(DiagSeverity severity, llvm::SMLoc loc,
                                    const llvm::Twine &msg,
                                    llvm::ArrayRef<llvm::SMRange> ranges) {
  unsigned bufferId =
      loc.isValid() ? sourceMgr.FindBufferContainingLoc(loc) : 0;
  if (bufferId != 0) {
    const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(bufferId);
    const char *bufStart = buffer->getBufferStart();
    const char *bufEnd = buffer->getBufferEnd();
    const char *p = loc.getPointer();
    const char *lineStart = p;
    while (lineStart != bufStart && lineStart[-1] != '\n' &&
           lineStart[-1] != '\r')
      --lineStart;
    const char *lineEnd = p;
    while (lineEnd != bufEnd && *lineEnd != '\n' && *lineEnd != '\r')
      ++lineEnd;
    llvm::StringRef line(lineStart, lineEnd - lineStart);
    if (needsOwnPrinting(line)) {
      // Ranges clipped to this line, in bytes from its start.
      llvm::SmallVector<std::pair<size_t, size_t>, 2> lineRanges;
      for (llvm::SMRange range : ranges) {
        const char *b = std::max(range.Start.getPointer(), lineStart);
        const char *e = std::min(range.End.getPointer(), lineEnd);
        if (range.isValid() && b < e)
          lineRanges.push_back({size_t(b - lineStart), size_t(e - lineStart)});
      }
      printWithDisplayLine(os, buffer->getBufferIdentifier(),
                           sourceMgr.getLineAndColumn(loc, bufferId).first,
                           line, size_t(p - lineStart), toDiagKind(severity),
                           msg, lineRanges, showColors);
      return;
    }
  }
  sourceMgr.PrintMessage(os, loc, toDiagKind(severity), msg, ranges, {},
                         showColors);
}

void DiagnosticEngine::error(llvm::SMLoc loc, const llvm::Twine &msg,
                             llvm::ArrayRef<llvm::SMRange> ranges) {
  report(DiagSeverity::Error, loc, msg, ranges);
}

void DiagnosticEngine::error(llvm::SMRange range, const llvm::Twine &msg) {
  report(DiagSeverity::Error, range.Start, msg, range);
}

void DiagnosticEngine::warning(llvm::SMLoc loc, const llvm::Twine &msg,
                               llvm::ArrayRef<llvm::SMRange> ranges) {
  report(DiagSeverity::Warning, loc, msg, ranges);
}

void DiagnosticEngine::warning(llvm::SMRange range, const llvm::Twine &msg) {
  report(DiagSeverity::Warning, range.Start, msg, range);
}

void DiagnosticEngine::note(llvm::SMLoc loc, const llvm::Twine &msg,
                            llvm::ArrayRef<llvm::SMRange> ranges) {
  report(DiagSeverity::Note, loc, msg, ranges);
}

void DiagnosticEngine::note(llvm::SMRange range, const llvm::Twine &msg) {
  report(DiagSeverity::Note, range.Start, msg, range);
}

void DiagnosticEngine::remark(llvm::SMLoc loc, const llvm::Twine &msg,
                              llvm::ArrayRef<llvm::SMRange> ranges) {
  report(DiagSeverity::Remark, loc, msg, ranges);
}

std::pair<unsigned, unsigned> DiagnosticEngine::lineCol(llvm::SMLoc loc) const {
  if (!loc.isValid())
    return {0, 0};
  unsigned bufferId = sourceMgr.FindBufferContainingLoc(loc);
  if (bufferId == 0)
    return {0, 0};
  return sourceMgr.getLineAndColumn(loc, bufferId);
}

llvm::StringRef DiagnosticEngine::bufferIdentifier(llvm::SMLoc loc) const {
  unsigned bufferId = 0;
  if (loc.isValid())
    bufferId = sourceMgr.FindBufferContainingLoc(loc);
  if (bufferId == 0) {
    if (sourceMgr.getNumBuffers() == 0)
      return "";
    bufferId = sourceMgr.getMainFileID();
  }
  return sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier();
}
