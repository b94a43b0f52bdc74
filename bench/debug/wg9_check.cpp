// GPU check of T.gemm / T.wgmma_gemm on regions of shared buffers (see
// wg9_check.sh), through the kernels' generated headers on random
// float16 inputs in [-1, 1): every float32 output element against the
// float64 sum of the same float16 products, tolerance 1e-5 of the sum of
// their magnitudes (f32 accumulation) plus 1e-6. Non-zero exit on any
// mismatch.
#include "acc_sm_80.h"
#include "acc_sm_90.h"
#include "async_sm_90.h"
#include "halves_sm_80.h"
#include "halves_sm_90.h"
#include "pv_sm_80.h"
#include "pv_sm_90.h"
#include "stage_sm_80.h"
#include "stage_sm_90.h"
#include "tma_sm_90.h"
#ifdef WG9_BARRIERPIPE
#include "barrierpipe.h"
#endif
#include "check_host.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace check_host;

/// out (rows x cols) against sum_k x(i, k) y(k, j) over the products the
/// accessors give (float64, in the inputs' float16 values); `rel` adds
/// the output's rounding (2^-11 for a float16 C).
void compare(Tally &t, const char *what, const std::vector<float> &out,
             int rows, int cols, int depth,
             const std::function<double(int, int)> &x,
             const std::function<double(int, int)> &y, double rel = 0) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      double ref = 0, mag = 0;
      for (int k = 0; k < depth; ++k) {
        double p = x(i, k) * y(k, j);
        ref += p;
        mag += std::fabs(p);
      }
      t.add(what, size_t(i) * cols + j, out[size_t(i) * cols + j], ref,
            1e-5 * mag + 1e-6 + rel * std::fabs(ref));
    }
}

constexpr int M = 64, N = 64, Half = 256, D = 2 * Half, KS = 256;

template <typename Launch>
void checkHalves(const char *label, Launch launch, int D = ::D) {
  std::vector<double> q, k;
  auto hq = halves(size_t(M) * D, q), hk = halves(size_t(N) * D, k);
  std::vector<float> s(size_t(M) * N, std::nanf(""));
  CUdeviceptr dq = upload(hq), dk = upload(hk), ds = upload(s);
  bool launched = ok(launch(dq, dk, ds), label);
  download(s, ds);
  cuMemFree(dq);
  cuMemFree(dk);
  Tally t;
  // Q[:, :256] K[:, :256]^T + Q[:, 256:] K[:, 256:]^T = Q K^T.
  compare(
      t, "S", s, M, N, D, [&](int i, int c) { return q[size_t(i) * D + c]; },
      [&](int c, int j) { return k[size_t(j) * D + c]; });
  t.row(label, launched);
}

void checkAsync() {
  std::vector<double> q, k;
  auto hq = halves(size_t(M) * D, q), hk = halves(size_t(N) * D, k);
  std::vector<float> s(size_t(M) * N, std::nanf("")), s2 = s;
  CUdeviceptr dq = upload(hq), dk = upload(hk), ds = upload(s),
              ds2 = upload(s2);
  bool launched = ok(wg9::async_sm_90::gemm_regions(dq, dk, ds, ds2, nullptr),
                     "async");
  download(s, ds);
  download(s2, ds2);
  cuMemFree(dq);
  cuMemFree(dk);
  Tally t, t2;
  compare(
      t, "S", s, M, N, D, [&](int i, int c) { return q[size_t(i) * D + c]; },
      [&](int c, int j) { return k[size_t(j) * D + c]; });
  compare(
      t2, "S2", s2, M, N, Half,
      [&](int i, int c) { return q[size_t(i) * D + Half + c]; },
      [&](int c, int j) { return k[size_t(j) * D + Half + c]; });
  t.row("async sm_90a: 2 T.wgmma_gemm on the halves (clear_accum: "
        "scale-d 0), T.wait_wgmma(0)",
        launched);
  t2.row("async sm_90a: S2 = Q[:, 256:] K[:, 256:]^T, second accumulator",
         launched);
}

/// O (M x cols) = P V[:, from : from + cols] for P (M x N), V (N x width).
template <typename Launch>
void checkPv(const char *label, Launch launch, int width, int from, int cols) {
  std::vector<double> p, v;
  auto hp = halves(size_t(M) * N, p), hv = halves(size_t(N) * width, v);
  std::vector<float> o(size_t(M) * cols, std::nanf(""));
  CUdeviceptr dp = upload(hp), dv = upload(hv), dout = upload(o);
  bool launched = ok(launch(dp, dv, dout), label);
  download(o, dout);
  cuMemFree(dp);
  cuMemFree(dv);
  Tally t;
  compare(
      t, "O", o, M, cols, N, [&](int i, int c) { return p[size_t(i) * N + c]; },
      [&](int c, int j) { return v[size_t(c) * width + from + j]; });
  t.row(label, launched);
}

template <typename Launch>
void checkStage(const char *label, Launch launch, int m, int n, int kd,
                bool halfOut = false) {
  std::vector<double> a, b;
  auto ha = halves(size_t(m) * kd, a), hb = halves(size_t(kd) * n, b);
  std::vector<float> c(size_t(m) * n, std::nanf(""));
  // A float16 C (TileLang's example: T.empty((M, N), dtype)) starts as
  // float16 NaNs and is read back as float16.
  std::vector<std::uint16_t> c16(size_t(m) * n, 0x7e00);
  CUdeviceptr da = upload(ha), db = upload(hb),
              dc = halfOut ? upload(c16) : upload(c);
  bool launched = ok(launch(da, db, dc), label);
  if (halfOut) {
    download(c16, dc);
    for (size_t i = 0; i < c.size(); ++i)
      c[i] = fromHalf(c16[i]);
  } else {
    download(c, dc);
  }
  cuMemFree(da);
  cuMemFree(db);
  Tally t;
  compare(
      t, "C", c, m, n, kd, [&](int i, int q) { return a[size_t(i) * kd + q]; },
      [&](int q, int j) { return b[size_t(q) * n + j]; },
      halfOut ? 1.0 / 2048 : 0.0);
  t.row(label, launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  checkHalves("halves sm_90a: S = Q[:, :256] K[:, :256]^T + Q[:, 256:] "
              "K[:, 256:]^T (64 x 512)",
              [](CUdeviceptr q, CUdeviceptr k, CUdeviceptr s) {
                return wg9::halves_sm_90::gemm_regions(q, k, s, nullptr);
              });
  checkHalves("halves sm_80: the same on mma.sync",
              [](CUdeviceptr q, CUdeviceptr k, CUdeviceptr s) {
                return wg9::halves_sm_80::gemm_regions(q, k, s, nullptr);
              });
  checkAsync();
  checkHalves("tma sm_90a: the halves of 64 x 256 Q, K fed by T.tma_copy "
              "into Q_s[:, :128], Q_s[:, 128:], K_s[1, :, :128], "
              "K_s[1, :, 128:]",
              [](CUdeviceptr q, CUdeviceptr k, CUdeviceptr s) {
                return wg9::tma_sm_90::gemm_regions(q, k, s, nullptr);
              },
              256);
  checkPv("pv sm_90a: O2 = P V[:, 256:] (B a region of columns)",
          [](CUdeviceptr p, CUdeviceptr v, CUdeviceptr o) {
            return wg9::pv_sm_90::gemm_regions(p, v, o, nullptr);
          },
          D, Half, Half);
  checkPv("pv sm_80: the same on mma.sync",
          [](CUdeviceptr p, CUdeviceptr v, CUdeviceptr o) {
            return wg9::pv_sm_80::gemm_regions(p, v, o, nullptr);
          },
          D, Half, Half);
  checkPv("acc sm_90a: O[:, :64] = P V[:, :64], O[:, 64:] = P V[:, 64:] "
          "(accumulator halves)",
          [](CUdeviceptr p, CUdeviceptr v, CUdeviceptr o) {
            return wg9::acc_sm_90::gemm_regions(p, v, o, nullptr);
          },
          128, 0, 128);
  checkPv("acc sm_80: the same on mma.sync",
          [](CUdeviceptr p, CUdeviceptr v, CUdeviceptr o) {
            return wg9::acc_sm_80::gemm_regions(p, v, o, nullptr);
          },
          128, 0, 128);
  checkStage("stage sm_90a: C = A B through A_s[k % 2, :, :], "
             "B_s[k % 2, :, :]",
             [](CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
               return wg9::stage_sm_90::gemm_regions(a, b, c, nullptr);
             },
             M, N, KS);
  checkStage("stage sm_80: the same on mma.sync",
             [](CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
               return wg9::stage_sm_80::gemm_regions(a, b, c, nullptr);
             },
             M, N, KS);
#ifdef WG9_BARRIERPIPE
  checkStage("barrierpipe_stage2 sm_90a: T.ws, T.tma_copy into a stage, "
             "T.gemm on it (512^3)",
             [](CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
               return wg9::barrierpipe::matmul(a, b, c, nullptr);
             },
             512, 512, 512, /*halfOut=*/true);
#endif
  return allOk ? 0 : 1;
}
