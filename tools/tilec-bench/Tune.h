//===- Tune.h - tilec-bench --tune DIR --------------------------*- C++ -*-===//
//
// Times every configuration of a tilec-tune directory and writes the tuning
// cache. Each configuration runs in a child tilec-bench process: a kernel
// that faults poisons its CUDA context, and one that hangs can only be
// stopped by killing its process, so neither may share a process with the
// others. The factory's autotune keywords are honored as TileLang's
// autotuner does: `warmup` and `rep` are the timing budgets in ms,
// `timeout` the seconds one configuration may take, `supply_type` the
// input distribution, `skip_check` whether each output is compared (with
// `rtol`, `atol`, `max_mismatched_ratio`) against the first
// configuration's. Inputs come from one seed for every configuration, which
// is what `cache_input_tensors=True` asks for; with False TileLang draws
// new inputs per configuration, which the cross-configuration check here
// cannot allow, so the flag is reported and the same inputs are used.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_BENCH_TUNE_H
#define TILEC_BENCH_TUNE_H

#include "Options.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace tilec::bench {

/// Runs `argv` (argv[0] the program) with a wall-clock limit; returns its
/// exit status (-1 when it could not start, -2 when killed at the limit)
/// and what it wrote on stdout and stderr.
int runChild(const std::vector<std::string> &argv, double timeoutSeconds,
             std::string &out, std::string &err);

int runTune(const BenchOptions &options, const std::string &self,
            std::ostream &out, std::ostream &err);

} // namespace tilec::bench

#endif // TILEC_BENCH_TUNE_H
