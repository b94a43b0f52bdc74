//===- OutputFile.cpp - Crash-safe output files ---------------------------===//
//
// Thin layer over llvm::writeToOutput, which already implements the
// temporary-file-and-rename protocol; what tilec adds is an early
// writability check (so the error names the folder) and depfile rendering.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace tilec {

Error writeFileAtomically(StringRef path,
                          function_ref<Error(raw_ostream &)> write) {
  // writeToOutput takes a std::function; wrap the ref for its lifetime.
  return writeToOutput(path, [&](raw_ostream &os) { return write(os); });
}

Error writeFileAtomically(StringRef path, StringRef bytes) {
  return writeFileAtomically(path, [&](raw_ostream &os) {
    os << bytes;
    return Error::success();
  });
}

std::string checkOutputWritable(StringRef path) {
  if (path == "-")
    return "";
  SmallString<256> dir(path);
  sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  if (!sys::fs::is_directory(dir))
    return ("cannot write '" + path + "': folder '" + dir +
            "' does not exist")
        .str();
  if (sys::fs::is_directory(path))
    return ("cannot write '" + path + "': it is a folder").str();
  // access() honours the effective user, so root passes here even on a
  // read-only folder; the rename in writeFileAtomically still reports those.
  if (sys::fs::access(dir, sys::fs::AccessMode::Write))
    return ("cannot write '" + path + "': folder '" + dir +
            "' is not writable")
        .str();
  return "";
}

static void appendEscaped(std::string &out, StringRef s) {
  for (char c : s) {
    if (c == ' ' || c == '#')
      out += '\\';
    else if (c == '$')
      out += '$';
    out += c;
  }
}

std::string renderDepfile(StringRef target,
                          const std::vector<std::string> &deps) {
  std::string out;
  appendEscaped(out, target);
  out += ':';
  for (const std::string &dep : deps) {
    out += " \\\n  ";
    appendEscaped(out, dep);
  }
  out += '\n';
  return out;
}

} // namespace tilec
