// GPU harness for tilec's examples (SIMT kernels, T.gemm, FlashAttention):
// every kernel is compiled from its .tile by tilec (bench/prepare.sh),
// launched through its generated header, checked against a float64
// reference on fresh random data with the output poisoned first, and timed
// (median of device events). Prints JSON lines.
//   harness          check + time every instance
//   harness --quick  check the small instances only (for compute-sanitizer)
#include "common.h"

#include "rmsnorm_silu.h"
#include "softmax.h"
#include "vector_add.h"

#include <cstring>

#if __has_include("cumsum.h")
#define TILEC_HAVE_CUMSUM 1
#include "cumsum.h"
#endif

#if __has_include("gemm_relu.h") && __has_include("gemm_bias_gelu.h")
#define TILEC_HAVE_GEMM 1
#include "gemm.h"
#include "gemm_bias_gelu.h"
#include "gemm_relu.h"
#endif
#if defined(TILEC_HAVE_GEMM) && __has_include("gemm_bias_gelu_fast.h")
#define TILEC_HAVE_GELU_FAST 1
#include "gemm_bias_gelu_fast.h" // the same kernel built with --fast-math
#endif
#if defined(TILEC_HAVE_GEMM) && __has_include("gemm_relu_base.h")
#define TILEC_HAVE_GEMM_BASE 1
#include "gemm_relu_base.h" // bench/prepare.sh with TILEC_BASE: A/B runs
#endif
#if __has_include("flash_attention.h")
#define TILEC_HAVE_FLASH_ATTENTION 1
#include "flash.h"
#include "flash_attention.h"
#endif

static std::mt19937_64 rng(std::random_device{}());


template <typename Launch>
static void runVectorAdd(const char *name, size_t n, Launch launch, bool time) {
  if (!harnessSelected(std::string(name) + " " + std::to_string(n)))
    return;
  HalfBuffer a(n), b(n), c(n);
  a.randomize(rng);
  b.randomize(rng);
  c.poison();
  CHECK_CU(launch(a.ptr(), b.ptr(), c.ptr()));
  CHECK_CUDA(cudaDeviceSynchronize());
  c.download();
  double num = 0, den = 0;
  size_t nans = 0;
#pragma omp parallel for reduction(+ : num, den, nans)
  for (size_t i = 0; i < n; ++i) {
    double out = c.at(i), ref = a.at(i) + b.at(i);
    if (std::isnan(out)) { ++nans; continue; }
    num += (out - ref) * (out - ref);
    den += ref * ref;
  }
  ErrorStat err{num, den, nans};
  double ms = time ? medianMs([&] { return launch(a.ptr(), b.ptr(), c.ptr()); }) : 0;
  report(name, std::to_string(n), err.rel(), 1e-3, ms, 3.0 * n * sizeof(__half));
}

template <typename Launch>
static void runSoftmax(const char *name, size_t m, size_t n, Launch launch, bool time) {
  if (!harnessSelected(std::string(name) + " " + std::to_string(m) + "x" + std::to_string(n)))
    return;
  HalfBuffer x(m * n), y(m * n);
  x.randomize(rng, -4.f, 4.f);
  y.poison();
  CHECK_CU(launch(x.ptr(), y.ptr()));
  CHECK_CUDA(cudaDeviceSynchronize());
  y.download();
  double num = 0, den = 0;
  size_t nans = 0;
#pragma omp parallel for reduction(+ : num, den, nans)
  for (size_t r = 0; r < m; ++r) {
    double mx = -INFINITY, sum = 0;
    for (size_t j = 0; j < n; ++j) mx = std::max(mx, x.at(r * n + j));
    for (size_t j = 0; j < n; ++j) sum += std::exp(x.at(r * n + j) - mx);
    for (size_t j = 0; j < n; ++j) {
      double ref = std::exp(x.at(r * n + j) - mx) / sum, out = y.at(r * n + j);
      if (std::isnan(out)) { ++nans; continue; }
      num += (out - ref) * (out - ref);
      den += ref * ref;
    }
  }
  ErrorStat err{num, den, nans};
  double ms = time ? medianMs([&] { return launch(x.ptr(), y.ptr()); }) : 0;
  report(name, std::to_string(m) + "x" + std::to_string(n), err.rel(), 2e-3, ms,
         2.0 * m * n * sizeof(__half));
}

template <typename Launch>
static void runRmsNormSilu(const char *name, size_t m, size_t n, Launch launch,
                           bool time) {
  if (!harnessSelected(std::string(name) + " " + std::to_string(m) + "x" + std::to_string(n)))
    return;
  HalfBuffer x(m * n), w(n), y(m * n);
  x.randomize(rng, -2.f, 2.f);
  w.randomize(rng, 0.5f, 1.5f);
  y.poison();
  CHECK_CU(launch(x.ptr(), w.ptr(), y.ptr()));
  CHECK_CUDA(cudaDeviceSynchronize());
  y.download();
  const double eps = 1e-6;
  double num = 0, den = 0;
  size_t nans = 0;
#pragma omp parallel for reduction(+ : num, den, nans)
  for (size_t r = 0; r < m; ++r) {
    double ss = 0;
    for (size_t j = 0; j < n; ++j) ss += x.at(r * n + j) * x.at(r * n + j);
    double rstd = 1.0 / std::sqrt(ss / double(n) + eps);
    for (size_t j = 0; j < n; ++j) {
      double v = x.at(r * n + j) * rstd * w.at(j);
      double ref = v / (1.0 + std::exp(-v)), out = y.at(r * n + j);
      if (std::isnan(out)) { ++nans; continue; }
      num += (out - ref) * (out - ref);
      den += ref * ref;
    }
  }
  ErrorStat err{num, den, nans};
  double ms = time ? medianMs([&] { return launch(x.ptr(), w.ptr(), y.ptr()); }) : 0;
  report(name, std::to_string(m) + "x" + std::to_string(n), err.rel(), 2e-3, ms,
         (2.0 * m * n + n) * sizeof(__half));
}

#ifdef TILEC_HAVE_CUMSUM
// T.cumsum, forward and reversed, float32, against float64 prefix sums.
template <typename Launch>
static void runCumsum(const char *name, size_t m, size_t n, Launch launch) {
  if (!harnessSelected(std::string(name) + " " + std::to_string(m) + "x" + std::to_string(n)))
    return;
  std::vector<float> hx(m * n);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (auto &v : hx) v = d(rng);
  float *x, *y, *z;
  CHECK_CUDA(cudaMalloc(&x, m * n * 4));
  CHECK_CUDA(cudaMalloc(&y, m * n * 4));
  CHECK_CUDA(cudaMalloc(&z, m * n * 4));
  CHECK_CUDA(cudaMemcpy(x, hx.data(), m * n * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(y, 0xFF, m * n * 4));
  CHECK_CUDA(cudaMemset(z, 0xFF, m * n * 4));
  CHECK_CU(launch(CUdeviceptr(x), CUdeviceptr(y), CUdeviceptr(z)));
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> hy(m * n), hz(m * n);
  CHECK_CUDA(cudaMemcpy(hy.data(), y, m * n * 4, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(hz.data(), z, m * n * 4, cudaMemcpyDeviceToHost));
  ErrorStat err;
  for (size_t r = 0; r < m; ++r) {
    double pre = 0, suf = 0;
    for (size_t j = 0; j < n; ++j) {
      pre += hx[r * n + j];
      err.add(hy[r * n + j], pre);
      suf += hx[r * n + (n - 1 - j)];
      err.add(hz[r * n + (n - 1 - j)], suf);
    }
  }
  report(name, std::to_string(m) + "x" + std::to_string(n), err.rel(), 1e-5, 0, 0);
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
}
#endif

int main(int argc, char **argv) {
  bool quick = argc > 1 && !std::strcmp(argv[1], "--quick");
  // --gemm: only the GEMMs (a short run for tuning).
  bool gemmOnly = argc > 1 && !std::strcmp(argv[1], "--gemm");
  CHECK_CUDA(cudaFree(nullptr)); // make the primary context current
  namespace va = tilec_kernels::vector_add;
  namespace sm = tilec_kernels::softmax;
  namespace rn = tilec_kernels::rmsnorm_silu;

  if (!gemmOnly) {
  runVectorAdd("vector_add_odd", 1000003,
               [](CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
                 return va::vector_add_odd(a, b, c);
               }, !quick);
  runSoftmax("softmax_odd", 1001, 4096,
             [](CUdeviceptr x, CUdeviceptr y) { return sm::softmax_odd(x, y); },
             !quick);
  runRmsNormSilu("rmsnorm_silu_odd", 1001, 4000,
                 [](CUdeviceptr x, CUdeviceptr w, CUdeviceptr y) {
                   return rn::rmsnorm_silu_odd(x, w, y);
                 }, !quick);
  }
#ifdef TILEC_HAVE_CUMSUM
  if (!gemmOnly)
  runCumsum("cumsum", 4096, 64, [](CUdeviceptr x, CUdeviceptr y, CUdeviceptr z) {
    return tilec_kernels::cumsum::cumsum(x, y, z);
  });
  if (!gemmOnly)
  runCumsum("cumsum_odd", 1001, 64, [](CUdeviceptr x, CUdeviceptr y, CUdeviceptr z) {
    return tilec_kernels::cumsum::cumsum_odd(x, y, z);
  });
#endif
#ifdef TILEC_HAVE_GEMM
  cublasHandle_t blas;
  CHECK_CUBLAS(cublasCreate(&blas));
  namespace gr = tilec_kernels::gemm_relu;
  namespace gg = tilec_kernels::gemm_bias_gelu;
#define RELU(fn) [](CUdeviceptr a, CUdeviceptr b, CUdeviceptr, CUdeviceptr c) { return gr::fn(a, b, c); }
#define GELU(fn) [](CUdeviceptr a, CUdeviceptr b, CUdeviceptr bias, CUdeviceptr c) { return gg::fn(a, b, bias, c); }
  runGemm(blas, "gemm_relu_odd", 1000, 1000, 1000, false, Epilogue::Relu, RELU(gemm_relu_odd), !quick, rng);
  runGemm(blas, "gemm_relu_bf16_odd", 1000, 1000, 1000, true, Epilogue::Relu, RELU(gemm_relu_bf16_odd), !quick, rng);
  runGemm(blas, "gemm_bias_gelu_odd", 1000, 1000, 1000, false, Epilogue::BiasGelu, GELU(gemm_bias_gelu_odd), !quick, rng);
  if (!quick) {
    runGemm(blas, "gemm_relu", 2048, 2048, 2048, false, Epilogue::Relu, RELU(gemm_relu_2048), true, rng);
    runGemm(blas, "gemm_relu", 4096, 4096, 4096, false, Epilogue::Relu, RELU(gemm_relu_4096), true, rng);
    runGemm(blas, "gemm_relu", 8192, 8192, 8192, false, Epilogue::Relu, RELU(gemm_relu_8192), true, rng);
    runGemm(blas, "gemm_relu_bf16", 4096, 4096, 4096, true, Epilogue::Relu, RELU(gemm_relu_bf16), true, rng);
    // Block configurations tried (128x128 tiles, fp16, 4096^3).
    runGemm(blas, "gemm_relu bK=64 t=128 s=3", 4096, 4096, 4096, false, Epilogue::Relu, RELU(gemm_relu_k64_t128), true, rng);
    runGemm(blas, "gemm_relu bK=32 t=256 s=3", 4096, 4096, 4096, false, Epilogue::Relu, RELU(gemm_relu_k32_t256), true, rng);
    runGemm(blas, "gemm_relu bK=64 t=256 s=3", 4096, 4096, 4096, false, Epilogue::Relu, RELU(gemm_relu_k64_t256), true, rng);
    runGemm(blas, "gemm_relu bK=32 t=128 s=4", 4096, 4096, 4096, false, Epilogue::Relu, RELU(gemm_relu_k32_s4), true, rng);
#ifdef TILEC_HAVE_GEMM_BASE
    runGemm(blas, "gemm_relu bK=32 t=128 s=4 (TILEC_BASE)", 4096, 4096, 4096, false, Epilogue::Relu,
            [](CUdeviceptr a, CUdeviceptr b, CUdeviceptr, CUdeviceptr c) {
              return tilec_kernels::gemm_relu_base::gemm_relu_base_4096(a, b, c);
            }, true, rng);
#endif
    runGemm(blas, "gemm_relu bK=64 t=256 s=4", 4096, 4096, 4096, false, Epilogue::Relu, RELU(gemm_relu_k64_t256_s4), true, rng);
  }
  if (!quick) {
    // Larger block tiles: 8 warps of 64x64 each.
    runGemm(blas, "gemm_relu 128x256x32 t=256 s=3", 4096, 4096, 4096, false, Epilogue::Relu, RELU(gemm_relu_n256_t256), true, rng);
    runGemm(blas, "gemm_relu 256x128x32 t=256 s=3", 4096, 4096, 4096, false, Epilogue::Relu, RELU(gemm_relu_m256_t256), true, rng);
    runGemm(blas, "gemm_relu 128x256x32 t=256 s=4", 4096, 4096, 4096, false, Epilogue::Relu, RELU(gemm_relu_n256_t256_s4), true, rng);
    runGemm(blas, "gemm_relu 256x128x64 t=256 s=3", 4096, 4096, 4096, false, Epilogue::Relu, RELU(gemm_relu_m256_k64_t256), true, rng);
    runGemm(blas, "gemm_relu 256x128x64 t=256 s=4", 4096, 4096, 4096, false, Epilogue::Relu, RELU(gemm_relu_m256_k64_t256_s4), true, rng);
    runGemm(blas, "gemm_relu 128x256x64 t=256 s=3", 4096, 4096, 4096, false, Epilogue::Relu, RELU(gemm_relu_n256_k64_t256), true, rng);
    runGemm(blas, "gemm_relu 256x128x64 t=256 s=3", 2048, 2048, 2048, false, Epilogue::Relu, RELU(gemm_relu_m256_k64_t256_2048), true, rng);
    runGemm(blas, "gemm_relu 256x128x64 t=256 s=3", 8192, 8192, 8192, false, Epilogue::Relu, RELU(gemm_relu_m256_k64_t256_8192), true, rng);
    runGemm(blas, "gemm_relu (as gemm_bias_gelu's shape)", 4096, 4096, 1024, false, Epilogue::Relu, RELU(gemm_relu_k1024), true, rng);
    runGemm(blas, "gemm_bias_gelu", 4096, 4096, 1024, false, Epilogue::BiasGelu, GELU(gemm_bias_gelu), true, rng);
#ifdef TILEC_HAVE_GELU_FAST
    runGemm(blas, "gemm_bias_gelu --fast-math", 4096, 4096, 1024, false, Epilogue::BiasGelu,
            [](CUdeviceptr a, CUdeviceptr b, CUdeviceptr bias, CUdeviceptr c) {
              return tilec_kernels::gemm_bias_gelu_fast::gemm_bias_gelu_fast(a, b, bias, c);
            }, true, rng);
    runGemm(blas, "gemm_bias_gelu_odd --fast-math", 1000, 1000, 1000, false, Epilogue::BiasGelu,
            [](CUdeviceptr a, CUdeviceptr b, CUdeviceptr bias, CUdeviceptr c) {
              return tilec_kernels::gemm_bias_gelu_fast::gemm_bias_gelu_fast_odd(a, b, bias, c);
            }, true, rng);
#endif
    runGemm(blas, "gemm_bias_gelu_bf16", 4096, 4096, 1024, true, Epilogue::BiasGelu, GELU(gemm_bias_gelu_bf16), true, rng);
  }
  cublasDestroy(blas);
#else
  std::printf("{\"note\": \"no GEMM headers: T.gemm did not compile\"}\n");
#endif
#ifdef TILEC_HAVE_FLASH_ATTENTION
  if (!gemmOnly) {
    namespace fa = tilec_kernels::flash_attention;
#define FA(fn) [](CUdeviceptr q, CUdeviceptr k, CUdeviceptr v, CUdeviceptr o) { return fa::fn(q, k, v, o); }
    // Every output element against float64: causal, seq_len 1000 (a partial
    // last query tile and KV tile), dim 64, batch and heads both > 1.
    runFlashAttention("flash_attention_512", 1, 4, 512, 128, false, FA(flash_attention_512), !quick, rng);
    runFlashAttention("flash_attention_512_causal", 1, 4, 512, 128, true, FA(flash_attention_512_causal), !quick, rng);
    runFlashAttention("flash_attention_odd", 2, 3, 1000, 128, false, FA(flash_attention_odd), !quick, rng);
    runFlashAttention("flash_attention_odd_causal", 2, 3, 1000, 128, true, FA(flash_attention_odd_causal), !quick, rng);
    runFlashAttention("flash_attention_d64", 2, 3, 512, 64, false, FA(flash_attention_d64), !quick, rng);
    runFlashAttention("flash_attention_d64_causal", 2, 3, 512, 64, true, FA(flash_attention_d64_causal), !quick, rng);
    if (!quick) {
      // The timing shape; its float64 reference covers 64 sampled rows.
      runFlashAttention("flash_attention_4096", 8, 32, 4096, 128, false, FA(flash_attention_4096), true, rng, 64);
      runFlashAttention("flash_attention_4096_causal", 8, 32, 4096, 128, true, FA(flash_attention_4096_causal), true, rng, 64);
    }
#undef FA
  }
#else
  if (!gemmOnly)
    std::printf("{\"note\": \"no flash_attention.h: flash_attention.tile did not compile\"}\n");
#endif
  if (quick || gemmOnly)
    return 0;
  runVectorAdd("vector_add", size_t(1) << 28,
               [](CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
                 return va::vector_add(a, b, c);
               }, true);
  runSoftmax("softmax", 32768, 4096,
             [](CUdeviceptr x, CUdeviceptr y) { return sm::softmax(x, y); }, true);
  runRmsNormSilu("rmsnorm_silu", 32768, 4096,
                 [](CUdeviceptr x, CUdeviceptr w, CUdeviceptr y) {
                   return rn::rmsnorm_silu(x, w, y);
                 }, true);
  return 0;
}
