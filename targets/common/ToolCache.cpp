//===- ToolCache.cpp - A content-addressed cache of external tool runs ---===//

#include "ToolCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace llvm;

namespace tilec::detail {

std::string toolCacheDir() {
  if (const char *dir = std::getenv("TILEC_CACHE_DIR")) {
    StringRef value(dir);
    if (value.empty() || value.equals_insensitive("off") || value == "0")
      return "";
    return value.str();
  }
  SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    path = xdg;
  } else if (const char *home = std::getenv("HOME"); home && *home) {
    path = home;
    sys::path::append(path, ".cache");
  } else {
    return "";
  }
  sys::path::append(path, "tilec");
  return std::string(path);
}

std::string toolCacheKey(StringRef tool, ArrayRef<std::string> args,
                         StringRef input) {
  SHA256 hash;
  auto add = [&](StringRef text) {
    // Length-prefixed, so that no two sequences of fields hash alike.
    std::string length = std::to_string(text.size()) + ":";
    hash.update(length);
    hash.update(text);
  };
  add("tilec-tool-cache-v1");
  add(tool);
  sys::fs::file_status status;
  if (!sys::fs::status(tool, status)) {
    add(std::to_string(status.getSize()));
    add(std::to_string(
        status.getLastModificationTime().time_since_epoch().count()));
  }
  for (const std::string &arg : args)
    add(arg);
  add(input);
  return toHex(hash.final(), /*LowerCase=*/true);
}

static std::string entryPath(StringRef key, StringRef suffix) {
  SmallString<256> path(toolCacheDir());
  sys::path::append(path, key.take_front(2), key.drop_front(2) + suffix);
  return std::string(path);
}

std::optional<CachedRun> lookupToolCache(StringRef key) {
  if (toolCacheDir().empty())
    return std::nullopt;
  auto output = MemoryBuffer::getFile(entryPath(key, ".out"),
                                      /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  auto report = MemoryBuffer::getFile(entryPath(key, ".log"));
  if (!output || !report)
    return std::nullopt;
  return CachedRun{(*output)->getBuffer().str(), (*report)->getBuffer().str()};
}

/// Writes `bytes` to `path` through a temporary file in the same folder.
static bool writeAtomically(const std::string &path, StringRef bytes) {
  SmallString<256> temp;
  int fd;
  if (sys::fs::createUniqueFile(path + ".tmp-%%%%%%", fd, temp))
    return false;
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    os.close();
    if (os.has_error()) {
      os.clear_error();
      sys::fs::remove(temp);
      return false;
    }
  }
  if (sys::fs::rename(temp, path)) {
    sys::fs::remove(temp);
    return false;
  }
  return true;
}

void storeToolCache(StringRef key, const CachedRun &run) {
  if (toolCacheDir().empty())
    return;
  std::string output = entryPath(key, ".out");
  if (sys::fs::create_directories(sys::path::parent_path(output)))
    return;
  // The report last: a lookup needs both, so a half-written entry misses.
  if (writeAtomically(output, run.output))
    writeAtomically(entryPath(key, ".log"), run.report);
}

} // namespace tilec::detail
