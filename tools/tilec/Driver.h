//===- Driver.h - The tilec compilation pipeline ----------------*- C++ -*-===//
//
// What the command line asked for, and the one entry point that runs the
// pipeline. Kept free of CLI11 so tests and other front ends (a CMake helper,
// a tuning runner) can drive the compiler the same way.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TOOLS_DRIVER_H
#define TILEC_TOOLS_DRIVER_H

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilec {

/// The stage the compile stops at; each one is observable (`--emit=`).
enum class EmitKind {
  AST, Tile, GPU, LLVM, PTX, Cubin, HSACO, Header, JSON,
  Layouts, ///< SVG (or, for -o X.html, HTML) pictures of the layouts
};

struct DriverOptions {
  std::string inputPath;
  std::string outputPath; // empty: derived from input and emit kind
  std::string target = "sm_90a";
  std::optional<EmitKind> emit; // unset: inferred from -o or the target
  std::vector<std::pair<std::string, std::string>> defines;
  std::string instancesPath;
  std::string headerPath;
  std::string jsonPath;
  bool writeDepfile = false;
  std::string depfilePath;
  std::string depTarget;
  bool printIRAfterAll = false;
  /// --fast-math: fastmath<fast> on the kernels' float ops (approximate
  /// division and exp/log/sin, no NaN/Inf guarantees).
  bool fastMath = false;
  /// --tuning-cache: bind each autotune factory's fastest recorded
  /// configuration (TuningLookup.h).
  std::string tuningCachePath;
};

/// Exit codes, as documented in `tilec --help`.
enum ExitCode { ExitSuccess = 0, ExitCompileError = 1, ExitUsageError = 2 };

/// Parses the `--emit=` spelling; nullopt for an unknown stage.
std::optional<EmitKind> parseEmitKind(const std::string &name);
const char *emitKindName(EmitKind kind);

/// Targets tilec knows; the first is the default.
const std::vector<std::string> &knownTargets();

/// Runs the pipeline. Diagnostics go to stderr; returns an ExitCode.
int runDriver(DriverOptions options);

} // namespace tilec

#endif // TILEC_TOOLS_DRIVER_H
