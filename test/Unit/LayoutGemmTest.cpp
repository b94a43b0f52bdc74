//===- LayoutGemmTest.cpp - CPU emulation of the mma.sync block GEMM ------===//
//
// Runs, on the CPU, the decomposition tile-lower-simt emits for T.gemm
// (LowerGemm.cpp) on a whole 128x128x32 block: operands stored in the
// shared layouts pickSharedLayout picks, every warp's ldmatrix.x4 lane
// addresses taken from ldmatrixX4 and placed at the warp's tile origins
// read from mmaAccumulatorLayout, B fetched two n8 tiles per ldmatrix.x4
// and a warp's odd last n8 tile (8 columns per warp) with ldmatrix.x2
// (ldmatrixX2), and mma.sync m16n8k16 applied to the per-lane registers.
// ldmatrix and mma are simulated from the PTX ISA's descriptions (written here,
// not taken from the library), so the test fails if the library's maps and the
// lowering's use of them disagree with the hardware. The result, read out of
// the accumulator registers through the accumulator layout, must equal A @ B
// exactly (small integer inputs).
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/MmaLayouts.h"
#include "tilec/Layout/SharedLayout.h"

#include <catch2/catch.hpp>

#include "LayoutTestSupport.h"

#include <map>
#include <set>
#include <vector>

using namespace tilec;
using llvm::Expected;

using layout_test::errorOf;
using layout_test::unwrap;

namespace {
std::pair<int32_t, int32_t> at(const LinearLayout &layout,
                               llvm::ArrayRef<LinearLayout::NamedValue> ins) {
  auto out = unwrap(layout.apply(ins));
  return {out[0].second, out[1].second};
}

/// ldmatrix.x4 (.x2 with `matrices` 2) from the ISA: lanes 8i..8i+7 give
/// the row addresses of matrix i (the other lanes' are ignored); without
/// .trans lane l receives row l/4, elements 2(l%4) and 2(l%4)+1; with
/// .trans, element l/4 of rows 2(l%4) and 2(l%4)+1. Returns per lane 8
/// values (register 2i + e of matrix i; unused ones zero).
std::vector<std::array<float, 8>> ldmatrix(const std::vector<float> &mem,
                                           const std::array<int64_t, 32> &addr,
                                           bool trans, int matrices = 4) {
  std::vector<std::array<float, 8>> out(32, std::array<float, 8>{});
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < matrices; ++i)
      for (int e = 0; e < 2; ++e)
        out[l][2 * i + e] = trans ? mem[addr[8 * i + 2 * (l % 4) + e] + l / 4]
                                  : mem[addr[8 * i + l / 4] + 2 * (l % 4) + e];
  return out;
}

/// mma.sync m16n8k16 from the ISA's fragment figures.
void mma(const std::vector<std::array<float, 8>> &a,
         const std::vector<std::array<float, 4>> &b,
         std::vector<std::array<float, 4>> &c) {
  float am[16][16], bm[16][8], cm[16][8];
  for (int l = 0; l < 32; ++l) {
    int g = l / 4, t = l % 4;
    for (int i = 0; i < 8; ++i)
      am[g + 8 * ((i >> 1) & 1)][2 * t + (i & 1) + 8 * (i >> 2)] = a[l][i];
    for (int i = 0; i < 4; ++i)
      bm[2 * t + (i & 1) + 8 * (i >> 1)][g] = b[l][i];
    for (int i = 0; i < 4; ++i)
      cm[g + 8 * (i >> 1)][2 * t + (i & 1)] = c[l][i];
  }
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n)
      for (int k = 0; k < 16; ++k)
        cm[m][n] += am[m][k] * bm[k][n];
  for (int l = 0; l < 32; ++l) {
    int g = l / 4, t = l % 4;
    for (int i = 0; i < 4; ++i)
      c[l][i] = cm[g + 8 * (i >> 1)][2 * t + (i & 1)];
  }
}

void runBlockGemm(int64_t M, int64_t N, int64_t K, int64_t numWarps,
                  GemmWarpPolicy policy, bool transA, bool transB) {
  WarpPartition parts = unwrap(computeWarpPartition(policy, M, N, numWarps));
  LinearLayout acc = unwrap(mmaAccumulatorLayout(M, N, parts));
  // Stored shapes and layouts.
  int64_t aRows = transA ? K : M, aCols = transA ? M : K;
  int64_t bRows = transB ? N : K, bCols = transB ? K : N;
  SharedLayout sa = unwrap(pickSharedLayout(aRows, aCols, 2));
  SharedLayout sb = unwrap(pickSharedLayout(bRows, bCols, 2));
  std::vector<float> A(M * K), B(K * N);
  for (int64_t i = 0; i < M * K; ++i)
    A[i] = float(int((i * 7 + 3) % 5) - 2);
  for (int64_t i = 0; i < K * N; ++i)
    B[i] = float(int((i * 11 + 1) % 7) - 3);
  std::vector<float> memA(sa.getAllocElems()), memB(sb.getAllocElems());
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      memA[unwrap(transA ? sa.offset({k, m}) : sa.offset({m, k}))] =
          A[m * K + k];
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n)
      memB[unwrap(transB ? sb.offset({n, k}) : sb.offset({k, n}))] =
          B[k * N + n];

  LdmatrixPlan planA = unwrap(ldmatrixX4(MmaOperand::A, transA ? 0 : 1));
  LdmatrixPlan planB = unwrap(ldmatrixX4(MmaOperand::B, transB ? 0 : 1));
  LdmatrixPlan planB2 = unwrap(ldmatrixX2(MmaOperand::B, transB ? 0 : 1));
  // Which ldmatrix register feeds which B register of which n8 half.
  int bReg[2][4];
  for (int32_t r = 0; r < 8; ++r) {
    auto [k, n] = at(planB.fragment, {{"register", r}, {"lane", 0}});
    bReg[n / 8][(k & 1) | ((k >> 3) << 1)] = r;
  }

  int64_t regs = acc.getInDimSize("register");
  // Accumulator tiles of warp 0, lane 0: their origins.
  std::set<int64_t> mTiles, nTiles;
  std::map<std::pair<int64_t, int64_t>, int64_t> group;
  for (int64_t g = 0; g < regs / 4; ++g) {
    auto [m, n] = at(acc, {{"register", int32_t(4 * g)}});
    REQUIRE(m % 16 == 0);
    REQUIRE(n % 8 == 0);
    mTiles.insert(m);
    nTiles.insert(n);
    group[{m, n}] = g;
  }
  REQUIRE(int64_t(mTiles.size() * nTiles.size()) == regs / 4);
  std::vector<int64_t> ms(mTiles.begin(), mTiles.end()),
      ns(nTiles.begin(), nTiles.end());

  for (int64_t w = 0; w < numWarps; ++w) {
    int64_t warpRow = 16 * (w % parts.warpsM), warpCol = 8 * (w / parts.warpsM);
    std::vector<std::vector<std::array<float, 4>>> c(
        regs / 4, std::vector<std::array<float, 4>>(32, {0, 0, 0, 0}));
    for (int64_t k0 = 0; k0 < K; k0 += 16) {
      std::vector<std::vector<std::array<float, 8>>> aFrags;
      for (int64_t m0 : ms) {
        std::array<int64_t, 32> addr;
        for (int32_t l = 0; l < 32; ++l) {
          auto [dm, dk] = at(planA.rowStart, {{"lane", l}});
          int64_t m = warpRow + m0 + dm, k = k0 + dk;
          addr[l] = unwrap(transA ? sa.offset({k, m}) : sa.offset({m, k}));
        }
        aFrags.push_back(ldmatrix(memA, addr, planA.trans));
      }
      std::vector<std::vector<std::array<float, 4>>> bFrags(ns.size());
      for (size_t p = 0; p + 1 < ns.size(); p += 2) {
        std::array<int64_t, 32> addr;
        for (int32_t l = 0; l < 32; ++l) {
          auto [dk, dn] = at(planB.rowStart, {{"lane", l}});
          int64_t n = warpCol + (dn & 7) + (dn >> 3 ? ns[p + 1] : ns[p]);
          int64_t k = k0 + dk;
          addr[l] = unwrap(transB ? sb.offset({n, k}) : sb.offset({k, n}));
        }
        auto loaded = ldmatrix(memB, addr, planB.trans);
        for (int h = 0; h < 2; ++h) {
          bFrags[p + h].resize(32);
          for (int l = 0; l < 32; ++l)
            for (int j = 0; j < 4; ++j)
              bFrags[p + h][l][j] = loaded[l][bReg[h][j]];
        }
      }
      if (ns.size() % 2) {
        // The last n8 tile alone: ldmatrix.x2, registers b0..b3 in order
        // (its plan's fragment is the mma B fragment itself).
        std::array<int64_t, 32> addr;
        for (int32_t l = 0; l < 32; ++l) {
          auto [dk, dn] = at(planB2.rowStart, {{"lane", l}});
          int64_t n = warpCol + ns.back() + dn, k = k0 + dk;
          addr[l] = unwrap(transB ? sb.offset({n, k}) : sb.offset({k, n}));
        }
        auto loaded = ldmatrix(memB, addr, planB2.trans, 2);
        bFrags.back().resize(32);
        for (int l = 0; l < 32; ++l)
          for (int j = 0; j < 4; ++j)
            bFrags.back()[l][j] = loaded[l][j];
      }
      for (size_t mi = 0; mi < ms.size(); ++mi)
        for (size_t ni = 0; ni < ns.size(); ++ni)
          mma(aFrags[mi], bFrags[ni], c[group[{ms[mi], ns[ni]}]]);
    }
    // Read the registers out through the accumulator layout.
    for (int32_t l = 0; l < 32; ++l)
      for (int64_t r = 0; r < regs; ++r) {
        auto [m, n] = at(
            acc, {{"register", int32_t(r)}, {"lane", l}, {"warp", int32_t(w)}});
        float ref = 0;
        for (int64_t k = 0; k < K; ++k)
          ref += A[m * K + k] * B[k * N + n];
        INFO("warp " << w << " lane " << l << " register " << r << " -> (" << m
                     << ", " << n << ")");
        REQUIRE(c[r / 4][l][r % 4] == ref);
      }
  }
}
} // namespace

TEST_CASE("mma.sync block GEMM 128x128x32, 4 warps, swizzled operands",
          "[layout][gemm]") {
  runBlockGemm(128, 128, 32, 4, GemmWarpPolicy::Square, false, false);
}

TEST_CASE("mma.sync block GEMM with transposed operands", "[layout][gemm]") {
  runBlockGemm(64, 64, 64, 4, GemmWarpPolicy::Square, false, true);
  runBlockGemm(64, 64, 32, 4, GemmWarpPolicy::Square, true, false);
  runBlockGemm(64, 128, 32, 4, GemmWarpPolicy::Square, true, true);
}

TEST_CASE("mma.sync block GEMM, FullRow and FullCol splits", "[layout][gemm]") {
  runBlockGemm(128, 64, 32, 4, GemmWarpPolicy::FullRow, false, false);
  runBlockGemm(64, 128, 32, 4, GemmWarpPolicy::FullCol, false, false);
  runBlockGemm(128, 256, 32, 8, GemmWarpPolicy::Square, false, false);
}

TEST_CASE("mma.sync block GEMM, one n8 tile per warp (ldmatrix.x2 for B)",
          "[layout][gemm]") {
  // mla_decode's S = Q K^T: 64x64 over 8 warps, FullCol: 8 columns each.
  WarpPartition parts =
      unwrap(computeWarpPartition(GemmWarpPolicy::FullCol, 64, 64, 8));
  CHECK(parts == WarpPartition{1, 8});
  runBlockGemm(64, 64, 64, 8, GemmWarpPolicy::FullCol, false, true);
  runBlockGemm(64, 64, 32, 8, GemmWarpPolicy::FullCol, false, false);
  runBlockGemm(32, 32, 32, 4, GemmWarpPolicy::FullCol, true, true);
  // FullRow with too few rows spills to N: 2x4 warps of 16x8.
  CHECK(unwrap(computeWarpPartition(GemmWarpPolicy::FullRow, 32, 32, 8)) ==
        WarpPartition{2, 4});
  runBlockGemm(32, 32, 32, 8, GemmWarpPolicy::FullRow, true, false);
}
