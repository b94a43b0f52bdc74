//===- OutputFile.h - Crash-safe output files -------------------*- C++ -*-===//
//
// Every file tilec writes goes through here: the bytes land in a temporary
// file next to the destination and are renamed over it only when the whole
// compile succeeded, so a failed or interrupted build never leaves a partial
// `.ptx`, header or depfile behind for Ninja or Make to trust.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SUPPORT_OUTPUTFILE_H
#define TILEC_SUPPORT_OUTPUTFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tilec {

/// Writes `path` atomically (temporary file in the same folder, then
/// rename). `path == "-"` writes to stdout. A symbolic link is written
/// through: its final target is replaced, the link stays. A path that is
/// not a regular file (a device such as /dev/null, a FIFO) is written in
/// place, never replaced. If `write` returns an error the destination is
/// left untouched and the error is returned.
llvm::Error writeFileAtomically(
    llvm::StringRef path,
    llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);

/// Convenience overload for a ready buffer.
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef bytes);

/// Checks up front that `path`'s folder exists and is writable, so that a
/// doomed compile fails before doing any work. Returns a message or "".
std::string checkOutputWritable(llvm::StringRef path);

/// A file of the command line: how it was given (`-o`, `--header`, `the
/// input`) and its path (`-` is stdout or stdin).
struct NamedFile {
  std::string role;
  std::string path;
};

/// Checks that no output names one of `inputs` (the same file, also through
/// another spelling or a link) and that no two outputs name the same file
/// (two `-` both write to stdout). Returns a message or "".
std::string checkOutputConflicts(const std::vector<NamedFile> &outputs,
                                 const std::vector<NamedFile> &inputs);

/// Renders a Make/Ninja depfile: `target: dep dep ...` with spaces and `$`
/// escaped the way GCC does.
std::string renderDepfile(llvm::StringRef target,
                          const std::vector<std::string> &deps);

} // namespace tilec

#endif // TILEC_SUPPORT_OUTPUTFILE_H
