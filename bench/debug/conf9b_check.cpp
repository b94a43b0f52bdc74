// GPU check of the kernels conf9b made compile (see conf9b_check.sh), each
// for sm_90a and sm_80 (its PTX JIT-compiled for the H200), through the
// generated headers, on random inputs; every output element against a
// float64 reference on the host, non-zero exit on any mismatch.
//
// deepseek_mhc mhc_post (hc = 4, hidden = 2560, 64 tokens): per token n,
//   x[n, o, h] = c[n, o] * d[n, h] + sum_i a[n, i, o] * b[n, i, h]
// with a, c float32 and b, d, x bfloat16. Its layouts: `c_local` and
// `a_local` follow the (hc, h_blk) loop (the retry), `a_local`'s rows and
// `b_local`'s in registers read at the serial loop's variable. The
// reference uses the bf16 inputs exactly; the kernel rounds x to bf16:
// tolerance 1e-3 + 8e-3 |ref|.
//
// flash_decoding mha_inference (batch 1, 8 heads, 128 queries, 1024 KV
// positions, dim 128, 4 splits, not causal): Output[0, q, h, :] = softmax
// over k of (Q[q, h] . K[k, h]) / sqrt(128), times V[k, h], from fp16
// inputs. The split kernel writes per-split outputs and log-sums in fp16
// (glse, Output_partial); the combine kernel (the retry's layouts, and the
// row copy T.copy(lse_local[k, :], lse_local_split)) rescales and adds
// them. fp16 rounding of P, of the partials and of the log-sums:
// tolerance 2e-3 + 2e-2 |ref|.
//
// deepseek_mhc mhc_pre_gemm_sqrsum (hc_mult3 = 24, hc_hidden_size = 16384,
// 96 tokens: whole blocks of 32, since the kernel's last loop stores rows
// past num_tokens unguarded): out[n, j] = sum_k x[n, k] fn[j, k] (a tf32
// T.gemm with A in a fragment) and sqrsum[n] = sum_k x[n, k]^2 (the loop
// reading x_frag[i, jj * 4 + j] at registers `base + stride * jj`). x is
// bf16 and fn is drawn exactly representable in tf32, so both are exact
// products summed in float32 on the device: tolerance 2e-3 + 1e-4 |ref|,
// plus, for out, 2e-6 of the sum of the products' magnitudes (about 2^-19:
// the tensor cores' float32 sums are not IEEE-rounded; session 9's run
// was off by 3.2e-3 at out[877] with a magnitude sum near 1400, as
// TileLang's kernel is: the differential test agreed).
#include "check_host.h"
#include "mha_sm80.h"
#include "mha_sm90.h"
#include "post_sm80.h"
#include "post_sm90.h"
#include "sqrsum_sm80.h"
#include "sqrsum_sm90.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using namespace check_host;

/// bf16 bits of `f`, rounded to nearest even.
std::uint16_t toBf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return std::uint16_t(u >> 16);
}
float fromBf16(std::uint16_t bits) {
  std::uint32_t u = std::uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

constexpr int N = 64, HC = 4, HID = 2560;

struct PostInputs {
  std::vector<float> a, c;
  std::vector<std::uint16_t> b, d;
};

template <typename Launch>
void checkPost(const char *what, const PostInputs &in,
               const std::vector<double> &ref, Launch launch) {
  std::vector<std::uint16_t> x(size_t(N) * HC * HID, 0x7fc0); // NaN
  CUdeviceptr dA = upload(in.a), dB = upload(in.b), dC = upload(in.c),
              dD = upload(in.d), dX = upload(x);
  bool launched = ok(launch(dA, dB, dC, dD, dX, std::int64_t(N)), what);
  download(x, dX);
  for (CUdeviceptr p : {dA, dB, dC, dD})
    cuMemFree(p);
  Tally t;
  for (size_t i = 0; i < x.size(); ++i)
    t.add("x", i, fromBf16(x[i]), ref[i], 1e-3 + 8e-3 * std::fabs(ref[i]));
  t.row(what, launched);
}

void post() {
  PostInputs in;
  in.a = randoms(size_t(N) * HC * HC);
  in.c = randoms(size_t(N) * HC);
  for (float f : randoms(size_t(N) * HC * HID))
    in.b.push_back(toBf16(f));
  for (float f : randoms(size_t(N) * HID))
    in.d.push_back(toBf16(f));
  std::vector<double> ref(size_t(N) * HC * HID);
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < HC; ++o)
      for (int h = 0; h < HID; ++h) {
        double v =
            double(in.c[n * HC + o]) * fromBf16(in.d[size_t(n) * HID + h]);
        for (int i = 0; i < HC; ++i)
          v += double(in.a[(n * HC + i) * HC + o]) *
               fromBf16(in.b[(size_t(n) * HC + i) * HID + h]);
        ref[(size_t(n) * HC + o) * HID + h] = v;
      }
  checkPost(
      "mhc_post, sm_90a (64 tokens, hc 4, hidden 2560)", in, ref,
      [](auto... a) { return conf9b::post_sm90::mhc_post_tilelang(a...); });
  checkPost(
      "mhc_post, sm_80 PTX (64 tokens, hc 4, hidden 2560)", in, ref,
      [](auto... a) { return conf9b::post_sm80::mhc_post_tilelang(a...); });
}

constexpr int SQ = 128, H = 8, SKV = 1024, D = 128, SPLITS = 4;

template <typename Launch>
void checkMha(const char *what, const std::vector<std::uint16_t> &q,
              const std::vector<std::uint16_t> &k,
              const std::vector<std::uint16_t> &v,
              const std::vector<double> &ref, Launch launch) {
  std::vector<std::uint16_t> out(q.size(), 0x7e00), // NaN
      glse(size_t(H) * SPLITS * SQ, 0x7e00),
      partial(size_t(SQ) * H * SPLITS * D, 0x7e00);
  CUdeviceptr dQ = upload(q), dK = upload(k), dV = upload(v), dO = upload(out),
              dL = upload(glse), dP = upload(partial);
  bool launched = ok(launch(dQ, dK, dV, dO, dL, dP), what);
  download(out, dO);
  for (CUdeviceptr p : {dQ, dK, dV, dL, dP})
    cuMemFree(p);
  Tally t;
  for (size_t i = 0; i < out.size(); ++i)
    t.add("Output", i, fromHalf(out[i]), ref[i],
          2e-3 + 2e-2 * std::fabs(ref[i]));
  t.row(what, launched);
}

void mha() {
  // [1, S, H, D] row-major.
  std::vector<std::uint16_t> q = halves(size_t(SQ) * H * D),
                             k = halves(size_t(SKV) * H * D),
                             v = halves(size_t(SKV) * H * D);
  // Wider logits than uniform [-1, 1) dot products give: scale q by 4 so
  // that the softmax is not flat and the splits' maxima differ.
  for (auto &x : q)
    x = toHalf(4.0f * fromHalf(x));
  std::vector<double> ref(q.size());
  const double scale = 1.0 / std::sqrt(double(D));
  std::vector<double> logits(SKV);
  for (int h = 0; h < H; ++h)
    for (int s = 0; s < SQ; ++s) {
      double top = -INFINITY, sum = 0;
      for (int j = 0; j < SKV; ++j) {
        double dot = 0;
        for (int d = 0; d < D; ++d)
          dot += double(fromHalf(q[(size_t(s) * H + h) * D + d])) *
                 fromHalf(k[(size_t(j) * H + h) * D + d]);
        logits[j] = dot * scale;
        top = std::max(top, logits[j]);
      }
      for (double &l : logits)
        sum += (l = std::exp(l - top));
      double *o = &ref[(size_t(s) * H + h) * D];
      for (int j = 0; j < SKV; ++j)
        for (int d = 0; d < D; ++d)
          o[d] += logits[j] / sum * fromHalf(v[(size_t(j) * H + h) * D + d]);
    }
  checkMha("mha_inference, sm_90a (8 heads, 128 x 1024, 4 splits)", q, k, v,
           ref, [](auto... a) { return conf9b::mha_sm90::flashattn(a...); });
  checkMha("mha_inference, sm_80 PTX (8 heads, 128 x 1024, 4 splits)", q, k, v,
           ref, [](auto... a) { return conf9b::mha_sm80::flashattn(a...); });
}

constexpr int NT = 96, J = 24, HS = 16384;

template <typename Launch>
void checkSqrsum(const char *what, const std::vector<std::uint16_t> &x,
                 const std::vector<float> &fn, const std::vector<double> &out,
                 const std::vector<double> &mag, const std::vector<double> &sq,
                 Launch launch) {
  std::vector<float> o(size_t(NT) * J, std::nanf("")), s(NT, std::nanf(""));
  CUdeviceptr dX = upload(x), dF = upload(fn), dO = upload(o), dS = upload(s);
  bool launched = ok(launch(dX, dF, dO, dS, std::int64_t(NT)), what);
  download(o, dO);
  download(s, dS);
  cuMemFree(dX);
  cuMemFree(dF);
  Tally t;
  for (size_t i = 0; i < o.size(); ++i)
    t.add("out", i, o[i], out[i],
          2e-3 + 1e-4 * std::fabs(out[i]) + 2e-6 * mag[i]);
  for (size_t i = 0; i < s.size(); ++i)
    t.add("sqrsum", i, s[i], sq[i], 2e-3 + 1e-4 * std::fabs(sq[i]));
  t.row(what, launched);
}

void sqrsum() {
  std::vector<std::uint16_t> x;
  for (float f : randoms(size_t(NT) * HS))
    x.push_back(toBf16(f));
  std::vector<float> fn = randoms(size_t(J) * HS);
  for (float &f : fn) { // 10 explicit mantissa bits: exact in tf32
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    u &= 0xffffe000u;
    std::memcpy(&f, &u, 4);
  }
  std::vector<double> out(size_t(NT) * J, 0.0), sq(NT, 0.0);
  std::vector<double> mag(size_t(NT) * J, 0.0);
  for (int n = 0; n < NT; ++n)
    for (int k = 0; k < HS; ++k) {
      double v = fromBf16(x[size_t(n) * HS + k]);
      sq[n] += v * v;
      for (int j = 0; j < J; ++j) {
        out[size_t(n) * J + j] += v * fn[size_t(j) * HS + k];
        mag[size_t(n) * J + j] += std::fabs(v * fn[size_t(j) * HS + k]);
      }
    }
  checkSqrsum("mhc_pre_gemm_sqrsum, sm_90a (96 tokens, 24 x 16384)", x, fn, out,
              mag, sq, [](auto... a) {
                return conf9b::sqrsum_sm90::mhc_pre_gemm_sqrsum_tilelang(a...);
              });
  checkSqrsum("mhc_pre_gemm_sqrsum, sm_80 PTX (96 tokens, 24 x 16384)", x, fn,
              out, mag, sq, [](auto... a) {
                return conf9b::sqrsum_sm80::mhc_pre_gemm_sqrsum_tilelang(a...);
              });
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  post();
  mha();
  sqrsum();
  return allOk ? 0 : 1;
}
