// GPU check of T.tvm_warp_shuffle (see shfl_check.sh) through the generated
// launch headers, on random inputs; every output element against a host
// reference, non-zero exit on any mismatch.
//
// rotN (test/Frontend/tilelang/warp-shuffle.tile, n = 4096, 128 threads a
// block): Y[i] = X[j], j the lane 3 places on from i's, wrapping within
// i's aligned group of N lanes: j = (i & ~(N-1)) | ((i + 3) & (N-1)).
// A move: exact.
//
// hadN (TileLang's Hadamard example, b = 64 rows of N float32): each row
// times the N x N Sylvester Hadamard matrix, y[k] = sum_j (-1)^popcount(k & j)
// x[j], against float64 (a fast Walsh-Hadamard transform); tolerance 1e-5
// of sum_j |x[j]| plus 1e-5.
#include "check_host.h"
#include "had1024.h"
#include "had1024_sm80.h"
#include "had256.h"
#include "had32768.h"
#include "rot16.h"
#include "rot32.h"
#include "rot8.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

using namespace check_host;

// 16-bit (float16 or bfloat16) or 32-bit elements: the check compares bits.
template <typename Elem, typename Launch>
void checkRotate(const char *what, int width, Launch launch) {
  const int n = 4096;
  std::vector<Elem> x(n), y(n);
  std::vector<float> r = randoms(n);
  for (int i = 0; i < n; ++i)
    if constexpr (sizeof(Elem) == 4)
      x[i] = r[i];
    else
      x[i] = Elem(std::uint16_t(rng())); // any bits: a move keeps them
  std::memset(y.data(), 0xff, y.size() * sizeof(Elem));
  CUdeviceptr dX = upload(x), dY = upload(y);
  bool launched = ok(launch(dX, dY), what);
  download(y, dY);
  cuMemFree(dX);
  cuMemFree(dY);
  Tally t;
  for (int i = 0; i < n; ++i) {
    int j = (i & ~(width - 1)) | ((i + 3) & (width - 1));
    bool same = std::memcmp(&x[j], &y[i], sizeof(Elem)) == 0;
    t.add("Y", size_t(i), same ? 0.0 : 1.0, 0.0, 0.0);
  }
  t.row(what, launched);
}

template <typename Launch>
void checkHadamard(const char *what, int n, Launch launch) {
  const int b = 64;
  std::vector<float> x = randoms(size_t(b) * n), y(size_t(b) * n, std::nanf(""));
  CUdeviceptr dX = upload(x), dY = upload(y);
  bool launched = ok(launch(dX, dY, b), what);
  download(y, dY);
  cuMemFree(dX);
  cuMemFree(dY);
  Tally t;
  for (int row = 0; row < b; ++row) {
    const float *xr = &x[size_t(row) * n];
    // The fast Walsh-Hadamard transform in float64: natural (Sylvester)
    // order, y[k] = sum_j (-1)^popcount(k & j) x[j].
    std::vector<double> ref(xr, xr + n);
    double mag = 0;
    for (double v : ref)
      mag += std::fabs(v);
    for (int h = 1; h < n; h *= 2)
      for (int i = 0; i < n; i += 2 * h)
        for (int k = i; k < i + h; ++k) {
          double a = ref[k], c = ref[k + h];
          ref[k] = a + c;
          ref[k + h] = a - c;
        }
    for (int k = 0; k < n; ++k)
      t.add("B", size_t(row) * n + k, y[size_t(row) * n + k], ref[k],
            1e-5 + 1e-5 * mag);
  }
  t.row(what, launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  checkRotate<std::uint16_t>("rotate in 8 lanes, float16", 8,
                             [](CUdeviceptr x, CUdeviceptr y) {
                               return shfl::rot8::rotate(x, y);
                             });
  checkRotate<std::uint16_t>("rotate in 16 lanes, bfloat16", 16,
                             [](CUdeviceptr x, CUdeviceptr y) {
                               return shfl::rot16::rotate(x, y);
                             });
  checkRotate<float>("rotate in 32 lanes, float32", 32,
                     [](CUdeviceptr x, CUdeviceptr y) {
                       return shfl::rot32::rotate(x, y);
                     });
  checkHadamard("hadamard n=256 sm_90a", 256,
                [](CUdeviceptr a, CUdeviceptr o, int b) {
                  return shfl::had256::hadamard(a, o, b);
                });
  checkHadamard("hadamard n=1024 sm_90a", 1024,
                [](CUdeviceptr a, CUdeviceptr o, int b) {
                  return shfl::had1024::hadamard(a, o, b);
                });
  checkHadamard("hadamard n=1024 sm_80", 1024,
                [](CUdeviceptr a, CUdeviceptr o, int b) {
                  return shfl::had1024_sm80::hadamard(a, o, b);
                });
  checkHadamard("hadamard n=32768 sm_90a", 32768,
                [](CUdeviceptr a, CUdeviceptr o, int b) {
                  return shfl::had32768::hadamard(a, o, b);
                });
  std::printf(allOk ? "all ok\n" : "FAILED\n");
  return allOk ? 0 : 1;
}
