// GPU check of examples/eager_gemm.tile through its generated launch header:
// the eager-style factory's launch order (A, B, col_scale, then the T.empty
// output C, then the T.dynamic m) and its numbers. For each m (a whole
// number of tiles, a partial last tile, a single row) every element of C
// is compared against a float64 reference of (A @ B) * col_scale, and the
// rows after C's m rows (a guard band filled with a sentinel) must be left
// untouched. Prints one table row per m and exits non-zero on any failure.
//
// Built and run by eager_gemm_check.sh (g++ against the CUDA driver API).
#include "eager_gemm.h"
#include "check_host.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {

using namespace check_host;

constexpr int N = EAGER_N, K = EAGER_K;
constexpr int kGuardRows = 130;
constexpr std::uint16_t kSentinel = 0x7bff; // the largest finite half

} // namespace

int main() {
  if (!initDevice())
    return 2;

  std::printf("| m | N | K | max abs err | max rel err | bad elements | guard rows touched | result |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
    std::mt19937 rng(1234);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  for (int m : {1024, 1000, 129, 1}) {
    std::vector<std::uint16_t> a(size_t(m) * K), b(size_t(K) * N);
    std::vector<float> scale(N);
    for (auto &x : a) x = toHalf(uni(rng));
    for (auto &x : b) x = toHalf(uni(rng));
    for (auto &x : scale) x = 0.25f + 0.75f * std::fabs(uni(rng));
    size_t cRows = size_t(m) + kGuardRows;
    std::vector<std::uint16_t> c(cRows * N, kSentinel);

    CUdeviceptr dA, dB, dS, dC;
    if (!ok(cuMemAlloc(&dA, a.size() * 2), "cuMemAlloc") ||
        !ok(cuMemAlloc(&dB, b.size() * 2), "cuMemAlloc") ||
        !ok(cuMemAlloc(&dS, scale.size() * 4), "cuMemAlloc") ||
        !ok(cuMemAlloc(&dC, c.size() * 2), "cuMemAlloc"))
      return 2;
    cuMemcpyHtoD(dA, a.data(), a.size() * 2);
    cuMemcpyHtoD(dB, b.data(), b.size() * 2);
    cuMemcpyHtoD(dS, scale.data(), scale.size() * 4);
    cuMemcpyHtoD(dC, c.data(), c.size() * 2);
    // The eager factory's launch order: inputs, the T.empty output, m.
    if (!ok(tilec_kernels::eager_gemm::scaled_gemm(dA, dB, dS, dC, m),
            "scaled_gemm") ||
        !ok(cuCtxSynchronize(), "cuCtxSynchronize"))
      return 1;
    cuMemcpyDtoH(c.data(), dC, c.size() * 2);

    double maxAbs = 0, maxRel = 0;
    long bad = 0, guard = 0;
    std::vector<double> row(N);
    for (int i = 0; i < m; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int k = 0; k < K; ++k) {
        double x = fromHalf(a[size_t(i) * K + k]);
        const std::uint16_t *bk = &b[size_t(k) * N];
        for (int j = 0; j < N; ++j)
          row[j] += x * fromHalf(bk[j]);
      }
      for (int j = 0; j < N; ++j) {
        double want = row[j] * scale[j];
        double got = fromHalf(c[size_t(i) * N + j]);
        double err = std::fabs(got - want);
        // fp16 output: half an ulp of the result plus fp32 accumulation.
        double tol = 2e-3 * std::fabs(want) + 1e-2;
        maxAbs = std::max(maxAbs, err);
        maxRel = std::max(maxRel, err / std::max(std::fabs(want), 1.0));
        bad += !(err <= tol);
      }
    }
    for (size_t e = size_t(m) * N; e < c.size(); ++e)
      guard += c[e] != kSentinel;
    bool pass = bad == 0 && guard == 0;
    allOk &= pass;
    std::printf("| %d | %d | %d | %.3g | %.3g | %ld | %ld | %s |\n", m, N, K,
                maxAbs, maxRel, bad, guard / N, pass ? "ok" : "FAIL");
    cuMemFree(dA);
    cuMemFree(dB);
    cuMemFree(dS);
    cuMemFree(dC);
  }
  std::printf("eager_gemm: %s\n", allOk ? "all ok" : "FAILED");
  return allOk ? 0 : 1;
}
