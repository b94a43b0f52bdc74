// GPU check of T.ptx_cp_async / T.cp_async_barrier_noinc / T.access_ptr
// (see cpasync_check.sh) through the generated launch headers, on fresh
// random inputs; every output element against a float64 reference on the
// host, non-zero exit on any mismatch.
//
// gemm (test/Passes/Inputs/cp-async-ws.tile, mode="gemm"): C = A B^T,
// A (128, 512), B (128, 512) float16, C float32; a producer warpgroup
// copies A and B tiles with 16-byte cp.async into the swizzled wgmma
// operand rings (2 stages) and arrives on mbarriers with .noinc, the
// consumer warpgroup waits and runs T.gemm (wgmma). Exact fp16 products
// summed in float32: tolerance 1e-4 + 2e-6 of the products' magnitudes.
//
// tilesum (mode="tilesum", vec=4 and vec=2): Y[i, j] = sum_t X[i, 64 t +
// j], X (128, 512) float16, Y (128, 64) float32: 8- and 4-byte cp.async
// into a plain row-major ring that a T.Parallel loop adds into a fragment;
// 8 exact float16 values summed in float32: tolerance 1e-5.
//
// groups (test/Passes/Inputs/cp-async-groups.tile, sm_80 PTX): Y = 2 X,
// X (64, 16) float16 copied by 16-byte cp.async completed by
// T.ptx_commit_group / T.ptx_wait_group(0) and the barrier after it;
// exact.
//
// box (test/Passes/wgmma-operand-box-from-fragment.tile): C = (A B^T)[:,
// :32] in float16, A, B (64, 64) float16, the accumulator's left half
// stored into a box of A's swizzled wgmma buffer and copied out from
// there: tolerance 1e-3 + 1e-3 |ref| (fp16 rounding of the result).
//
// mla (the conformance kernel deepseek_mla example_mla_decode_ws at
// batch=2, heads=128, seqlen_kv=1024, dim=512, pe_dim=64, block_N=64,
// block_H=64, num_split=1): Output[b, h, :] = softmax(scale (Q K^T +
// Q_pe K_pe^T)) V with K = V = KV[b, :, 0, :]; float16 in and out, fp16
// P in the second gemm: tolerance 2e-3 + 1e-2 |ref|.
#include "check_host.h"
#include "cpasync_box.h"
#include "cpasync_gemm.h"
#include "cpasync_groups.h"
#include "cpasync_mla.h"
#include "cpasync_sum2.h"
#include "cpasync_sum4.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using namespace check_host;

constexpr int M = 128, N = 128, K = 512, BK = 64;

void checkGemm() {
  std::vector<double> a, b;
  std::vector<std::uint16_t> ha = halves(M * K, a), hb = halves(N * K, b);
  std::vector<float> c(M * N, std::nanf(""));
  CUdeviceptr dA = upload(ha), dB = upload(hb), dC = upload(c);
  bool launched = ok(cpasync::gemm::cp_async_ws(dA, dB, dC), "gemm");
  download(c, dC);
  cuMemFree(dA);
  cuMemFree(dB);
  Tally t;
  compareAbt(t, "C", c, a, b, M, N, K);
  t.row("gemm: 16-byte cp.async into swizzled wgmma rings", launched);
}

template <typename Launch>
void checkTileSum(const char *what, Launch launch) {
  std::vector<double> x;
  std::vector<std::uint16_t> hx = halves(M * K, x);
  std::vector<float> y(M * BK, std::nanf(""));
  CUdeviceptr dX = upload(hx), dY = upload(y);
  bool launched = ok(launch(dX, dY), what);
  download(y, dY);
  cuMemFree(dX);
  Tally t;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < BK; ++j) {
      double ref = 0;
      for (int s = 0; s < K / BK; ++s)
        ref += x[i * K + s * BK + j];
      t.add("Y", size_t(i * BK + j), y[i * BK + j], ref, 1e-5);
    }
  t.row(what, launched);
}

void checkGroups() {
  constexpr int GM = 64, GN = 16;
  std::vector<double> x;
  std::vector<std::uint16_t> hx = halves(GM * GN, x);
  std::vector<std::uint16_t> y(GM * GN, 0x7e00);
  CUdeviceptr dX = upload(hx), dY = upload(y);
  bool launched =
      ok(cpasync::groups::cp_async_groups(dX, dY), "cp_async_groups");
  download(y, dY);
  cuMemFree(dX);
  Tally t;
  for (int i = 0; i < GM * GN; ++i)
    t.add("Y", size_t(i), fromHalf(y[i]), 2 * x[i], 0);
  t.row("groups: cp.async + commit/wait_group (sm_80 PTX)", launched);
}

void checkBox() {
  constexpr int BM = 64, BN = 64, BKK = 64;
  std::vector<double> a, b;
  std::vector<std::uint16_t> ha = halves(BM * BKK, a), hb = halves(BN * BKK, b);
  std::vector<std::uint16_t> c(BM * BN / 2, 0x7e00);
  CUdeviceptr dA = upload(ha), dB = upload(hb), dC = upload(c);
  bool launched = ok(cpasync::box::box_from_fragment(dA, dB, dC), "box");
  download(c, dC);
  cuMemFree(dA);
  cuMemFree(dB);
  Tally t;
  for (int i = 0; i < BM; ++i)
    for (int j = 0; j < BN / 2; ++j) {
      double ref = 0;
      for (int l = 0; l < BKK; ++l)
        ref += a[i * BKK + l] * b[j * BKK + l];
      t.add("C", size_t(i * BN / 2 + j), fromHalf(c[i * BN / 2 + j]), ref,
            1e-3 + 1e-3 * std::fabs(ref));
    }
  t.row("box: fragment into a box of a swizzled wgmma operand", launched);
}

void checkMla() {
  constexpr int B = 2, H = 128, S = 1024, D = 512, P = 64;
  const double scale = 0.041666666666666664;
  std::vector<double> q, qpe, kv, kpe;
  std::vector<std::uint16_t> hq = halves(B * H * D, q),
                             hqpe = halves(B * H * P, qpe),
                             hkv = halves(B * S * D, kv),
                             hkpe = halves(B * S * P, kpe);
  std::vector<std::uint16_t> glse(B * H, 0), partial(B * H * D, 0),
      out(B * H * D, 0x7e00); // NaN until written
  CUdeviceptr dQ = upload(hq), dQpe = upload(hqpe), dKV = upload(hkv),
              dKpe = upload(hkpe), dG = upload(glse), dP = upload(partial),
              dO = upload(out);
  bool launched = ok(
      cpasync::mla::flashattn(dQ, dQpe, dKV, dKpe, dG, dP, dO), "mla");
  download(out, dO);
  for (CUdeviceptr p : {dQ, dQpe, dKV, dKpe, dG, dP})
    cuMemFree(p);
  Tally t;
  std::vector<double> s(S);
  for (int bi = 0; bi < B; ++bi)
    for (int h = 0; h < H; ++h) {
      double m = -1e300;
      for (int j = 0; j < S; ++j) {
        double v = 0;
        for (int d = 0; d < D; ++d)
          v += q[(bi * H + h) * D + d] * kv[(bi * S + j) * D + d];
        for (int d = 0; d < P; ++d)
          v += qpe[(bi * H + h) * P + d] * kpe[(bi * S + j) * P + d];
        s[j] = v * scale;
        m = std::max(m, s[j]);
      }
      double sum = 0;
      for (int j = 0; j < S; ++j)
        sum += (s[j] = std::exp(s[j] - m));
      for (int d = 0; d < D; ++d) {
        double o = 0;
        for (int j = 0; j < S; ++j)
          o += s[j] * kv[(bi * S + j) * D + d];
        o /= sum;
        size_t at = size_t(bi * H + h) * D + d;
        t.add("Output", at, fromHalf(out[at]), o, 2e-3 + 1e-2 * std::fabs(o));
      }
    }
  t.row("mla decode ws (cp.async producer, conformance kernel)", launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  checkGemm();
  checkTileSum("tilesum: 8-byte cp.async, row-major ring", [](auto... p) {
    return cpasync::sum4::cp_async_ws(p...);
  });
  checkTileSum("tilesum: 4-byte cp.async, row-major ring", [](auto... p) {
    return cpasync::sum2::cp_async_ws(p...);
  });
  checkGroups();
  checkBox();
  checkMla();
  std::printf(allOk ? "all ok\n" : "FAILED\n");
  return allOk ? 0 : 1;
}
