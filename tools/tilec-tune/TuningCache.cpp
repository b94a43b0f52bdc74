//===- TuningCache.cpp - tilec-tune manifests and tuning caches -----------===//

#include "TuningCache.h"

namespace tilec::tuning {

namespace {
const Json &at(const Json &j, const char *key) {
  if (!j.is_object() || !j.contains(key))
    throw TuningError(std::string("missing key `") + key + "`");
  return j.at(key);
}

std::string scalarText(const Json &v) {
  if (v.is_string())
    return v.get<std::string>();
  if (v.is_boolean())
    return v.get<bool>() ? "True" : "False";
  return v.dump();
}
} // namespace

bool sameValue(const Json &a, const Json &b) {
  // nlohmann::json (std::map) compares objects independently of key order
  // and numbers across integer/float representations.
  return nlohmann::json::parse(a.dump()) == nlohmann::json::parse(b.dump());
}

std::string describeConfig(const Json &config) {
  std::string text;
  for (const auto &[k, v] : config.items())
    text += (text.empty() ? "" : " ") + k + "=" + scalarText(v);
  return text.empty() ? "(defaults)" : text;
}

Json parseFormat(const std::string &text, const char *what) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    throw TuningError(std::string("not valid JSON: ") + e.what());
  }
  const Json &format = at(j, "format");
  if (!format.is_string() || format.get<std::string>() != what)
    throw TuningError(std::string("not a ") + what + " file (`format` is " +
                      format.dump() + ")");
  const Json &version = at(j, "format_version");
  if (!version.is_number_integer() || version.get<int>() != kFormatVersion)
    throw TuningError("format version " + version.dump() +
                      "; this tool reads version " +
                      std::to_string(kFormatVersion));
  if (std::string(what) == kCacheFormat && !at(j, "entries").is_array())
    throw TuningError("`entries` is not a list");
  if (std::string(what) == kManifestFormat && !at(j, "spaces").is_array())
    throw TuningError("`spaces` is not a list");
  return j;
}

Json emptyCache() {
  Json j;
  j["format"] = kCacheFormat;
  j["format_version"] = kFormatVersion;
  j["entries"] = Json::array();
  return j;
}

bool entryMatches(const Json &entry, const CacheKey &key) {
  return entry.is_object() && entry.value("source_sha256", "") == key.sourceSha256 &&
         entry.value("factory", "") == key.factory &&
         entry.value("chip", "") == key.chip && entry.contains("bindings") &&
         sameValue(entry.at("bindings"), key.bindings);
}

bool mergeEntry(Json &cache, Json entry) {
  CacheKey key;
  key.sourceSha256 = entry.value("source_sha256", "");
  key.factory = entry.value("factory", "");
  key.chip = entry.value("chip", "");
  key.bindings = entry.value("bindings", Json::object());
  Json &entries = cache["entries"];
  for (Json &old : entries)
    if (entryMatches(old, key)) {
      old = std::move(entry);
      return true;
    }
  entries.push_back(std::move(entry));
  return false;
}

std::optional<Json> pickBest(const Json &entry, const std::vector<Json> &allowed,
                             double *ms) {
  std::optional<Json> best;
  double bestMs = 0;
  if (!entry.contains("results") || !entry.at("results").is_array())
    return std::nullopt;
  for (const Json &r : entry.at("results")) {
    if (!r.is_object() || r.value("status", "") != "ok" ||
        !r.contains("median_ms") || !r.at("median_ms").is_number() ||
        !r.contains("config"))
      continue;
    const Json &config = r.at("config");
    bool listed = false;
    for (const Json &a : allowed)
      listed = listed || sameValue(a, config);
    if (!listed)
      continue;
    double t = r.at("median_ms").get<double>();
    if (!best || t < bestMs) {
      best = config;
      bestMs = t;
    }
  }
  if (best && ms)
    *ms = bestMs;
  return best;
}

std::string explainMiss(const Json &cache, const CacheKey &key) {
  std::string why;
  int bestScore = -1;
  for (const Json &e : cache.at("entries")) {
    if (!e.is_object() || e.value("factory", "") != key.factory)
      continue;
    bool sameSource = e.value("source_sha256", "") == key.sourceSha256;
    bool sameChip = e.value("chip", "") == key.chip;
    bool sameBindings =
        e.contains("bindings") && sameValue(e.at("bindings"), key.bindings);
    int score = int(sameSource) + int(sameChip) + int(sameBindings);
    if (score <= bestScore)
      continue;
    bestScore = score;
    std::vector<std::string> parts;
    if (!sameSource)
      parts.push_back("the source changed since it was tuned");
    if (!sameChip)
      parts.push_back("it was tuned for " + e.value("chip", "?"));
    if (!sameBindings) {
      std::string diff;
      Json theirs = e.value("bindings", Json::object());
      for (const auto &[k, v] : theirs.items())
        if (!key.bindings.contains(k) || !sameValue(key.bindings.at(k), v))
          diff += (diff.empty() ? "" : " ") + k + "=" + scalarText(v);
      parts.push_back("it was tuned with " +
                      (diff.empty() ? std::string("other bindings") : diff));
    }
    why.clear();
    for (size_t i = 0; i < parts.size(); ++i)
      why += (i ? (i + 1 == parts.size() ? " and " : ", ") : "") + parts[i];
  }
  return why;
}

} // namespace tilec::tuning
