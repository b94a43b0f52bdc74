// GPU check of fragments under thread branches whose arms are whole warps
// but not whole warpgroups (ThreadPartitions.cpp; see warps_check.sh),
// through the generated headers, on fresh random inputs (the seed is
// printed; SEED=n repeats a run); every output element against a float64
// reference on the host, non-zero exit on any mismatch.
//
// warp_arms (test/Passes/Inputs/warp-arms.tile), 8 blocks of 96 threads:
// warp 0 computes P[b] = the 4x4 block L[b] softmaxed along rows, then each
// entry divided by its column's sum (reductions within the warp); threads
// [32, 96) stream X[b] (bf16, 4 x 1024) through a pipelined global ->
// shared -> fragment copy in 128-wide tiles and compute Y[b, h] =
// sum_r sigmoid(L[b, r]) X[b, r, h] (a T.Parallel over a fragment, weights
// in shared memory written by the arm) and S[b, t, r] = the sum of X[b, r]
// over tile t (a reduction across the arm's two warps). float32 in the
// kernel: tolerance 1e-6 + 1e-5 of the magnitudes. Also with 128 threads
// split in two arms of 64 (threads [0, 64) and [64, 128)).
//
// arms (test/Passes/Inputs/warp-arms-gemm.tile), 192 threads: threads
// [0, 64) compute C = A[:, :32] B[:, :32]^T and threads [64, 192) D = A B^T
// with mma.sync (fp16 64 x K operands, float32 accumulators; wgmma needs
// whole warpgroups), K = 32, and K = 256 with the second arm's T.Pipelined
// cp.async loop over K; exact fp16 products summed in float32: 1e-5 + 4e-6
// of the magnitudes.
#include "check_host.h"
#include "arms_sm80.h"
#include "arms_sm90.h"
#include "arms128_sm90.h"
#include "gemm_sm80.h"
#include "gemm_sm90.h"
#include "pipe_sm80.h"
#include "pipe_sm90.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using namespace check_host;

constexpr int Blocks = 8, Hidden = 1024, Tile = 128, Tiles = Hidden / Tile;

/// n bfloat16 values in [-1, 1) from rng (float bits truncated, so exact),
/// as their bits, with the values in `values`.
std::vector<std::uint16_t> bfloats(size_t n, std::vector<double> &values) {
  std::vector<float> f = randoms(n);
  std::vector<std::uint16_t> bits(n);
  values.resize(n);
  for (size_t i = 0; i < n; ++i) {
    std::uint32_t u;
    std::memcpy(&u, &f[i], 4);
    bits[i] = std::uint16_t(u >> 16);
    u = std::uint32_t(bits[i]) << 16;
    float v;
    std::memcpy(&v, &u, 4);
    values[i] = v;
  }
  return bits;
}

template <typename Launch> void checkArms(const char *what, Launch launch) {
  std::vector<float> l = randoms(Blocks * 16);
  for (float &v : l)
    v *= 4; // softmax logits of some spread
  std::vector<double> x;
  std::vector<std::uint16_t> xb = bfloats(size_t(Blocks) * 4 * Hidden, x);
  std::vector<float> p(Blocks * 16, std::nanf("")),
      y(size_t(Blocks) * Hidden, std::nanf("")),
      s(Blocks * Tiles * 4, std::nanf(""));
  CUdeviceptr dL = upload(l), dX = upload(xb), dP = upload(p), dY = upload(y),
              dS = upload(s);
  bool launched = ok(launch(dL, dX, dP, dY, dS), what);
  download(p, dP);
  download(y, dY);
  download(s, dS);
  cuMemFree(dL);
  cuMemFree(dX);
  Tally t;
  for (int b = 0; b < Blocks; ++b) {
    // P: rows softmaxed, then columns normalized.
    double cm[4][4];
    for (int j = 0; j < 4; ++j) {
      double mx = -INFINITY, sum = 0;
      for (int k = 0; k < 4; ++k)
        mx = std::fmax(mx, l[b * 16 + j * 4 + k]);
      for (int k = 0; k < 4; ++k)
        sum += cm[j][k] = std::exp(l[b * 16 + j * 4 + k] - mx);
      for (int k = 0; k < 4; ++k)
        cm[j][k] /= sum;
    }
    for (int k = 0; k < 4; ++k) {
      double col = 0;
      for (int j = 0; j < 4; ++j)
        col += cm[j][k];
      for (int j = 0; j < 4; ++j) {
        double ref = cm[j][k] / col;
        t.add("P", b * 16 + j * 4 + k, p[b * 16 + j * 4 + k], ref,
              1e-6 + 1e-5 * std::fabs(ref));
      }
    }
    double w[4];
    for (int r = 0; r < 4; ++r)
      w[r] = 1 / (1 + std::exp(-double(l[b * 16 + r])));
    auto xv = [&](int r, int h) { return x[(size_t(b) * 4 + r) * Hidden + h]; };
    for (int h = 0; h < Hidden; ++h) {
      double ref = 0, mag = 0;
      for (int r = 0; r < 4; ++r) {
        ref += w[r] * xv(r, h);
        mag += std::fabs(w[r] * xv(r, h));
      }
      t.add("Y", size_t(b) * Hidden + h, y[size_t(b) * Hidden + h], ref,
            1e-6 + 1e-5 * mag);
    }
    for (int tile = 0; tile < Tiles; ++tile)
      for (int r = 0; r < 4; ++r) {
        double ref = 0, mag = 0;
        for (int h = tile * Tile; h < (tile + 1) * Tile; ++h) {
          ref += xv(r, h);
          mag += std::fabs(xv(r, h));
        }
        size_t i = (size_t(b) * Tiles + tile) * 4 + r;
        t.add("S", i, s[i], ref, 1e-6 + 1e-5 * mag);
      }
  }
  t.row(what, launched);
}

template <typename Launch>
void checkGemm(const char *what, int K, Launch launch) {
  constexpr int M = 64, N = 64;
  std::vector<std::uint16_t> a = halves(M * K), b = halves(N * K);
  std::vector<float> c(M * N, std::nanf("")), d = c;
  CUdeviceptr dA = upload(a), dB = upload(b), dC = upload(c), dD = upload(d);
  bool launched = ok(launch(dA, dB, dC, dD), what);
  download(c, dC);
  download(d, dD);
  cuMemFree(dA);
  cuMemFree(dB);
  Tally t;
  for (int which = 0; which < 2; ++which)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double ref = 0, mag = 0;
        for (int k = 0; k < (which ? K : 32); ++k) {
          double prod =
              double(fromHalf(a[i * K + k])) * fromHalf(b[j * K + k]);
          ref += prod;
          mag += std::fabs(prod);
        }
        const std::vector<float> &got = which ? d : c;
        t.add(which ? "D" : "C", size_t(i * N + j), got[i * N + j], ref,
              1e-5 + 4e-6 * mag);
      }
  t.row(what, launched);
}

} // namespace

int main() {
  unsigned seed = std::random_device{}();
  if (const char *s = std::getenv("SEED"))
    seed = unsigned(std::strtoul(s, nullptr, 10));
  rng.seed(seed);
  std::printf("warps_check: seed %u (SEED=%u repeats it)\n", seed, seed);
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  checkArms("warp_arms, sm_90a (96 threads: [0, 32) | [32, 96))",
            [](auto... a) { return warps::arms_sm90::warp_arms(a...); });
  checkArms("warp_arms, sm_80 (96 threads: [0, 32) | [32, 96))",
            [](auto... a) { return warps::arms_sm80::warp_arms(a...); });
  checkArms("warp_arms, sm_90a (128 threads: [0, 64) | [64, 128))",
            [](auto... a) { return warps::arms128_sm90::warp_arms(a...); });
  checkGemm("arms, sm_90a (mma.sync in [0, 64) | [64, 192))", 32,
            [](auto... a) { return warps::gemm_sm90::arms(a...); });
  checkGemm("arms, sm_80 (mma.sync in [0, 64) | [64, 192))", 32,
            [](auto... a) { return warps::gemm_sm80::arms(a...); });
  checkGemm("arms K=256, sm_90a (pipelined cp.async in [64, 192))", 256,
            [](auto... a) { return warps::pipe_sm90::arms(a...); });
  checkGemm("arms K=256, sm_80 (pipelined cp.async in [64, 192))", 256,
            [](auto... a) { return warps::pipe_sm80::arms(a...); });
  std::printf("%s\n", allOk ? "all ok" : "FAILED");
  return allOk ? 0 : 1;
}
