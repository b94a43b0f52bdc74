//===- ToolCache.h - A content-addressed cache of external tool runs -----===//
//
// ptxas is most of a compile's time (docs: README "Compile time"), and its
// output is a pure function of the PTX, the options and the ptxas binary.
// So its results (the cubin and the -v report) are kept in a cache folder,
// keyed by a SHA-256 of all three: compiling the same kernel again (a fresh
// build folder, another build type, CI with a warm cache, an edit that
// leaves the PTX as it was) skips ptxas. Only successful runs are stored;
// entries are written atomically, so concurrent compiles can share a folder.
//
// The folder: $TILEC_CACHE_DIR; else $XDG_CACHE_HOME/tilec; else
// $HOME/.cache/tilec. TILEC_CACHE_DIR=off (or empty) disables the cache.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TARGETS_COMMON_TOOLCACHE_H
#define TILEC_TARGETS_COMMON_TOOLCACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tilec::detail {

/// The cache folder, or "" when caching is off.
std::string toolCacheDir();

/// A key for running `tool` (its path; its size and modification time stand
/// for its version) with `args` on `input`.
std::string toolCacheKey(llvm::StringRef tool, llvm::ArrayRef<std::string> args,
                         llvm::StringRef input);

/// A cached result: the output file's bytes and the tool's report.
struct CachedRun {
  std::string output;
  std::string report;
};
std::optional<CachedRun> lookupToolCache(llvm::StringRef key);
/// Stores a result; failures to write are ignored (the cache is an
/// optimization).
void storeToolCache(llvm::StringRef key, const CachedRun &run);

} // namespace tilec::detail

#endif // TILEC_TARGETS_COMMON_TOOLCACHE_H
