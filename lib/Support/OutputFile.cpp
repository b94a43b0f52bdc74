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

#include <unistd.h>

using namespace llvm;

namespace tilec {

/// The file a write to `path` lands in: symbolic links followed to their
/// final target (which may not exist yet, as `ln -s new.ptx out.ptx`).
static std::string resolveLinks(StringRef path) {
  SmallString<256> current(path);
  for (int hop = 0; hop < 40; ++hop) {
    sys::fs::file_status status;
    if (sys::fs::status(current, status, /*follow=*/false) ||
        status.type() != sys::fs::file_type::symlink_file)
      return std::string(current);
    SmallString<256> real;
    if (!sys::fs::real_path(current, real))
      return std::string(real);
    // A dangling link: read it and go on from where it points.
    char buffer[4096];
    ssize_t n = ::readlink(current.c_str(), buffer, sizeof(buffer) - 1);
    if (n < 0)
      return std::string(current);
    StringRef target(buffer, size_t(n));
    if (sys::path::is_absolute(target)) {
      current = target;
    } else {
      SmallString<256> next(current);
      sys::path::remove_filename(next);
      sys::path::append(next, target);
      current = next;
    }
  }
  return std::string(current);
}

/// Whether `path` exists and is neither a regular file nor a folder (a
/// character device, a FIFO, a socket): replacing it would destroy it.
static bool isSpecialFile(StringRef path) {
  sys::fs::file_status status;
  if (sys::fs::status(path, status))
    return false;
  sys::fs::file_type type = status.type();
  return type != sys::fs::file_type::regular_file &&
         type != sys::fs::file_type::directory_file &&
         type != sys::fs::file_type::file_not_found;
}

Error writeFileAtomically(StringRef path,
                          function_ref<Error(raw_ostream &)> write) {
  if (path == "-")
    return write(outs());
  std::string target = resolveLinks(path);
  if (isSpecialFile(target)) {
    std::error_code ec;
    raw_fd_ostream os(target, ec, sys::fs::OF_None);
    if (ec)
      return errorCodeToError(ec);
    if (Error e = write(os))
      return e;
    os.close();
    if (os.has_error()) {
      std::error_code error = os.error();
      os.clear_error();
      return errorCodeToError(error);
    }
    return Error::success();
  }
  // writeToOutput takes a std::function; wrap the ref for its lifetime.
  return writeToOutput(target, [&](raw_ostream &os) { return write(os); });
}

Error writeFileAtomically(StringRef path, StringRef bytes) {
  return writeFileAtomically(path, [&](raw_ostream &os) {
    os << bytes;
    return Error::success();
  });
}

std::string checkOutputWritable(StringRef given) {
  if (given == "-")
    return "";
  std::string resolved = resolveLinks(given);
  StringRef path = resolved;
  if (isSpecialFile(path)) {
    // Written in place: the file itself must be writable.
    if (sys::fs::access(path, sys::fs::AccessMode::Write))
      return ("cannot write '" + given + "': permission denied").str();
    return "";
  }
  SmallString<256> dir(path);
  sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  if (!sys::fs::is_directory(dir))
    return ("cannot write '" + given + "': folder '" + dir +
            "' does not exist")
        .str();
  if (sys::fs::is_directory(path))
    return ("cannot write '" + given + "': it is a folder").str();
  // access() honours the effective user, so root passes here even on a
  // read-only folder; the rename in writeFileAtomically still reports those.
  if (sys::fs::access(dir, sys::fs::AccessMode::Write))
    return ("cannot write '" + given + "': folder '" + dir +
            "' is not writable")
        .str();
  return "";
}

/// Whether `a` and `b` name one file: the same device and inode when both
/// exist, else the same absolute path once links are followed.
static bool sameFile(StringRef a, StringRef b) {
  if (a == "-" || b == "-")
    return a == b;
  bool equal = false;
  if (!sys::fs::equivalent(a, b, equal))
    return equal;
  auto canonical = [](StringRef p) {
    SmallString<256> path(resolveLinks(p));
    sys::fs::make_absolute(path);
    sys::path::remove_dots(path, /*remove_dot_dot=*/true);
    return std::string(path);
  };
  return canonical(a) == canonical(b);
}

std::string checkOutputConflicts(const std::vector<NamedFile> &outputs,
                                 const std::vector<NamedFile> &inputs) {
  for (const NamedFile &out : outputs) {
    for (const NamedFile &in : inputs)
      if (out.path != "-" && in.path != "-" && sameFile(out.path, in.path))
        return out.role + " '" + out.path + "' is " + in.role +
               "; refusing to overwrite it";
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    for (size_t j = i + 1; j < outputs.size(); ++j)
      if (sameFile(outputs[i].path, outputs[j].path))
        return outputs[i].path == "-"
                   ? outputs[i].role + " and " + outputs[j].role +
                         " both write to stdout"
                   : outputs[i].role + " and " + outputs[j].role +
                         " both name '" + outputs[j].path + "'";
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
