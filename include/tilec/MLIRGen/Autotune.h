//===- Autotune.h - The search spaces of @tilelang.autotune -----*- C++ -*-===//
//
// What `tilec-tune` enumerates and what `tilec --tuning-cache` looks up: for
// each instance of each `@tilelang.autotune` factory, its configurations
// (the `configs=` list, or what a `configs=` callable returns for the
// instance's bindings), the bindings of the parameters no configuration
// names (the tuning cache's key), and the decorator's profiling keywords.
// The factory bodies are not run: only the module's top level, the
// parameter defaults and the configs callable.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_MLIRGEN_AUTOTUNE_H
#define TILEC_MLIRGEN_AUTOTUNE_H

#include "tilec/MLIRGen/MLIRGen.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec {

struct AutotuneSpace {
  std::string factory;
  /// Index into MLIRGenOptions::instances of the instance this space is
  /// for; 0 (and no instances) for the implicit one.
  unsigned instanceIndex = 0;
  /// "file.tile:LINE" of the factory's `def`.
  std::string location;
  /// Each configuration: parameter -> value (numbers, bools, strings,
  /// lists), in the order the decorator lists them. Configurations that
  /// contradict a -D or --instances value of a tuned parameter are dropped
  /// (`droppedByDefines` counts them), as TileLang skips tuning what the
  /// caller already fixed.
  std::vector<llvm::json::Object> configs;
  unsigned droppedByDefines = 0;
  /// Every parameter some configuration names, in first-seen order.
  std::vector<std::string> tunedParams;
  /// The other parameters' values (from --instances, -D, else the
  /// default): the key a tuning result is filed under.
  llvm::json::Object bindings;
  /// The tuned parameters' own values (-D or default): the configuration a
  /// compile without a tuning cache builds, when every one has a value.
  llvm::json::Object defaults;
  /// The decorator's keywords: warmup, rep, timeout, rtol, atol,
  /// max_mismatched_ratio (numbers), skip_check, cache_input_tensors
  /// (bools), supply_type ("normal", "uniform", "integer", "zero", "one",
  /// "auto").
  llvm::json::Object options;
  /// Keywords that name host Python (ref_prog, supply_prog,
  /// manual_check_prog, do_not_specialize): accepted and not used.
  std::vector<std::string> ignoredOptions;
};

/// The search spaces of every autotune factory of `module` (source order),
/// or nullopt after reporting located errors through `diag`.
std::optional<std::vector<AutotuneSpace>>
listAutotuneSpaces(const ast::Module &module, mlir::MLIRContext &context,
                   DiagnosticEngine &diag, const MLIRGenOptions &options);

/// A configuration value as the text -D takes (`128`, `True`, `"float16"`).
std::string toDefineText(const llvm::json::Value &value);

} // namespace tilec

#endif // TILEC_MLIRGEN_AUTOTUNE_H
