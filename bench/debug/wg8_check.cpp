// GPU check of T.wgmma_gemm / T.wait_wgmma (see wg8_check.sh), through
// the kernels' generated headers on random float16 inputs in [-1, 1):
// every float32 output element against the float64 sum of the same
// float16 products, tolerance 1e-5 of the sum of their magnitudes (f32
// accumulation) plus 1e-6. Non-zero exit on any mismatch.
#include "two.h"
#include "ws.h"
#include "check_host.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using namespace check_host;

/// Out[i, j] against sum over the (a, b, k) pairs of a[i, :k] . b[j, :k]:
/// X (rows, k) times Y (cols, k) transposed, summed over the terms.
struct Term {
  const std::vector<double> *x, *y;
  int k;
};
void compare(Tally &t, const char *what, const std::vector<float> &out,
             int rows, int cols, std::initializer_list<Term> terms) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      double ref = 0, mag = 0;
      for (const Term &term : terms)
        for (int k = 0; k < term.k; ++k) {
          double p = (*term.x)[size_t(i) * term.k + k] *
                     (*term.y)[size_t(j) * term.k + k];
          ref += p;
          mag += std::fabs(p);
        }
      t.add(what, size_t(i) * cols + j, out[size_t(i) * cols + j], ref,
            1e-5 * mag + 1e-6);
    }
}

void checkWs() {
  constexpr int H = 128, S = 1024, half = 64, pe = 32, D = 2 * half;
  std::vector<double> q, qpe, kv, kpe;
  auto hq = halves(size_t(H) * D, q), hqpe = halves(size_t(H) * pe, qpe);
  auto hkv = halves(size_t(S) * D, kv), hkpe = halves(size_t(S) * pe, kpe);
  std::vector<float> out(size_t(H) * S, std::nanf(""));
  CUdeviceptr dq = upload(hq), dqpe = upload(hqpe), dkv = upload(hkv),
              dkpe = upload(hkpe), dout = upload(out);
  bool launched =
      ok(wg8::ws::wgmma_async(dq, dqpe, dkv, dkpe, dout, nullptr), "ws");
  download(out, dout);
  for (CUdeviceptr d : {dq, dqpe, dkv, dkpe})
    cuMemFree(d);
  // Q K^T over the full head dimension equals Q_l K_l^T + Q_r K_r^T.
  Tally t;
  compare(t, "S", out, H, S, {Term{&q, &kv, D}, Term{&qpe, &kpe, pe}});
  t.row("ws: 3 T.wgmma_gemm into S, T.wait_wgmma(0), T.ws + TMA + mbarriers "
        "(128 x 1024)",
        launched);
}

void checkTwo() {
  constexpr int M = 128, N = 64, K = 64;
  std::vector<double> a, b1, b2;
  auto ha = halves(size_t(M) * K, a), hb1 = halves(size_t(N) * K, b1),
       hb2 = halves(size_t(N) * K, b2);
  std::vector<float> c1(size_t(M) * N, std::nanf("")), c2 = c1;
  CUdeviceptr da = upload(ha), db1 = upload(hb1), db2 = upload(hb2),
              dc1 = upload(c1), dc2 = upload(c2);
  bool launched =
      ok(wg8::two::wgmma_async(da, db1, db2, dc1, dc2, nullptr), "two");
  download(c1, dc1);
  download(c2, dc2);
  for (CUdeviceptr d : {da, db1, db2})
    cuMemFree(d);
  Tally t1, t2;
  compare(t1, "C1", c1, M, N, {Term{&a, &b1, K}});
  compare(t2, "C2", c2, M, N, {Term{&a, &b2, K}});
  t1.row("two: C1 = A B1^T read after T.wait_wgmma(1)", launched);
  t2.row("two: C2 = A B2^T read after T.wait_wgmma(0)", launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  checkWs();
  checkTwo();
  return allOk ? 0 : 1;
}
