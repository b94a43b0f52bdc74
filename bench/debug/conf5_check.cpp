// GPU check of conf5's constructs (see conf5_check.sh), through each
// instance's generated header, on random inputs; float64 references on
// the host, every element compared, non-zero exit on any mismatch.
// padded_gemm (M = 256, K = 64, N = 192 or 256): acc = A @ B (fp16 in,
// fp32 sums), D = acc * 0.5 + Bias[j]; RowMax[i] = max_j D[i][j];
// ColSum[j] = sum_i D[i][j] (atomic adds of the blocks' column sums into
// a zeroed buffer). Tolerance 1e-3 relative to the sum of |terms| (fp32
// sums of 64 products; ColSum adds 256 rows).
// combine (batch = 8, 128 columns): m[j] = max_k Lse[b][k][j];
// e[k] = exp2(Lse[b][k][j] - m); Out[b][j] = log2(sum_k e[S-1-k] * (k+1))
// + m. Tolerance 1e-4 absolute (values of order 1).
#include "combine4.h"
#include "combine8.h"
#include "pad_fullrow.h"
#include "pad_square.h"
#include "pow2_fullrow.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

bool ok(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return true;
  const char *name = nullptr;
  cuGetErrorName(r, &name);
  std::printf("%s failed: %s\n", what, name ? name : "?");
  return false;
}

template <typename T> CUdeviceptr upload(const std::vector<T> &v) {
  CUdeviceptr d = 0;
  ok(cuMemAlloc(&d, v.size() * sizeof(T)), "cuMemAlloc");
  cuMemcpyHtoD(d, v.data(), v.size() * sizeof(T));
  return d;
}

template <typename T> void download(std::vector<T> &v, CUdeviceptr d) {
  cuMemcpyDtoH(v.data(), d, v.size() * sizeof(T));
  cuMemFree(d);
}

std::uint16_t toF16(float f) { // round to nearest even, |f| < 2
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  std::uint32_t sign = (x >> 16) & 0x8000;
  int e = int((x >> 23) & 255) - 127 + 15;
  std::uint32_t m = x & 0x7fffff;
  if (e <= 0) { // subnormal half
    if (e < -10)
      return std::uint16_t(sign);
    m |= 0x800000;
    int shift = 14 - e;
    std::uint32_t h = m >> shift, rem = m & ((1u << shift) - 1),
                  half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1)))
      ++h;
    return std::uint16_t(sign | h);
  }
  std::uint32_t h = (std::uint32_t(e) << 10) | (m >> 13), rem = m & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    ++h;
  return std::uint16_t(sign | h);
}
double fromF16(std::uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (h >> 15) ? -v : v;
}

std::mt19937 rng(2026);
bool allOk = true;

struct Tally {
  size_t n = 0, bad = 0;
  double maxErr = 0;
  void add(const std::string &what, const char *name, size_t i, double got,
           double ref, double tol) {
    ++n;
    double e = std::fabs(got - ref);
    if (!(e <= tol)) {
      if (bad < 3)
        std::printf("  %s: %s[%zu] = %g, expected %g\n", what.c_str(), name, i,
                    got, ref);
      ++bad;
    }
    if (std::isfinite(e))
      maxErr = std::max(maxErr, e);
  }
  void row(const std::string &what, bool launched) {
    bool good = launched && bad == 0;
    allOk &= good;
    std::printf("| %s | %zu | %zu | %.3g | %s |\n", what.c_str(), n, bad,
                maxErr, good ? "ok" : "FAIL");
  }
};

using Gemm = std::function<CUresult(CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                    CUdeviceptr, CUdeviceptr, CUdeviceptr)>;

void checkGemm(const std::string &what, Gemm launch, int N) {
  constexpr int M = 256, K = 64;
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<std::uint16_t> a(size_t(M) * K), b(size_t(K) * N);
  for (auto &x : a)
    x = toF16(u(rng));
  for (auto &x : b)
    x = toF16(u(rng));
  std::vector<float> bias(N), d(size_t(M) * N, std::nanf("")),
      rowMax(M, std::nanf("")), colSum(N, 0.0f);
  for (float &x : bias)
    x = u(rng);
  CUdeviceptr dA = upload(a), dB = upload(b), dBias = upload(bias),
              dD = upload(d), dRow = upload(rowMax), dCol = upload(colSum);
  bool launched = ok(launch(dA, dB, dBias, dD, dRow, dCol), what.c_str());
  cuCtxSynchronize();
  cuMemFree(dA);
  cuMemFree(dB);
  cuMemFree(dBias);
  download(d, dD);
  download(rowMax, dRow);
  download(colSum, dCol);
  Tally t;
  std::vector<double> ref(size_t(M) * N), mag(size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0, m = 0;
      for (int k = 0; k < K; ++k) {
        double p = fromF16(a[size_t(i) * K + k]) * fromF16(b[size_t(k) * N + j]);
        s += p;
        m += std::fabs(p);
      }
      ref[size_t(i) * N + j] = s * 0.5 + bias[j];
      mag[size_t(i) * N + j] = m * 0.5 + std::fabs(bias[j]);
    }
  for (size_t e = 0; e < ref.size(); ++e)
    t.add(what, "D", e, d[e], ref[e], 1e-3 * mag[e] + 1e-6);
  for (int i = 0; i < M; ++i) {
    double m = -INFINITY, tol = 0;
    for (int j = 0; j < N; ++j) {
      m = std::max(m, ref[size_t(i) * N + j]);
      tol = std::max(tol, mag[size_t(i) * N + j]);
    }
    t.add(what, "RowMax", i, rowMax[i], m, 1e-3 * tol + 1e-6);
  }
  for (int j = 0; j < N; ++j) {
    double s = 0, tol = 0;
    for (int i = 0; i < M; ++i) {
      s += ref[size_t(i) * N + j];
      tol += mag[size_t(i) * N + j];
    }
    t.add(what, "ColSum", j, colSum[j], s, 1e-3 * tol + 1e-6);
  }
  t.row(what, launched);
}

using Combine = std::function<CUresult(CUdeviceptr, CUdeviceptr)>;

void checkCombine(const std::string &what, Combine launch, int S) {
  constexpr int B = 8, C = 128;
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  std::vector<float> lse(size_t(B) * S * C), out(size_t(B) * C, std::nanf(""));
  for (float &x : lse)
    x = u(rng);
  CUdeviceptr dL = upload(lse), dO = upload(out);
  bool launched = ok(launch(dL, dO), what.c_str());
  cuCtxSynchronize();
  cuMemFree(dL);
  download(out, dO);
  Tally t;
  for (int b = 0; b < B; ++b)
    for (int j = 0; j < C; ++j) {
      auto at = [&](int k) { return double(lse[(size_t(b) * S + k) * C + j]); };
      double m = -INFINITY;
      for (int k = 0; k < S; ++k)
        m = std::max(m, at(k));
      double total = 0;
      for (int k = 0; k < S; ++k)
        total += std::exp2(at(S - 1 - k) - m) * (k + 1);
      t.add(what, "Out", size_t(b) * C + j, out[size_t(b) * C + j],
            std::log2(total) + m, 1e-4);
    }
  t.row(what, launched);
}

} // namespace

int main() {
  if (!ok(cuInit(0), "cuInit"))
    return 2;
  CUdevice dev;
  CUcontext ctx;
  if (!ok(cuDeviceGet(&dev, 0), "cuDeviceGet") ||
      !ok(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") ||
      !ok(cuCtxSetCurrent(ctx), "cuCtxSetCurrent"))
    return 2;
  std::printf("| case | elements | bad | max abs err | result |\n");
  std::printf("|---|---|---|---|---|\n");
  auto G = [](auto fn) -> Gemm {
    return [fn](CUdeviceptr a, CUdeviceptr b, CUdeviceptr bias, CUdeviceptr d,
                CUdeviceptr r, CUdeviceptr c) { return fn(a, b, bias, d, r, c, nullptr); };
  };
  checkGemm("N=192 accumulator, 128x192 blocks, 8x1 warps", G(conf5::pad_fullrow::padded_gemm), 192);
  checkGemm("N=192 accumulator, 32x192 blocks, 2x4 warps", G(conf5::pad_square::padded_gemm), 192);
  checkGemm("N=256 accumulator (control), 128x256 blocks", G(conf5::pow2_fullrow::padded_gemm), 256);
  auto R = [](auto fn) -> Combine {
    return [fn](CUdeviceptr l, CUdeviceptr o) { return fn(l, o, nullptr); };
  };
  checkCombine("lse[k, j] at a run-time k, num_split=4", R(conf5::combine4::combine), 4);
  checkCombine("lse[k, j] at a run-time k, num_split=8", R(conf5::combine8::combine), 8);
  return allOk ? 0 : 1;
}
