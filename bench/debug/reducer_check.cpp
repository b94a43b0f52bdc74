// GPU check of the reducer kernels (see reducer_check.sh) through their
// generated headers, on random inputs; every output element against a
// float64 reference on the host, non-zero exit on any mismatch.
//
// rowsum_gemv (test/Frontend/tilelang/reducer-gemv.tile): y = A v, A
// float16 (M x K), v float16 (K), y float32; a sum reducer of block_M rows
// per block, its partials combined by T.finalize_reducer. Products of two
// float16 values are exact in float32, so the only error is float32
// summation: 1e-5 + 1e-6 of the sum of |products| per row. Default M = 256,
// K = 512 (64x64 tiles, 128 threads); gemv_odd M = 200, K = 328 (64x128
// tiles, 256 threads: the last row block and column tile are partial).
//
// colmax (reducer-max.tile): Y[j] = max_i X[i, j] over X float32
// (1024 x 128), a max reducer filled with -inf: exact.
//
// colmin (reducer-none.tile): Y[j] = min_i X[i, j] over X float32
// (64 x 128), a replication="none" min reducer filled with +inf: exact.
#include "check_host.h"
#include "colmax_sm80.h"
#include "colmax_sm90.h"
#include "colmin.h"
#include "gemv_odd.h"
#include "gemv_sm80.h"
#include "gemv_sm90.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

namespace {

using namespace check_host;

template <typename Launch>
void checkGemv(const char *what, int M, int K, Launch launch) {
  std::vector<double> a, v;
  std::vector<std::uint16_t> ha = halves(size_t(M) * K, a), hv = halves(K, v);
  std::vector<float> y(M, std::nanf(""));
  CUdeviceptr dA = upload(ha), dV = upload(hv), dY = upload(y);
  bool launched = ok(launch(dA, dV, dY), what);
  download(y, dY);
  for (CUdeviceptr p : {dA, dV, dY})
    cuMemFree(p);
  Tally t;
  for (int i = 0; i < M; ++i) {
    double ref = 0, mag = 0;
    for (int k = 0; k < K; ++k) {
      double p = a[size_t(i) * K + k] * v[k];
      ref += p;
      mag += std::fabs(p);
    }
    t.add("y", size_t(i), y[i], ref, 1e-5 + 1e-6 * mag);
  }
  t.row(what, launched);
}

template <typename Launch>
void checkColumns(const char *what, bool max, int M, int N, Launch launch) {
  std::vector<float> x = randoms(size_t(M) * N), y(N, std::nanf(""));
  CUdeviceptr dX = upload(x), dY = upload(y);
  bool launched = ok(launch(dX, dY), what);
  download(y, dY);
  cuMemFree(dX);
  cuMemFree(dY);
  Tally t;
  for (int j = 0; j < N; ++j) {
    double ref = max ? -std::numeric_limits<double>::infinity()
                     : std::numeric_limits<double>::infinity();
    for (int i = 0; i < M; ++i)
      ref = max ? std::max(ref, double(x[size_t(i) * N + j]))
                : std::min(ref, double(x[size_t(i) * N + j]));
    t.add("Y", size_t(j), y[j], ref, 0);
  }
  t.row(what, launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  checkGemv("rowsum_gemv sum reducer, sm_90a (256x512, 64x64, 128 threads)",
            256, 512,
            [](auto... p) { return reducer::gemv_sm90::rowsum_gemv(p...); });
  checkGemv("rowsum_gemv sum reducer, sm_80 PTX (256x512)", 256, 512,
            [](auto... p) { return reducer::gemv_sm80::rowsum_gemv(p...); });
  checkGemv("rowsum_gemv sum reducer, sm_90a (200x328, 64x128, 256 threads)",
            200, 328,
            [](auto... p) { return reducer::gemv_odd::rowsum_gemv(p...); });
  checkColumns("colmax max reducer, sm_90a (1024x128)", true, 1024, 128,
               [](auto... p) { return reducer::colmax_sm90::colmax(p...); });
  checkColumns("colmax max reducer, sm_80 PTX (1024x128)", true, 1024, 128,
               [](auto... p) { return reducer::colmax_sm80::colmax(p...); });
  checkColumns("colmin replication=none min reducer, sm_90a (64x128)", false,
               64, 128,
               [](auto... p) { return reducer::colmin::colmin(p...); });
  std::printf("%s\n", allOk ? "all ok" : "FAILED");
  return allOk ? 0 : 1;
}
