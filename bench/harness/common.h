// Shared helpers of the GPU harness: error checks, random data, timing.
#pragma once
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

// TILEC_HARNESS_ONLY="gemm_relu 4096x4096x4096|flash_attention_4096": run
// only the instances whose "NAME DIMS" label is in the '|'-separated list
// (bench/tools-agree-check.sh times two kernels without the whole suite).
inline bool harnessSelected(const std::string &label) {
  const char *only = std::getenv("TILEC_HARNESS_ONLY");
  if (!only || !*only)
    return true;
  std::string list = std::string("|") + only + "|";
  return list.find("|" + label + "|") != std::string::npos;
}

// Median of per-launch device-event times. The default ("burst", the
// harness's historical method): 10 launches of warm-up, then 50 timed, no
// L2 flush, about 20 ms of work for a 4096^3 GEMM after an idle check, so
// the GPU is still at its boost clock. TILEC_HARNESS_TIMING=do_bench times
// as TileLang's / Triton's do_bench and tilec-bench's default do: 25 ms of
// warm-up and 100 ms of repetitions sized from a 5-launch estimate, a
// 256 MB buffer cleared before each repetition, i.e. the power-limited
// steady state (issue 14: a 4096^3 fp16 GEMM reads ~10% slower there).
template <typename F> double medianMs(F launch, int warmup = 10, int iters = 50) {
  const char *mode = std::getenv("TILEC_HARNESS_TIMING");
  bool doBench = mode && !std::strcmp(mode, "do_bench");
  void *flush = nullptr;
  const size_t flushBytes = 256u << 20;
  if (doBench) {
    CHECK_CUDA(cudaMalloc(&flush, flushBytes));
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    CHECK_CUDA(cudaEventRecord(a));
    for (int i = 0; i < 5; ++i) {
      CHECK_CUDA(cudaMemsetAsync(flush, 0, flushBytes));
      CHECK_CU(launch());
    }
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float est = 0;
    CHECK_CUDA(cudaEventElapsedTime(&est, a, b));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    double one = std::max(double(est) / 5, 1e-4);
    warmup = std::max(1, int(25 / one));
    iters = std::clamp(int(100 / one), 1, 10000);
  }
  for (int i = 0; i < warmup; ++i)
    CHECK_CU(launch());
  CHECK_CUDA(cudaDeviceSynchronize());
  // Separate start and end events: with a flush between repetitions the
  // end of one is not the start of the next.
  std::vector<cudaEvent_t> start(iters), end(iters);
  for (int i = 0; i < iters; ++i) {
    CHECK_CUDA(cudaEventCreate(&start[i]));
    CHECK_CUDA(cudaEventCreate(&end[i]));
  }
  std::vector<float> ms(iters);
  for (int i = 0; i < iters; ++i) {
    if (flush)
      CHECK_CUDA(cudaMemsetAsync(flush, 0, flushBytes));
    CHECK_CUDA(cudaEventRecord(start[i]));
    CHECK_CU(launch());
    CHECK_CUDA(cudaEventRecord(end[i]));
  }
  CHECK_CUDA(cudaEventSynchronize(end[iters - 1]));
  for (int i = 0; i < iters; ++i)
    CHECK_CUDA(cudaEventElapsedTime(&ms[i], start[i], end[i]));
  for (int i = 0; i < iters; ++i) {
    cudaEventDestroy(start[i]);
    cudaEventDestroy(end[i]);
  }
  if (flush)
    cudaFree(flush);
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
