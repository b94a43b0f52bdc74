//===- Driver.h - The tilec compilation pipeline ----------------*- C++ -*-===//
//
// What the command line asked for, and the one entry point that runs the
// pipeline. Kept free of CLI11 so tests and other front ends (a CMake helper,
// a tuning runner) can drive the compiler the same way.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TOOLS_DRIVER_H
#define TILEC_TOOLS_DRIVER_H

#include "tilec/Support/IndexWidth.h"
#include "tilec/Target/Header.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace tilec {

struct Capture;

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
  /// --verify-each: verify the IR after every pass of the tile lowering
  /// (release builds otherwise verify once, after the last; debug builds
  /// always verify each).
  bool verifyEach = false;
  /// --fast-math: fastmath<fast> on the kernels' float ops (approximate
  /// division and exp/log/sin, no NaN/Inf guarantees).
  bool fastMath = false;
  /// --overlap-gemms: a warp-specialized loop's last gemm stays in flight
  /// while the next iteration's first one is issued, wherever it can (by
  /// default tile-plan-warp-specialize decides where it pays);
  /// --no-overlap-gemms: nowhere.
  bool overlapGemms = false;
  bool noOverlapGemms = false;
  /// --pingpong (experimental): the consumer warpgroups of a
  /// warp-specialized loop of several gemms take turns issuing the first.
  bool pingpong = false;
  /// --remarks: the passes' decisions a user may want explained, as
  /// `remark:` lines at the source (which tensor-core path a kernel's
  /// gemms take, and why not the wider one).
  bool remarks = false;
  /// --tuning-cache: bind each autotune factory's fastest recorded
  /// configuration (TuningLookup.h).
  std::string tuningCachePath;
  /// --target a,b: every target of a multi-target header (MultiTarget.cpp);
  /// empty or one entry: `target` alone.
  std::vector<std::string> targets;
  /// --namespace a::b: the header's namespace (default tilec_kernels::<stem>).
  std::string nameSpace;
  /// --cuda-path / --rocm-path: roots of the toolkits (Toolchain.h).
  std::string cudaPath;
  std::string rocmPath;
  /// -O0 .. -O3: the LLVM optimization level of the device code (the IR
  /// pipeline and the backend). ptxas stays at -O3 (CodegenOptions).
  unsigned optLevel = 3;
  /// -findex-bits=auto|32|64 (tilec/Support/IndexWidth.h).
  IndexBits indexBits = IndexBits::Auto;
  /// -ftime-report: per-stage and per-pass times on stderr.
  bool timeReport = false;
  /// Set by the multi-target driver: runDriver fills it (the launch
  /// description, the PTX and the binary) instead of writing outputs.
  Capture *capture = nullptr;
};

/// What one target's compile hands the multi-target driver.
struct Capture {
  header::Unit unit;   ///< image: the cubin / HSACO
  std::string ptx;     ///< NVIDIA: the PTX the cubin was assembled from
  std::vector<std::string> deps;
  /// Where the compile's diagnostics go instead of stderr (unset: stderr),
  /// so that targets compiled side by side print theirs in target order.
  llvm::raw_ostream *log = nullptr;
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

/// Compiles for every one of `options.targets` and writes one header (and
/// JSON) holding an image per target (MultiTarget.cpp).
int runMultiTargetDriver(DriverOptions options);

} // namespace tilec

#endif // TILEC_TOOLS_DRIVER_H
