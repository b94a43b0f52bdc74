// GPU check of session 14's wgmma changes, each against a host float64
// reference on fresh random inputs, every output element compared
// (outputs start as NaN):
//
// mixed (test/Passes/wgmma-mixed-families.tile): S = K Q^T and dK = P Q
// on wgmma (P = float16(S) in registers, dK's 192 columns three n64
// instructions), dQ = P^T K (32 rows) on mma.sync, reading K_s through
// the wgmma swizzle. K (128, 192), Q (32, 192) float16. The references of
// dK and dQ take P from the kernel's own S (float16 of it, as the kernel
// casts), S itself checked against K Q^T. Tolerance 1e-4 + 2e-6 sum |a b|.
//
// writers (test/Passes/wgmma-element-writers.tile): A (128, 64) float32,
// B (64, 64) float16; C = C2 = C3 = float16(A) B^T, with float16(A)
// written element by element into a K-major operand (C), into its
// transpose read MN-major (C2), and B copied shared -> shared (C3); Ar
// = float16(A) read back from the swizzled buffer, exactly.
//
// piped (test/Passes/wgmma-pipelined-element-writer.tile): C = float16(A)
// B^T, A (64, 256) float32, B (64, 256) float16, K tiles of 32: a
// pipelined wgmma loop whose A tile a T.Parallel loop writes each
// iteration (conv's im2col; the stores fenced before the wgmma reads).
//
// guarded (test/Passes/parallel-sink-stores.tile): C = A' B^T, A' = A's
// first `rows` rows and zeros below (rows = 77 of 128), A (128, 64),
// B (64, 64) float16: the if/else stores of a T.Parallel loop as one
// vector store of a select, into a swizzled wgmma operand.
//
// fragop (test/Passes/wgmma-fragment-operand.tile, M = N = K = 64):
// P = float16(A B^T) stored from the accumulator into a swizzled shared
// buffer, O = P V (K-major A) and, with transpose, O = P^T V (MN-major
// A, FlashAttention backward's dS^T form), A, B, V float16. P of the
// reference is float16 of the float64 product: within 1e-2 + 2e-3
// sum |p v| (a product at a float16 rounding tie may round either way).
#include "check_host.h"
#include "wg14_fragop_k.h"
#include "wg14_fragop_mn.h"
#include "wg14_guarded.h"
#include "wg14_mixed.h"
#include "wg14_piped.h"
#include "wg14_writers.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using namespace check_host;

std::vector<double> transpose(const std::vector<double> &x, int rows,
                              int cols) {
  std::vector<double> t(x.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      t[size_t(c) * rows + r] = x[size_t(r) * cols + c];
  return t;
}

void checkMixed() {
  constexpr int M = 128, N = 32, D = 192;
  std::vector<double> k, q;
  std::vector<std::uint16_t> hk = halves(M * D, k), hq = halves(N * D, q);
  std::vector<float> s(M * N, std::nanf("")), dk(M * D, std::nanf("")),
      dq(N * D, std::nanf(""));
  CUdeviceptr dK = upload(hk), dQ = upload(hq), dS = upload(s),
              ddK = upload(dk), ddQ = upload(dq);
  bool launched = ok(wg14::mixed::mixed(dK, dQ, dS, ddK, ddQ), "mixed");
  download(s, dS);
  download(dk, ddK);
  download(dq, ddQ);
  for (CUdeviceptr p : {dK, dQ, dS, ddK, ddQ})
    cuMemFree(p);
  Tally t;
  compareAbt(t, "S", s, k, q, M, N, D);
  std::vector<double> p(M * N);
  for (size_t i = 0; i < p.size(); ++i)
    p[i] = fromHalf(toHalf(s[i]));
  compareAbt(t, "dK", dk, p, transpose(q, N, D), M, D, N);
  compareAbt(t, "dQ", dq, transpose(p, M, N), transpose(k, M, D), N, D, M);
  t.row("wgmma S, dK (3 x n64) beside mma.sync dQ (32 rows) in one kernel",
        launched);
}

void checkWriters() {
  constexpr int M = 128, N = 64, K = 64;
  std::vector<float> a = randoms(M * K);
  std::vector<double> a16(M * K), b;
  for (size_t i = 0; i < a.size(); ++i)
    a16[i] = fromHalf(toHalf(a[i]));
  std::vector<std::uint16_t> hb = halves(N * K, b);
  std::vector<float> c(M * N, std::nanf("")), c2 = c, c3 = c;
  std::vector<std::uint16_t> ar(M * K, 0x7e00); // NaN
  CUdeviceptr dA = upload(a), dB = upload(hb), dC = upload(c), dC2 = upload(c2),
              dC3 = upload(c3), dAr = upload(ar);
  bool launched =
      ok(wg14::writers::writers(dA, dB, dC, dC2, dC3, dAr), "writers");
  download(c, dC);
  download(c2, dC2);
  download(c3, dC3);
  download(ar, dAr);
  for (CUdeviceptr p : {dA, dB, dC, dC2, dC3, dAr})
    cuMemFree(p);
  Tally t;
  compareAbt(t, "C", c, a16, b, M, N, K);
  t.row("wgmma, K-major A written by a T.Parallel loop", launched);
  Tally t2;
  compareAbt(t2, "C2", c2, a16, b, M, N, K);
  t2.row("wgmma, MN-major A (transpose_A) written by a T.Parallel loop",
         launched);
  Tally t3;
  compareAbt(t3, "C3", c3, a16, b, M, N, K);
  t3.row("wgmma, B copied shared -> shared", launched);
  Tally t4;
  for (size_t i = 0; i < ar.size(); ++i)
    t4.add("Ar", i, fromHalf(ar[i]), a16[i], 0);
  t4.row("T.Parallel read of a swizzled operand", launched);
}

void checkPiped() {
  constexpr int M = 64, N = 64, K = 256;
  std::vector<float> a = randoms(M * K);
  std::vector<double> a16(M * K), b;
  for (size_t i = 0; i < a.size(); ++i)
    a16[i] = fromHalf(toHalf(a[i]));
  std::vector<std::uint16_t> hb = halves(N * K, b);
  std::vector<float> c(M * N, std::nanf(""));
  CUdeviceptr dA = upload(a), dB = upload(hb), dC = upload(c);
  bool launched = ok(wg14::piped::piped(dA, dB, dC), "piped");
  download(c, dC);
  for (CUdeviceptr p : {dA, dB, dC})
    cuMemFree(p);
  Tally t;
  compareAbt(t, "C", c, a16, b, M, N, K);
  t.row("pipelined wgmma loop, A written by a T.Parallel loop each step",
        launched);
}

void checkGuarded() {
  constexpr int M = 128, N = 64, K = 64, rows = 77;
  std::vector<double> a, b;
  std::vector<std::uint16_t> ha = halves(M * K, a), hb = halves(N * K, b);
  std::vector<float> c(M * N, std::nanf(""));
  CUdeviceptr dA = upload(ha), dB = upload(hb), dC = upload(c);
  bool launched = ok(wg14::guarded::guarded(dA, dB, dC, rows), "guarded");
  download(c, dC);
  for (CUdeviceptr p : {dA, dB, dC})
    cuMemFree(p);
  for (int i = rows; i < M; ++i)
    for (int k = 0; k < K; ++k)
      a[size_t(i) * K + k] = 0;
  Tally t;
  compareAbt(t, "C", c, a, b, M, N, K);
  t.row("guarded T.Parallel copy (if/else stores as one vector store)",
        launched);
}

template <typename Launch>
void checkFragOp(const char *what, bool transpose, Launch launch) {
  constexpr int M = 64, N = 64, K = 64;
  std::vector<double> a, b, v;
  std::vector<std::uint16_t> ha = halves(M * K, a), hb = halves(N * K, b),
                             hv = halves(N * N, v);
  std::vector<float> o(M * N, std::nanf(""));
  CUdeviceptr dA = upload(ha), dB = upload(hb), dV = upload(hv), dO = upload(o);
  bool launched = ok(launch(dA, dB, dV, dO, nullptr), what);
  download(o, dO);
  for (CUdeviceptr p : {dA, dB, dV, dO})
    cuMemFree(p);
  std::vector<double> p(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = 0;
      for (int k = 0; k < K; ++k)
        sum += a[size_t(i) * K + k] * b[size_t(j) * K + k];
      p[size_t(i) * N + j] = fromHalf(toHalf(float(sum)));
    }
  // O = X V with X = P or P^T: compareAbt's A is X (M x N), its B V^T.
  std::vector<double> x(M * N), vt(N * N);
  for (int i = 0; i < M; ++i)
    for (int n = 0; n < N; ++n)
      x[size_t(i) * N + n] =
          transpose ? p[size_t(n) * N + i] : p[size_t(i) * N + n];
  for (int n = 0; n < N; ++n)
    for (int j = 0; j < N; ++j)
      vt[size_t(j) * N + n] = v[size_t(n) * N + j];
  Tally t;
  compareAbt(t, "O", o, x, vt, M, N, N, 1e-2, 2e-3);
  t.row(what, launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  checkMixed();
  checkWriters();
  checkPiped();
  checkGuarded();
  checkFragOp("wgmma A stored from a fragment, K-major", false,
              wg14::fragop_k::two_gemms);
  checkFragOp("wgmma A stored from a fragment, MN-major (transpose_A)", true,
              wg14::fragop_mn::two_gemms);
  std::printf(allOk ? "all ok\n" : "FAILED\n");
  return allOk ? 0 : 1;
}
