// GPU check of the hand-written warp-specialized GEMMs (see ws4_check.sh):
// C = A @ B through each kernel's generated header, A (M, K) and B (K, N)
// random float16 in [-1, 1], every element of C (float16) against a
// float64 reference on the host, tolerance 2^-10 of |C| (the f16 store)
// plus 1e-3 of sum_k |a b| (f32 accumulation). C starts as NaN, so an
// element no thread wrote fails; the ReLU case compares max(ref, 0).
// Non-zero exit on any mismatch.
#include "eager.h"
#include "split.h"
#include "split_edge.h"
#include "split_pipe.h"
#include "tma_edge.h"
#include "tma_p0.h"
#include "tma_p1.h"
#include "tma_regs.h"
#include "tma_relu.h"
#include "check_host.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace check_host;

using Launch = std::function<CUresult(CUdeviceptr, CUdeviceptr, CUdeviceptr)>;

void check(const std::string &what, Launch launch, int M, int N, int K,
           bool relu = false) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<std::uint16_t> a(size_t(M) * K), b(size_t(K) * N);
  for (auto &x : a)
    x = toHalf(u(rng));
  for (auto &x : b)
    x = toHalf(u(rng));
  std::vector<std::uint16_t> c(size_t(M) * N, 0x7e00); // NaN
  CUdeviceptr dA, dB, dC;
  ok(cuMemAlloc(&dA, a.size() * 2), "cuMemAlloc");
  ok(cuMemAlloc(&dB, b.size() * 2), "cuMemAlloc");
  ok(cuMemAlloc(&dC, c.size() * 2), "cuMemAlloc");
  cuMemcpyHtoD(dA, a.data(), a.size() * 2);
  cuMemcpyHtoD(dB, b.data(), b.size() * 2);
  cuMemcpyHtoD(dC, c.data(), c.size() * 2);
  bool launched = ok(launch(dA, dB, dC), what.c_str()) &&
                  ok(cuCtxSynchronize(), (what + " (run)").c_str());
  cuMemcpyDtoH(c.data(), dC, c.size() * 2);
  cuMemFree(dA);
  cuMemFree(dB);
  cuMemFree(dC);
  std::vector<double> A(a.size()), B(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    A[i] = fromHalf(a[i]);
  for (size_t i = 0; i < b.size(); ++i)
    B[i] = fromHalf(b[i]);
  size_t bad = 0;
  double maxErr = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0, mag = 0;
      for (int k = 0; k < K; ++k) {
        double p = A[size_t(i) * K + k] * B[size_t(k) * N + j];
        ref += p;
        mag += std::fabs(p);
      }
      if (relu)
        ref = std::max(ref, 0.0);
      double got = fromHalf(c[size_t(i) * N + j]);
      double e = std::fabs(got - ref);
      double tol = std::ldexp(std::fabs(ref), -10) + 1e-3 * mag + 1e-6;
      if (!(e <= tol))
        ++bad;
      else
        maxErr = std::max(maxErr, e);
    }
  if (!launched)
    bad = size_t(M) * N;
  allOk &= bad == 0;
  std::printf("| %s | %dx%dx%d | %zu | %zu | %.3g | %s |\n", what.c_str(), M, N,
              K, size_t(M) * N, bad, maxErr, bad ? "FAIL" : "ok");
}

} // namespace

int main() {
  if (!initDevice())
    return 2;
  std::printf("| case | MxNxK | elements | bad | max abs err | result |\n");
  std::printf("|---|---|---|---|---|---|\n");
  auto L = [](auto fn) -> Launch {
    return [fn](CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
      return fn(a, b, c, nullptr);
    };
  };
  check("T.ws: TMA producer 1, consumer 0", L(ws4::tma_p1::ws_gemm), 256, 256,
        512);
  check("T.ws: TMA producer 0, consumer 1", L(ws4::tma_p0::ws_gemm), 256, 256,
        512);
  check("T.ws: + T.set_max_nreg 240/24", L(ws4::tma_regs::ws_gemm), 256, 256,
        512);
  check("T.ws: TMA, partial tiles", L(ws4::tma_edge::ws_gemm), 320, 192, 480);
  check("T.ws: consumer 1, T.Parallel ReLU", L(ws4::tma_relu::ws_gemm), 256,
        256, 512, true);
  check("T.ws: two consumers, N halves", L(ws4::split::ws_gemm), 256, 256, 512);
  check("T.ws: two consumers, partial tiles", L(ws4::split_edge::ws_gemm), 320,
        192, 480);
  check("T.ws: two consumers in T.Pipelined", L(ws4::split_pipe::ws_gemm), 256,
        256, 512);
  for (auto [m, n, k] : {std::array<int, 3>{512, 384, 1024},
                         std::array<int, 3>{320, 192, 480}}) {
    Launch eager = [m = m, n = n, k = k](CUdeviceptr a, CUdeviceptr b,
                                         CUdeviceptr c) {
      return ws4::eager::ws_gemm_eager(a, b, c, m, n, k, nullptr);
    };
    check("T.ws: eager, run-time sizes (T.const)", eager, m, n, k);
  }
  return allOk ? 0 : 1;
}
