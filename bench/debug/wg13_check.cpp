// GPU check of session 13's wgmma changes, each against a host float64
// reference on fresh random float16 inputs, every output element
// compared (outputs start as NaN):
//
// atoms192 (test/Passes/wgmma-atoms192.tile): C = A B^T, A (256, 384),
// B (128, 384) float16, C float32, K tiles of 192 columns: K-major
// wgmma operands whose rows are three 128-byte swizzle atoms (TMA ring
// of A, B copied each step). Tolerance 1e-4 + 2e-6 sum |a b|.
//
// replicated (test/Passes/wgmma-register-a-replicated.tile): Y1 = X W1^T,
// Y2 = X W2^T, X (M, 256) with M = 200 (a dynamic size: the last block's
// rows 200..255 are masked loads reading zero, and their stores are
// dropped), W1, W2 (128, 256): A in registers replicated over the two
// warpgroups along N. Also M = 77 and M = 128 (one block, partial and
// whole). Tolerance as above.
//
// transpose_a (test/Passes/wgmma-transpose-a.tile): C = At^T B^T, At
// (128, 128) holding A^T (K x M), B (64, 128): A read MN-major by wgmma.
// Tolerance as above.
#include "check_host.h"
#include "wg13_atoms.h"
#include "wg13_replicated.h"
#include "wg13_transpose_a.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using namespace check_host;

void checkAtoms() {
  constexpr int M = 256, N = 128, K = 384;
  std::vector<double> a, b;
  std::vector<std::uint16_t> ha = halves(M * K, a), hb = halves(N * K, b);
  std::vector<float> c(M * N, std::nanf(""));
  CUdeviceptr dA = upload(ha), dB = upload(hb), dC = upload(c);
  bool launched = ok(wg13::atoms::gemm192(dA, dB, dC), "atoms192");
  download(c, dC);
  cuMemFree(dA);
  cuMemFree(dB);
  Tally t;
  compareAbt(t, "C", c, a, b, M, N, K);
  t.row("wgmma, K-major operands of three 128-byte atoms (K tile 192)",
        launched);
}

void checkReplicated(int M) {
  constexpr int N = 128, K = 256;
  std::vector<double> x, w1, w2;
  std::vector<std::uint16_t> hx = halves(size_t(M) * K, x),
                             h1 = halves(N * K, w1), h2 = halves(N * K, w2);
  std::vector<float> y1(size_t(M) * N, std::nanf("")), y2 = y1;
  CUdeviceptr dX = upload(hx), d1 = upload(h1), d2 = upload(h2),
              dY1 = upload(y1), dY2 = upload(y2);
  bool launched =
      ok(wg13::replicated::gate_up(dX, d1, d2, dY1, dY2, M), "replicated");
  download(y1, dY1);
  download(y2, dY2);
  cuMemFree(dX);
  cuMemFree(d1);
  cuMemFree(d2);
  Tally t;
  compareAbt(t, "Y1", y1, x, w1, M, N, K);
  compareAbt(t, "Y2", y2, x, w2, M, N, K);
  t.row("wgmma, A in registers replicated over 2 warpgroups along N, M = " +
            std::to_string(M),
        launched);
}

void checkTransposeA() {
  constexpr int M = 128, N = 64, K = 128;
  std::vector<double> at, b;
  std::vector<std::uint16_t> hat = halves(K * M, at), hb = halves(N * K, b);
  std::vector<float> c(M * N, std::nanf(""));
  CUdeviceptr dAt = upload(hat), dB = upload(hb), dC = upload(c);
  bool launched = ok(wg13::transpose_a::gemm_ta(dAt, dB, dC), "transpose_a");
  download(c, dC);
  cuMemFree(dAt);
  cuMemFree(dB);
  std::vector<double> a(M * K);
  for (int k = 0; k < K; ++k)
    for (int m = 0; m < M; ++m)
      a[m * K + k] = at[k * M + m];
  Tally t;
  compareAbt(t, "C", c, a, b, M, N, K);
  t.row("wgmma, A read MN-major (transpose_A)", launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  checkAtoms();
  for (int m : {200, 77, 128})
    checkReplicated(m);
  checkTransposeA();
  std::printf(allOk ? "all ok\n" : "FAILED\n");
  return allOk ? 0 : 1;
}
