// GEMM checks and timings: tilec's T.gemm kernels against cuBLAS (the
// reference for large sizes, fp32 output) and float64 on the CPU (small
// sizes), fp16 and bf16; cuBLAS is timed beside them in the same run.
#pragma once
#include "common.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>

#define CHECK_CUBLAS(x)                                                        \
  do {                                                                         \
    cublasStatus_t st_ = (x);                                                  \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                        \
      std::fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__,         \
                   __LINE__, #x, int(st_));                                    \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

// A device buffer of 16-bit floats (float16 or bfloat16) with a host mirror.
struct Buf16 {
  size_t n;
  bool bf16;
  void *dev = nullptr;
  std::vector<uint16_t> host;
  Buf16(size_t count, bool isBf16) : n(count), bf16(isBf16), host(count) {
    CHECK_CUDA(cudaMalloc(&dev, n * 2));
  }
  ~Buf16() { cudaFree(dev); }
  CUdeviceptr ptr() const { return reinterpret_cast<CUdeviceptr>(dev); }
  float get(size_t i) const {
    if (bf16) {
      __nv_bfloat16_raw r;
      r.x = host[i];
      return __bfloat162float(__nv_bfloat16(r));
    }
    __half_raw r;
    r.x = host[i];
    return __half2float(__half(r));
  }
  void set(size_t i, float v) {
    if (bf16)
      host[i] = __nv_bfloat16_raw(__float2bfloat16(v)).x;
    else
      host[i] = __half_raw(__float2half(v)).x;
  }
  void randomize(std::mt19937_64 &rng) {
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    for (size_t i = 0; i < n; ++i)
      set(i, d(rng));
    CHECK_CUDA(cudaMemcpy(dev, host.data(), n * 2, cudaMemcpyHostToDevice));
  }
  void poison() { CHECK_CUDA(cudaMemset(dev, 0xFF, n * 2)); }
  void download() {
    CHECK_CUDA(cudaMemcpy(host.data(), dev, n * 2, cudaMemcpyDeviceToHost));
  }
};

enum class Epilogue { Relu, BiasGelu };

static double epilogue(Epilogue e, double x, double bias) {
  if (e == Epilogue::Relu)
    return x > 0 ? x : 0;
  x += bias;
  return x / (1.0 + std::exp(-1.5957691216 * (x + 0.044715 * x * x * x)));
}

// Reference C = A @ B (row-major) in fp32 through cuBLAS.
static void cublasReference(cublasHandle_t h, const Buf16 &a, const Buf16 &b,
                            float *c, int m, int n, int k) {
  float one = 1, zero = 0;
  cudaDataType t = a.bf16 ? CUDA_R_16BF : CUDA_R_16F;
  CHECK_CUBLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b.dev,
                            t, n, a.dev, t, k, &zero, c, CUDA_R_32F, n,
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

template <typename Launch>
static void runGemm(cublasHandle_t h, const char *name, int m, int n, int k,
                    bool bf16, Epilogue e, Launch launch, bool time,
                    std::mt19937_64 &rng) {
  if (!harnessSelected(std::string(name) + " " + std::to_string(m) + "x" +
                       std::to_string(n) + "x" + std::to_string(k)))
    return;
  Buf16 a(size_t(m) * k, bf16), b(size_t(k) * n, bf16), c(size_t(m) * n, bf16),
      bias(n, bf16);
  a.randomize(rng);
  b.randomize(rng);
  bias.randomize(rng);
  c.poison();
  CHECK_CU(e == Epilogue::Relu ? launch(a.ptr(), b.ptr(), 0, c.ptr())
                               : launch(a.ptr(), b.ptr(), bias.ptr(), c.ptr()));
  CHECK_CUDA(cudaDeviceSynchronize());
  c.download();
  // Small problems: float64 on the CPU; large ones: cuBLAS in fp32.
  std::vector<double> ref(size_t(m) * n);
  bool cpu = double(m) * n * k <= 2e9;
  if (cpu) {
#pragma omp parallel for
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int kk = 0; kk < k; ++kk)
          s += double(a.get(size_t(i) * k + kk)) * double(b.get(size_t(kk) * n + j));
        ref[size_t(i) * n + j] = s;
      }
  } else {
    float *dref;
    CHECK_CUDA(cudaMalloc(&dref, size_t(m) * n * 4));
    cublasReference(h, a, b, dref, m, n, k);
    std::vector<float> tmp(size_t(m) * n);
    CHECK_CUDA(cudaMemcpy(tmp.data(), dref, tmp.size() * 4, cudaMemcpyDeviceToHost));
    cudaFree(dref);
    for (size_t i = 0; i < tmp.size(); ++i)
      ref[i] = tmp[i];
  }
  double num = 0, den = 0;
  size_t nans = 0;
#pragma omp parallel for reduction(+ : num, den, nans)
  for (size_t i = 0; i < ref.size(); ++i) {
    double r = epilogue(e, ref[i], bias.get(i % n)), o = c.get(i);
    if (std::isnan(o)) { ++nans; continue; }
    num += (o - r) * (o - r);
    den += r * r;
  }
  ErrorStat err{num, den, nans};
  double ms = 0, cublasMs = 0;
  if (time) {
    ms = e == Epilogue::Relu
             ? medianMs([&] { return launch(a.ptr(), b.ptr(), 0, c.ptr()); })
             : medianMs([&] { return launch(a.ptr(), b.ptr(), bias.ptr(), c.ptr()); });
    // cuBLAS with fp16/bf16 output, as torch's a @ b.
    float one = 1, zero = 0;
    cudaDataType t = bf16 ? CUDA_R_16BF : CUDA_R_16F;
    cublasMs = medianMs([&] {
      cublasStatus_t st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                                       b.dev, t, n, a.dev, t, k, &zero, c.dev, t,
                                       n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      return st == CUBLAS_STATUS_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN;
    });
  }
  double flops = 2.0 * m * n * k;
  std::printf("{\"kernel\": \"%s\", \"size\": \"%dx%dx%d %s\", \"rel_err\": %s, "
              "\"tol\": %.0e, \"ok\": %s, \"ms\": %.4f, \"TFLOPs\": %.1f, "
              "\"cublas_ms\": %.4f, \"cublas_TFLOPs\": %.1f, \"ref\": \"%s\"}\n",
              name, m, n, k, bf16 ? "bf16" : "fp16", JsonNum(err.rel()).text, 1e-2,
              err.rel() <= 1e-2 ? "true" : "false", ms, ms ? flops / ms / 1e9 : 0,
              cublasMs, cublasMs ? flops / cublasMs / 1e9 : 0,
              cpu ? "float64" : "cublas-fp32");
  std::fflush(stdout);
}
