//===- Runner.h - Launching and timing a plan on the GPU --------*- C++ -*-===//
//
// The measurement follows TileLang's do_bench (itself Triton's): a few
// launches estimate the time of one, the warm-up and the repetitions are
// budgets in milliseconds turned into counts from that estimate, and each
// repetition is timed alone with a pair of CUDA events after the L2 cache
// was flushed by writing a buffer twice its size (so every repetition
// reads its inputs from HBM, as a kernel in a real program usually does).
// That measures the GPU in the state a busy program keeps it in: after
// ~125 ms of back-to-back launches a large fp16 GEMM runs at the clocks
// its power limit allows. `--method harness` instead times what
// bench/harness/common.h's medianMs does (10 launches of warm-up, 50
// timed, no flush): a burst from an idle GPU, which still runs at its boost
// clock and reads up to ~10% faster for a power-bound GEMM (issue 14).
// Before any timing, the kernel runs once on the freshly filled tensors;
// that is the output `--save-output` keeps and `--check-against` compares.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_BENCH_RUNNER_H
#define TILEC_BENCH_RUNNER_H

#include "Plan.h"

#include <string>
#include <vector>

namespace tilec::bench {

struct RunOptions {
  int device = 0;
  uint64_t seed = 0;
  double warmupMs = 25;
  double repMs = 100;
  int iters = 0;       ///< > 0: exactly this many timed repetitions
  int warmupIters = 0; ///< > 0: exactly this many warm-up launches
  int maxIters = 10000;
  bool flushL2 = true;
};

struct DeviceInfo {
  std::string name;
  int ccMajor = 0, ccMinor = 0;
  int sms = 0;
  int l2Bytes = 0;
  int driverVersion = 0;
};

struct Timing {
  std::vector<double> ms; ///< per repetition, sorted
  int warmupIters = 0;
  double median() const;
  double min() const { return ms.empty() ? 0 : ms.front(); }
  double max() const { return ms.empty() ? 0 : ms.back(); }
  double mean() const;
};

/// Every tensor's bytes after the first launch, in Plan::tensors order.
using Snapshot = std::vector<std::vector<uint8_t>>;

/// Loads `image` (PTX text or a cubin), runs and times `plan`. When
/// `snapshot` is non-null it receives the tensors after the first launch.
/// False with `error` set on any driver failure (no driver, no device, a
/// module that does not load, a launch error).
bool runPlan(const std::string &image, const Plan &plan,
             const RunOptions &options, DeviceInfo &device, Timing &timing,
             Snapshot *snapshot, std::string &error);

/// The statistic of sorted `ms` (exposed for tests).
double medianOf(const std::vector<double> &sorted);

} // namespace tilec::bench

#endif // TILEC_BENCH_RUNNER_H
