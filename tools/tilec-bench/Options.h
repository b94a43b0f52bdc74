//===- Options.h - tilec-bench's command line -------------------*- C++ -*-===//
#ifndef TILEC_BENCH_OPTIONS_H
#define TILEC_BENCH_OPTIONS_H

#include "Fill.h"
#include "Plan.h"
#include "Runner.h"

#include <iosfwd>
#include <map>
#include <string>

namespace tilec::bench {

struct BenchOptions {
  std::string image;    ///< PTX or cubin
  std::string metadata; ///< tilec --json output; default: IMAGE's stem + .json
  std::string function; ///< which prim_func instance; default: the only one
  PlanOptions plan;
  RunOptions run;
  std::string flops, bytes; ///< work formulas
  bool json = false;
  std::string saveOutput, checkAgainst;
  double rtol = 1e-2, atol = 1e-2, maxMismatchedRatio = 0.01;
  // --tune DIR
  std::string tuneDir, cachePath;
  double timeoutSeconds = -1; ///< < 0: the manifest's (TileLang: 100 s)
  bool verbose = false;
};

/// bench/harness/common.h's medianMs, which `--method harness` follows.
constexpr int kHarnessWarmupIters = 10;
constexpr int kHarnessIters = 50;

/// Parses argv. Returns -1 to go on, else the exit status (0 after --help,
/// 2 for a usage error, with the message on `err`).
int parseBenchOptions(int argc, const char *const *argv, BenchOptions &options,
                      std::ostream &out, std::ostream &err);

} // namespace tilec::bench

#endif // TILEC_BENCH_OPTIONS_H
