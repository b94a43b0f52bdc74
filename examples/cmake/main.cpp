// The example program: launches the kernels tilec compiled at build time
// (gemm_relu.h, axpy.h from tilec_add_kernel) through the CUDA driver API,
// checks every output element against a float64 reference on the host and
// prints a table. Exit status 0 when every check passes.
//
// Built in CI without a GPU (linked against the driver stub); run it on a
// machine with an sm_80 or newer GPU.
#include "axpy.h"
#include "gemm_relu.h"

#include <cuda.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {

#define CHECK_CU(call)                                                         \
  do {                                                                         \
    CUresult err_ = (call);                                                    \
    if (err_ != CUDA_SUCCESS) {                                                \
      const char *name_ = nullptr;                                             \
      cuGetErrorName(err_, &name_);                                            \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                   name_ ? name_ : "?");                                       \
      return false;                                                            \
    }                                                                          \
  } while (0)

// IEEE binary16 <-> float on the host.
float halfToFloat(std::uint16_t h) {
  std::uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f,
                mant = h & 0x3ffu, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else { // subnormal
    exp = 113;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

std::uint16_t floatToHalf(float f) { // inputs here are small and normal
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  std::uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
  if (a < 0x38800000u)
    return static_cast<std::uint16_t>(sign);
  std::uint32_t m = a - 0x38000000u;
  m = (m + 0x0fffu + ((m >> 13) & 1u)) >> 13;
  return static_cast<std::uint16_t>(sign | m);
}

struct Result {
  const char *kernel;
  const char *image;
  std::size_t elements;
  double maxError;
  std::size_t bad;
};

bool runGemm(Result &result) {
  const int n = 512; // M = N = K, as tilec_add_kernel's DEFINES bind them
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<std::uint16_t> a(n * n), b(n * n), c(n * n);
  for (auto &v : a)
    v = floatToHalf(dist(rng));
  for (auto &v : b)
    v = floatToHalf(dist(rng));
  CUdeviceptr dA, dB, dC;
  CHECK_CU(cuMemAlloc(&dA, a.size() * 2));
  CHECK_CU(cuMemAlloc(&dB, b.size() * 2));
  CHECK_CU(cuMemAlloc(&dC, c.size() * 2));
  CHECK_CU(cuMemcpyHtoD(dA, a.data(), a.size() * 2));
  CHECK_CU(cuMemcpyHtoD(dB, b.data(), b.size() * 2));
  if (app::gemm::matmul(dA, dB, dC) != CUDA_SUCCESS) {
    std::fprintf(stderr, "matmul: %s\n", app::gemm::statusString());
    return false;
  }
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(c.data(), dC, c.size() * 2));
  result = {"gemm_relu 512^3 fp16", app::gemm::target(), c.size(), 0.0, 0};
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double ref = 0;
      for (int k = 0; k < n; ++k)
        ref += double(halfToFloat(a[i * n + k])) * halfToFloat(b[k * n + j]);
      ref = ref > 0 ? ref : 0;
      double err = std::fabs(halfToFloat(c[i * n + j]) - ref);
      result.maxError = std::fmax(result.maxError, err);
      // fp16 output: half an ulp at |ref| <= 32 is 2^-6, plus fp32 sums.
      if (err > 1e-2 + 1e-3 * std::fabs(ref))
        ++result.bad;
    }
  cuMemFree(dA);
  cuMemFree(dB);
  cuMemFree(dC);
  return true;
}

template <typename Launch>
bool runAxpy(const char *name, std::size_t n, Launch launch, Result &result) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(n), y(n), out(n);
  for (auto &v : x)
    v = dist(rng);
  for (auto &v : y)
    v = dist(rng);
  const float alpha = 0.75f;
  CUdeviceptr dX, dY;
  CHECK_CU(cuMemAlloc(&dX, n * 4));
  CHECK_CU(cuMemAlloc(&dY, n * 4));
  CHECK_CU(cuMemcpyHtoD(dX, x.data(), n * 4));
  CHECK_CU(cuMemcpyHtoD(dY, y.data(), n * 4));
  if (launch(dX, dY, alpha) != CUDA_SUCCESS) {
    std::fprintf(stderr, "%s: %s\n", name, app::axpy::statusString());
    return false;
  }
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(out.data(), dY, n * 4));
  result = {name, app::axpy::target(), n, 0.0, 0};
  for (std::size_t i = 0; i < n; ++i) {
    double ref = double(alpha) * x[i] + y[i];
    double err = std::fabs(out[i] - ref);
    result.maxError = std::fmax(result.maxError, err);
    if (err > 1e-6 * (1 + std::fabs(ref)))
      ++result.bad;
  }
  cuMemFree(dX);
  cuMemFree(dY);
  return true;
}

bool run() {
  CHECK_CU(cuInit(0));
  CUdevice device;
  CHECK_CU(cuDeviceGet(&device, 0));
  int major = 0, minor = 0;
  CHECK_CU(cuDeviceGetAttribute(
      &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  CHECK_CU(cuDeviceGetAttribute(
      &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  CUcontext context;
  CHECK_CU(cuDevicePrimaryCtxRetain(&context, device));
  CHECK_CU(cuCtxSetCurrent(context));
  std::printf("device 0: compute capability %d.%d\n", major, minor);

  // A rejected argument: nothing is launched, and the status says why.
  bool statusOk =
      app::gemm::matmul(0, 0, 0) == CUDA_ERROR_INVALID_VALUE &&
      std::strcmp(app::gemm::statusString(),
                  "matmul: argument `A` is null") == 0;
  std::printf("rejected launch: %s (%s)\n", app::gemm::statusString(),
              statusOk ? "as expected" : "UNEXPECTED");

  std::vector<Result> results(3);
  bool ok = runGemm(results[0]) &&
            runAxpy("axpy_4k", 4096,
                    [](CUdeviceptr x, CUdeviceptr y, float alpha) {
                      return app::axpy::axpy_4k(x, y, alpha);
                    },
                    results[1]) &&
            runAxpy("axpy_1m", 1000000,
                    [](CUdeviceptr x, CUdeviceptr y, float alpha) {
                      return app::axpy::axpy_1m(x, y, alpha);
                    },
                    results[2]);
  if (!ok)
    return false;
  std::printf("%-22s %-7s %9s %12s %6s\n", "kernel", "image", "elements",
              "max |error|", "bad");
  for (const Result &r : results) {
    std::printf("%-22s %-7s %9zu %12.3g %6zu\n", r.kernel,
                r.image ? r.image : "?", r.elements, r.maxError, r.bad);
    ok &= r.bad == 0;
  }
  cuDevicePrimaryCtxRelease(device);
  return ok && statusOk;
}

} // namespace

int main() {
  bool ok = run();
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
