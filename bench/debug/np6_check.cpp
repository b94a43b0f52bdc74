// GPU check of blocks of 384 threads (see np6_check.sh), through each
// instance's generated header, on random inputs; float64 references on
// the host, every element compared, non-zero exit on any mismatch.
// gemm_relu (M = 768, N = 512, K = 512): C = max(A @ B, 0) in fp16 (fp32
// sums); tolerance 1e-3 of the sum of |products| plus half an fp16 ulp.
// padded_gemm (M = 384, N = 256, K = 64): acc = A @ B, D = acc * 0.5 +
// Bias[j]; RowMax[i] = max_j D[i][j]; ColSum[j] = sum_i D[i][j] (atomic
// adds of the blocks' column sums into a zeroed buffer).
#include "pad80_fullrow.h"
#include "pad80_square.h"
#include "pad90_fullrow.h"
#include "pad90_square.h"
#include "relu80_fullrow.h"
#include "relu80_k32.h"
#include "relu90_k32.h"
#include "relu90_k64.h"
#include "relu90_pow2.h"

#include "check_host.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

using namespace check_host;

namespace {

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

std::vector<std::uint16_t> randomHalves(size_t n) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<std::uint16_t> v(n);
  for (auto &x : v)
    x = toHalf(u(rng));
  return v;
}

using Relu = std::function<CUresult(CUdeviceptr, CUdeviceptr, CUdeviceptr)>;

void checkRelu(const std::string &what, Relu launch) {
  constexpr int M = 768, N = 512, K = 512;
  std::vector<std::uint16_t> a = randomHalves(size_t(M) * K),
                             b = randomHalves(size_t(K) * N),
                             c(size_t(M) * N, 0x7e00); // NaN: unwritten
  CUdeviceptr dA = upload(a), dB = upload(b), dC = upload(c);
  bool launched = ok(launch(dA, dB, dC), what.c_str());
  download(c, dC);
  cuMemFree(dA);
  cuMemFree(dB);
  std::vector<double> fa(a.size()), fb(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    fa[i] = fromHalf(a[i]);
  for (size_t i = 0; i < b.size(); ++i)
    fb[i] = fromHalf(b[i]);
  Tally t;
  std::vector<double> s(N), mag(N);
  for (int i = 0; i < M; ++i) {
    std::fill(s.begin(), s.end(), 0.0);
    std::fill(mag.begin(), mag.end(), 0.0);
    for (int k = 0; k < K; ++k) {
      double x = fa[size_t(i) * K + k];
      const double *row = &fb[size_t(k) * N];
      for (int j = 0; j < N; ++j) {
        s[j] += x * row[j];
        mag[j] += std::fabs(x * row[j]);
      }
    }
    for (int j = 0; j < N; ++j) {
      double ref = std::max(s[j], 0.0);
      t.add(what, "C", size_t(i) * N + j, fromHalf(c[size_t(i) * N + j]), ref,
            1e-3 * mag[j] + ref * 0x1p-11 + 1e-6);
    }
  }
  t.row(what, launched);
}

using Padded = std::function<CUresult(CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                      CUdeviceptr, CUdeviceptr, CUdeviceptr)>;

void checkPadded(const std::string &what, Padded launch) {
  constexpr int M = 384, N = 256, K = 64;
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<std::uint16_t> a = randomHalves(size_t(M) * K),
                             b = randomHalves(size_t(K) * N);
  std::vector<float> bias(N), d(size_t(M) * N, std::nanf("")),
      rowMax(M, std::nanf("")), colSum(N, 0.0f);
  for (float &x : bias)
    x = u(rng);
  CUdeviceptr dA = upload(a), dB = upload(b), dBias = upload(bias),
              dD = upload(d), dRow = upload(rowMax), dCol = upload(colSum);
  bool launched = ok(launch(dA, dB, dBias, dD, dRow, dCol), what.c_str());
  download(d, dD);
  download(rowMax, dRow);
  download(colSum, dCol);
  cuMemFree(dA);
  cuMemFree(dB);
  cuMemFree(dBias);
  Tally t;
  std::vector<double> ref(size_t(M) * N), mag(size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0, m = 0;
      for (int k = 0; k < K; ++k) {
        double p = double(fromHalf(a[size_t(i) * K + k])) *
                   double(fromHalf(b[size_t(k) * N + j]));
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

} // namespace

int main() {
  if (!initDevice())
    return 2;
  std::printf("| case | elements | bad | max abs err | result |\n");
  std::printf("|---|---|---|---|---|\n");
  auto R = [](auto fn) -> Relu {
    return [fn](CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
      return fn(a, b, c, nullptr);
    };
  };
  checkRelu("gemm_relu 192x256, 384 threads, sm_90a wgmma, block_K 32",
            R(np6::relu90_k32::matmul));
  checkRelu("gemm_relu 192x256, 384 threads, sm_90a wgmma, block_K 64",
            R(np6::relu90_k64::matmul));
  checkRelu("gemm_relu 192x256, 384 threads, sm_80 mma.sync 3x4",
            R(np6::relu80_k32::matmul));
  checkRelu("gemm_relu 192x256, 384 threads, sm_80 mma.sync FullRow 12x1",
            R(np6::relu80_fullrow::matmul));
  checkRelu("gemm_relu 128x256, 256 threads, sm_90a (control)",
            R(np6::relu90_pow2::matmul));
  auto P = [](auto fn) -> Padded {
    return [fn](CUdeviceptr a, CUdeviceptr b, CUdeviceptr bias, CUdeviceptr d,
                CUdeviceptr r, CUdeviceptr c) {
      return fn(a, b, bias, d, r, c, nullptr);
    };
  };
  checkPadded("padded_gemm 192x256, 384 threads, FullRow 12x1, sm_90a",
              P(np6::pad90_fullrow::padded_gemm));
  checkPadded("padded_gemm 192x256, 384 threads, Square 3x4, sm_90a",
              P(np6::pad90_square::padded_gemm));
  checkPadded("padded_gemm 192x256, 384 threads, FullRow 12x1, sm_80",
              P(np6::pad80_fullrow::padded_gemm));
  checkPadded("padded_gemm 192x256, 384 threads, Square 3x4, sm_80",
              P(np6::pad80_square::padded_gemm));
  return allOk ? 0 : 1;
}
