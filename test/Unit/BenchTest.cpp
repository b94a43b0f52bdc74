//===- BenchTest.cpp - tilec-bench's logic without a GPU ------------------===//
//
// The command line, the expression evaluator (launch and work formulas),
// the seeded fills and conversions, the comparisons, the plan built from
// metadata, the driver's no-GPU error, and the tuning-cache lookups.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "Expr.h"
#include "Fill.h"
#include "Options.h"
#include "OutputFile.h"
#include "Plan.h"
#include "Report.h"
#include "TuningCache.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <unistd.h>

using namespace tilec;
using namespace tilec::bench;

namespace {
int parse(std::vector<const char *> args, BenchOptions &o, std::string &err) {
  args.insert(args.begin(), "tilec-bench");
  std::ostringstream out, e;
  int rc = parseBenchOptions(int(args.size()), args.data(), o, out, e);
  err = e.str();
  return rc;
}
} // namespace

TEST_CASE("tilec-bench command line", "[bench]") {
  BenchOptions o;
  std::string err;
  REQUIRE(parse({"k.ptx", "--dim", "m=4096", "--dim", "scale=0.5", "--fill",
                 "uniform", "--fill", "idx=zero", "--flops", "2*M*N*K", "--json",
                 "--warmup", "5", "--rep", "20", "--no-flush", "--seed", "7"},
                o, err) == -1);
  CHECK(o.image == "k.ptx");
  CHECK(o.metadata == "k.json"); // derived from the image
  CHECK(o.plan.values.at("m") == 4096);
  CHECK(o.plan.values.at("scale") == 0.5);
  CHECK(o.plan.fill == Distribution::Uniform);
  CHECK(o.plan.fills.at("idx") == Distribution::Zero);
  CHECK(o.flops == "2*M*N*K");
  CHECK(o.json);
  CHECK(o.run.warmupMs == 5);
  CHECK(o.run.repMs == 20);
  CHECK_FALSE(o.run.flushL2);
  CHECK(o.run.seed == 7);

  BenchOptions m;
  REQUIRE(parse({"dir/k.v2.cubin", "--meta", "x.json"}, m, err) == -1);
  CHECK(m.metadata == "x.json");
  BenchOptions d;
  REQUIRE(parse({"dir.v/k"}, d, err) == -1);
  CHECK(d.metadata == "dir.v/k.json");

  BenchOptions bad;
  CHECK(parse({"k.ptx", "--dim", "m"}, bad, err) == 2);
  CHECK(err.find("--dim expects name=number") != std::string::npos);
  CHECK(parse({"k.ptx", "--fill", "gaussian"}, bad, err) == 2);
  BenchOptions none;
  CHECK(parse({}, none, err) == 2); // neither an image nor --tune
  BenchOptions both;
  CHECK(parse({"k.ptx", "--tune", "dir"}, both, err) == 2);
  CHECK(parse({"k.ptx", "--max-mismatched-ratio", "2"}, bad, err) == 2);
  BenchOptions tune;
  REQUIRE(parse({"--tune", "dir", "--cache", "c.json", "--timeout", "30"}, tune, err) == -1);
  CHECK(tune.tuneDir == "dir");
  CHECK(tune.cachePath == "c.json");
  CHECK(tune.timeoutSeconds == 30);
}

TEST_CASE("tilec-bench timing methods", "[bench]") {
  std::string err;
  // The default is do_bench: budgets in ms, L2 flushed, counts from them.
  BenchOptions def;
  REQUIRE(parse({"k.ptx"}, def, err) == -1);
  CHECK(def.run.flushL2);
  CHECK(def.run.warmupIters == 0);
  CHECK(def.run.iters == 0);
  CHECK(def.run.warmupMs == 25);
  CHECK(def.run.repMs == 100);
  // The bench harness's medianMs: 10 warm-up launches, 50 timed, no flush.
  BenchOptions h;
  REQUIRE(parse({"k.ptx", "--method", "harness"}, h, err) == -1);
  CHECK_FALSE(h.run.flushL2);
  CHECK(h.run.warmupIters == kHarnessWarmupIters);
  CHECK(h.run.iters == kHarnessIters);
  CHECK(kHarnessWarmupIters == 10);
  CHECK(kHarnessIters == 50);
  // Explicit counts win over the method's.
  BenchOptions hc;
  REQUIRE(parse({"k.ptx", "--method", "harness", "--iters", "7", "--warmup-iters", "3"},
                hc, err) == -1);
  CHECK(hc.run.iters == 7);
  CHECK(hc.run.warmupIters == 3);
  BenchOptions w;
  REQUIRE(parse({"k.ptx", "--warmup-iters", "4"}, w, err) == -1);
  CHECK(w.run.warmupIters == 4);
  CHECK(w.run.flushL2);
  BenchOptions bad;
  CHECK(parse({"k.ptx", "--method", "cupti"}, bad, err) == 2);
  CHECK(parse({"k.ptx", "--warmup-iters", "0"}, bad, err) == 2);
}

TEST_CASE("launch and work expressions", "[bench]") {
  Vars v = {{"m", 1000}, {"n", 7}, {"M", 4096}, {"N", 4096}, {"K", 4096},
            {"A.numel", 64}};
  std::string e;
  CHECK(evalInt("(m + 127) / 128", v, e) == 8);
  CHECK(evalInt("-7 / 2", v, e) == -3); // C++ truncation
  CHECK(evalInt("m % 128 == 0", v, e) == 0);
  CHECK(evalInt("m % 8 == 0 && n < 8", v, e) == 1);
  CHECK(evalInt("std::max<int64_t>(n, 1) * 2", v, e) == 14);
  CHECK(evalInt("std::min<int64_t>((m + 63) / 64, 4)", v, e) == 4);
  CHECK(evalInt("ceildiv(m, 256)", v, e) == 4);
  CHECK(evalInt("1 << 4 >> 1", v, e) == 8);
  CHECK(evalInt("n > 3 ? 1 : 2", v, e) == 1);
  CHECK(evalInt("1024LL * 2", v, e) == 2048);
  CHECK(evalInt("A.numel * 2", v, e) == 128);
  CHECK(*evalReal("2 * M * N * K", v, e) == Approx(2.0 * 4096 * 4096 * 4096));
  CHECK(*evalReal("m / 8", v, e) == Approx(125.0));
  CHECK(*evalReal("7 / 2", v, e) == Approx(3.5)); // real division
  CHECK(*evalReal("2 ** 10", v, e) == Approx(1024));
  CHECK(*evalReal("1.5e3 + 0.5", v, e) == Approx(1500.5));

  CHECK_FALSE(evalInt("m +", v, e));
  CHECK(e.find("unexpected end") != std::string::npos);
  CHECK_FALSE(evalInt("q * 2", v, e));
  CHECK(e.find("unknown name `q`") != std::string::npos);
  CHECK_FALSE(evalInt("m / 0", v, e));
  CHECK(e.find("division by zero") != std::string::npos);
  CHECK_FALSE(evalInt("1.5", v, e));
  CHECK_FALSE(evalInt("(m", v, e));
  CHECK_FALSE(evalInt("m m", v, e));
}

TEST_CASE("16-bit and 8-bit float conversions", "[bench]") {
  CHECK(floatToHalf(1.0f) == 0x3c00);
  CHECK(floatToHalf(-2.0f) == 0xc000);
  CHECK(floatToHalf(65504.0f) == 0x7bff);
  CHECK(floatToHalf(1e6f) == 0x7c00);               // overflow: +inf
  CHECK(floatToHalf(5.96046448e-8f) == 0x0001);     // smallest subnormal
  CHECK(floatToHalf(1.0f + 1.0f / 2048) == 0x3c00); // tie: to even
  CHECK(floatToHalf(1.0f + 3.0f / 2048) == 0x3c02); // tie: to even (up)
  CHECK(halfToFloat(0x3555) == Approx(0.333251953125));
  CHECK(std::isnan(halfToFloat(floatToHalf(NAN))));
  for (uint32_t h = 0; h < 0x7c00; h += 7) // every finite half round-trips
    REQUIRE(floatToHalf(halfToFloat(uint16_t(h))) == h);
  CHECK(floatToBFloat16(1.0f) == 0x3f80);
  CHECK(floatToBFloat16(1.00390625f) == 0x3f80); // tie: to even
  CHECK(floatToBFloat16(1.01171875f) == 0x3f82);
  CHECK(bfloat16ToFloat(0x4049) == Approx(3.140625));
  CHECK(f8E4M3ToFloat(floatToF8E4M3(448.f)) == 448.f);
  CHECK(f8E4M3ToFloat(floatToF8E4M3(1000.f)) == 448.f); // saturates
  CHECK(f8E4M3ToFloat(floatToF8E4M3(0.3f)) == Approx(0.3125));
  CHECK(std::isinf(f8E5M2ToFloat(floatToF8E5M2(1e6f))));
  CHECK(f8E5M2ToFloat(floatToF8E5M2(57344.f)) == 57344.f); // the largest finite
  CHECK(f8E5M2ToFloat(floatToF8E5M2(61000.f)) == 57344.f);
  CHECK(f8E5M2ToFloat(floatToF8E5M2(-3.f)) == -3.f);
}

TEST_CASE("seeded random fills", "[bench]") {
  // Fixed algorithm: these bytes are the same on every machine.
  std::vector<uint8_t> a = randomTensor(DType::F32, 4, Distribution::Uniform, 1);
  std::vector<uint8_t> b = randomTensor(DType::F32, 4, Distribution::Uniform, 1);
  CHECK(a == b);
  CHECK(a != randomTensor(DType::F32, 4, Distribution::Uniform, 2));
  Random r(42);
  CHECK(r.next() == 0xbdd732262feb6e95ull);

  // Moments of 100000 draws.
  const size_t n = 100000;
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    std::vector<uint8_t> x = randomTensor(t, n, Distribution::Normal, 3);
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; ++i) {
      double v = loadElement(x.data(), t, i);
      sum += v;
      sq += v * v;
    }
    CHECK(std::fabs(sum / n) < 0.02);
    CHECK(std::fabs(sq / n - 1) < 0.03);
  }
  std::vector<uint8_t> u = randomTensor(DType::F16, n, Distribution::Uniform, 4);
  double lo = 1, hi = -1;
  for (size_t i = 0; i < n; ++i) {
    double v = loadElement(u.data(), DType::F16, i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  CHECK(lo >= -1.0);
  CHECK(hi <= 1.0);
  CHECK(lo < -0.99);
  CHECK(hi > 0.99);
  // Auto: integers in {-2..2} for integer tensors.
  std::vector<uint8_t> ints = randomTensor(DType::I32, 1000, Distribution::Auto, 5);
  bool seen[5] = {};
  for (size_t i = 0; i < 1000; ++i) {
    double v = loadElement(ints.data(), DType::I32, i);
    REQUIRE(v >= -2);
    REQUIRE(v <= 2);
    seen[int(v) + 2] = true;
  }
  CHECK((seen[0] && seen[1] && seen[2] && seen[3] && seen[4]));
  std::vector<uint8_t> ones = randomTensor(DType::BF16, 3, Distribution::One, 0);
  CHECK(loadElement(ones.data(), DType::BF16, 2) == 1.0);
}

TEST_CASE("output comparison", "[bench]") {
  float want[4] = {1.0f, 2.0f, NAN, 100.0f};
  float got[4] = {1.005f, 2.5f, NAN, 100.9f};
  Comparison c = compareTensors(reinterpret_cast<uint8_t *>(got),
                                reinterpret_cast<uint8_t *>(want), DType::F32, 4,
                                1e-2, 1e-2);
  CHECK(c.mismatches == 1); // 2.5 vs 2.0; 100.9 is within 1% of 100
  CHECK(c.firstMismatch == 1);
  CHECK(c.maxAbsError == Approx(0.9).epsilon(1e-5));
  CHECK(c.ok(0.25));
  CHECK_FALSE(c.ok(0.1));
}

namespace {
header::Function gemmFunction() {
  header::Function fn;
  fn.name = "matmul";
  fn.bindings = {{"M", "1000"}, {"K", "512"}, {"dtype", "\"float16\""}, {"fast", "true"}};
  header::Param a{header::Param::Kind::Tensor, "A", "float16", {"M", "512"}, 16};
  a.shape = {"1000", "512"};
  header::Param c{header::Param::Kind::Tensor, "C", "float32", {"m", "64"}, 16};
  header::Param m{header::Param::Kind::Symbol, "m", "int32", {}, 16};
  header::Param s{header::Param::Kind::Scalar, "scale", "float16", {}, 16};
  fn.params = {a, c, m, s};
  fn.checks = {{"m", "m % 8 == 0"}};
  header::KernelLaunch k;
  k.entry = "matmul_kernel";
  k.grid = {"(m + 127) / 128", "4", "1"};
  k.block = {128, 1, 1};
  k.dynamicSharedBytes = 49152;
  k.args = {header::KernelArg::ofParam(0), header::KernelArg::ofParam(1),
            header::KernelArg::ofParam(2), header::KernelArg::ofParam(3),
            header::KernelArg::ofValue("int64", "m * 64")};
  fn.kernels = {k};
  return fn;
}
} // namespace

TEST_CASE("a plan from metadata", "[bench]") {
  header::Function fn = gemmFunction();
  PlanOptions o;
  o.values = {{"m", 256}, {"scale", 0.5}};
  o.fills = {{"C", Distribution::Zero}};
  Plan plan;
  std::string e;
  REQUIRE(makePlan(fn, o, plan, e));
  REQUIRE(plan.tensors.size() == 2);
  CHECK(plan.tensors[0].shape == std::vector<int64_t>{1000, 512});
  CHECK(plan.tensors[0].bytes == 1000 * 512 * 2);
  CHECK(plan.tensors[1].shape == std::vector<int64_t>{256, 64});
  CHECK(plan.tensors[1].fill == Distribution::Zero);
  CHECK(plan.totalBytes() == 1000 * 512 * 2 + 256 * 64 * 4);
  REQUIRE(plan.launches.size() == 1);
  const LaunchPlan &l = plan.launches[0];
  CHECK(l.grid == std::array<int64_t, 3>{2, 4, 1});
  CHECK(l.dynamicSharedBytes == 49152);
  REQUIRE(l.args.size() == 5);
  CHECK(l.args[0].tensor == 0);
  CHECK(l.args[1].tensor == 1);
  CHECK(l.args[2].size == 4); // the symbol, as int32
  int32_t m;
  std::memcpy(&m, l.args[2].value.data(), 4);
  CHECK(m == 256);
  CHECK(l.args[3].size == 2); // the fp16 scalar, as its bits
  uint16_t bits;
  std::memcpy(&bits, l.args[3].value.data(), 2);
  CHECK(bits == 0x3800);
  int64_t v;
  CHECK(l.args[4].size == 8);
  std::memcpy(&v, l.args[4].value.data(), 8);
  CHECK(v == 256 * 64);
  // Work formulas see the bindings, symbols and tensor sizes.
  Work w;
  REQUIRE(computeWork(plan, "2 * M * m * K", "", w, e));
  CHECK(*w.flops == Approx(2.0 * 1000 * 256 * 512));
  CHECK(w.bytesFromTensors);
  CHECK(w.bytes == double(plan.totalBytes()));
  REQUIRE(computeWork(plan, "", "A.bytes + C.dim0 * fast", w, e));
  CHECK(w.bytes == Approx(1000 * 512 * 2 + 256));
  CHECK_FALSE(computeWork(plan, "2 * Q", "", w, e));
  CHECK(e.find("--flops: unknown name `Q`") != std::string::npos);

  // Missing and wrong values.
  PlanOptions missing;
  missing.values = {{"scale", 1}};
  CHECK_FALSE(makePlan(fn, missing, plan, e));
  CHECK(e.find("dynamic dimension `m` of `matmul` has no value: give --dim m=VALUE") !=
        std::string::npos);
  PlanOptions failsCheck;
  failsCheck.values = {{"m", 100}, {"scale", 1}};
  CHECK_FALSE(makePlan(fn, failsCheck, plan, e));
  CHECK(e.find("requires m % 8 == 0") != std::string::npos);
  PlanOptions unknown = o;
  unknown.values["q"] = 3;
  CHECK_FALSE(makePlan(fn, unknown, plan, e));
  CHECK(e.find("--dim q") != std::string::npos);
  PlanOptions badFill = o;
  badFill.fills["Z"] = Distribution::One;
  CHECK_FALSE(makePlan(fn, badFill, plan, e));
  header::Function tma = fn;
  header::TensorMap map;
  tma.kernels[0].args.push_back(header::KernelArg::ofTensorMap(map));
  CHECK_FALSE(makePlan(tma, o, plan, e));
  CHECK(e.find("TMA descriptor") != std::string::npos);
}

TEST_CASE("no CUDA driver: a clear error", "[bench]") {
  setenv("TILEC_BENCH_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  std::string e;
  CHECK_FALSE(cu::loadDriver(e));
  unsetenv("TILEC_BENCH_LIBCUDA");
  CHECK(e.find("cannot load the CUDA driver (/nonexistent/libcuda.so.1") == 0);
  CHECK(e.find("run it on the GPU machine") != std::string::npos);
}

TEST_CASE("tuning cache entries and picks", "[bench][tuning]") {
  using tuning::Json;
  Json cache = tuning::emptyCache();
  Json entry = Json::parse(R"({
    "source_sha256": "abc", "factory": "matmul", "chip": "sm_90a",
    "bindings": {"N": 4096, "M": 4096}, "device": "H200",
    "results": [
      {"config": {"block_M": 64}, "status": "ok", "median_ms": 0.5},
      {"config": {"block_M": 128}, "status": "ok", "median_ms": 0.3},
      {"config": {"block_M": 256}, "status": "failed"}]})");
  CHECK_FALSE(tuning::mergeEntry(cache, entry));
  CHECK(tuning::mergeEntry(cache, entry)); // same key: replaced
  CHECK(cache["entries"].size() == 1);

  tuning::CacheKey key{"abc", "matmul", Json::parse(R"({"M": 4096, "N": 4096.0})"), "sm_90a"};
  CHECK(tuning::entryMatches(cache["entries"][0], key)); // any key order, 4096 == 4096.0
  double ms = 0;
  std::optional<Json> best = tuning::pickBest(
      cache["entries"][0], {Json::parse(R"({"block_M": 64})"), Json::parse(R"({"block_M": 128})")},
      &ms);
  REQUIRE(best);
  CHECK((*best)["block_M"] == 128);
  CHECK(ms == 0.3);
  // A -D that leaves only block_M=64 in the space picks it.
  best = tuning::pickBest(cache["entries"][0], {Json::parse(R"({"block_M": 64})")}, &ms);
  REQUIRE(best);
  CHECK((*best)["block_M"] == 64);
  CHECK_FALSE(tuning::pickBest(cache["entries"][0], {Json::parse(R"({"block_M": 256})")}));

  tuning::CacheKey other = key;
  other.sourceSha256 = "def";
  CHECK_FALSE(tuning::entryMatches(cache["entries"][0], other));
  CHECK(tuning::explainMiss(cache, other) == "the source changed since it was tuned");
  other = key;
  other.bindings["M"] = 2048;
  CHECK(tuning::explainMiss(cache, other) == "it was tuned with M=4096");
  other.chip = "sm_80";
  CHECK(tuning::explainMiss(cache, other) == "it was tuned for sm_90a and it was tuned with M=4096");
  other.factory = "other";
  CHECK(tuning::explainMiss(cache, other).empty());
  CHECK(tuning::describeConfig(Json::parse(R"({"a": 1, "b": true, "c": "x"})")) ==
        "a=1 b=True c=x");
  CHECK_THROWS_AS(tuning::parseFormat("{}", tuning::kCacheFormat), tuning::TuningError);
  CHECK_THROWS_AS(tuning::parseFormat(R"({"format": "tilec-tuning-cache", "format_version": 2, "entries": []})",
                                      tuning::kCacheFormat),
                  tuning::TuningError);
}

TEST_CASE("saved outputs round-trip and are checked", "[bench]") {
  header::Function fn = gemmFunction();
  PlanOptions o;
  o.values = {{"m", 8}, {"scale", 1}};
  Plan plan;
  std::string e;
  REQUIRE(makePlan(fn, o, plan, e));
  Snapshot snap;
  for (size_t t = 0; t < plan.tensors.size(); ++t)
    snap.push_back(randomTensor(plan.tensors[t].dtype, plan.tensors[t].elements,
                                Distribution::Normal, t));
  std::string path = "bench-test-" + std::to_string(::getpid()) + ".out";
  REQUIRE(writeSavedOutput(path, plan, 9, snap, e));
  SavedOutput saved;
  REQUIRE(readSavedOutput(path, saved, e));
  CHECK(saved.function == "matmul");
  CHECK(saved.seed == 9);
  REQUIRE(saved.tensors.size() == 2);
  CHECK(saved.tensors[1].name == "C");
  CHECK(saved.tensors[1].shape == std::vector<int64_t>{8, 64});
  CHECK(saved.tensors[1].bytes == snap[1]);
  std::vector<TensorCheck> checks;
  REQUIRE(checkAgainstSaved(plan, 9, snap, saved, 1e-2, 1e-2, checks, e));
  CHECK(checks.size() == 2);
  CHECK(checks[1].result.mismatches == 0);
  // One changed element of C is found.
  storeElement(snap[1].data(), DType::F32, 5, 1e3);
  checks.clear();
  REQUIRE(checkAgainstSaved(plan, 9, snap, saved, 1e-2, 1e-2, checks, e));
  CHECK(checks[1].result.mismatches == 1);
  CHECK(checks[1].result.firstMismatch == 5);
  CHECK_FALSE(checkAgainstSaved(plan, 10, snap, saved, 1e-2, 1e-2, checks, e));
  CHECK(e.find("--seed 9") != std::string::npos);
  std::remove(path.c_str());
  CHECK_FALSE(readSavedOutput(path, saved, e));
}
