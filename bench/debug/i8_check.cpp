// GPU check of int8 T.gemm (test/Passes/Inputs/gemm-dtypes.tile with
// a_dtype = b_dtype = int8, int32 accumulator and output): C = A B,
// M = N = K = 256, on fresh random int8 values in [-128, 127], every
// element compared exactly against a host int64 reference (outputs start
// as 0x7fffffff). Four builds of the one source:
//   nt90  sm_90a, A (M, K), B (N, K): wgmma m64n64k32 .s32.s8.s8
//   tma90 sm_90a, the same with block_K = 128 in 3 stages: TMA loads
//   nt80  sm_80 PTX (JIT-compiled for the H200): mma.sync m16n8k32 s8
//   tn90  sm_90a, A (K, M), B (K, N): mma.sync, operands gathered byte
//         by byte (wgmma reads 8-bit operands K-major only)
// And float16 T.gemm summed in float16 (acc_dtype float16, output
// float16), mma.sync m16n8k16 .f16.f16.f16.f16: h90 (sm_90a) and h80
// (sm_80 PTX), A (M, K), B (N, K) float16 in [-1, 1), against float64
// within 1e-2 + 4e-3 sum |a b| (float16 sums).
// And float32 T.gemm read as tf32 by wgmma m64n64k8 .tf32 (K-major A and
// B): t90 (cp.async, 2 stages) and tma90t (block_K 32, 3 stages, TMA),
// A (M, K), B (N, K) float32 in [-1, 1), against float64 within 1e-4 +
// 2e-3 sum |a b| (tf32 keeps 10 mantissa bits of each input).
#include "check_host.h"
#include "i8_h80.h"
#include "i8_h90.h"
#include "i8_nt80.h"
#include "i8_nt90.h"
#include "i8_t90.h"
#include "i8_tma90.h"
#include "i8_tma90t.h"
#include "i8_tn90.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

using namespace check_host;

constexpr int M = 256, N = 256, K = 256;

std::vector<std::int8_t> int8s(size_t n) {
  std::uniform_int_distribution<int> u(-128, 127);
  std::vector<std::int8_t> v(n);
  for (auto &x : v)
    x = std::int8_t(u(rng));
  return v;
}

template <typename Launch>
void check(const char *what, bool transA, bool transB, Launch launch) {
  std::vector<std::int8_t> a = int8s(M * K), b = int8s(N * K);
  std::vector<std::int32_t> c(M * N, 0x7fffffff);
  CUdeviceptr dA = upload(a), dB = upload(b), dC = upload(c);
  bool launched = ok(launch(dA, dB, dC, nullptr), what);
  download(c, dC);
  for (CUdeviceptr p : {dA, dB, dC})
    cuMemFree(p);
  Tally t;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      std::int64_t ref = 0;
      for (int k = 0; k < K; ++k) {
        int x = transA ? a[size_t(k) * M + i] : a[size_t(i) * K + k];
        int y = transB ? b[size_t(j) * K + k] : b[size_t(k) * N + j];
        ref += x * y;
      }
      t.add("C", size_t(i) * N + j, double(c[size_t(i) * N + j]), double(ref),
            0);
    }
  t.row(what, launched);
}

template <typename Launch> void checkHalf(const char *what, Launch launch) {
  std::vector<double> a, b;
  std::vector<std::uint16_t> ha = halves(M * K, a), hb = halves(N * K, b);
  std::vector<std::uint16_t> c(M * N, 0x7e00); // NaN
  CUdeviceptr dA = upload(ha), dB = upload(hb), dC = upload(c);
  bool launched = ok(launch(dA, dB, dC, nullptr), what);
  download(c, dC);
  for (CUdeviceptr p : {dA, dB, dC})
    cuMemFree(p);
  std::vector<float> got(c.size());
  for (size_t i = 0; i < c.size(); ++i)
    got[i] = fromHalf(c[i]);
  Tally t;
  compareAbt(t, "C", got, a, b, M, N, K, 1e-2, 4e-3);
  t.row(what, launched);
}

template <typename Launch> void checkTf32(const char *what, Launch launch) {
  std::vector<float> a = randoms(M * K), b = randoms(N * K);
  std::vector<float> c(M * N, std::nanf(""));
  CUdeviceptr dA = upload(a), dB = upload(b), dC = upload(c);
  bool launched = ok(launch(dA, dB, dC, nullptr), what);
  download(c, dC);
  for (CUdeviceptr p : {dA, dB, dC})
    cuMemFree(p);
  Tally t;
  compareAbt(t, "C", c, std::vector<double>(a.begin(), a.end()),
             std::vector<double>(b.begin(), b.end()), M, N, K, 1e-4, 2e-3);
  t.row(what, launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  check("int8 gemm, wgmma (sm_90a)", false, true, i8::nt90::gemm);
  check("int8 gemm, wgmma with TMA loads, 3 stages (sm_90a)", false, true,
        i8::tma90::gemm);
  check("int8 gemm, mma.sync m16n8k32 (sm_80 PTX)", false, true,
        i8::nt80::gemm);
  check("int8 gemm, A and B stored the other way, mma.sync (sm_90a)", true,
        false, i8::tn90::gemm);
  checkHalf("float16 gemm summed in float16, mma.sync (sm_90a)", i8::h90::gemm);
  checkHalf("float16 gemm summed in float16, mma.sync (sm_80 PTX)",
            i8::h80::gemm);
  checkTf32("float32 gemm as tf32, wgmma m64n64k8 (sm_90a)", i8::t90::gemm);
  checkTf32("float32 gemm as tf32, wgmma with TMA loads, 3 stages (sm_90a)",
            i8::tma90t::gemm);
  std::printf(allOk ? "all ok\n" : "FAILED\n");
  return allOk ? 0 : 1;
}
