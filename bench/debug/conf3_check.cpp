// GPU check of the conf3 GEMM dtypes (see conf3_check.sh): C = A @ B for
// M = 256, N = 192, K = 256 through each kernel's generated header, on
// random inputs, every element of C against a float64 reference on the
// host. tf32 inputs are made exactly representable in tf32 (low 13
// mantissa bits zero) so every product is exact and only the fp32
// accumulation rounds; fp8 inputs are random finite bytes. Tolerance per
// element: 1e-5 of sum_k |a b| (+1e-6; 2^-9 where fp8 wgmma accumulates),
// or, for the fp8 output, within one
// e4m3 rounding of the reference. The conversions: fp8 -> wider exact
// (every finite code), wider -> fp8 equal to the host's round-to-nearest-
// even with saturation to the largest finite value (cvt.rn.satfinite, as
// TileLang's casts), compared as values. Non-zero exit on any mismatch.
#include "e4m3_e5m2.h"
#include "e4m3_to_f32.h"
#include "e5m2_to_bf16.h"
#include "f16_to_e4m3.h"
#include "f32_to_e4m3.h"
#include "f32_to_e5m2.h"
#include "e4m3_nt.h"
#include "e4m3_tma.h"
#include "e4m3_w64.h"
#include "e4m3_ws.h"
#include "e4m3_out8.h"
#include "e5m2_tn.h"
#include "tf32_areg.h"
#include "tf32_nn.h"
#include "tf32_nt.h"
#include "tf32_nt_w8.h"
#include "tf32_tn.h"
#include "check_host.h"

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

constexpr int M = 256, N = 192, K = 256;

/// OCP e4m3 (bias 7, no infinities, 0x7f / 0xff NaN) and e5m2 (bias 15).
double decodeFp8(std::uint8_t b, bool e5m2) {
  int sign = b >> 7;
  int expBits = e5m2 ? 5 : 4, manBits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  int e = (b >> manBits) & ((1 << expBits) - 1);
  int m = b & ((1 << manBits) - 1);
  if (!e5m2 && (b & 0x7f) == 0x7f)
    return NAN;
  if (e5m2 && e == 31)
    return m ? NAN : (sign ? -INFINITY : INFINITY);
  double v = e == 0 ? std::ldexp(m, 1 - bias - manBits)
                    : std::ldexp((1 << manBits) + m, e - bias - manBits);
  return sign ? -v : v;
}
/// Random finite bytes of magnitude below `maxAbs`.
std::vector<std::uint8_t> randomFp8(size_t n, bool e5m2, double maxAbs) {
  std::uniform_int_distribution<int> u(0, 255);
  std::vector<std::uint8_t> v(n);
  for (auto &b : v)
    do
      b = std::uint8_t(u(rng));
    while (!(std::fabs(decodeFp8(b, e5m2)) < maxAbs));
  return v;
}
std::vector<float> randomTf32(size_t n) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v) {
    x = u(rng);
    std::uint32_t bits;
    std::memcpy(&bits, &x, 4);
    bits &= ~0x1fffu; // a tf32 value: 10 mantissa bits
    std::memcpy(&x, &bits, 4);
  }
  return v;
}

void row(const std::string &what, size_t elements, size_t bad, double err) {
  bool good = bad == 0;
  allOk &= good;
  std::printf("| %s | %zu | %zu | %.3g | %s |\n", what.c_str(), elements, bad,
              err, good ? "ok" : "FAIL");
}

using Launch = std::function<CUresult(CUdeviceptr, CUdeviceptr, CUdeviceptr)>;

/// a(m, k) and b(k, n) give the logical operands as doubles; the buffers
/// are already laid out as the kernel wants them.
/// `narrowAcc`: the products are summed by fp8 wgmma, whose accumulator
/// keeps about 14 significant bits on Hopper (DeepSeek-V3's report, 3.3.2;
/// TileLang's output is bit-identical in the side-by-side run), so the
/// tolerance is 2^-9 of the sum of magnitudes instead of 1e-5 (2^-13 per
/// k32 step, eight steps here).
void check(const std::string &what, Launch launch, CUdeviceptr dA,
           CUdeviceptr dB, const std::function<double(int, int)> &a,
           const std::function<double(int, int)> &b, bool fp8Out,
           bool narrowAcc = false) {
  std::vector<float> c(size_t(M) * N, std::nanf(""));
  std::vector<std::uint8_t> c8(size_t(M) * N, 0x7f);
  CUdeviceptr dC = fp8Out ? upload(c8) : upload(c);
  bool launched = ok(launch(dA, dB, dC), what.c_str());
  if (fp8Out)
    download(c8, dC);
  else
    download(c, dC);
  cuMemFree(dA);
  cuMemFree(dB);
  size_t bad = 0;
  double maxErr = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0, mag = 0;
      for (int k = 0; k < K; ++k) {
        ref += a(i, k) * b(k, j);
        mag += std::fabs(a(i, k) * b(k, j));
      }
      double got = fp8Out ? decodeFp8(c8[size_t(i) * N + j], false)
                          : double(c[size_t(i) * N + j]);
      double e = std::fabs(got - ref);
      // e4m3: 3 mantissa bits; past 448 the store saturates.
      double tol = fp8Out ? (std::fabs(ref) > 448 ? std::fabs(ref) - 448 : 0) +
                                std::fabs(ref) * 0.0625 + std::ldexp(1.0, -9)
                          : (narrowAcc ? std::ldexp(1.0, -9) : 1e-5) * mag + 1e-6;
      maxErr = std::max(maxErr, e);
      if (!(e <= tol))
        ++bad;
    }
  row(what, size_t(M) * N, launched ? bad : size_t(M) * N, maxErr);
}

void tf32(const std::string &what, Launch launch, bool transA, bool transB) {
  std::vector<float> a = randomTf32(size_t(M) * K), b = randomTf32(size_t(K) * N);
  // a holds A (M, K) or A^T (K, M); b holds B^T (N, K) or B (K, N).
  auto A = [&, transA](int m, int k) {
    return double(transA ? a[size_t(k) * M + m] : a[size_t(m) * K + k]);
  };
  auto B = [&, transB](int k, int n) {
    return double(transB ? b[size_t(n) * K + k] : b[size_t(k) * N + n]);
  };
  check(what, launch, upload(a), upload(b), A, B, false);
}

void fp8(const std::string &what, Launch launch, bool aE5m2, bool bE5m2,
         bool transA, bool transB, bool fp8Out, bool wgmma = false) {
  // fp8 outputs: small inputs, so most sums stay inside e4m3's range.
  double maxAbs = fp8Out ? 0.5 : 16.0;
  std::vector<std::uint8_t> a = randomFp8(size_t(M) * K, aE5m2, maxAbs),
                            b = randomFp8(size_t(K) * N, bE5m2, maxAbs);
  auto A = [&, transA, aE5m2](int m, int k) {
    return decodeFp8(transA ? a[size_t(k) * M + m] : a[size_t(m) * K + k], aE5m2);
  };
  auto B = [&, transB, bE5m2](int k, int n) {
    return decodeFp8(transB ? b[size_t(n) * K + k] : b[size_t(k) * N + n], bE5m2);
  };
  check(what, launch, upload(a), upload(b), A, B, fp8Out, wgmma);
}

/// Round to nearest, ties to the even code, saturating: brute force over
/// every finite code.
double roundFp8(double x, bool e5m2) {
  double best = 0, bestErr = INFINITY;
  int bestCode = 0;
  for (int c = 0; c < 256; ++c) {
    double v = decodeFp8(std::uint8_t(c), e5m2);
    if (std::isnan(v) || std::isinf(v))
      continue;
    double e = std::fabs(x - v);
    if (e < bestErr || (e == bestErr && (c & 1) == 0 && (bestCode & 1))) {
      best = v;
      bestErr = e;
      bestCode = c;
    }
  }
  return best;
}

double fromBf16(std::uint16_t b) {
  std::uint32_t bits = std::uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

using Launch2 = std::function<CUresult(CUdeviceptr, CUdeviceptr)>;
constexpr int kCast = 8192;

/// fp8 -> f32 / bf16: every finite code, repeated.
void fromFp8(const std::string &what, Launch2 launch, bool e5m2, bool bf16) {
  std::vector<std::uint8_t> x(kCast);
  for (int i = 0; i < kCast; ++i) {
    x[i] = std::uint8_t(i % 256);
    if (std::isnan(decodeFp8(x[i], e5m2)) || std::isinf(decodeFp8(x[i], e5m2)))
      x[i] = 0;
  }
  std::vector<float> y(kCast, std::nanf(""));
  std::vector<std::uint16_t> yb(kCast, 0x7fc0);
  CUdeviceptr dX = upload(x), dY = bf16 ? upload(yb) : upload(y);
  bool launched = ok(launch(dX, dY), what.c_str());
  if (bf16)
    download(yb, dY);
  else
    download(y, dY);
  cuMemFree(dX);
  size_t bad = 0;
  double maxErr = 0;
  for (int i = 0; i < kCast; ++i) {
    double want = decodeFp8(x[i], e5m2);
    double got = bf16 ? fromBf16(yb[i]) : double(y[i]);
    double e = std::fabs(got - want);
    maxErr = std::max(maxErr, e);
    bad += !(e == 0);
  }
  row(what, kCast, launched ? bad : kCast, maxErr);
}

/// f32 / f16 -> fp8: values over the whole range and past it.
void toFp8(const std::string &what, Launch2 launch, bool e5m2, bool f16) {
  std::uniform_real_distribution<double> expo(-12, e5m2 ? 17 : 10);
  std::vector<float> x(kCast);
  for (int i = 0; i < kCast; ++i) {
    double v = std::exp2(expo(rng)) * (rng() % 2 ? 1 : -1);
    x[i] = i < 8 ? float(i - 4) * 0.5f : float(v); // a few exact ones
    if (f16)
      x[i] = fromHalf(toHalf(std::min(std::fabs(x[i]), 60000.0f) *
                             (x[i] < 0 ? -1.0f : 1.0f)));
  }
  std::vector<std::uint16_t> xh(kCast);
  for (int i = 0; i < kCast; ++i)
    xh[i] = toHalf(x[i]);
  std::vector<std::uint8_t> y(kCast, 0x7f);
  CUdeviceptr dX = f16 ? upload(xh) : upload(x), dY = upload(y);
  bool launched = ok(launch(dX, dY), what.c_str());
  download(y, dY);
  cuMemFree(dX);
  size_t bad = 0;
  double maxErr = 0;
  for (int i = 0; i < kCast; ++i) {
    double want = roundFp8(x[i], e5m2);
    double got = decodeFp8(y[i], e5m2);
    double e = std::fabs(got - want);
    maxErr = std::max(maxErr, e);
    bad += !(e == 0);
  }
  row(what, kCast, launched ? bad : kCast, maxErr);
}

} // namespace

int main() {
  if (!initDevice())
    return 2;
  std::printf("| case (M=256 N=192 K=256) | elements | bad | max abs err | result |\n");
  std::printf("|---|---|---|---|---|\n");
  auto L = [](auto fn) -> Launch {
    return [fn](CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) { return fn(a, b, c, nullptr); };
  };
  tf32("tf32 A(M,K) B(N,K) ldmatrix", L(conf3::tf32_nt::gemm), false, true);
  tf32("tf32 A(K,M) B(K,N) element loads", L(conf3::tf32_tn::gemm), true, false);
  tf32("tf32 A(M,K) B(K,N) mixed", L(conf3::tf32_nn::gemm), false, false);
  tf32("tf32 8 warps 128x64", L(conf3::tf32_nt_w8::gemm), false, true);
  tf32("tf32 A from a fragment, B(K,N)", L(conf3::tf32_areg::gemm), false, false);
  fp8("e4m3 x e4m3 wgmma", L(conf3::e4m3_nt::gemm), false, false, false, true, false, true);
  fp8("e4m3 x e4m3 wgmma, TMA ring", L(conf3::e4m3_tma::gemm), false, false, false, true, false,
      true);
  fp8("e4m3 x e5m2 wgmma, warp-specialized", L(conf3::e4m3_ws::gemm), false, true, false, true,
      false, true);
  fp8("e4m3 x e4m3 mma.sync ldmatrix", L(conf3::e4m3_w64::gemm), false, false, false, true, false);
  fp8("e4m3 x e5m2 wgmma", L(conf3::e4m3_e5m2::gemm), false, true, false, true, false, true);
  fp8("e5m2 x e5m2 A(K,M) B(K,N) element loads", L(conf3::e5m2_tn::gemm), true, true, true, false, false);
  fp8("e4m3 -> e4m3 output (satfinite cvt)", L(conf3::e4m3_out8::gemm), false, false, false, true, true);
  auto L2 = [](auto fn) -> Launch2 {
    return [fn](CUdeviceptr x, CUdeviceptr y) { return fn(x, y, nullptr); };
  };
  fromFp8("cast e4m3 -> f32 (every code)", L2(conf3::e4m3_to_f32::convert), false, false);
  fromFp8("cast e5m2 -> bf16 (every finite code)", L2(conf3::e5m2_to_bf16::convert), true, true);
  toFp8("cast f32 -> e4m3 (RNE, satfinite)", L2(conf3::f32_to_e4m3::convert), false, false);
  toFp8("cast f32 -> e5m2 (RNE, satfinite)", L2(conf3::f32_to_e5m2::convert), true, false);
  toFp8("cast f16 -> e4m3 (RNE, satfinite)", L2(conf3::f16_to_e4m3::convert), false, true);
  return allOk ? 0 : 1;
}
