// GPU check of conf10c's kernels (see conf10c_check.sh) through their
// generated headers, on random inputs; every output element against a
// float64 reference on the host, non-zero exit on any mismatch.
//
// fragment_b (test/Passes/gemm-fragment-b.tile): kg = k * exp2(G) in a
// fragment (K = 32, N = 64), C = A kg and C2 = A2 kg (M = 64), B staged
// through shared memory. sm_90a float32 (tf32 tensor cores: operands keep
// 10 mantissa bits, tolerance 1e-5 + 3e-3 of the products' magnitudes);
// sm_80 float16 (kg rounded to fp16 in the kernel: the reference rounds it
// too, tolerance 1e-4 + 2e-3 of the magnitudes).
//
// gemm_regions mode="unroll": S = Q[:, :256] K[:, :256]^T + Q[:, 256:]
// K[:, 256:]^T from fp16 Q (64 x 512), K (64 x 512), two gemms of a
// T.unroll loop; exact fp16 products summed in float32: 1e-4 + 2e-6 of
// the magnitudes.
//
// histogram: H[b] = #{i : X[i] >= 0, X[i] % 16 == b} over 4096 int32 in
// [-8, 100), atomic adds into shared memory under the condition; exact.
//
// copy_out: C = A B^T (fp16, 64 x 64 x 64, wgmma) and A2 = A read back
// from the swizzled operand buffer; C as the unroll case, A2 bit-exact.
#include "check_host.h"
#include "copyout.h"
#include "fragb_sm80.h"
#include "fragb_sm90.h"
#include "hist.h"
#include "unroll_sm80.h"
#include "unroll_sm90.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using namespace check_host;

constexpr int M = 64, N = 64, K = 32;

template <typename T, typename Launch>
void checkFragB(const char *what, bool half, Launch launch) {
  std::vector<float> a = randoms(M * K), a2 = randoms(M * K),
                     k = randoms(K * N), g = randoms(K * N);
  std::vector<double> kg(K * N);
  for (int i = 0; i < K * N; ++i) {
    float v = (half ? fromHalf(toHalf(k[i])) : k[i]) * std::exp2(g[i]);
    kg[i] = half ? fromHalf(toHalf(v)) : v;
  }
  auto dev = [&](const std::vector<float> &v) {
    if (!half)
      return upload(v);
    std::vector<std::uint16_t> h;
    for (float f : v)
      h.push_back(toHalf(f));
    return upload(h);
  };
  auto in = [&](const std::vector<float> &v, int i) {
    return half ? double(fromHalf(toHalf(v[i]))) : double(v[i]);
  };
  std::vector<float> c(M * N, std::nanf("")), c2 = c;
  CUdeviceptr dA = dev(a), dA2 = dev(a2), dK = dev(k), dG = upload(g),
              dC = upload(c), dC2 = upload(c2);
  bool launched = ok(launch(dA, dA2, dK, dG, dC, dC2), what);
  download(c, dC);
  download(c2, dC2);
  for (CUdeviceptr p : {dA, dA2, dK, dG, dC, dC2})
    cuMemFree(p);
  Tally t;
  double rel = half ? 2e-3 : 3e-3, abs = half ? 1e-4 : 1e-5;
  for (int which = 0; which < 2; ++which) {
    const std::vector<float> &x = which ? a2 : a;
    const std::vector<float> &got = which ? c2 : c;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double ref = 0, mag = 0;
        for (int l = 0; l < K; ++l) {
          double p = in(x, i * K + l) * kg[l * N + j];
          ref += p;
          mag += std::fabs(p);
        }
        t.add(which ? "C2" : "C", size_t(i * N + j), got[i * N + j], ref,
              abs + rel * mag);
      }
  }
  t.row(what, launched);
}

constexpr int QM = 64, QN = 64, QK = 512;

template <typename Launch> void checkUnroll(const char *what, Launch launch) {
  std::vector<std::uint16_t> q = halves(QM * QK), k = halves(QN * QK);
  std::vector<float> s(QM * QN, std::nanf(""));
  CUdeviceptr dQ = upload(q), dK = upload(k), dS = upload(s);
  bool launched = ok(launch(dQ, dK, dS), what);
  download(s, dS);
  for (CUdeviceptr p : {dQ, dK, dS})
    cuMemFree(p);
  Tally t;
  for (int i = 0; i < QM; ++i)
    for (int j = 0; j < QN; ++j) {
      double ref = 0, mag = 0;
      for (int l = 0; l < QK; ++l) {
        double p = double(fromHalf(q[i * QK + l])) * fromHalf(k[j * QK + l]);
        ref += p;
        mag += std::fabs(p);
      }
      t.add("S", size_t(i * QN + j), s[i * QN + j], ref, 1e-4 + 2e-6 * mag);
    }
  t.row(what, launched);
}

void histogram() {
  const int n = 4096;
  std::vector<std::int32_t> x(n), h(16, -1);
  std::uniform_int_distribution<int> pick(-8, 99);
  for (auto &v : x)
    v = pick(rng);
  std::vector<double> ref(16, 0);
  for (int v : x)
    if (v >= 0)
      ref[v % 16] += 1;
  CUdeviceptr dX = upload(x), dH = upload(h);
  const char *what = "histogram, sm_90a (4096 int32, 16 bins)";
  bool launched = ok(conf10c::hist::histogram(dX, dH), what);
  download(h, dH);
  cuMemFree(dX);
  cuMemFree(dH);
  Tally t;
  for (int b = 0; b < 16; ++b)
    t.add("H", b, h[b], ref[b], 0);
  t.row(what, launched);
}

void copyOut() {
  const int m = 64, n = 64, k = 64;
  std::vector<std::uint16_t> a = halves(m * k), b = halves(n * k),
                             a2(m * k, 0x7e00);
  std::vector<float> c(m * n, std::nanf(""));
  CUdeviceptr dA = upload(a), dB = upload(b), dC = upload(c), dA2 = upload(a2);
  const char *what = "copy_out, sm_90a (wgmma 64x64x64, A read back)";
  bool launched = ok(conf10c::copyout::copy_out(dA, dB, dC, dA2), what);
  download(c, dC);
  download(a2, dA2);
  for (CUdeviceptr p : {dA, dB, dC, dA2})
    cuMemFree(p);
  Tally t;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (int l = 0; l < k; ++l) {
        double p = double(fromHalf(a[i * k + l])) * fromHalf(b[j * k + l]);
        ref += p;
        mag += std::fabs(p);
      }
      t.add("C", size_t(i * n + j), c[i * n + j], ref, 1e-4 + 2e-6 * mag);
    }
  for (size_t i = 0; i < a.size(); ++i)
    t.add("A2", i, a2[i], a[i], 0);
  t.row(what, launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  checkFragB<float>(
      "fragment_b, sm_90a float32 (tf32, 64x64x32, two gemms)", false,
      [](auto... p) { return conf10c::fragb_sm90::fragment_b(p...); });
  checkFragB<std::uint16_t>(
      "fragment_b, sm_80 PTX float16 (64x64x32, two gemms)", true,
      [](auto... p) { return conf10c::fragb_sm80::fragment_b(p...); });
  checkUnroll("gemm_regions unroll, sm_90a (wgmma, 64x64x512)", [](auto... p) {
    return conf10c::unroll_sm90::gemm_regions(p...);
  });
  checkUnroll(
      "gemm_regions unroll, sm_80 PTX (mma.sync, 64x64x512)",
      [](auto... p) { return conf10c::unroll_sm80::gemm_regions(p...); });
  histogram();
  copyOut();
  std::printf("%s\n", allOk ? "all ok" : "FAILED");
  return allOk ? 0 : 1;
}
