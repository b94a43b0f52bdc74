// GPU test of tilec's generated launch headers (see run.sh): launches every
// function of kernels.json through the PTX header and the cubin header and
// checks the results on the host. Also checks argument rejection, lazy
// loading in several contexts (including a destroyed and re-created one),
// unload(), and concurrent launches from threads. Prints one line per check
// and exits non-zero if any failed.
#include "kernels_cubin.h"
#include "kernels_ptx.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

static int failures = 0;

static void check(bool ok, const char *what) {
  std::printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
  failures += !ok;
}

static bool ok(CUresult err, const char *what) {
  if (err == CUDA_SUCCESS)
    return true;
  const char *name = nullptr;
  cuGetErrorName(err, &name);
  std::printf("  %s returned %s\n", what, name ? name : "?");
  return false;
}

template <typename T> struct Buffer {
  CUdeviceptr ptr = 0;
  size_t count;
  explicit Buffer(size_t n) : count(n) { cuMemAlloc(&ptr, n * sizeof(T)); }
  ~Buffer() { cuMemFree(ptr); }
  void upload(const std::vector<T> &v) {
    cuMemcpyHtoD(ptr, v.data(), v.size() * sizeof(T));
  }
  std::vector<T> download() {
    std::vector<T> v(count);
    cuMemcpyDtoH(v.data(), ptr, count * sizeof(T));
    return v;
  }
};

// vec_add through namespace `ns`, checked against the host.
#define CHECK_VEC_ADD(ns, n, what)                                             \
  do {                                                                         \
    std::vector<float> ha(n), hb(n);                                           \
    for (int i = 0; i < (n); ++i) {                                            \
      ha[i] = float(i % 1000);                                                 \
      hb[i] = 0.5f * float(i % 7);                                             \
    }                                                                          \
    Buffer<float> a(n), b(n), c(n);                                            \
    a.upload(ha);                                                              \
    b.upload(hb);                                                              \
    bool good = ok(ns::vec_add(a.ptr, b.ptr, c.ptr, n), "vec_add") &&          \
                ok(cuCtxSynchronize(), "sync");                                \
    std::vector<float> hc = c.download();                                      \
    for (int i = 0; good && i < (n); ++i)                                      \
      good = hc[i] == ha[i] + hb[i];                                           \
    check(good, what);                                                         \
  } while (0)

static unsigned short halfOf(float f) {
  return header_gpu_test::ptx::detail::halfBits(f);
}
static float floatOfHalf(unsigned short h) {
  // Exact for normal halves, which is all this test produces.
  int e = (h >> 10) & 31, m = h & 1023;
  float v =
      e ? std::ldexp(1.0f + m / 1024.0f, e - 15) : std::ldexp(m / 1024.0f, -14);
  return (h & 0x8000) ? -v : v;
}

int main() {
  namespace ptx = header_gpu_test::ptx;
  namespace cubin = header_gpu_test::cubin;
  if (!ok(cuInit(0), "cuInit"))
    return 1;
  CUdevice device;
  CUcontext primary;
  cuDeviceGet(&device, 0);
  cuDevicePrimaryCtxRetain(&primary, device);
  cuCtxSetCurrent(primary);

  CHECK_VEC_ADD(ptx, (1 << 20) + 3, "vec_add (PTX, JIT-loaded)");
  CHECK_VEC_ADD(cubin, 1000, "vec_add (cubin)");

  {
    Buffer<float> a(64);
    check(ptx::vec_add(a.ptr + 4, a.ptr, a.ptr, 16) == CUDA_ERROR_INVALID_VALUE,
          "misaligned pointer rejected");
    check(ptx::vec_add(0, a.ptr, a.ptr, 16) == CUDA_ERROR_INVALID_VALUE,
          "null pointer rejected");
    check(ptx::vec_add(a.ptr, a.ptr, a.ptr, 0) == CUDA_ERROR_INVALID_VALUE,
          "zero size rejected");
    check(ptx::vec_add(a.ptr, a.ptr, a.ptr, 1ll << 31) ==
              CUDA_ERROR_INVALID_VALUE,
          "size above INT32_MAX rejected");
  }

  { // float16 scalar converted on the host.
    const int n = 5000;
    std::vector<unsigned short> hx(n);
    for (int i = 0; i < n; ++i)
      hx[i] = halfOf(float(i % 100) - 50.0f);
    Buffer<unsigned short> x(n), y(n);
    x.upload(hx);
    bool good = ok(ptx::scale_half(x.ptr, y.ptr, -0.25f, n), "scale_half") &&
                ok(cuCtxSynchronize(), "sync");
    std::vector<unsigned short> hy = y.download();
    for (int i = 0; good && i < n; ++i)
      good = floatOfHalf(hy[i]) == (float(i % 100) - 50.0f) * -0.25f;
    check(good, "float16 scalar argument");
  }

  { // 100 KB of dynamic shared memory.
    const int n = 25600 * 3 + 17;
    std::vector<float> h(n);
    for (int i = 0; i < n; ++i)
      h[i] = float(i);
    Buffer<float> src(n), dst(n);
    src.upload(h);
    bool good =
        ok(ptx::reverse_chunks(src.ptr, dst.ptr, n), "reverse_chunks") &&
        ok(cuCtxSynchronize(), "sync");
    std::vector<float> out = dst.download();
    for (int i = 0; good && i < n; ++i) {
      int base = i / 25600 * 25600, j = base + 25599 - (i - base);
      good = out[i] == (j < n ? float(j) : 0.0f);
    }
    check(good, "dynamic shared memory above 48 KB");
  }

  { // Two kernels in sequence.
    const int n = 3000;
    std::vector<float> ha(n, 1.0f), hb(n, 2.0f);
    Buffer<float> a(n), b(n), c(n);
    a.upload(ha);
    b.upload(hb);
    bool good = ok(ptx::add_plus_one(a.ptr, b.ptr, c.ptr, n), "add_plus_one") &&
                ok(cuCtxSynchronize(), "sync");
    std::vector<float> hc = c.download();
    for (int i = 0; good && i < n; ++i)
      good = hc[i] == 4.0f;
    check(good, "two kernels launched in order");
  }

  { // Cluster launch.
    const int total = 16;
    Buffer<int> out(total);
    bool good = ok(ptx::cluster_ranks(out.ptr, total), "cluster_ranks") &&
                ok(cuCtxSynchronize(), "sync");
    std::vector<int> h = out.download();
    for (int i = 0; good && i < total; ++i)
      good = h[i] == (i % 2) * 100 + 2;
    check(good, "thread-block cluster of 2");
    check(ptx::cluster_ranks(out.ptr, 15) == CUDA_ERROR_INVALID_VALUE,
          "symbol check (total % 2 == 0) rejects 15");
  }

  {                                  // TMA: a tensor map built by the header.
    const int rows = 100, cols = 72; // not multiples of the 16 x 32 box
    std::vector<float> h(rows * cols);
    for (int i = 0; i < rows * cols; ++i)
      h[i] = float(i) * 0.5f;
    Buffer<float> src(rows * cols), dst(rows * cols);
    src.upload(h);
    bool good = ok(ptx::tma_copy(src.ptr, dst.ptr, rows, cols), "tma_copy") &&
                ok(cuCtxSynchronize(), "sync");
    check(good && dst.download() == h, "TMA tensor map (2-D, 100 x 72 floats)");
  }

  { // A value computed from two symbols.
    const int rows = 37, cols = 41;
    Buffer<int> out(rows * cols);
    bool good = ok(ptx::iota(out.ptr, rows, cols), "iota") &&
                ok(cuCtxSynchronize(), "sync");
    std::vector<int> h = out.download();
    for (int i = 0; good && i < rows * cols; ++i)
      good = h[i] == i;
    check(good, "value argument rows * cols");
  }

  { // Other contexts load their own module; a re-created one too.
    CUcontext second = nullptr;
    bool good = ok(cuCtxCreate(&second, nullptr, 0, device), "cuCtxCreate");
    if (good) {
      CHECK_VEC_ADD(ptx, 4096, "vec_add in a second context");
      cuCtxDestroy(second);
      CUcontext third = nullptr;
      good = ok(cuCtxCreate(&third, nullptr, 0, device), "cuCtxCreate");
      std::printf("  second context %p, third %p%s\n", (void *)second,
                  (void *)third, second == third ? " (handle reused)" : "");
      if (good) {
        CHECK_VEC_ADD(ptx, 4096, "vec_add in a re-created context");
        cuCtxDestroy(third);
      }
    }
    check(good, "context creation");
    cuCtxSetCurrent(primary);
  }

  check(ptx::unload() == CUDA_SUCCESS, "unload()");
  CHECK_VEC_ADD(ptx, 777, "vec_add after unload() (reloads)");
  check(ptx::load() == CUDA_SUCCESS, "load() when loaded");

  { // Launches from 8 threads on their own streams, on a fresh module.
    check(cubin::unload() == CUDA_SUCCESS, "unload() (cubin)");
    const int n = 1 << 16;
    std::vector<float> ha(n, 1.5f), hb(n, 2.0f);
    Buffer<float> a(n), b(n);
    a.upload(ha);
    b.upload(hb);
    std::vector<Buffer<float> *> outs;
    for (int t = 0; t < 8; ++t)
      outs.push_back(new Buffer<float>(n));
    std::vector<std::thread> threads;
    std::vector<int> good(8, 1);
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        cuCtxSetCurrent(primary);
        CUstream stream;
        cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
        for (int i = 0; i < 100; ++i)
          good[t] &= cubin::vec_add(a.ptr, b.ptr, outs[t]->ptr, n, stream) ==
                     CUDA_SUCCESS;
        good[t] &= cuStreamSynchronize(stream) == CUDA_SUCCESS;
        cuStreamDestroy(stream);
      });
    bool all = true;
    for (int t = 0; t < 8; ++t) {
      threads[t].join();
      std::vector<float> h = outs[t]->download();
      for (int i = 0; i < n; ++i)
        all &= h[i] == 3.5f;
      all &= good[t] != 0;
      delete outs[t];
    }
    check(all, "800 launches from 8 threads on 8 streams");
  }

  char log[256];
  check(ptx::loadLog(log, sizeof log) == 0, "no JIT error log");
  std::printf("%d failures\n", failures);
  cuDevicePrimaryCtxRelease(device);
  return failures == 0 ? 0 : 1;
}
