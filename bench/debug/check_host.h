// Host helpers of the GPU check harnesses in bench/debug (*_check.cpp):
// driver calls checked and named, the device's primary context, device
// buffers from host vectors and back, fp16 bits, one seeded generator (a
// failure repeats on the next run), a table row of compared elements
// (Tally) and the run's verdict. Header-only: each
// harness is one file that its .sh builds with g++ -std=c++17 against the
// CUDA driver, after the launch headers it tests.
//
// A harness that wants the launch header's own words on a failed call
// defines CHECK_HOST_STATUS (a function returning const char *, e.g.
// `rel4::statusString`) before including this file.
#ifndef TILEC_BENCH_DEBUG_CHECK_HOST_H
#define TILEC_BENCH_DEBUG_CHECK_HOST_H

#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace check_host {

/// The run's verdict (the harness's exit status): cleared by a failed
/// driver call and by every failed check.
inline bool allOk = true;

/// Inputs are drawn from this, in the order the checks run.
inline std::mt19937 rng(2026);

/// True when `r` is CUDA_SUCCESS; else prints which call failed and how,
/// and fails the run.
inline bool ok(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return true;
  const char *name = nullptr;
  cuGetErrorName(r, &name);
#ifdef CHECK_HOST_STATUS
  std::printf("%s failed: %s (%s)\n", what, name ? name : "?",
              CHECK_HOST_STATUS());
#else
  std::printf("%s failed: %s\n", what, name ? name : "?");
#endif
  allOk = false;
  return false;
}

/// Device 0's primary context, made current; false (after saying why) when
/// there is no usable GPU.
/// The header of the checks' common table (Tally rows follow it).
inline void printCheckTableHeader() {
  std::printf("| case | elements | mismatches | max error | verdict |\n");
  std::printf("|---|---|---|---|---|\n");
}

inline bool initDevice() {
  CUdevice dev;
  CUcontext ctx;
  return ok(cuInit(0), "cuInit") && ok(cuDeviceGet(&dev, 0), "cuDeviceGet") &&
         ok(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") &&
         ok(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

/// A device copy of `v` (freed by download() or by the caller).
template <typename T> CUdeviceptr upload(const std::vector<T> &v) {
  CUdeviceptr d = 0;
  ok(cuMemAlloc(&d, v.size() * sizeof(T)), "cuMemAlloc");
  ok(cuMemcpyHtoD(d, v.data(), v.size() * sizeof(T)), "cuMemcpyHtoD");
  return d;
}
/// Waits for the kernels, copies `d` into `v` and frees `d`.
template <typename T> void download(std::vector<T> &v, CUdeviceptr d) {
  ok(cuCtxSynchronize(), "cuCtxSynchronize");
  ok(cuMemcpyDtoH(v.data(), d, v.size() * sizeof(T)), "cuMemcpyDtoH");
  cuMemFree(d);
}

/// fp16 bits of `f`, rounded to nearest even (overflow gives infinity).
inline std::uint16_t toHalf(float f) {
  _Float16 h = static_cast<_Float16>(f);
  std::uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}
/// The value of fp16 bits (exact in float).
inline float fromHalf(std::uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return static_cast<float>(h);
}

/// n uniform values in [-1, 1) from rng.
inline std::vector<float> randoms(size_t n) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = u(rng);
  return v;
}

/// n float16 values in [-1, 1) from rng, as their bits.
inline std::vector<std::uint16_t> halves(size_t n) {
  std::vector<float> f = randoms(n);
  std::vector<std::uint16_t> h(n);
  for (size_t i = 0; i < n; ++i)
    h[i] = toHalf(f[i]);
  return h;
}

/// The same, with the values they hold as doubles in `values`.
inline std::vector<std::uint16_t> halves(size_t n,
                                         std::vector<double> &values) {
  std::vector<std::uint16_t> h = halves(n);
  values.resize(n);
  for (size_t i = 0; i < n; ++i)
    values[i] = fromHalf(h[i]);
  return h;
}

/// One table row of a check: elements compared, mismatches (the first 3
/// printed), the largest error; row() prints it and folds it into allOk.
struct Tally {
  size_t n = 0, bad = 0;
  double maxErr = 0;
  void add(const char *what, size_t i, double got, double ref, double tol) {
    ++n;
    double e = std::fabs(got - ref);
    if (!(e <= tol)) {
      if (bad < 3)
        std::printf("  %s[%zu] = %g, expected %g\n", what, i, got, ref);
      ++bad;
    }
    if (std::isfinite(e))
      maxErr = std::max(maxErr, e);
  }
  void row(const std::string &what, bool launched) {
    bool good = launched && bad == 0;
    allOk &= good;
    std::printf("| %s | %zu | %zu | %.3g | %s |\n", what.c_str(), n, bad,
                maxErr, good ? "ok" : "FAIL");
  }
};

/// A float32 M x N product C = A B^T of float16 inputs (A M x K, B N x K,
/// row-major, their values as doubles) against `got`, each element within
/// `atol` + `rtol` sum_l |a b| (by default 1e-4 + 2e-6: fp32 accumulation
/// of fp16 products).
inline void compareAbt(Tally &t, const char *name,
                       const std::vector<float> &got,
                       const std::vector<double> &a,
                       const std::vector<double> &b, int M, int N, int K,
                       double atol = 1e-4, double rtol = 2e-6) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0, mag = 0;
      for (int l = 0; l < K; ++l) {
        double p = a[size_t(i) * K + l] * b[size_t(j) * K + l];
        ref += p;
        mag += std::fabs(p);
      }
      t.add(name, size_t(i) * N + j, got[size_t(i) * N + j], ref,
            atol + rtol * mag);
    }
}

} // namespace check_host

#endif // TILEC_BENCH_DEBUG_CHECK_HOST_H
