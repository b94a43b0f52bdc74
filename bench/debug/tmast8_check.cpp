// GPU check of tmast8's TMA-store epilogues (see tmast8_check.sh), through
// the kernels' generated headers, on random fp16 inputs; references in
// float64 on the host, every element compared, outputs poisoned (NaN)
// first and followed by a guard region that must stay as it was (no write
// past the tensor), non-zero exit on any mismatch.
// - FlashAttention (examples/flash_attention.tile, [b, s, h, d]):
//   O = softmax(Q K^T / sqrt(d)) V per (batch, head), full and partial
//   seq_len; tolerance 4e-3 + 4e-3 |ref| (P is rounded to fp16 for P V);
// - GEMMs with a C_shared epilogue: examples/autotune_gemm.tile (C = A B^T,
//   an out_idx output) and test/Targets/Inputs/tma-store-eager-gemm.tile (C = A
//   B, a T.empty output, M dynamic); tolerance 1e-3 + 1e-3 |ref|;
// - unless NO_BEFORE: FA 8x32x4096x128 (128x128 blocks, 256 threads), the
//   PTX of the tilec before (TILEC_BEFORE) and after, launched in turns,
//   median time of each; both outputs must be equal bit for bit (only the
//   epilogue differs).
#include "eager_part.h"
#include "fa_full.h"
#include "fa_part.h"
#include "fa_small.h"
#include "gemm_part.h"
#ifndef NO_BEFORE
#include "fa_after.h"
#include "fa_before.h"
#endif
#include "check_host.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

using namespace check_host;
using Half = std::uint16_t;

constexpr size_t kGuard = 4096;
constexpr Half kPoison = 0x7fff;    // NaN
constexpr Half kGuardBits = 0x7bff; // 65504, what the guard region holds

std::vector<Half> halfRandoms(size_t n) {
  std::vector<float> f = randoms(n);
  std::vector<Half> h(n);
  for (size_t i = 0; i < n; ++i)
    h[i] = toHalf(f[i]);
  return h;
}

/// An output of n elements, NaN, then kGuard guard elements.
std::vector<Half> poisoned(size_t n) {
  std::vector<Half> v(n + kGuard, kPoison);
  std::fill(v.begin() + n, v.end(), kGuardBits);
  return v;
}

void checkGuard(Tally &t, const std::vector<Half> &out, size_t n) {
  for (size_t i = n; i < out.size(); ++i)
    t.add("guard", i - n, out[i], kGuardBits, 0);
}

/// Runs body(i) for i in [0, n) on every core.
template <typename F> void parallelFor(size_t n, F body) {
  unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&, w] {
      for (size_t i = w; i < n; i += workers)
        body(i);
    });
  for (std::thread &th : pool)
    th.join();
}

template <typename Launch>
void checkFlash(const char *what, int B, int S, int H, int D, Launch launch) {
  size_t n = size_t(B) * S * H * D;
  std::vector<Half> q = halfRandoms(n), k = halfRandoms(n), v = halfRandoms(n);
  std::vector<Half> o = poisoned(n);
  CUdeviceptr dQ = upload(q), dK = upload(k), dV = upload(v), dO = upload(o);
  bool launched = ok(launch(dQ, dK, dV, dO), what);
  download(o, dO);
  cuMemFree(dQ);
  cuMemFree(dK);
  cuMemFree(dV);
  auto at = [&](int b, int s, int h, int d) {
    return ((size_t(b) * S + s) * H + h) * D + d;
  };
  std::vector<float> qf(n), kf(n), vf(n);
  for (size_t i = 0; i < n; ++i) {
    qf[i] = fromHalf(q[i]);
    kf[i] = fromHalf(k[i]);
    vf[i] = fromHalf(v[i]);
  }
  std::vector<double> ref(n);
  double scale = 1.0 / std::sqrt(double(D));
  parallelFor(size_t(B) * H * S, [&](size_t job) {
    int i = int(job % S), h = int(job / S % H), b = int(job / S / H);
    std::vector<double> p(S);
    double m = -INFINITY;
    for (int j = 0; j < S; ++j) {
      double s = 0;
      for (int d = 0; d < D; ++d)
        s += double(qf[at(b, i, h, d)]) * kf[at(b, j, h, d)];
      p[j] = s * scale;
      m = std::max(m, p[j]);
    }
    double sum = 0;
    for (int j = 0; j < S; ++j)
      sum += p[j] = std::exp(p[j] - m);
    for (int d = 0; d < D; ++d) {
      double acc = 0;
      for (int j = 0; j < S; ++j)
        acc += p[j] * vf[at(b, j, h, d)];
      ref[at(b, i, h, d)] = acc / sum;
    }
  });
  Tally t;
  for (size_t i = 0; i < n; ++i)
    t.add("O", i, fromHalf(o[i]), ref[i], 4e-3 + 4e-3 * std::fabs(ref[i]));
  checkGuard(t, o, n);
  t.row(what, launched);
}

/// C (M x N) = A (M x K) times B, B (N x K) when `bT` else (K x N).
template <typename Launch>
void checkGemm(const char *what, int M, int N, int K, bool bT, Launch launch) {
  std::vector<Half> a = halfRandoms(size_t(M) * K),
                    b = halfRandoms(size_t(K) * N);
  size_t n = size_t(M) * N;
  std::vector<Half> c = poisoned(n);
  CUdeviceptr dA = upload(a), dB = upload(b), dC = upload(c);
  bool launched = ok(launch(dA, dB, dC), what);
  download(c, dC);
  cuMemFree(dA);
  cuMemFree(dB);
  std::vector<double> ref(n);
  parallelFor(size_t(M), [&](size_t i) {
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int kk = 0; kk < K; ++kk)
        s += double(fromHalf(a[i * K + kk])) *
             fromHalf(bT ? b[size_t(j) * K + kk] : b[size_t(kk) * N + j]);
      ref[i * N + j] = s;
    }
  });
  Tally t;
  for (size_t i = 0; i < n; ++i)
    t.add("C", i, fromHalf(c[i]), ref[i], 1e-3 + 1e-3 * std::fabs(ref[i]));
  checkGuard(t, c, n);
  t.row(what, launched);
}

#ifndef NO_BEFORE
/// Milliseconds per launch of `launch` (reps launches between events).
template <typename Launch> double timeMs(Launch launch, int reps) {
  CUevent start, stop;
  cuEventCreate(&start, CU_EVENT_DEFAULT);
  cuEventCreate(&stop, CU_EVENT_DEFAULT);
  launch();
  cuEventRecord(start, nullptr);
  for (int r = 0; r < reps; ++r)
    launch();
  cuEventRecord(stop, nullptr);
  cuEventSynchronize(stop);
  float ms = 0;
  cuEventElapsedTime(&ms, start, stop);
  cuEventDestroy(start);
  cuEventDestroy(stop);
  return ms / reps;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void timeFlash() {
  constexpr int B = 8, H = 32, S = 4096, D = 128, rounds = 9, reps = 10;
  size_t n = size_t(B) * S * H * D;
  std::vector<Half> q = halfRandoms(n), k = halfRandoms(n), v = halfRandoms(n);
  std::vector<Half> oBefore = poisoned(n), oAfter = poisoned(n);
  CUdeviceptr dQ = upload(q), dK = upload(k), dV = upload(v),
              dOb = upload(oBefore), dOa = upload(oAfter);
  auto before = [&] {
    return tmast8::fa_before::flash_attention(dQ, dK, dV, dOb);
  };
  auto after = [&] {
    return tmast8::fa_after::flash_attention(dQ, dK, dV, dOa);
  };
  bool launched = ok(before(), "FA before") && ok(after(), "FA after");
  std::vector<double> tb, ta;
  for (int r = 0; launched && r < rounds; ++r) {
    // In turns, each first every other round.
    if (r % 2) {
      tb.push_back(timeMs(before, reps));
      ta.push_back(timeMs(after, reps));
    } else {
      ta.push_back(timeMs(after, reps));
      tb.push_back(timeMs(before, reps));
    }
  }
  download(oBefore, dOb);
  download(oAfter, dOa);
  cuMemFree(dQ);
  cuMemFree(dK);
  cuMemFree(dV);
  Tally t;
  for (size_t i = 0; i < n; ++i)
    t.add("O after vs before", i, oAfter[i], oBefore[i], 0);
  checkGuard(t, oAfter, n);
  t.row("FA 8x32x4096x128: after's output == before's, bit for bit", launched);
  if (!launched)
    return;
  double flops = 4.0 * B * H * double(S) * S * D;
  double mb = median(tb), ma = median(ta);
  std::printf("\n| FA 8x32x4096x128, 128x128, 256 threads | median ms | "
              "TFLOP/s | per round (ms) |\n|---|---|---|---|\n");
  auto row = [&](const char *what, double m, const std::vector<double> &all) {
    std::printf("| %s | %.4f | %.1f |", what, m, flops / m / 1e9);
    for (double x : all)
      std::printf(" %.4f", x);
    std::printf(" |\n");
  };
  row("before (TILEC_BEFORE)", mb, tb);
  row("after (TILEC)", ma, ta);
  std::printf("after / before speed: %.4f\n", mb / ma);
}
#endif

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  checkFlash("FA 128x128 / 256 thr, 1x1024x2x128 (full tiles)", 1, 1024, 2, 128,
             [](auto... a) { return tmast8::fa_full::flash_attention(a...); });
  checkFlash("FA 128x128 / 256 thr, 1x4000x2x128 (partial last tile)", 1, 4000,
             2, 128,
             [](auto... a) { return tmast8::fa_part::flash_attention(a...); });
  checkFlash("FA 64x64 / 128 thr, 2x1000x2x64 (partial last tile)", 2, 1000, 2,
             64,
             [](auto... a) { return tmast8::fa_small::flash_attention(a...); });
  checkGemm("GEMM C=A*B^T 1000x512x512, C_shared (out_idx output)", 1000, 512,
            512, true,
            [](auto... a) { return tmast8::gemm_part::matmul(a...); });
  checkGemm("GEMM C=A*B m=1000 x512x512, C_shared (T.empty output, dynamic m)",
            1000, 512, 512, false,
            [](CUdeviceptr A, CUdeviceptr B, CUdeviceptr C) {
              return tmast8::eager_part::eager_gemm(A, B, C, 1000);
            });
  checkGemm("GEMM C=A*B m=1024 x512x512, C_shared (T.empty output, full)", 1024,
            512, 512, false, [](CUdeviceptr A, CUdeviceptr B, CUdeviceptr C) {
              return tmast8::eager_part::eager_gemm(A, B, C, 1024);
            });
#ifndef NO_BEFORE
  timeFlash();
#endif
  return allOk ? 0 : 1;
}
