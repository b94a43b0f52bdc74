// GPU check of conf4's floating fragments (see conf4_check.sh): the kernel
// of test/Passes/Inputs/floating-fragments.tile at M = 256, N = 512,
// through each instance's generated header, on random inputs and a random
// block mask. Reference in float64 on the host, per block bx of block_M
// rows: acc[r][j] = sum over the column blocks k with Mask[bx][k] != 0 of
// A[bx*block_M + r][k*block_N + j]; Out[bx*block_M + r][j] = acc[r][j] -
// mean(acc) + A[bx*block_M + block_M - 1][N - 1]. Tolerance 1e-4 per
// element (inputs in [-1, 1], float32 sums of at most 2048 terms). Every
// element compared; non-zero exit on any mismatch.
// The fragment-to-fragment casts (fragment-cast-copy.tile): B = cast(A *
// scale) for M = 256, N = 128; each output must be a nearest value of the
// target type to the float32 product (either one on a tie), e4m3 clamped
// to +-448 (satfinite).
#include "cast_bf16.h"
#include "cast_e4m3.h"
#include "cast_f16.h"
#include "mask_bool.h"
#include "mask_i8.h"
#include "mask_narrow.h"
#include "mask_w8.h"
#include "check_host.h"

#include <cmath>
#include <cstring>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace check_host;

constexpr int M = 256, N = 512;

using Launch = std::function<CUresult(CUdeviceptr, CUdeviceptr, CUdeviceptr)>;
using Launch2 = std::function<CUresult(CUdeviceptr, CUdeviceptr)>;

void check(const std::string &what, Launch launch, int blockM, int blockN) {
  int nb = N / blockN, mb = M / blockM;
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(size_t(M) * N);
  for (float &x : a)
    x = u(rng);
  // Bytes 0 / 1 (a valid bool and int8 alike); every block row keeps at
  // least one block and skips at least one where it has two.
  std::vector<std::uint8_t> mask(size_t(mb) * nb);
  for (int b = 0; b < mb; ++b)
    for (int k = 0; k < nb; ++k)
      mask[b * nb + k] = nb > 1 ? (k == b % nb ? 1 : k == (b + 1) % nb ? 0 : rng() % 2) : 1;
  std::vector<float> out(size_t(M) * blockN, std::nanf(""));
  CUdeviceptr dA = upload(a), dMask = upload(mask), dOut = upload(out);
  bool launched = ok(launch(dA, dMask, dOut), what.c_str());
  cuCtxSynchronize();
  cuMemcpyDtoH(out.data(), dOut, out.size() * sizeof(float));
  cuMemFree(dA);
  cuMemFree(dMask);
  cuMemFree(dOut);
  size_t bad = 0;
  double maxErr = 0;
  for (int b = 0; b < mb; ++b) {
    std::vector<double> acc(size_t(blockM) * blockN, 0.0);
    double total = 0;
    for (int r = 0; r < blockM; ++r)
      for (int j = 0; j < blockN; ++j) {
        for (int k = 0; k < nb; ++k)
          if (mask[b * nb + k])
            acc[r * blockN + j] += a[size_t(b * blockM + r) * N + k * blockN + j];
        total += acc[r * blockN + j];
      }
    double mean = total / (blockM * blockN);
    double last = a[size_t(b * blockM + blockM - 1) * N + N - 1];
    for (int r = 0; r < blockM; ++r)
      for (int j = 0; j < blockN; ++j) {
        double ref = acc[r * blockN + j] - mean + last;
        double got = out[size_t(b * blockM + r) * blockN + j];
        double e = std::fabs(got - ref);
        if (!(e <= 1e-4)) {
          if (bad < 3)
            std::printf("  %s: Out[%d][%d] = %g, expected %g\n", what.c_str(),
                        b * blockM + r, j, got, ref);
          ++bad;
        }
        if (std::isfinite(e))
          maxErr = std::max(maxErr, e);
      }
  }
  bool good = launched && bad == 0;
  allOk &= good;
  std::printf("| %s | %zu | %zu | %.3g | %s |\n", what.c_str(), out.size(),
              bad, maxErr, good ? "ok" : "FAIL");
}

/// Decoders of the stored output types.
double fromF16(std::uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  if (e == 31)
    v = m ? NAN : INFINITY;
  return (h >> 15) ? -v : v;
}
double fromBf16(std::uint16_t h) {
  std::uint32_t bits = std::uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
double fromE4m3(std::uint8_t b) {
  int e = (b >> 3) & 15, m = b & 7;
  if ((b & 0x7f) == 0x7f)
    return NAN;
  double v = e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
  return (b >> 7) ? -v : v;
}

/// Every finite value of a type, to find the nearest ones by search.
std::vector<double> finiteValues(int bits, double (*decode)(std::uint32_t)) {
  std::vector<double> v;
  for (std::uint32_t c = 0; c < (1u << bits); ++c) {
    double x = decode(c);
    if (std::isfinite(x))
      v.push_back(x);
  }
  std::sort(v.begin(), v.end());
  return v;
}

/// |got - x| is the smallest distance of any finite value to x, x clamped
/// to the largest finite magnitude first.
bool nearest(const std::vector<double> &values, double x, double got) {
  x = std::min(std::max(x, values.front()), values.back());
  auto it = std::lower_bound(values.begin(), values.end(), x);
  double best = INFINITY;
  if (it != values.end())
    best = std::min(best, std::fabs(*it - x));
  if (it != values.begin())
    best = std::min(best, std::fabs(*(it - 1) - x));
  return std::fabs(got - x) <= best;
}

template <typename Out>
void castCheck(const std::string &what, Launch2 launch, float scale,
               double (*decode)(Out), const std::vector<double> &values) {
  constexpr int CM = 256, CN = 128;
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(size_t(CM) * CN);
  for (float &x : a)
    x = u(rng);
  std::vector<Out> b(a.size(), Out(~Out(0)));
  CUdeviceptr dA = upload(a), dB = upload(b);
  bool launched = ok(launch(dA, dB), what.c_str());
  cuCtxSynchronize();
  cuMemcpyDtoH(b.data(), dB, b.size() * sizeof(Out));
  cuMemFree(dA);
  cuMemFree(dB);
  size_t bad = 0;
  double maxErr = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double x = double(a[i] * scale); // the kernel's float32 product
    double got = decode(b[i]);
    if (!nearest(values, x, got)) {
      if (bad < 3)
        std::printf("  %s: B[%zu] = %g for %g\n", what.c_str(), i, got, x);
      ++bad;
    }
    if (std::isfinite(got))
      maxErr = std::max(maxErr, std::fabs(got - x));
  }
  bool good = launched && bad == 0;
  allOk &= good;
  std::printf("| %s | %zu | %zu | %.3g | %s |\n", what.c_str(), b.size(), bad,
              maxErr, good ? "ok" : "FAIL");
}

} // namespace

int main() {
  if (!initDevice())
    return 2;
  std::printf("| case (M=256 N=512) | elements | bad | max abs err | result |\n");
  std::printf("|---|---|---|---|---|\n");
  auto L = [](auto fn) -> Launch {
    return [fn](CUdeviceptr a, CUdeviceptr m, CUdeviceptr o) { return fn(a, m, o, nullptr); };
  };
  check("int8 mask, 32x64 tiles, 128 threads", L(conf4::mask_i8::floating), 32, 64);
  check("bool mask, 32x64 tiles, 128 threads", L(conf4::mask_bool::floating), 32, 64);
  check("int8 mask, 64x64 tiles, 256 threads", L(conf4::mask_w8::floating), 64, 64);
  check("int8 mask, 32x128 tiles, 64 threads", L(conf4::mask_narrow::floating), 32, 128);
  auto L2 = [](auto fn) -> Launch2 {
    return [fn](CUdeviceptr a, CUdeviceptr b) { return fn(a, b, nullptr); };
  };
  auto f16 = finiteValues(16, [](std::uint32_t c) { return fromF16(std::uint16_t(c)); });
  auto bf16 = finiteValues(16, [](std::uint32_t c) { return fromBf16(std::uint16_t(c)); });
  auto e4m3 = finiteValues(8, [](std::uint32_t c) { return fromE4m3(std::uint8_t(c)); });
  castCheck<std::uint16_t>("fragment copy f32 -> f16 (x2)", L2(conf4::cast_f16::cast_copy), 2.0f, fromF16, f16);
  castCheck<std::uint16_t>("fragment copy f32 -> bf16 (x2)", L2(conf4::cast_bf16::cast_copy), 2.0f, fromBf16, bf16);
  castCheck<std::uint8_t>("fragment copy f32 -> e4m3 (x600, satfinite)", L2(conf4::cast_e4m3::cast_copy), 600.0f, fromE4m3, e4m3);
  return allOk ? 0 : 1;
}
