// FlashAttention forward checks and timings: examples/flash_attention.tile
// (Q, K, V, O in the (batch, seq, heads, dim) layout, fp16) against
// softmax(Q K^T / sqrt(dim)) V in float64 on the CPU. Small instances are
// checked on every output element; for large ones the CPU reference would
// take minutes, so it covers a random sample of (batch, head, query) rows
// (always including the first and last query, the causal extremes), while
// every output element is still scanned for the NaN the output was poisoned
// with. The torch SDPA baseline comes from bench/torch_baselines.py.
#pragma once
#include "common.h"

#include <cstdint>

// Fills `buf` with normal(0, stddev) values in parallel (one generator per
// 1 Mi-element chunk, seeded from `rng`): the 134 Mi-element tensors of the
// timing instance would take tens of seconds on one thread.
static void fillNormal(HalfBuffer &buf, std::mt19937_64 &rng, float stddev) {
  const size_t chunk = size_t(1) << 20;
  const uint64_t seed = rng();
  const int64_t chunks = int64_t((buf.n + chunk - 1) / chunk);
#pragma omp parallel for
  for (int64_t c = 0; c < chunks; ++c) {
    std::mt19937_64 local(seed ^ (uint64_t(c) * 0x9E3779B97F4A7C15ull));
    std::normal_distribution<float> d(0.f, stddev);
    size_t end = std::min(buf.n, size_t(c + 1) * chunk);
    for (size_t i = size_t(c) * chunk; i < end; ++i)
      buf.host[i] = __float2half(d(local));
  }
  buf.upload();
}

struct AttentionShape {
  int batch, heads, seq, dim;
  bool causal;
  // Element (b, s, h, d) of a (batch, seq, heads, dim) tensor.
  size_t at(int b, int s, int h, int d) const {
    return ((size_t(b) * seq + s) * heads + h) * dim + d;
  }
  size_t elements() const { return size_t(batch) * seq * heads * dim; }
};

// One output row O[b, i, h, :] in float64: softmax over the keys row i may
// see (all of them, or j <= i when causal), then the weighted sum of V.
// (Templated on the buffer so it can be tested without a device.)
template <typename Buf>
static void referenceRow(const AttentionShape &sh, const Buf &q, const Buf &k,
                         const Buf &v, int b, int h, int i,
                         std::vector<double> &out) {
  const int keys = sh.causal ? i + 1 : sh.seq;
  const double scale = 1.0 / std::sqrt(double(sh.dim));
  std::vector<double> qi(sh.dim), p(keys);
  for (int d = 0; d < sh.dim; ++d)
    qi[d] = q.at(sh.at(b, i, h, d));
  double mx = -INFINITY;
  for (int j = 0; j < keys; ++j) {
    double s = 0;
    for (int d = 0; d < sh.dim; ++d)
      s += qi[d] * k.at(sh.at(b, j, h, d));
    p[j] = s * scale;
    mx = std::max(mx, p[j]);
  }
  double sum = 0;
  for (int j = 0; j < keys; ++j)
    sum += p[j] = std::exp(p[j] - mx);
  out.assign(sh.dim, 0.0);
  for (int j = 0; j < keys; ++j)
    for (int d = 0; d < sh.dim; ++d)
      out[d] += p[j] * v.at(sh.at(b, j, h, d));
  for (int d = 0; d < sh.dim; ++d)
    out[d] /= sum;
}

// Launch(Q, K, V, O) runs the kernel. Checks every row when `sampleRows` is
// 0, else that many random (batch, head, query) rows.
template <typename Launch>
static void runFlashAttention(const char *name, int batch, int heads, int seq,
                              int dim, bool causal, Launch launch, bool time,
                              std::mt19937_64 &rng, int sampleRows = 0) {
  if (!harnessSelected(std::string(name) + " " + std::to_string(batch) + "x" +
                       std::to_string(heads) + "x" + std::to_string(seq) + "x" +
                       std::to_string(dim)))
    return;
  const AttentionShape sh{batch, heads, seq, dim, causal};
  HalfBuffer q(sh.elements()), k(sh.elements()), v(sh.elements()),
      o(sh.elements());
  // Scores q.k / sqrt(dim) of standard deviation 1.5^2 = 2.25: the
  // softmax is neither uniform nor one-hot, and the running row maximum
  // keeps changing from one KV tile to the next.
  fillNormal(q, rng, 1.5f);
  fillNormal(k, rng, 1.5f);
  fillNormal(v, rng, 1.f);
  o.poison();
  CHECK_CU(launch(q.ptr(), k.ptr(), v.ptr(), o.ptr()));
  CHECK_CUDA(cudaDeviceSynchronize());
  o.download();

  // The rows to check, as (batch, head, query) triples.
  struct Row {
    int b, h, i;
  };
  std::vector<Row> rows;
  if (sampleRows == 0) {
    for (int b = 0; b < batch; ++b)
      for (int h = 0; h < heads; ++h)
        for (int i = 0; i < seq; ++i)
          rows.push_back({b, h, i});
  } else {
    std::uniform_int_distribution<int> db(0, batch - 1), dh(0, heads - 1),
        di(0, seq - 1);
    for (int r = 0; r < sampleRows; ++r) {
      // Query 0 sees a single key when causal, query seq-1 all of them.
      int b = db(rng), h = dh(rng), i = di(rng);
      if (r < 2)
        i = r == 0 ? 0 : seq - 1;
      rows.push_back({b, h, i});
    }
  }
  double num = 0, den = 0, maxAbs = 0;
  size_t nans = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : num, den, nans)       \
    reduction(max : maxAbs)
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<double> ref;
    referenceRow(sh, q, k, v, rows[r].b, rows[r].h, rows[r].i, ref);
    for (int d = 0; d < dim; ++d) {
      double out = o.at(sh.at(rows[r].b, rows[r].i, rows[r].h, d));
      if (std::isnan(out)) {
        ++nans;
        continue;
      }
      num += (out - ref[d]) * (out - ref[d]);
      den += ref[d] * ref[d];
      maxAbs = std::max(maxAbs, std::fabs(out - ref[d]));
    }
  }
  // Sampled rows leave most of O unchecked against the reference; a NaN
  // anywhere (an element never written) still fails the run.
  if (sampleRows != 0) {
    size_t unwritten = 0;
#pragma omp parallel for reduction(+ : unwritten)
    for (size_t i = 0; i < o.n; ++i)
      unwritten += std::isnan(o.at(i)) ? 1 : 0;
    nans = unwritten;
  }
  ErrorStat err{num, den, nans};
  double ms =
      time
          ? medianMs([&] { return launch(q.ptr(), k.ptr(), v.ptr(), o.ptr()); })
          : 0;
  // 2 GEMMs of 2*s*s*d flops per (batch, head); causal does half.
  double flops =
      4.0 * batch * heads * double(seq) * seq * dim / (causal ? 2 : 1);
  const double tol = 2e-3;
  std::printf("{\"kernel\": \"%s\", \"op\": \"attention\", \"size\": "
              "\"%dx%dx%dx%d fp16\", \"causal\": %s, \"rel_err\": %s, "
              "\"max_abs_err\": %s, \"nans\": %zu, \"tol\": %.0e, \"ok\": %s, "
              "\"ms\": %.4f, \"TFLOPs\": %.1f, \"sdpa_ms\": null, "
              "\"ref\": \"%s\"}\n",
              name, batch, heads, seq, dim, causal ? "true" : "false",
              JsonNum(err.rel()).text, JsonNum(maxAbs).text, nans, tol,
              err.rel() <= tol ? "true" : "false", ms,
              ms ? flops / ms / 1e9 : 0,
              sampleRows ? "float64 (sampled rows)" : "float64");
  std::fflush(stdout);
}
