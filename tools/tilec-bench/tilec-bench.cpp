//===- tilec-bench.cpp - Time a tilec-compiled kernel ---------------------===//
//
// `tilec-bench KERNEL.ptx|.cubin [--meta KERNEL.json]` reads the metadata
// tilec wrote with --json, allocates and fills the kernel's tensors,
// launches it with the recorded grid, block and dynamic shared memory, and
// prints median / min / max time and the rate; `--tune DIR` does it for
// every configuration of a tilec-tune directory (Tune.h).
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "OutputFile.h"
#include "Report.h"
#include "Tune.h"

#include "tilec/Target/Header.h"

#include <fstream>
#include <iostream>
#include <unistd.h>

using namespace tilec;
using namespace tilec::bench;

static bool readFile(const std::string &path, std::string &bytes) {
  std::ifstream is(path, std::ios::binary);
  if (!is)
    return false;
  bytes.assign(std::istreambuf_iterator<char>(is), std::istreambuf_iterator<char>());
  return true;
}

static int fail(const std::string &msg) {
  std::cerr << "tilec-bench: error: " << msg << "\n";
  return 1;
}

int main(int argc, char **argv) {
  BenchOptions o;
  int rc = parseBenchOptions(argc, argv, o, std::cout, std::cerr);
  if (rc >= 0)
    return rc;

  if (!o.tuneDir.empty()) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string selfPath = n > 0 ? std::string(self, size_t(n)) : std::string(argv[0]);
    return runTune(o, selfPath, std::cout, std::cerr);
  }

  std::string image, meta;
  if (!readFile(o.image, image))
    return fail("cannot read '" + o.image + "'");
  if (!readFile(o.metadata, meta))
    return fail("cannot read the metadata '" + o.metadata +
                "' (compile with `tilec ... --json FILE` and give --meta FILE)");
  header::Unit unit;
  try {
    unit = header::parseMetadataJSON(meta, image);
  } catch (const header::HeaderError &e) {
    return fail(o.metadata + ": " + e.what());
  }
  if (unit.image.kind == header::ImageKind::HSACO)
    return fail(o.image + " is an AMD code object; tilec-bench runs NVIDIA kernels");
  const header::Function *fn = nullptr;
  std::string names;
  for (const header::Function &f : unit.functions) {
    names += (names.empty() ? "" : ", ") + f.name;
    if (f.name == o.function || (o.function.empty() && unit.functions.size() == 1))
      fn = &f;
  }
  if (!fn)
    return fail(o.function.empty()
                    ? o.metadata + " has " + std::to_string(unit.functions.size()) +
                          " functions (" + names + "): pick one with --function"
                    : o.metadata + " has no function `" + o.function + "` (it has " +
                          names + ")");

  Plan plan;
  std::string error;
  if (!makePlan(*fn, o.plan, plan, error))
    return fail(error);
  Result result;
  result.plan = &plan;
  result.run = o.run;
  result.maxMismatchedRatio = o.maxMismatchedRatio;
  if (!computeWork(plan, o.flops, o.bytes, result.work, error))
    return fail(error);
  SavedOutput saved;
  if (!o.checkAgainst.empty() && !readSavedOutput(o.checkAgainst, saved, error))
    return fail(error);

  Snapshot snapshot;
  bool wantSnapshot = !o.saveOutput.empty() || !o.checkAgainst.empty();
  if (!runPlan(image, plan, o.run, result.device, result.timing,
               wantSnapshot ? &snapshot : nullptr, error))
    return fail(error);
  if (!o.saveOutput.empty() &&
      !writeSavedOutput(o.saveOutput, plan, o.run.seed, snapshot, error))
    return fail(error);
  if (!o.checkAgainst.empty() &&
      !checkAgainstSaved(plan, o.run.seed, snapshot, saved, o.rtol, o.atol,
                         result.checks, error))
    return fail(error);

  if (o.json)
    std::cout << jsonReport(result).dump(2) << "\n";
  else
    std::cout << textReport(result);
  if (!result.checksPassed()) {
    std::cerr << "tilec-bench: error: the output differs from " << o.checkAgainst << "\n";
    return 1;
  }
  return 0;
}
