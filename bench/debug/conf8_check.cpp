// GPU check of the kernel conf8 made compile (see conf8_check.sh): TileLang's
// paged block-sparse GQA decode (conformance kernel
// blocksparse_attention__example_tilelang_sparse_gqa_decode_paged__flashattn,
// compiled from ../shared; its factory ends with `print(main)`, which tilec
// now runs at compile time), for sm_90a (wgmma) and sm_80 (mma.sync; its
// PTX is JIT-compiled for the H200), through the generated headers, on
// random inputs; every output element against a float64 reference on the
// host, non-zero exit on any mismatch.
//
// Sizes: batch 8, 32 query heads over 8 KV heads (4 per group), dim 128,
// pages of 256 positions in 64-position blocks (4 per page), 64 pages (8
// per sequence, shuffled over the pool by block_table), sequence lengths
// in [1024, 2048]. Per (batch, KV head), 6 selected logical blocks,
// sorted in reverse as the kernel assumes: the block holding the last
// position (the only partial one: the kernel masks positions past the
// length in each split's first block) and 5 distinct lower ones; split
// over 3 (2 blocks each, so every split has a valid block; the combine
// treats glse == 0 as an empty split).
//
// Reference: for query head h of batch b (KV head g = h / 4), softmax over
// the selected positions p < seqlen of q . k_p / sqrt(128), times v_p, in
// float64 from the fp16 inputs. The kernel rounds P to fp16 before P V and
// the output to fp16: tolerance 2e-3 + 1e-2 |ref|.
#include "check_host.h"
#include "paged_sm80.h"
#include "paged_sm90.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

namespace {

using namespace check_host;

constexpr int B = 8, H = 32, HKV = 8, D = 128, PAGE = 256, BN = 64,
              PAGES = 64, PAGES_PER_SEQ = 8, SEL = 6, SPLITS = 3;
constexpr int RATIO = PAGE / BN;

struct Inputs {
  std::vector<std::uint16_t> q, k, v; // fp16 bits
  std::vector<std::int32_t> indices, seqlens, table;
};

Inputs makeInputs() {
  Inputs in;
  in.q = halves(size_t(B) * H * D);
  in.k = halves(size_t(PAGES) * PAGE * HKV * D);
  in.v = halves(size_t(PAGES) * PAGE * HKV * D);
  std::vector<std::int32_t> pool(PAGES);
  std::iota(pool.begin(), pool.end(), 0);
  std::shuffle(pool.begin(), pool.end(), rng);
  in.table.assign(pool.begin(), pool.end()); // B x PAGES_PER_SEQ
  std::uniform_int_distribution<int> len(1024, PAGE * PAGES_PER_SEQ);
  for (int b = 0; b < B; ++b)
    in.seqlens.push_back(len(rng));
  for (int b = 0; b < B; ++b)
    for (int g = 0; g < HKV; ++g) {
      int last = (in.seqlens[b] - 1) / BN;
      std::vector<std::int32_t> lower(last);
      std::iota(lower.begin(), lower.end(), 0);
      std::shuffle(lower.begin(), lower.end(), rng);
      std::vector<std::int32_t> chosen(lower.begin(), lower.begin() + SEL - 1);
      chosen.push_back(last);
      std::sort(chosen.rbegin(), chosen.rend());
      in.indices.insert(in.indices.end(), chosen.begin(), chosen.end());
    }
  return in;
}

/// out[b][h][d] in float64.
std::vector<double> reference(const Inputs &in) {
  std::vector<double> out(size_t(B) * H * D, 0.0);
  const double scale = 1.0 / std::sqrt(double(D));
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      int g = h / (H / HKV);
      std::vector<double> logits;
      std::vector<size_t> rows; // offsets of k/v rows
      for (int s = 0; s < SEL; ++s) {
        int lb = in.indices[(size_t(b) * HKV + g) * SEL + s];
        int page = in.table[size_t(b) * PAGES_PER_SEQ + lb / RATIO];
        for (int j = 0; j < BN; ++j) {
          if (lb * BN + j >= in.seqlens[b])
            continue;
          size_t row =
              ((size_t(page) * PAGE + (lb % RATIO) * BN + j) * HKV + g) * D;
          double dot = 0;
          for (int d = 0; d < D; ++d)
            dot += double(fromHalf(in.q[(size_t(b) * H + h) * D + d])) *
                   double(fromHalf(in.k[row + d]));
          logits.push_back(dot * scale);
          rows.push_back(row);
        }
      }
      double top = *std::max_element(logits.begin(), logits.end()), sum = 0;
      for (double &l : logits)
        sum += (l = std::exp(l - top));
      double *o = &out[(size_t(b) * H + h) * D];
      for (size_t p = 0; p < rows.size(); ++p)
        for (int d = 0; d < D; ++d)
          o[d] += logits[p] / sum * double(fromHalf(in.v[rows[p] + d]));
    }
  return out;
}

template <typename Launch>
void check(const char *what, const Inputs &in, const std::vector<double> &ref,
           Launch launch) {
  std::vector<float> glse(size_t(B) * H * SPLITS, std::nanf("")),
      partial(size_t(B) * H * SPLITS * D, std::nanf(""));
  std::vector<std::uint16_t> out(size_t(B) * H * D, 0x7e00); // NaN
  CUdeviceptr dQ = upload(in.q), dK = upload(in.k), dV = upload(in.v),
              dI = upload(in.indices), dS = upload(in.seqlens),
              dT = upload(in.table), dL = upload(glse), dP = upload(partial),
              dO = upload(out);
  bool launched = ok(launch(dQ, dK, dV, dI, dS, dT, dL, dP, dO,
                            std::int64_t(SEL), std::int64_t(PAGES_PER_SEQ),
                            std::int64_t(SPLITS)),
                     what);
  download(out, dO);
  for (CUdeviceptr d : {dQ, dK, dV, dI, dS, dT, dL, dP})
    cuMemFree(d);
  Tally t;
  for (size_t i = 0; i < out.size(); ++i)
    t.add("Output", i, fromHalf(out[i]), ref[i], 2e-3 + 1e-2 * std::fabs(ref[i]));
  t.row(what, launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  Inputs in = makeInputs();
  std::vector<double> ref = reference(in);
  printCheckTableHeader();
  check("paged sparse GQA decode, sm_90a (8 x 32 heads, 6 blocks, 3 splits)",
        in, ref, [](auto... a) { return conf8::paged_sm90::flashattn(a...); });
  check("paged sparse GQA decode, sm_80 PTX (8 x 32 heads, 6 blocks, 3 splits)",
        in, ref, [](auto... a) { return conf8::paged_sm80::flashattn(a...); });
  return allOk ? 0 : 1;
}
