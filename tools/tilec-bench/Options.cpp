//===- Options.cpp - tilec-bench's command line ---------------------------===//

#include "Options.h"

#include <CLI/CLI.hpp>

#include <ostream>

namespace tilec::bench {

static const char *kFooter = R"(Work and rates:
  --flops and --bytes are expressions over the factory's bindings (M, N,
  K, dtype sizes...), the dynamic dimensions and, per tensor X, X.numel,
  X.bytes and X.dim0, X.dim1, ...: --flops '2*M*N*K'. Without --bytes the
  bytes moved are the sum of the tensors' sizes.

Tuning:
  tilec-bench --tune DIR [--cache CACHE.json] times every configuration
  tilec-tune compiled into DIR, each in its own process (a crash or a
  timeout drops that configuration only), checks each output against the
  first configuration's unless the factory says skip_check=True, and
  writes the tuning cache that `tilec --tuning-cache` reads.

Exit status: 0 success, 1 failure (no GPU or driver, a kernel error, a
failed check), 2 usage error.
)";

int parseBenchOptions(int argc, const char *const *argv, BenchOptions &o,
                      std::ostream &out, std::ostream &err) {
  CLI::App app{"tilec-bench: time a tilec-compiled kernel on an NVIDIA GPU",
               "tilec-bench"};
  app.footer(kFooter);
  app.add_option("image", o.image, "The kernel image (.ptx or .cubin)");
  app.add_option("--meta", o.metadata,
                 "The metadata JSON tilec wrote with --json (default: the "
                 "image's name with .json)");
  app.add_option("--function", o.function,
                 "The prim_func instance to run (default: the only one)");
  std::vector<std::string> dims, fills;
  app.add_option("--dim", dims, "A dynamic dimension or scalar: --dim m=4096")
      ->allow_extra_args(false);
  app.add_option("--fill", fills,
                 "Distribution: auto, normal, uniform, integer, zero, one; "
                 "NAME=DIST for one tensor")
      ->allow_extra_args(false);
  app.add_option("--seed", o.run.seed, "Seed of the random inputs (default 0)");
  app.add_option("--warmup", o.run.warmupMs, "Warm-up budget in ms (default 25)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--rep", o.run.repMs, "Timing budget in ms (default 100)")
      ->check(CLI::PositiveNumber);
  app.add_option("--iters", o.run.iters, "Exactly this many timed runs")
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup-iters", o.run.warmupIters,
                 "Exactly this many warm-up launches (instead of --warmup)")
      ->check(CLI::PositiveNumber);
  std::string method = "do_bench";
  app.add_option("--method", method,
                 "do_bench (default: TileLang's and Triton's do_bench, the "
                 "steady state), or harness (bench/harness's medianMs: 10 "
                 "warm-up launches, 50 timed, no flush; a burst from idle)")
      ->check(CLI::IsMember({"do_bench", "harness"}));
  bool noFlush = false;
  app.add_flag("--no-flush", noFlush, "Do not flush the L2 cache between runs");
  app.add_option("--device", o.run.device, "CUDA device ordinal (default 0)");
  app.add_option("--flops", o.flops, "Floating-point operations per run (an expression)");
  app.add_option("--bytes", o.bytes, "Bytes moved per run (an expression)");
  app.add_flag("--json", o.json, "Print the result as JSON");
  app.add_option("--save-output", o.saveOutput,
                 "Save every tensor after the first launch to FILE");
  app.add_option("--check-against", o.checkAgainst,
                 "Compare every tensor after the first launch with FILE");
  app.add_option("--rtol", o.rtol, "Relative tolerance of the check (default 1e-2)");
  app.add_option("--atol", o.atol, "Absolute tolerance of the check (default 1e-2)");
  app.add_option("--max-mismatched-ratio", o.maxMismatchedRatio,
                 "Fraction of elements allowed outside the tolerance (default 0.01)");
  app.add_option("--tune", o.tuneDir, "Time every configuration of a tilec-tune directory");
  app.add_option("--cache", o.cachePath,
                 "Tuning cache to write or update (default DIR/tuning-cache.json)");
  app.add_option("--timeout", o.timeoutSeconds,
                 "Seconds one configuration may take (default: the factory's "
                 "timeout, else 100)");
  app.add_flag("-v,--verbose", o.verbose, "Say what is done");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError &e) {
    err << "tilec-bench: error: " << e.what() << "\nRun 'tilec-bench --help' for usage.\n";
    return 2;
  }
  o.run.flushL2 = !noFlush;
  if (method == "harness") {
    // Explicit --warmup-iters / --iters still win.
    o.run.flushL2 = false;
    if (o.run.warmupIters == 0)
      o.run.warmupIters = kHarnessWarmupIters;
    if (o.run.iters == 0)
      o.run.iters = kHarnessIters;
  }
  if (o.image.empty() == o.tuneDir.empty()) {
    err << "tilec-bench: error: give a kernel image, or --tune DIR\n";
    return 2;
  }
  for (const std::string &d : dims) {
    std::string name;
    double value;
    if (!parseBinding(d, name, value)) {
      err << "tilec-bench: error: --dim expects name=number, got '" << d << "'\n";
      return 2;
    }
    o.plan.values[name] = value;
  }
  for (const std::string &f : fills) {
    size_t eq = f.find('=');
    std::string name = eq == std::string::npos ? "" : f.substr(0, eq);
    std::string dist = eq == std::string::npos ? f : f.substr(eq + 1);
    std::optional<Distribution> d = parseDistribution(dist);
    if (!d || (eq != std::string::npos && name.empty())) {
      err << "tilec-bench: error: --fill expects auto, normal, uniform, integer, "
             "zero or one (or NAME=one of them), got '" << f << "'\n";
      return 2;
    }
    if (name.empty())
      o.plan.fill = *d;
    else
      o.plan.fills[name] = *d;
  }
  if (!o.image.empty() && o.metadata.empty()) {
    std::string base = o.image;
    size_t slash = base.find_last_of('/');
    size_t dot = base.find_last_of('.');
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash))
      base = base.substr(0, dot);
    o.metadata = base + ".json";
  }
  if (o.rtol < 0 || o.atol < 0 || o.maxMismatchedRatio < 0 || o.maxMismatchedRatio > 1) {
    err << "tilec-bench: error: tolerances must be >= 0 and the mismatched ratio in [0, 1]\n";
    return 2;
  }
  return -1;
}

} // namespace tilec::bench
