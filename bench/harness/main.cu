// GPU harness for tilec's SIMT examples: every kernel is compiled from its
// .tile by tilec (bench/prepare.sh), launched through its generated header,
// checked against a float64 reference on fresh random data with the output
// poisoned first, and timed (median of device events). Prints JSON lines.
//   harness          check + time every instance
//   harness --quick  check the small instances only (for compute-sanitizer)
#include "common.h"

#include "rmsnorm_silu.h"
#include "softmax.h"
#include "vector_add.h"

#include <cstring>

static std::mt19937_64 rng(std::random_device{}());

template <typename Launch>
static void runVectorAdd(const char *name, size_t n, Launch launch, bool time) {
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

int main(int argc, char **argv) {
  bool quick = argc > 1 && !std::strcmp(argv[1], "--quick");
  CHECK_CUDA(cudaFree(nullptr)); // make the primary context current
  namespace va = tilec_kernels::vector_add;
  namespace sm = tilec_kernels::softmax;
  namespace rn = tilec_kernels::rmsnorm_silu;

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
  if (quick)
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
