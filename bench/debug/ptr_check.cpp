// GPU check of pointer tables (see ptr_check.sh) through the generated
// headers, on random inputs; every output element against a float64
// reference on the host, non-zero exit on any mismatch.
//
// grouped_gemm (test/Frontend/tilelang/ptr-grouped-gemm.tile): for each group g
// of rows M_g in (64, 192, 128), C_g = A_g B_g with A_g (M_g x 256) and
// B_g (256 x 128) fp16, C_g (M_g x 128) float32, each its own allocation
// of exactly that size (a read or write past it is the bug this checks,
// with compute-sanitizer), passed as three device tables of the groups'
// addresses, plus the first M tile of each group (0, 1, 4). C_g starts as
// NaN, so an element the kernel did not write fails. Exact fp16 products
// summed in float32: tolerance 1e-4 + 2e-6 of the products' magnitudes.
#include "check_host.h"
#include "sm80.h"
#include "sm90.h"
#include "sm90_s1.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using namespace check_host;

constexpr int K = 256, N = 128, BlockM = 64;
constexpr int Groups = 3;
constexpr int Rows[Groups] = {64, 192, 128};

template <typename Launch> void checkGrouped(const char *what, Launch launch) {
  std::vector<std::vector<std::uint16_t>> a, b;
  std::vector<std::vector<float>> c;
  std::vector<CUdeviceptr> dA, dB, dC;
  std::vector<std::int32_t> starts;
  int tiles = 0;
  for (int g = 0; g < Groups; ++g) {
    a.push_back(halves(size_t(Rows[g]) * K));
    b.push_back(halves(size_t(K) * N));
    c.emplace_back(size_t(Rows[g]) * N, std::nanf(""));
    dA.push_back(upload(a[g]));
    dB.push_back(upload(b[g]));
    dC.push_back(upload(c[g]));
    starts.push_back(tiles);
    tiles += (Rows[g] + BlockM - 1) / BlockM;
  }
  // The tables: CUdeviceptr values (64-bit) in device memory.
  std::vector<std::uint64_t> tA(dA.begin(), dA.end()), tB(dB.begin(), dB.end()),
      tC(dC.begin(), dC.end());
  CUdeviceptr pA = upload(tA), pB = upload(tB), pC = upload(tC),
              dStarts = upload(starts);
  bool launched = ok(launch(pA, pB, pC, dStarts), what) &&
                  ok(cuCtxSynchronize(), what);
  for (int g = 0; g < Groups; ++g)
    download(c[g], dC[g]);
  for (int g = 0; g < Groups; ++g) {
    cuMemFree(dA[g]);
    cuMemFree(dB[g]);
  }
  for (CUdeviceptr p : {pA, pB, pC, dStarts})
    cuMemFree(p);
  Tally t;
  const char *names[Groups] = {"C0", "C1", "C2"};
  for (int g = 0; g < Groups; ++g)
    for (int i = 0; i < Rows[g]; ++i)
      for (int j = 0; j < N; ++j) {
        double ref = 0, mag = 0;
        for (int l = 0; l < K; ++l) {
          double p = double(fromHalf(a[g][size_t(i) * K + l])) *
                     fromHalf(b[g][size_t(l) * N + j]);
          ref += p;
          mag += std::fabs(p);
        }
        t.add(names[g], size_t(i) * N + j, c[g][size_t(i) * N + j], ref,
              1e-4 + 2e-6 * mag);
      }
  t.row(what, launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  checkGrouped("grouped GEMM via T.ptr tables, sm_90a (cp.async + wgmma, 2 stages)",
               [](auto... p) { return ptr_check::sm90::grouped_gemm(p...); });
  checkGrouped("grouped GEMM via T.ptr tables, sm_80 PTX (cp.async + mma.sync)",
               [](auto... p) { return ptr_check::sm80::grouped_gemm(p...); });
  checkGrouped("grouped GEMM via T.ptr tables, sm_90a, 1 stage",
               [](auto... p) { return ptr_check::sm90_s1::grouped_gemm(p...); });
  std::printf("%s\n", allOk ? "all ok" : "FAILED");
  return allOk ? 0 : 1;
}
