// Shared helpers of the GPU harness: error checks, random data, timing.
#pragma once
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#define CHECK_CUDA(x)                                                          \
  do {                                                                         \
    cudaError_t err_ = (x);                                                    \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,          \
                   cudaGetErrorString(err_));                                  \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

#define CHECK_CU(x)                                                            \
  do {                                                                         \
    CUresult err_ = (x);                                                       \
    if (err_ != CUDA_SUCCESS) {                                                \
      const char *msg_ = nullptr;                                              \
      cuGetErrorString(err_, &msg_);                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,          \
                   msg_ ? msg_ : "?");                                         \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

// A device buffer of halves with a host mirror.
struct HalfBuffer {
  size_t n = 0;
  __half *dev = nullptr;
  std::vector<__half> host;
  explicit HalfBuffer(size_t count) : n(count), host(count) {
    CHECK_CUDA(cudaMalloc(&dev, n * sizeof(__half)));
  }
  ~HalfBuffer() { cudaFree(dev); }
  CUdeviceptr ptr() const { return reinterpret_cast<CUdeviceptr>(dev); }
  void randomize(std::mt19937_64 &rng, float lo = -1.f, float hi = 1.f) {
    std::uniform_real_distribution<float> d(lo, hi);
    for (auto &h : host)
      h = __float2half(d(rng));
    upload();
  }
  void upload() {
    CHECK_CUDA(cudaMemcpy(dev, host.data(), n * sizeof(__half),
                          cudaMemcpyHostToDevice));
  }
  void download() {
    CHECK_CUDA(cudaMemcpy(host.data(), dev, n * sizeof(__half),
                          cudaMemcpyDeviceToHost));
  }
  // 0xFFFF is a NaN: any element the kernel fails to write stays NaN.
  void poison() { CHECK_CUDA(cudaMemset(dev, 0xFF, n * sizeof(__half))); }
  double at(size_t i) const { return double(__half2float(host[i])); }
};

// ||out - ref|| / ||ref||; NaN (an unwritten or broken element) fails.
struct ErrorStat {
  double num = 0, den = 0;
  size_t nans = 0;
  void add(double out, double ref) {
    if (std::isnan(out)) {
      ++nans;
      return;
    }
    num += (out - ref) * (out - ref);
    den += ref * ref;
  }
  double rel() const { return nans ? INFINITY : std::sqrt(num / std::max(den, 1e-300)); }
};

// A double as JSON text: printf's "inf"/"nan" are not JSON, so a failed
// check (rel_err is infinite when an output stayed NaN) would break
// report.py; Python's json module reads Infinity and NaN.
struct JsonNum {
  char text[32];
  explicit JsonNum(double x, const char *fmt = "%.3e") {
    if (std::isnan(x))
      std::snprintf(text, sizeof text, "NaN");
    else if (std::isinf(x))
      std::snprintf(text, sizeof text, x > 0 ? "Infinity" : "-Infinity");
    else
      std::snprintf(text, sizeof text, fmt, x);
  }
};

// Median of per-launch device-event times, after a warm-up.
template <typename F> double medianMs(F launch, int warmup = 10, int iters = 50) {
  for (int i = 0; i < warmup; ++i)
    CHECK_CU(launch());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(iters + 1);
  for (auto &e : ev)
    CHECK_CUDA(cudaEventCreate(&e));
  std::vector<float> ms(iters);
  for (int i = 0; i < iters; ++i) {
    CHECK_CUDA(cudaEventRecord(ev[i]));
    CHECK_CU(launch());
    CHECK_CUDA(cudaEventRecord(ev[i + 1]));
  }
  CHECK_CUDA(cudaEventSynchronize(ev[iters]));
  for (int i = 0; i < iters; ++i)
    CHECK_CUDA(cudaEventElapsedTime(&ms[i], ev[i], ev[i + 1]));
  for (auto &e : ev)
    cudaEventDestroy(e);
  std::sort(ms.begin(), ms.end());
  return ms[iters / 2];
}

inline void report(const std::string &kernel, const std::string &size,
                   double relErr, double tol, double ms, double bytes) {
  bool ok = relErr <= tol;
  std::printf("{\"kernel\": \"%s\", \"size\": \"%s\", \"rel_err\": %s, "
              "\"tol\": %.0e, \"ok\": %s, \"ms\": %.4f, \"GBps\": %.1f}\n",
              kernel.c_str(), size.c_str(), JsonNum(relErr).text, tol, ok ? "true" : "false",
              ms, ms > 0 ? bytes / ms / 1e6 : 0.0);
  std::fflush(stdout);
}
