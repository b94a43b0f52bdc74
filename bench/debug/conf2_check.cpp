// GPU check of the conf2 frontend features (see conf2_check.sh): each
// kernel is launched through its generated header on random data and every
// element is compared against a float64 reference on the host. One table
// row per check; non-zero exit on any mismatch or launch failure.
#include "atomic_tile.h"
#include "generic_const.h"
#include "global_copy.h"
#include "grid_scalar.h"
#include "index_map.h"
#include "reduce_widening.h"
#include "threads_2d.h"
#include "workspace.h"
#include "check_host.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace check_host;

std::vector<float> randoms(size_t n) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = u(rng);
  return v;
}
std::vector<std::uint16_t> halves(const std::vector<float> &v) {
  std::vector<std::uint16_t> h(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    h[i] = toHalf(v[i]);
  return h;
}

void row(const std::string &what, size_t elements, size_t bad, double err,
         const char *note = "") {
  bool good = bad == 0;
  allOk &= good;
  std::printf("| %s | %zu | %zu | %.3g | %s | %s |\n", what.c_str(), elements,
              bad, err, good ? "ok" : "FAIL", note);
}
/// Counts elements outside `tol` (absolute + relative) of the reference.
template <typename F>
size_t compare(size_t n, F got, const std::vector<double> &ref, double tol,
               double &maxErr) {
  size_t bad = 0;
  maxErr = 0;
  for (size_t i = 0; i < n; ++i) {
    double e = std::fabs(got(i) - ref[i]);
    maxErr = std::max(maxErr, e);
    if (!(e <= tol * (1 + std::fabs(ref[i]))))
      ++bad;
  }
  return bad;
}

void genericConst() {
  // Y[i, j] = X[i, j] * S[i // 2] with M = 200, N = 192 (M not a multiple
  // of block_M = 32: the last tile is partial).
  for (int M : {200, 64}) {
    const int N = 192;
    std::vector<float> x = randoms(size_t(M) * N), s = randoms(M / 2);
    std::vector<std::uint16_t> xh = halves(x), y(size_t(M) * N, 0x7bff);
    CUdeviceptr dX = upload(xh), dS = upload(s), dY = upload(y);
    bool launched = ok(conf2::generic_const::scale_rows(dX, dS, dY, M, N),
                       "scale_rows");
    download(y, dY);
    cuMemFree(dX);
    cuMemFree(dS);
    std::vector<double> ref(size_t(M) * N);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j)
        ref[size_t(i) * N + j] = double(fromHalf(xh[size_t(i) * N + j])) * s[i / 2];
    double err;
    size_t bad = compare(ref.size(), [&](size_t i) { return fromHalf(y[i]); },
                         ref, 2e-3, err);
    row("generic T.const M=" + std::to_string(M) + " N=192", ref.size(),
        launched ? bad : ref.size(), err);
  }
  // N = 100 breaks `assert N % block_N == 0`: the header must refuse.
  CUresult r = conf2::generic_const::scale_rows(0x10000, 0x10000, 0x10000, 64, 100);
  row("generic T.const assert N=100 refused", 1,
      r == CUDA_ERROR_INVALID_VALUE ? 0 : 1, 0,
      conf2::generic_const::statusString());
}

void globalCopy() {
  for (int m : {1000, 64, 1}) {
    const int N = 32;
    std::vector<float> a = randoms(size_t(m) * N);
    std::vector<std::uint16_t> b(size_t(m) * N, 0);
    CUdeviceptr dA = upload(a), dB = upload(b);
    bool launched = ok(conf2::global_copy::downcast(dA, dB, m), "downcast");
    download(b, dB);
    cuMemFree(dA);
    std::vector<double> ref(a.begin(), a.end());
    double err;
    size_t bad = compare(ref.size(), [&](size_t i) { return fromHalf(b[i]); },
                         ref, 1e-3, err);
    row("global->global copy f32->f16 m=" + std::to_string(m), ref.size(),
        launched ? bad : ref.size(), err);
  }
}

void indexMap() {
  const int M = 4, N = 8;
  std::vector<float> a = randoms(M * N), b(M * N, 0);
  CUdeviceptr dA = upload(a), dB = upload(b);
  bool launched = ok(conf2::index_map::transposed_store(dA, dB), "transposed_store");
  download(b, dB);
  // B's memory holds the transpose: element (i, j) at j * M + i.
  std::vector<double> ref(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      ref[j * M + i] = a[i * N + j];
  double err;
  size_t bad = compare(ref.size(), [&](size_t i) { return b[i]; }, ref, 0, err);
  row("T.Layout store (memory is the transpose)", ref.size(),
      launched ? bad : ref.size(), err);
  // Reading it back through the map gives A again.
  std::vector<std::uint16_t> c(M * N, 0);
  CUdeviceptr dB2 = upload(b), dC = upload(c);
  launched = ok(conf2::index_map::transposed_copy(dB2, dC), "transposed_copy");
  download(c, dC);
  cuMemFree(dB2);
  cuMemFree(dA);
  std::vector<double> back(a.begin(), a.end());
  bad = compare(back.size(), [&](size_t i) { return fromHalf(c[i]); }, back,
                1e-3, err);
  row("T.Layout global->global copy reads it back", back.size(),
      launched ? bad : back.size(), err);
}

void atomicTile() {
  const int M = 100, N = 128, K = 256;
  std::vector<float> a = randoms(M * K), b = randoms(K * N);
  std::vector<std::uint16_t> ah = halves(a), bh = halves(b);
  std::vector<float> c(M * N, 0.0f);
  CUdeviceptr dA = upload(ah), dB = upload(bh), dC = upload(c);
  bool launched = ok(conf2::atomic_tile::splitk(dA, dB, dC), "splitk");
  download(c, dC);
  cuMemFree(dA);
  cuMemFree(dB);
  std::vector<double> ref(M * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < N; ++j)
        ref[i * N + j] += double(fromHalf(ah[i * K + k])) * fromHalf(bh[k * N + j]);
  double err;
  size_t bad = compare(ref.size(), [&](size_t i) { return c[i]; }, ref, 1e-3, err);
  row("tile T.atomic_add split-K 4, M=100", ref.size(),
      launched ? bad : ref.size(), err);
}

void workspace() {
  const int N = 4096, parts = 32;
  std::vector<float> x = randoms(N), y(1, 0.0f), w(parts, 0.0f);
  CUdeviceptr dX = upload(x), dY = upload(y), dW = upload(w);
  bool launched = ok(conf2::workspace::split_sum(dX, dY, dW), "split_sum");
  download(y, dY);
  download(w, dW);
  cuMemFree(dX);
  std::vector<double> ref(1, 0.0), part(parts, 0.0);
  for (int i = 0; i < N; ++i)
    part[i / (N / parts)] += x[i];
  for (double p : part)
    ref[0] += p;
  double err, err2;
  size_t bad = compare(1, [&](size_t) { return y[0]; }, ref, 1e-4, err);
  bad += compare(parts, [&](size_t i) { return w[i]; }, part, 1e-4, err2);
  row("T.alloc_global workspace, two kernels", 1 + parts,
      launched ? bad : 1 + parts, std::max(err, err2));
}

void gridScalar() {
  const int batch = 4, total = 4096;
  std::vector<std::int32_t> offs = {0, 700, 1000, 2900, 4000};
  std::vector<float> x = randoms(total), y(total, -7.0f);
  int maxLen = 1900;
  CUdeviceptr dX = upload(x), dO = upload(offs), dY = upload(y);
  bool launched = ok(conf2::grid_scalar::seg_copy(dX, dO, dY, maxLen), "seg_copy");
  download(y, dY);
  cuMemFree(dX);
  cuMemFree(dO);
  std::vector<double> ref(total, -7.0);
  for (int b = 0; b < batch; ++b)
    for (int i = offs[b]; i < offs[b + 1]; ++i)
      ref[i] = x[i];
  double err;
  size_t bad = compare(ref.size(), [&](size_t i) { return y[i]; }, ref, 0, err);
  row("grid from scalar max_len=1900", ref.size(), launched ? bad : ref.size(), err);
}

void reduceWidening() {
  const int M = 64, N = 64;
  std::vector<float> x = randoms(M * N), y(M, 0.0f);
  std::vector<std::uint16_t> xh = halves(x);
  CUdeviceptr dX = upload(xh), dY = upload(y);
  bool launched = ok(conf2::reduce_widening::rowmax(dX, dY), "rowmax");
  download(y, dY);
  cuMemFree(dX);
  std::vector<double> ref(M, -1e30);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      ref[i] = std::max(ref[i], double(fromHalf(xh[i * N + j])));
  double err;
  size_t bad = compare(ref.size(), [&](size_t i) { return y[i]; }, ref, 0, err);
  row("reduce_max f16 -> f32", ref.size(), launched ? bad : ref.size(), err);
}

void threads2d() {
  const int M = 64, N = 256;
  std::vector<float> x = randoms(M * N), y(N, 0.0f);
  CUdeviceptr dX = upload(x), dY = upload(y);
  bool launched = ok(conf2::threads_2d::colsum(dX, dY), "colsum");
  download(y, dY);
  cuMemFree(dX);
  std::vector<double> ref(N, 0.0);
  for (int r = 0; r < M; ++r)
    for (int j = 0; j < N; ++j)
      ref[j] += x[r * N + j];
  double err;
  size_t bad = compare(ref.size(), [&](size_t i) { return y[i]; }, ref, 1e-4, err);
  row("threads=(32, 8) column sums", ref.size(), launched ? bad : ref.size(), err);
}

} // namespace

int main() {
  if (!initDevice())
    return 2;
  std::printf("| check | elements | bad | max abs err | result | note |\n");
  std::printf("|---|---|---|---|---|---|\n");
  genericConst();
  globalCopy();
  indexMap();
  atomicTile();
  workspace();
  gridScalar();
  reduceWidening();
  threads2d();
  return allOk ? 0 : 1;
}
