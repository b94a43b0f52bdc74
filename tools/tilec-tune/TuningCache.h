//===- TuningCache.h - tilec-tune manifests and tuning caches ---*- C++ -*-===//
//
// The two files of the offline tuning flow, in one place so that the three
// tools agree on them:
//
// - DIR/manifest.json (tilec-tune writes it, tilec-bench --tune reads it):
//   the source and its SHA-256, the target, and per autotune space (one
//   factory instance) its untuned bindings, the decorator's options and
//   every configuration with its image and metadata, or why it was dropped.
// - the tuning cache (tilec-bench --tune writes or updates it, tilec
//   --tuning-cache reads it): one entry per (source hash, factory,
//   bindings, chip) with every configuration's time and the best one.
//
// Plain C++ and nlohmann/json (no LLVM, no CUDA), so every tool links it.
// docs/tuning.md describes both formats.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TOOLS_TUNINGCACHE_H
#define TILEC_TOOLS_TUNINGCACHE_H

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilec::tuning {

using Json = nlohmann::ordered_json;

inline constexpr const char *kManifestFormat = "tilec-tune-manifest";
inline constexpr const char *kCacheFormat = "tilec-tuning-cache";
inline constexpr int kFormatVersion = 1;

/// A malformed manifest or cache; the message names the key at fault.
class TuningError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// What a tuning result is filed under.
struct CacheKey {
  std::string sourceSha256;
  std::string factory;
  Json bindings = Json::object(); ///< untuned parameter -> value
  std::string chip;               ///< the compile target, "sm_90a"
};

/// Key order does not matter; 4096 equals 4096.0.
bool sameValue(const Json &a, const Json &b);

/// `{"M": 4096, "dtype": "float16"}` as `M=4096 dtype=float16`.
std::string describeConfig(const Json &config);

/// Parses `text` as a manifest (`what` = kManifestFormat) or a cache,
/// checking its format and version. Throws TuningError.
Json parseFormat(const std::string &text, const char *what);

/// A fresh, empty cache.
Json emptyCache();

/// Whether a cache entry is filed under `key`.
bool entryMatches(const Json &entry, const CacheKey &key);

/// Adds `entry` to `cache`, replacing an entry with the same key. Returns
/// true if one was replaced.
bool mergeEntry(Json &cache, Json entry);

/// The fastest timed result of `entry` whose configuration is one of
/// `allowed` (the configurations the source lists now, minus those a -D
/// contradicts); nullopt if none. `ms` receives its median time.
std::optional<Json> pickBest(const Json &entry,
                             const std::vector<Json> &allowed,
                             double *ms = nullptr);

/// Why no entry matches `key`, for the warning: the nearest entry's
/// difference ("the source changed since it was tuned", "it was tuned for
/// sm_80", "it was tuned with M=2048"), or "" when the cache has nothing
/// for the factory.
std::string explainMiss(const Json &cache, const CacheKey &key);

} // namespace tilec::tuning

#endif // TILEC_TOOLS_TUNINGCACHE_H
