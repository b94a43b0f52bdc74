//===- InputFile.h - Bounded input files ------------------------*- C++ -*-===//
//
// The driver's inputs (the .tile source, --instances) are read through here
// with a size limit, so that `tilec /dev/zero` or a runaway generator is an
// error naming the limit instead of LLVM running out of memory.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SUPPORT_INPUTFILE_H
#define TILEC_SUPPORT_INPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace tilec {

/// The largest input tilec reads: a .tile source is a few KiB.
inline constexpr uint64_t kMaxInputBytes = uint64_t(16) << 20;

/// Reads `path` (`-` is stdin, devices and pipes are read up to the limit)
/// into a buffer. On failure returns null and sets `problem` to a message
/// (`cannot read '<path>': ...`).
std::unique_ptr<llvm::MemoryBuffer> readInputFile(llvm::StringRef path,
                                                  std::string &problem,
                                                  uint64_t limit = kMaxInputBytes);

} // namespace tilec

#endif // TILEC_SUPPORT_INPUTFILE_H
