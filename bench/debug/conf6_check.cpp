// GPU check of conf6's constructs (see conf6_check.sh), through each
// kernel's generated header, on random inputs; references on the host,
// every element compared, non-zero exit on any mismatch.
// masked_rows (16x64, n = 5): Y[i][j] = i >= n ? 0 : X[i][j] (exact).
// prefix (256 inputs, 4 blocks): Y[b] = sum of X[0 .. Counts[b]) in float32
// order, against float64 with tolerance 1e-5 x the sum of |terms|.
// fills (16x32): Y = X with rows 4..11 set to 2; C = {0, 1} (the shared
// buffer filled with 1, then element 0 with 0) (exact).
// part_copy (64x64x32 fp16 gemm, fp32 accumulator): O = acc[0:12, :] as
// fp16 (tolerance: half an fp16 ulp of the float64 value plus 1e-3 x the
// sum of |terms|); Y = acc + 1, rows 32..47 replaced by X (exact there).
// ranks (128 threads): Slots = the values T.atomic_add(counter[0], 1,
// return_prev=True) returned, each of 0..127 once; Y[t] = X[63 - t] for
// the 64 threads of `if tx < 64:` (exact).
// rows_shifted (Q 16x32, K 64x32 fp16): M[h] = max_j (Q K^T)[h][j];
// S_out = S_in - M[h] (tolerance 1e-3 x the sum of |terms| of the row).
#include "fill_region.h"
#include "part_copy.h"
#include "ranks.h"
#include "rows_shifted.h"
#include "parallel_nest.h"
#include "serial_var.h"
#include "check_host.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace check_host;

void checkParallelNest() {
  constexpr int N = 16, D = 64, n = 5;
  std::vector<float> x = randoms(N * D), y(N * D, std::nanf(""));
  CUdeviceptr dX = upload(x), dY = upload(y);
  bool launched = ok(conf6::parallel_nest::masked_rows(dX, dY, n), "masked_rows");
  download(y, dY);
  cuMemFree(dX);
  Tally t;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < D; ++j)
      t.add("Y", i * D + j, y[i * D + j], i >= n ? 0.0 : x[i * D + j], 0);
  t.row("nested T.Parallel (16x64, rows >= 5 zeroed)", launched);
}

void checkSerialVar() {
  constexpr int N = 256;
  std::vector<std::int32_t> counts = {0, 1, 100, 256};
  std::vector<float> x = randoms(N), y(4, std::nanf(""));
  CUdeviceptr dC = upload(counts), dX = upload(x), dY = upload(y);
  bool launched = ok(conf6::serial_var::prefix(dC, dX, dY), "prefix");
  download(y, dY);
  cuMemFree(dC);
  cuMemFree(dX);
  Tally t;
  for (int b = 0; b < 4; ++b) {
    double s = 0, m = 0;
    for (int i = 0; i < counts[b]; ++i) {
      s += x[i];
      m += std::fabs(x[i]);
    }
    t.add("Y", b, y[b], s, 1e-5 * m);
  }
  t.row("T.serial(var), counts 0 / 1 / 100 / 256", launched);
}

void checkFills() {
  constexpr int R = 16, C = 32;
  std::vector<float> x = randoms(R * C), y(R * C, std::nanf(""));
  std::vector<std::int32_t> c(2, -7);
  CUdeviceptr dX = upload(x), dY = upload(y), dC = upload(c);
  bool launched = ok(conf6::fill_region::fills(dX, dY, dC), "fills");
  download(y, dY);
  download(c, dC);
  cuMemFree(dX);
  Tally t;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j)
      t.add("Y", i * C + j, y[i * C + j], i >= 4 && i < 12 ? 2.0 : x[i * C + j],
            0);
  t.add("C", 0, c[0], 0, 0);
  t.add("C", 1, c[1], 1, 0);
  t.row("T.fill of s[0] and of acc[4:12, :]", launched);
}

void checkPartCopy() {
  constexpr int M = 64, N = 64, K = 32, V = 12;
  std::vector<float> af = randoms(M * K), bf = randoms(K * N), x = randoms(16 * N);
  std::vector<std::uint16_t> a(M * K), b(K * N), o(V * N, 0x7e00);
  for (int i = 0; i < M * K; ++i)
    a[i] = toHalf(af[i]);
  for (int i = 0; i < K * N; ++i)
    b[i] = toHalf(bf[i]);
  std::vector<float> y(M * N, std::nanf(""));
  CUdeviceptr dA = upload(a), dB = upload(b), dX = upload(x), dO = upload(o),
              dY = upload(y);
  bool launched =
      ok(conf6::part_copy::part_copy(dA, dB, dX, dO, dY), "part_copy");
  download(o, dO);
  download(y, dY);
  cuMemFree(dA);
  cuMemFree(dB);
  cuMemFree(dX);
  Tally t;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0, m = 0;
      for (int k = 0; k < K; ++k) {
        double p = double(fromHalf(a[i * K + k])) * fromHalf(b[k * N + j]);
        s += p;
        m += std::fabs(p);
      }
      if (i < V)
        t.add("O", i * N + j, fromHalf(o[i * N + j]), s,
              std::fabs(s) / 1024 + 1e-3 * m + 1e-6);
      if (i >= 32 && i < 48)
        t.add("Y", i * N + j, y[i * N + j], x[(i - 32) * N + j], 0);
      else
        t.add("Y", i * N + j, y[i * N + j], s + 1, 1e-3 * m + 1e-6);
    }
  t.row("T.copy of acc[0:12, :] out and into y[32:48, :]", launched);
}

void checkRanks() {
  std::vector<std::int32_t> x(64), slots(128, -1), y(64, -1);
  for (int i = 0; i < 64; ++i)
    x[i] = 1000 + i;
  CUdeviceptr dX = upload(x), dS = upload(slots), dY = upload(y);
  bool launched = ok(conf6::ranks::ranks(dX, dS, dY), "ranks");
  download(slots, dS);
  download(y, dY);
  cuMemFree(dX);
  Tally t;
  std::vector<int> seen(128, 0);
  for (int i = 0; i < 128; ++i)
    if (slots[i] >= 0 && slots[i] < 128)
      ++seen[slots[i]];
  for (int i = 0; i < 128; ++i)
    t.add("slot taken", i, seen[i], 1, 0);
  for (int i = 0; i < 64; ++i)
    t.add("Y", i, y[i], x[63 - i], 0);
  t.row("bar.sync among threads [0, 64); return_prev slots", launched);
}

void checkRowsShifted() {
  constexpr int H = 16, N = 64, D = 32, K = 8;
  std::vector<float> qf = randoms(H * D), kf = randoms(N * D), sIn = randoms(H * K);
  std::vector<std::uint16_t> q(H * D), k(N * D);
  for (int i = 0; i < H * D; ++i)
    q[i] = toHalf(qf[i]);
  for (int i = 0; i < N * D; ++i)
    k[i] = toHalf(kf[i]);
  std::vector<float> sOut(H * K, std::nanf("")), m(H, std::nanf(""));
  CUdeviceptr dQ = upload(q), dK = upload(k), dSi = upload(sIn),
              dSo = upload(sOut), dM = upload(m);
  bool launched = ok(conf6::rows_shifted::rows_shifted(dQ, dK, dSi, dSo, dM),
                     "rows_shifted");
  download(sOut, dSo);
  download(m, dM);
  cuMemFree(dQ);
  cuMemFree(dK);
  cuMemFree(dSi);
  Tally t;
  for (int h = 0; h < H; ++h) {
    double best = -INFINITY, mag = 0;
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int d = 0; d < D; ++d) {
        double p = double(fromHalf(q[h * D + d])) * fromHalf(k[j * D + d]);
        s += p;
        mag = std::max(mag, std::fabs(p) * D);
      }
      best = std::max(best, s);
    }
    double tol = 1e-3 * mag + 1e-6;
    t.add("M", h, m[h], best, tol);
    for (int c = 0; c < K; ++c)
      t.add("S_out", h * K + c, sOut[h * K + c], sIn[h * K + c] - best, tol);
  }
  t.row("loop laid out like a reduction's output (16x8, rows in lanes)", launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 2;
  std::printf("| case | elements | bad | max abs err | result |\n");
  std::printf("|---|---|---|---|---|\n");
  checkParallelNest();
  checkSerialVar();
  checkFills();
  checkPartCopy();
  checkRanks();
  checkRowsShifted();
  return allOk ? 0 : 1;
}
