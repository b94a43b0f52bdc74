// GPU check of what conf9a made compile (see conf9a_check.sh), through the
// generated launch headers, non-zero exit on any mismatch:
//
// - T.rng_init / T.rng_rand (cuRAND's Philox4x32-10 stream, computed in the
//   kernel): TileLang's rand_uint example (conformance kernel
//   rand__rand_uint__tilelang_rand_1d, M = 100000, seed 42: block b's one
//   thread starts at offset 128 b of subsequence 0, so A[i] is word i of
//   that stream) and test/Frontend/tilelang/rng.tile's two kernels (a 64-bit
//   seed, per-block subsequences, offsets past 2^34 that start inside a
//   block; TileLang's default sequence tx + bx * threads). Every value
//   against a host model of curand_init / curand (exact); when
//   conf9a_curand (nvcc, cuRAND's own device API on the same
//   configurations) ran first, the host model against cuRAND too.
// - flash_attention gqa_fwd_bshd (its tuning space is a `class`, now a
//   compile-time class): batch 2, 8 query heads over 2 KV heads, 320
//   positions (a partial last block), dim 128, causal and not; against
//   softmax(Q K^T / sqrt(128)) V in float64 from the fp16 inputs
//   (tolerance 2e-3 + 1e-2 |ref|: P is rounded to fp16, fast math is on).
// - deepseek_deepgemm fp8 2xAcc (its `assert in_dtype in [T.float8_e4m3fn]`
//   now holds for the string dtype): C = sum over 128-wide K groups of
//   (A B^T)_group * scales_a[m, g] * scales_b[n / 128, g], e4m3 inputs,
//   bf16 output; float64 reference (tolerance 1e-2 + 1e-2 |ref| + 2^-12 of
//   the products' scaled magnitudes, the fp8 wgmma's sums: the bf16
//   output's rounding).
// - tilelang.quantize's helpers (test/Frontend/tilelang/quantize.tile):
//   each 4-bit field f of 32768 random packed int8 bytes as f (unsigned),
//   f - zero, f - 8 and sign-extended f; exact.
#include "check_host.h"
#include "conf9a_fa.h"
#include "conf9a_fa_nc.h"
#include "conf9a_gemm.h"
#include "conf9a_quant.h"
#include "conf9a_rand.h"
#include "conf9a_rng.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

namespace {

using namespace check_host;

//===----------------------------------------------------------------------===//
// cuRAND's Philox4x32-10 (curand_kernel.h), as a host model
//===----------------------------------------------------------------------===//

struct Philox {
  std::array<std::uint32_t, 4> ctr{}, out{};
  std::uint32_t key[2] = {0, 0};
  unsigned index = 0;

  static std::array<std::uint32_t, 4> block(std::array<std::uint32_t, 4> c,
                                            std::uint32_t k0,
                                            std::uint32_t k1) {
    for (int r = 0; r < 10; ++r) {
      if (r) {
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
      }
      std::uint64_t p0 = std::uint64_t(0xD2511F53u) * c[0];
      std::uint64_t p1 = std::uint64_t(0xCD9E8D57u) * c[2];
      c = {std::uint32_t(p1 >> 32) ^ c[1] ^ k0, std::uint32_t(p1),
           std::uint32_t(p0 >> 32) ^ c[3] ^ k1, std::uint32_t(p0)};
    }
    return c;
  }
  /// curand_init(seed, subsequence, offset, &state).
  Philox(std::uint64_t seed, std::uint64_t seq, std::uint64_t off) {
    key[0] = std::uint32_t(seed);
    key[1] = std::uint32_t(seed >> 32);
    // The 128-bit counter as two 64-bit halves: subsequence high, offset
    // / 4 low (with its carry).
    std::uint64_t lo = off / 4, hi = seq;
    ctr = {std::uint32_t(lo), std::uint32_t(lo >> 32), std::uint32_t(hi),
           std::uint32_t(hi >> 32)};
    index = unsigned(off % 4);
    out = block(ctr, key[0], key[1]);
  }
  /// curand(&state).
  std::uint32_t next() {
    std::uint32_t r = out[index++];
    if (index == 4) {
      for (auto &w : ctr)
        if (++w)
          break;
      out = block(ctr, key[0], key[1]);
      index = 0;
    }
    return r;
  }
};

/// Philox4x32-10's published known-answer vectors (Random123's kat_vectors):
/// the host model itself is checked before it judges the GPU.
bool philoxKnownAnswers() {
  struct Kat {
    std::array<std::uint32_t, 4> ctr;
    std::uint32_t k0, k1;
    std::array<std::uint32_t, 4> want;
  } kats[] = {
      {{0, 0, 0, 0}, 0, 0, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{~0u, ~0u, ~0u, ~0u}, ~0u, ~0u,
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, 0xa4093822,
       0x299f31d0, {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}};
  Tally t;
  for (const Kat &k : kats) {
    auto got = Philox::block(k.ctr, k.k0, k.k1);
    for (int w = 0; w < 4; ++w)
      t.add("philox", t.n, got[w], k.want[w], 0);
  }
  t.row("host Philox4x32-10 vs its known-answer vectors", true);
  return t.bad == 0;
}

/// The three configurations: per thread row, `draws` values.
struct RngCase {
  const char *name;
  int rows, draws;
  std::uint64_t (*seed)(int row);
  std::uint64_t (*seq)(int row);
  std::uint64_t (*off)(int row);
};
// rand_uint: M = 100000 in blocks of one thread drawing 128 values.
constexpr int kRandM = 100000, kRandBlocks = (kRandM + 127) / 128;
const RngCase kCases[] = {
    {"rand_uint (TileLang example, M = 100000, seed 42)", kRandBlocks, 128,
     [](int) -> std::uint64_t { return 42; },
     [](int) -> std::uint64_t { return 0; },
     [](int b) -> std::uint64_t { return std::uint64_t(b) * 128; }},
    {"rng_streams (64-bit seed, seq 3 bx + 1, offset 2^34 + 5 tx + 3)", 128, 9,
     [](int) -> std::uint64_t { return 0x1234567890ull; },
     [](int r) -> std::uint64_t { return std::uint64_t(r / 32) * 3 + 1; },
     [](int r) -> std::uint64_t {
       return (std::uint64_t(1) << 34) + std::uint64_t(r % 32) * 5 + 3;
     }},
    {"rng_default (seed 7, seq tx + 64 bx, offset 0)", 128, 6,
     [](int) -> std::uint64_t { return 7; },
     [](int r) -> std::uint64_t { return std::uint64_t(r); },
     [](int) -> std::uint64_t { return 0; }},
};

std::vector<std::uint32_t> model(const RngCase &c) {
  std::vector<std::uint32_t> v(size_t(c.rows) * c.draws);
  for (int r = 0; r < c.rows; ++r) {
    Philox p(c.seed(r), c.seq(r), c.off(r));
    for (int d = 0; d < c.draws; ++d)
      v[size_t(r) * c.draws + d] = p.next();
  }
  return v;
}

template <typename Launch>
void checkRng(int k, size_t elements, Launch launch) {
  const RngCase &c = kCases[k];
  std::vector<std::uint32_t> ref = model(c);
  std::vector<std::uint32_t> got(elements, 0xdeadbeefu);
  CUdeviceptr d = upload(got);
  bool launched = ok(launch(d), c.name);
  download(got, d);
  Tally t;
  for (size_t i = 0; i < elements; ++i)
    t.add("rand", i, got[i], ref[i], 0);
  t.row(std::string(c.name) + ", GPU vs host model", launched);
  // cuRAND itself, when conf9a_curand wrote its values.
  std::ifstream f(std::string(std::getenv("CURAND_OUT") ? std::getenv("CURAND_OUT") : "") +
                      "/curand_" + std::to_string(k) + ".bin",
                  std::ios::binary);
  if (!f)
    return;
  std::vector<std::uint32_t> cu(ref.size());
  f.read(reinterpret_cast<char *>(cu.data()), cu.size() * 4);
  Tally u;
  for (size_t i = 0; f && i < cu.size(); ++i)
    u.add("curand", i, ref[i], cu[i], 0);
  u.row(std::string(c.name) + ", host model vs cuRAND", bool(f));
}

//===----------------------------------------------------------------------===//
// GQA flash attention forward
//===----------------------------------------------------------------------===//

constexpr int FB = 2, FH = 8, FHKV = 2, FS = 320, FD = 128;

template <typename Launch>
void checkAttention(const char *what, bool causal, Launch launch) {
  size_t qn = size_t(FB) * FS * FH * FD, kn = size_t(FB) * FS * FHKV * FD;
  std::vector<std::uint16_t> q = halves(qn), k = halves(kn), v = halves(kn);
  std::vector<std::uint16_t> out(qn, 0x7e00);
  CUdeviceptr dQ = upload(q), dK = upload(k), dV = upload(v), dO = upload(out);
  bool launched = ok(launch(dQ, dK, dV, dO), what);
  download(out, dO);
  for (CUdeviceptr d : {dQ, dK, dV})
    cuMemFree(d);
  Tally t;
  const double scale = 1.0 / std::sqrt(double(FD));
  std::vector<double> p(FS), o(FD);
  for (int b = 0; b < FB; ++b)
    for (int h = 0; h < FH; ++h) {
      int g = h / (FH / FHKV);
      for (int i = 0; i < FS; ++i) {
        int last = causal ? i : FS - 1;
        double top = -INFINITY, sum = 0;
        for (int j = 0; j <= last; ++j) {
          double dot = 0;
          for (int d = 0; d < FD; ++d)
            dot += double(fromHalf(q[((size_t(b) * FS + i) * FH + h) * FD + d])) *
                   double(fromHalf(k[((size_t(b) * FS + j) * FHKV + g) * FD + d]));
          p[j] = dot * scale;
          top = std::max(top, p[j]);
        }
        for (int j = 0; j <= last; ++j)
          sum += (p[j] = std::exp(p[j] - top));
        std::fill(o.begin(), o.end(), 0.0);
        for (int j = 0; j <= last; ++j)
          for (int d = 0; d < FD; ++d)
            o[d] += p[j] / sum *
                    double(fromHalf(v[((size_t(b) * FS + j) * FHKV + g) * FD + d]));
        for (int d = 0; d < FD; ++d) {
          size_t at = ((size_t(b) * FS + i) * FH + h) * FD + d;
          t.add("Output", at, fromHalf(out[at]), o[d], 2e-3 + 1e-2 * std::fabs(o[d]));
        }
      }
    }
  t.row(what, launched);
}

//===----------------------------------------------------------------------===//
// DeepGEMM fp8 with per-group scales
//===----------------------------------------------------------------------===//

constexpr int GM = 192, GN = 256, GK = 512, GG = GK / 128;

/// The value of e4m3 bits (OCP: bias 7, no infinities, S.1111.111 = NaN).
double fromE4M3(std::uint8_t bits) {
  int s = bits >> 7, e = (bits >> 3) & 15, m = bits & 7;
  double v = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1 + m / 8.0, e - 7);
  return s ? -v : v;
}
float fromBF16(std::uint16_t bits) {
  std::uint32_t u = std::uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

void checkGemm() {
  std::uniform_int_distribution<int> byte(0, 255);
  auto fp8 = [&](size_t n) {
    std::vector<std::uint8_t> v(n);
    for (auto &x : v) {
      // Magnitudes up to 2^2 (exponent field below 10), no NaN.
      do
        x = std::uint8_t(byte(rng));
      while (((x >> 3) & 15) >= 10);
    }
    return v;
  };
  std::vector<std::uint8_t> a = fp8(size_t(GM) * GK), b = fp8(size_t(GN) * GK);
  std::uniform_real_distribution<float> sc(0.25f, 2.0f);
  std::vector<float> sa(size_t(GM) * GG), sb(size_t(GN / 128) * GG);
  for (float &x : sa)
    x = sc(rng);
  for (float &x : sb)
    x = sc(rng);
  std::vector<std::uint16_t> c(size_t(GM) * GN, 0x7fc0);
  CUdeviceptr dA = upload(a), dB = upload(b), dSA = upload(sa), dSB = upload(sb),
              dC = upload(c);
  const char *what = "deepgemm fp8 2xAcc, sm_90a (192 x 256 x 512, e4m3 -> bf16)";
  bool launched = ok(conf9a::gemm::tl_gemm(dA, dB, dSA, dSB, dC), what);
  download(c, dC);
  for (CUdeviceptr d : {dA, dB, dSA, dSB})
    cuMemFree(d);
  Tally t;
  for (int m = 0; m < GM; ++m)
    for (int n = 0; n < GN; ++n) {
      double ref = 0, mag = 0;
      for (int g = 0; g < GG; ++g) {
        double part = 0, partMag = 0;
        for (int kk = g * 128; kk < (g + 1) * 128; ++kk) {
          double p = fromE4M3(a[size_t(m) * GK + kk]) *
                     fromE4M3(b[size_t(n) * GK + kk]);
          part += p;
          partMag += std::fabs(p);
        }
        double scale = double(sa[size_t(m) * GG + g]) *
                       double(sb[size_t(n / 128) * GG + g]);
        ref += part * scale;
        mag += partMag * scale;
      }
      size_t at = size_t(m) * GN + n;
      // Hopper's fp8 wgmma keeps about 14 bits of its float32 sums (why
      // DeepGEMM promotes every 128 columns): 2^-12 of the products'
      // magnitude on top of bf16's rounding. Session 9's run was off by
      // 0.027 where the magnitudes summed to a few hundred, as TileLang's
      // kernel is (the differential test agreed).
      t.add("C", at, fromBF16(c[at]), ref,
            1e-2 + 1e-2 * std::fabs(ref) + std::ldexp(mag, -12));
    }
  t.row(what, launched);
}

//===----------------------------------------------------------------------===//
// tilelang.quantize
//===----------------------------------------------------------------------===//

void checkQuantize() {
  constexpr int N = 65536;
  std::uniform_int_distribution<int> byte(-128, 127);
  std::vector<std::int8_t> packed(N / 2);
  for (auto &b : packed)
    b = std::int8_t(byte(rng));
  std::vector<std::uint16_t> zero = {toHalf(3.0f)};
  std::vector<std::uint16_t> u(N, 0x7e00), z(N, 0x7e00), s(N, 0x7e00);
  std::vector<std::int8_t> i8(N, 99);
  CUdeviceptr dP = upload(packed), dZero = upload(zero), dU = upload(u),
              dZ = upload(z), dS = upload(s), dI = upload(i8);
  const char *what = "tilelang.quantize unpacking (65536 int4 fields)";
  bool launched = ok(conf9a::quant::unpack(dP, dZero, dU, dZ, dS, dI), what);
  download(u, dU);
  download(z, dZ);
  download(s, dS);
  download(i8, dI);
  cuMemFree(dP);
  cuMemFree(dZero);
  Tally t;
  for (int n = 0; n < N; ++n) {
    int f = (std::uint8_t(packed[n / 2]) >> (4 * (n % 2))) & 15;
    t.add("U", n, fromHalf(u[n]), f, 0);
    t.add("Z", n, fromHalf(z[n]), f - 3, 0);
    t.add("S", n, fromHalf(s[n]), f - 8, 0);
    t.add("I", n, i8[n], f >= 8 ? f - 16 : f, 0);
  }
  t.row(what, launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  philoxKnownAnswers();
  checkRng(0, size_t(kRandM), [](CUdeviceptr d) {
    return conf9a::rand::tilelang_rand_1d(d);
  });
  checkRng(1, size_t(128) * 9, [](CUdeviceptr d) {
    return conf9a::rng::rng_streams(d);
  });
  checkRng(2, size_t(128) * 6, [](CUdeviceptr d) {
    return conf9a::rng::rng_default(d);
  });
  checkAttention("gqa_fwd_bshd flash attention, causal (2 x 8 heads / 2 KV, 320 x 128)",
                 true, [](auto... a) { return conf9a::fa::flashattn(a...); });
  checkAttention("gqa_fwd_bshd flash attention, not causal (2 x 8 heads / 2 KV, 320 x 128)",
                 false, [](auto... a) { return conf9a::fa_nc::flashattn(a...); });
  checkGemm();
  checkQuantize();
  std::printf("%s\n", allOk ? "all ok" : "FAILED");
  return allOk ? 0 : 1;
}
