// GPU check of T.reshape of a fragment (freshape_check.sh) through the
// generated headers, on random inputs; every output element against a
// float64 reference on the host, non-zero exit on any mismatch.
//
// head_sums (test/Frontend/tilelang/reshape-fragment.tile): S = Kt Qt^T,
// a (N, Q * H) gemm accumulator from fp16 Kt (N x K) and Qt (Q * H x K),
// seen as (N, Q, H) through T.reshape; S3[n, q, h] = max(S3[n, q, h], 0) *
// W[q, h] written through the view, then L = T.reduce_sum(S3, dim=-1) and
// Out[q, n] = L[n, q]. variant=4 first doubles S through a second view of
// it, (N * Q * H,). fp16 products are exact in float32; tolerance 1e-4 +
// 2e-6 of the sum of magnitudes.
#include "check_host.h"
#include "hs_chain_sm90.h"
#include "hs_q4_sm90.h"
#include "hs_sm80.h"
#include "hs_sm90.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using namespace check_host;

template <typename Launch>
void checkHeadSums(const char *what, int n, int q, int h, int k, double scale,
                   Launch launch) {
  std::vector<std::uint16_t> kt = halves(size_t(n) * k),
                             qt = halves(size_t(q) * h * k);
  std::vector<float> w = randoms(size_t(q) * h);
  std::vector<float> out(size_t(q) * n, std::nanf(""));
  CUdeviceptr dK = upload(kt), dQ = upload(qt), dW = upload(w),
              dO = upload(out);
  bool launched = ok(launch(dK, dQ, dW, dO), what);
  download(out, dO);
  for (CUdeviceptr p : {dK, dQ, dW, dO})
    cuMemFree(p);
  Tally t;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < q; ++j) {
      double ref = 0, mag = 0;
      for (int hh = 0; hh < h; ++hh) {
        int c = j * h + hh;
        double s = 0, smag = 0;
        for (int l = 0; l < k; ++l) {
          double p = double(fromHalf(kt[size_t(i) * k + l])) *
                     fromHalf(qt[size_t(c) * k + l]);
          s += p;
          smag += std::fabs(p);
        }
        s *= scale;
        double v = std::max(s, 0.0) * w[size_t(j) * h + hh];
        ref += v;
        mag += (smag * scale + 1) * std::fabs(w[size_t(j) * h + hh]);
      }
      t.add("Out", size_t(j) * n + i, out[size_t(j) * n + i], ref,
            1e-4 + 2e-6 * mag);
    }
  t.row(what, launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  checkHeadSums("head_sums, sm_90a (wgmma, 64x(2x64)x64, view reduced)", 64,
                2, 64, 64, 1.0, [](auto... p) {
                  return freshape::hs_sm90::head_sums(p...);
                });
  checkHeadSums("head_sums, sm_80 PTX (mma.sync, 64x(2x64)x64)", 64, 2, 64,
                64, 1.0, [](auto... p) {
                  return freshape::hs_sm80::head_sums(p...);
                });
  checkHeadSums("head_sums Q=4 H=32, sm_90a (64x(4x32)x128)", 64, 4, 32, 128,
                1.0, [](auto... p) {
                  return freshape::hs_q4_sm90::head_sums(p...);
                });
  checkHeadSums("head_sums variant=4, sm_90a (view of a view, doubled)", 64,
                2, 64, 64, 2.0, [](auto... p) {
                  return freshape::hs_chain_sm90::head_sums(p...);
                });
  std::printf("%s\n", allOk ? "all ok" : "FAILED");
  return allOk ? 0 : 1;
}
