//===- TuningLookup.cpp - tilec --tuning-cache ----------------------------===//
//
// Listing the search spaces (Autotune.h) is a second, cheap elaboration of
// the file's top level in its own MLIR context; the real compile then runs
// with the winners bound like -D values, so a tuned compile is an ordinary
// compile of one configuration.
//
//===----------------------------------------------------------------------===//

#include "TuningLookup.h"

#include "TuningCache.h"

#include "tilec/Frontend/Diagnostics.h"
#include "tilec/MLIRGen/Autotune.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace tilec {

using tuning::Json;

std::string sourceSha256(StringRef bytes) {
  std::array<uint8_t, 32> hash = SHA256::hash(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  return toHex(hash, /*LowerCase=*/true);
}

static Json toNlohmann(const json::Value &v) {
  std::string text;
  raw_string_ostream os(text);
  os << v;
  os.flush();
  return Json::parse(text);
}

bool applyTuningCache(const std::string &cachePath, StringRef source,
                      const ast::Module &module, DiagnosticEngine &diag,
                      MLIRGenOptions &options, const std::string &chip) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file =
      MemoryBuffer::getFile(cachePath, /*IsText=*/true);
  if (!file) {
    WithColor::error(diag.getStream(), "tilec")
        << "cannot read the tuning cache '" << cachePath
        << "': " << file.getError().message() << "\n";
    return false;
  }
  Json cache;
  try {
    cache = tuning::parseFormat((*file)->getBuffer().str(), tuning::kCacheFormat);
  } catch (const tuning::TuningError &e) {
    WithColor::error(diag.getStream(), "tilec")
        << cachePath << ": " << e.what() << "\n";
    return false;
  }

  mlir::MLIRContext context;
  context.printOpOnDiagnostic(false);
  std::optional<std::vector<AutotuneSpace>> spaces =
      listAutotuneSpaces(module, context, diag, options);
  if (!spaces)
    return false;
  if (spaces->empty()) {
    WithColor::warning(diag.getStream(), "tilec")
        << "--tuning-cache: this file has no @tilelang.autotune factory\n";
    return true;
  }
  tuning::CacheKey key;
  key.sourceSha256 = sourceSha256(source);
  key.chip = chip;
  for (const AutotuneSpace &space : *spaces) {
    key.factory = space.factory;
    key.bindings = toNlohmann(json::Value(json::Object(space.bindings)));
    std::string what = space.factory + " (" + tuning::describeConfig(key.bindings) + ")";
    const Json *entry = nullptr;
    for (const Json &e : cache.at("entries"))
      if (tuning::entryMatches(e, key))
        entry = &e;
    std::vector<Json> allowed;
    for (const json::Object &c : space.configs)
      allowed.push_back(toNlohmann(json::Value(json::Object(c))));
    double ms = 0;
    std::optional<Json> best = entry ? tuning::pickBest(*entry, allowed, &ms) : std::nullopt;
    if (!best) {
      std::string why = entry ? "its entry has no timed configuration the file "
                                "still lists"
                              : tuning::explainMiss(cache, key);
      WithColor::warning(diag.getStream(), "tilec")
          << "tuning cache '" << cachePath << "' has no entry for " << what
          << " on " << chip << (why.empty() ? "" : " (" + why + ")")
          << "; compiling the configuration the source gives\n";
      continue;
    }
    // Bind the winner; what the user bound already wins.
    std::vector<std::pair<std::string, std::string>> &target =
        options.instances.empty() ? options.defines
                                  : options.instances[space.instanceIndex].params;
    for (const auto &[name, value] : best->items()) {
      bool given = false;
      for (const auto &[k, v] : target)
        given = given || k == name;
      if (!options.instances.empty())
        for (const auto &[k, v] : options.defines)
          given = given || k == name;
      if (given)
        continue;
      json::Value v = cantFail(json::parse(value.dump()));
      target.push_back({name, toDefineText(v)});
    }
    diag.getStream() << "tilec: note: tuning cache picked "
                     << tuning::describeConfig(*best) << " for " << what << ": "
                     << format("%.4f", ms) << " ms on "
                     << entry->value("device", "?") << ", fastest of "
                     << entry->at("results").size() << " configurations\n";
  }
  return true;
}

} // namespace tilec
