//===- InputFile.cpp - Bounded input files --------------------------------===//
//
// A regular file is checked by its size before it is read; anything else
// (stdin, a pipe, a device such as /dev/zero) is read in chunks until its
// end or one byte past the limit.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/InputFile.h"

#include "llvm/Support/Errc.h"
#include "llvm/Support/FileSystem.h"

#include <vector>

using namespace llvm;

namespace tilec {

static std::string tooLarge(StringRef path, uint64_t limit) {
  return ("cannot read '" + path + "': it is larger than " +
          Twine(limit >> 20) + " MiB, the most tilec reads from one input")
      .str();
}

std::unique_ptr<MemoryBuffer> readInputFile(StringRef path,
                                            std::string &problem,
                                            uint64_t limit) {
  auto fail = [&](const std::string &why) {
    problem = ("cannot read '" + path + "': " + why).str();
    return nullptr;
  };
  sys::fs::file_t handle;
  bool isStdin = path == "-";
  if (isStdin) {
    handle = sys::fs::getStdinHandle();
  } else {
    Expected<sys::fs::file_t> opened = sys::fs::openNativeFileForRead(path);
    if (!opened)
      return fail(toString(opened.takeError()));
    handle = *opened;
  }
  auto close = [&] {
    if (!isStdin)
      sys::fs::closeFile(handle);
  };
  sys::fs::file_status status;
  if (!sys::fs::status(handle, status) &&
      status.type() == sys::fs::file_type::directory_file) {
    close();
    return fail("it is a folder");
  }
  if (!sys::fs::status(handle, status) &&
      status.type() == sys::fs::file_type::regular_file &&
      status.getSize() > limit) {
    close();
    problem = tooLarge(path, limit);
    return nullptr;
  }
  std::vector<char> data;
  char chunk[65536];
  while (true) {
    Expected<size_t> n = sys::fs::readNativeFile(handle, chunk);
    if (!n) {
      close();
      return fail(toString(n.takeError()));
    }
    if (*n == 0)
      break;
    data.insert(data.end(), chunk, chunk + *n);
    if (data.size() > limit) {
      close();
      problem = tooLarge(path, limit);
      return nullptr;
    }
  }
  close();
  return MemoryBuffer::getMemBufferCopy(StringRef(data.data(), data.size()),
                                        isStdin ? "<stdin>" : path);
}

} // namespace tilec
