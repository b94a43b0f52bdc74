//===- LayoutMfmaTest.cpp - MFMA fragments and a CPU block GEMM -----------===//
//
// The MFMA fragments checked on every element against formulas written here
// from the CDNA2/CDNA3 ISA guides' operand layouts (chapter 7, "Matrix
// Arithmetic Instructions"), independently of the bases the library writes
// down; then a whole block GEMM run on the CPU the way tile-lower-simt
// emits it for AMD (LowerGemmMFMA.cpp): operands stored in the shared
// layouts the pass picks, every wave's lanes reading their E * kPack
// elements of each tile (E = 4 for the 16-bit forms, 1 for the fp32 ones)
// from the addresses the lowering computes, the
// instruction simulated from the ISA formulas with B^T as its A operand and
// A^T as its B operand, and the result read out of the registers through
// mfmaAccumulatorLayout must equal A @ B exactly (small integer inputs).
// Since tilec cannot run AMD code here, this is the correctness proof of
// the layouts and of the lowering's use of them. Last, the LDS reads of the
// lowering counted for bank conflicts.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/BankConflicts.h"
#include "tilec/Layout/MfmaLayouts.h"
#include "tilec/Layout/SharedLayout.h"

#include <catch2/catch.hpp>

#include "LayoutTestSupport.h"

#include <map>
#include <set>
#include <vector>

using namespace tilec;
using llvm::SmallVector;
using Coord = SmallVector<int32_t>;

using layout_test::errorOf;
using layout_test::unwrap;

namespace {

//===----------------------------------------------------------------------===//
// The ISA's operand layouts (lane 0..63, element v of A/B, register r of D)
//===----------------------------------------------------------------------===//

struct Isa {
  int m, n, k;
  int regsD() const { return m * n / 64; }
  // A / B elements per lane: 4 (16-bit forms), 1 (v_mfma_f32_*f32).
  int e() const { return m * k / 64; }
  // A[i][k]: row lane % M, k group lane / M of e consecutive k.
  Coord a(int lane, int v) const { return {lane % m, e() * (lane / m) + v}; }
  // B[k][j]: column lane % N, same k groups.
  Coord b(int lane, int v) const { return {e() * (lane / n) + v, lane % n}; }
  // D[i][j]: column lane % N; 32x32: rows 8 (r / 4) + 4 (lane / 32) + r % 4;
  // 16x16: rows 4 (lane / 16) + r.
  Coord d(int lane, int r) const {
    if (m == 32)
      return {8 * (r / 4) + 4 * (lane / 32) + r % 4, lane % 32};
    return {4 * (lane / 16) + r, lane % 16};
  }
};

Isa isaOf(MfmaShape shape) {
  MfmaDims d = getMfmaDims(shape);
  return {int(d.m), int(d.n), int(d.k)};
}

void checkFragment(const LinearLayout &layout, int regs, int rows, int cols,
                   const std::function<Coord(int, int)> &formula) {
  REQUIRE(layout.getInDimSize("register") == regs);
  REQUIRE(layout.getInDimSize("lane") == 64);
  REQUIRE(layout.getOutDimSize("dim0") == rows);
  REQUIRE(layout.getOutDimSize("dim1") == cols);
  std::set<std::pair<int, int>> seen;
  for (int lane = 0; lane < 64; ++lane)
    for (int i = 0; i < regs; ++i) {
      Coord coord = unwrap(layout.apply({i, lane}));
      INFO("lane " << lane << " register " << i);
      CHECK(coord == formula(lane, i));
      seen.insert({coord[0], coord[1]});
    }
  CHECK(seen.size() == size_t(rows * cols));
}

/// One MFMA from the ISA: D = A B + C on per-lane registers (the first
/// isa.e() entries of each lane's A and B).
void mfma(const Isa &isa, const std::vector<std::array<float, 4>> &a,
          const std::vector<std::array<float, 4>> &b,
          std::vector<std::vector<float>> &c) {
  std::vector<float> am(isa.m * isa.k), bm(isa.k * isa.n), cm(isa.m * isa.n);
  for (int l = 0; l < 64; ++l) {
    for (int v = 0; v < isa.e(); ++v) {
      Coord ca = isa.a(l, v), cb = isa.b(l, v);
      am[ca[0] * isa.k + ca[1]] = a[l][v];
      bm[cb[0] * isa.n + cb[1]] = b[l][v];
    }
    for (int r = 0; r < isa.regsD(); ++r) {
      Coord cd = isa.d(l, r);
      cm[cd[0] * isa.n + cd[1]] = c[l][r];
    }
  }
  for (int i = 0; i < isa.m; ++i)
    for (int j = 0; j < isa.n; ++j)
      for (int k = 0; k < isa.k; ++k)
        cm[i * isa.n + j] += am[i * isa.k + k] * bm[k * isa.n + j];
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < isa.regsD(); ++r) {
      Coord cd = isa.d(l, r);
      c[l][r] = cm[cd[0] * isa.n + cd[1]];
    }
}

std::pair<int32_t, int32_t> at(const LinearLayout &layout,
                               llvm::ArrayRef<LinearLayout::NamedValue> ins) {
  auto out = unwrap(layout.apply(ins));
  return {out[0].second, out[1].second};
}

struct GemmCase {
  int64_t m, n, k, waves;
  GemmWarpPolicy policy;
  MfmaShape shape;
  bool transA, transB;
  int kPack;
  int bytes = 2; // element size: 2, or 4 for the fp32 shapes
};

void runBlockGemm(const GemmCase &gc) {
  INFO("gemm " << gc.m << "x" << gc.n << "x" << gc.k << " waves " << gc.waves
               << " shape " << int(gc.shape) << " transA " << gc.transA
               << " transB " << gc.transB << " kPack " << gc.kPack);
  const Isa isa = isaOf(gc.shape);
  const int64_t M = gc.m, N = gc.n, K = gc.k, P = gc.kPack;
  WarpPartition waves =
      unwrap(computeWavePartition(gc.policy, M, N, gc.waves, gc.shape));
  LinearLayout acc = unwrap(mfmaAccumulatorLayout(M, N, gc.shape, waves));
  LinearLayout opA =
      unwrap(mfmaOperandALayout(M, K, gc.shape, waves, gc.kPack));
  LinearLayout opB =
      unwrap(mfmaOperandBLayout(K, N, gc.shape, waves, gc.kPack));
  int64_t aRows = gc.transA ? K : M, aCols = gc.transA ? M : K;
  int64_t bRows = gc.transB ? N : K, bCols = gc.transB ? K : N;
  SharedLayout sa = unwrap(pickSharedLayout(aRows, aCols, gc.bytes));
  SharedLayout sb = unwrap(pickSharedLayout(bRows, bCols, gc.bytes));
  std::vector<float> A(M * K), B(K * N);
  for (int64_t i = 0; i < M * K; ++i)
    A[i] = float(int((i * 7 + 3) % 5) - 2);
  for (int64_t i = 0; i < K * N; ++i)
    B[i] = float(int((i * 11 + 1) % 7) - 3);
  std::vector<float> memA(sa.getAllocElems()), memB(sb.getAllocElems());
  auto addrA = [&](int64_t m, int64_t k) {
    return unwrap(gc.transA ? sa.offset({k, m}) : sa.offset({m, k}));
  };
  auto addrB = [&](int64_t k, int64_t n) {
    return unwrap(gc.transB ? sb.offset({n, k}) : sb.offset({k, n}));
  };
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      memA[addrA(m, k)] = A[m * K + k];
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n)
      memB[addrB(k, n)] = B[k * N + n];

  // The wave's tiles, read off the accumulator layout as the lowering does.
  // A dimension that is not a power of two is laid out over its padded
  // extent: the tiles past it (allMs / allNs) hold no element, and the
  // lowering, which sees only the registers inside the extent, skips them.
  const int64_t R = isa.regsD();
  int64_t regs = acc.getInDimSize("register");
  REQUIRE(regs % R == 0);
  std::set<int64_t> mSet, nSet;
  std::map<std::pair<int64_t, int64_t>, int64_t> group;
  for (int64_t g = 0; g < regs / R; ++g) {
    auto [m, n] = at(acc, {{"register", int32_t(R * g)}});
    REQUIRE(m % isa.m == 0);
    REQUIRE(n % isa.n == 0);
    mSet.insert(m);
    nSet.insert(n);
    group[{m, n}] = g;
  }
  REQUIRE(int64_t(mSet.size() * nSet.size()) == regs / R);
  std::vector<int64_t> allMs(mSet.begin(), mSet.end()),
      allNs(nSet.begin(), nSet.end()), ms, ns;
  for (int64_t m : allMs)
    if (m < M)
      ms.push_back(m);
  for (int64_t n : allNs)
    if (n < N)
      ns.push_back(n);
  const int64_t groupK = P * isa.k, numGroups = K / groupK, E = isa.e();

  for (int64_t w = 0; w < gc.waves; ++w) {
    int64_t waveRow = isa.m * (w % waves.warpsM);
    int64_t waveCol = isa.n * (w / waves.warpsM);
    std::vector<std::vector<std::vector<float>>> c(
        regs / R, std::vector<std::vector<float>>(64, std::vector<float>(R)));
    for (int64_t kg = 0; kg < numGroups; ++kg) {
      // Each lane reads E * kPack consecutive k of its row / column.
      auto load = [&](bool isA, int64_t origin) {
        std::vector<std::vector<float>> frag(64, std::vector<float>(E * P));
        int64_t width = isA ? isa.m : isa.n;
        for (int32_t l = 0; l < 64; ++l)
          for (int64_t j = 0; j < E * P; ++j) {
            int64_t mn = origin + l % width;
            int64_t k = kg * groupK + (l / width) * E * P + j;
            frag[l][j] = isA ? memA[addrA(mn, k)] : memB[addrB(k, mn)];
            // The library's operand layouts say the same: register j +
            // EP (group + groups * tile) of this lane and wave for A
            // (repeats along k first), j + EP (tile + tiles * group) for B
            // (along n first).
            const LinearLayout &op = isA ? opA : opB;
            const std::vector<int64_t> &tiles = isA ? allMs : allNs;
            int64_t tile = std::find(tiles.begin(), tiles.end(),
                                     origin - (isA ? waveRow : waveCol)) -
                           tiles.begin();
            int64_t rep =
                isA ? kg + numGroups * tile : tile + int64_t(tiles.size()) * kg;
            int32_t reg = int32_t(j + E * P * rep);
            auto [d0, d1] =
                at(op, {{"register", reg}, {"lane", l}, {"warp", int32_t(w)}});
            if (isA)
              REQUIRE(std::pair<int64_t, int64_t>(d0, d1) ==
                      std::pair<int64_t, int64_t>(mn, k));
            else
              REQUIRE(std::pair<int64_t, int64_t>(d0, d1) ==
                      std::pair<int64_t, int64_t>(k, mn));
          }
        return frag;
      };
      std::vector<std::vector<std::vector<float>>> aFrags, bFrags;
      for (int64_t m0 : ms)
        aFrags.push_back(load(true, waveRow + m0));
      for (int64_t n0 : ns)
        bFrags.push_back(load(false, waveCol + n0));
      for (int64_t t = 0; t < P; ++t)
        for (size_t mi = 0; mi < ms.size(); ++mi)
          for (size_t ni = 0; ni < ns.size(); ++ni) {
            // C^T = B^T A^T: the instruction's A is the B fragment.
            std::vector<std::array<float, 4>> x(64), y(64);
            for (int l = 0; l < 64; ++l)
              for (int v = 0; v < E; ++v) {
                x[l][v] = bFrags[ni][l][E * t + v];
                y[l][v] = aFrags[mi][l][E * t + v];
              }
            mfma(isa, x, y, c[group[{ms[mi], ns[ni]}]]);
          }
    }
    for (int32_t l = 0; l < 64; ++l)
      for (int64_t r = 0; r < regs; ++r) {
        auto [m, n] = at(
            acc, {{"register", int32_t(r)}, {"lane", l}, {"warp", int32_t(w)}});
        if (m >= M || n >= N)
          continue; // padding
        float ref = 0;
        for (int64_t k = 0; k < K; ++k)
          ref += A[m * K + k] * B[k * N + n];
        INFO("wave " << w << " lane " << l << " register " << r << " -> (" << m
                     << ", " << n << ")");
        REQUIRE(c[r / R][l][r % R] == ref);
      }
  }
}

/// FlashAttention's O = P V with P in registers, on the CPU as
/// LowerGemmMFMA.cpp runs it: P held in mfmaRegisterOperandALayout (equal
/// to the m x k accumulator layout of S = Q K when the waves lie along M,
/// so the S -> P cast copies registers), each lane's 4 A elements per m
/// tile and k step looked up in P's layout (one register for every lane
/// and wave, as readRegisterTiles requires), B read by the ISA formula,
/// the instruction simulated with B^T as its A operand; O read out of its
/// accumulator registers must equal P @ V exactly.
void runRegisterAGemm(int64_t M, int64_t K, int64_t N, int64_t numWaves,
                      GemmWarpPolicy policy, MfmaShape shape) {
  INFO("register-A gemm " << M << "x" << N << "x" << K << " waves "
                          << numWaves << " shape " << int(shape));
  const Isa isa = isaOf(shape);
  WarpPartition waves =
      unwrap(computeWavePartition(policy, M, N, numWaves, shape));
  WarpPartition wavesS =
      unwrap(computeWavePartition(policy, M, K, numWaves, shape));
  LinearLayout acc = unwrap(mfmaAccumulatorLayout(M, N, shape, waves));
  LinearLayout opA = unwrap(mfmaRegisterOperandALayout(M, K, shape, waves));
  if (waves.warpsN == 1 && wavesS.warpsN == 1)
    CHECK(opA == unwrap(mfmaAccumulatorLayout(M, K, shape, wavesS)));
  std::vector<float> A(M * K), B(K * N);
  for (int64_t i = 0; i < M * K; ++i)
    A[i] = float(int((i * 7 + 3) % 5) - 2);
  for (int64_t i = 0; i < K * N; ++i)
    B[i] = float(int((i * 11 + 1) % 7) - 3);

  const int64_t R = isa.regsD();
  int64_t regs = acc.getInDimSize("register");
  int64_t regsA = opA.getInDimSize("register");
  std::set<int64_t> mSet, nSet;
  std::map<std::pair<int64_t, int64_t>, int64_t> group;
  for (int64_t g = 0; g < regs / R; ++g) {
    auto [m, n] = at(acc, {{"register", int32_t(R * g)}});
    mSet.insert(m);
    nSet.insert(n);
    group[{m, n}] = g;
  }
  std::vector<int64_t> ms(mSet.begin(), mSet.end()),
      ns(nSet.begin(), nSet.end());
  // (m tile, k step, j) -> the register every lane reads.
  std::map<std::array<int64_t, 3>, int32_t> chosen;
  for (int64_t w = 0; w < numWaves; ++w) {
    int64_t waveRow = isa.m * (w % waves.warpsM);
    int64_t waveCol = isa.n * (w / waves.warpsM);
    std::vector<std::vector<std::vector<float>>> c(
        regs / R, std::vector<std::vector<float>>(64, std::vector<float>(R)));
    for (int64_t k0 = 0; k0 < K; k0 += isa.k) {
      std::vector<std::vector<std::array<float, 4>>> aFrags, bFrags;
      for (int64_t m0 : ms) {
        std::vector<std::array<float, 4>> frag(64);
        for (int32_t l = 0; l < 64; ++l)
          for (int64_t j = 0; j < 4; ++j) {
            int64_t m = waveRow + m0 + l % isa.m;
            int64_t k = k0 + 4 * (l / isa.m) + j;
            int32_t reg = -1;
            for (int32_t r = 0; r < regsA && reg < 0; ++r)
              if (at(opA,
                     {{"register", r}, {"lane", l}, {"warp", int32_t(w)}}) ==
                  std::pair<int32_t, int32_t>(m, k))
                reg = r;
            INFO("wave " << w << " lane " << l << " wants (" << m << ", " << k
                         << ")");
            REQUIRE(reg >= 0);
            auto [it, fresh] = chosen.try_emplace({m0, k0, j}, reg);
            REQUIRE(it->second == reg);
            // The value the register holds, by the layout.
            auto [d0, d1] = at(
                opA, {{"register", reg}, {"lane", l}, {"warp", int32_t(w)}});
            frag[l][j] = A[d0 * K + d1];
          }
        aFrags.push_back(frag);
      }
      for (int64_t n0 : ns) {
        std::vector<std::array<float, 4>> frag(64);
        for (int32_t l = 0; l < 64; ++l)
          for (int64_t j = 0; j < 4; ++j)
            frag[l][j] = B[(k0 + 4 * (l / isa.n) + j) * N + waveCol + n0 +
                           l % isa.n];
        bFrags.push_back(frag);
      }
      for (size_t mi = 0; mi < ms.size(); ++mi)
        for (size_t ni = 0; ni < ns.size(); ++ni)
          mfma(isa, bFrags[ni], aFrags[mi], c[group[{ms[mi], ns[ni]}]]);
    }
    for (int32_t l = 0; l < 64; ++l)
      for (int64_t r = 0; r < regs; ++r) {
        auto [m, n] = at(
            acc, {{"register", int32_t(r)}, {"lane", l}, {"warp", int32_t(w)}});
        float ref = 0;
        for (int64_t k = 0; k < K; ++k)
          ref += A[m * K + k] * B[k * N + n];
        INFO("wave " << w << " lane " << l << " register " << r);
        REQUIRE(c[r / R][l][r % R] == ref);
      }
  }
}

/// Wavefronts of one wave64 LDS read, served as two 32-lane halves with
/// the phases of BankConflicts.h.
BankReport waveReport(const SharedLayout &layout,
                      const std::vector<SmallVector<int64_t, 2>> &coords,
                      int64_t bytes) {
  BankReport total;
  for (int half = 0; half < 2; ++half) {
    llvm::ArrayRef<SmallVector<int64_t, 2>> part(coords.data() + 32 * half, 32);
    BankReport r = unwrap(countWavefronts(layout, part, bytes));
    total.wavefronts += r.wavefronts;
    total.ideal += r.ideal;
  }
  return total;
}
} // namespace

TEST_CASE("MFMA fragments match the CDNA ISA", "[layout][mfma]") {
  for (MfmaShape shape : {MfmaShape::M32N32K8, MfmaShape::M16N16K16,
                          MfmaShape::M32N32K2, MfmaShape::M16N16K4}) {
    Isa isa = isaOf(shape);
    INFO("shape " << isa.m << "x" << isa.n << "x" << isa.k);
    CHECK(mfmaLaneElements(shape) == isa.e());
    checkFragment(mfmaOperandA(shape), isa.e(), isa.m, isa.k,
                  [&](int l, int v) { return isa.a(l, v); });
    checkFragment(mfmaOperandB(shape), isa.e(), isa.k, isa.n,
                  [&](int l, int v) { return isa.b(l, v); });
    checkFragment(mfmaAccumulator(shape), isa.regsD(), isa.m, isa.n,
                  [&](int l, int r) { return isa.d(l, r); });
    // The block GEMM's accumulator is D transposed.
    checkFragment(mfmaSwappedAccumulator(shape), isa.regsD(), isa.n, isa.m,
                  [&](int l, int r) {
                    Coord d = isa.d(l, r);
                    return Coord{d[1], d[0]};
                  });
    // Packing by 1 is the plain fragment.
    CHECK(unwrap(mfmaPackedOperandA(shape, 1)) == mfmaOperandA(shape));
    CHECK(unwrap(mfmaPackedOperandB(shape, 1)) == mfmaOperandB(shape));
    // Packed by 2: lane group h reads k = 2eh + j, j < 2e.
    int e2 = 2 * isa.e();
    checkFragment(unwrap(mfmaPackedOperandA(shape, 2)), e2, isa.m, 2 * isa.k,
                  [&](int l, int j) {
                    return Coord{l % isa.m, e2 * (l / isa.m) + j};
                  });
  }
  // v_mfma_f32_32x32x2f32 / 16x16x4f32: one element per lane.
  CHECK(unwrap(getMfmaShape(32, 32, 2)) == MfmaShape::M32N32K2);
  CHECK(unwrap(getMfmaShape(16, 16, 4)) == MfmaShape::M16N16K4);
  CHECK(mfmaLaneElements(MfmaShape::M16N16K4) == 1);
  CHECK(errorOf(getMfmaShape(16, 16, 8)) ==
        "no MFMA layout for a 16x16x8 instruction");
  CHECK(unwrap(getMfmaShape(32, 32, 8)) == MfmaShape::M32N32K8);
  CHECK(errorOf(mfmaPackedOperandA(MfmaShape::M32N32K8, 4)) ==
        "k pack must be 1 or 2, got 4");
}

TEST_CASE("MFMA wave partitions", "[layout][mfma]") {
  auto split = [](GemmWarpPolicy p, int64_t m, int64_t n, int64_t w,
                  MfmaShape s) {
    WarpPartition r = unwrap(computeWavePartition(p, m, n, w, s));
    return std::pair<int64_t, int64_t>(r.warpsM, r.warpsN);
  };
  using P = std::pair<int64_t, int64_t>;
  auto sq = GemmWarpPolicy::Square;
  auto s32 = MfmaShape::M32N32K8, s16 = MfmaShape::M16N16K16;
  // gemm_relu, 128 threads = 2 waves: 64x128 per wave.
  CHECK(split(sq, 128, 128, 2, s32) == P(2, 1));
  // threads=256: 4 waves, 64x64 each.
  CHECK(split(sq, 128, 128, 4, s32) == P(2, 2));
  CHECK(split(sq, 128, 64, 4, s32) == P(4, 1));
  CHECK(split(sq, 64, 256, 4, s16) == P(1, 4));
  CHECK(split(GemmWarpPolicy::FullRow, 128, 128, 4, s32) == P(4, 1));
  CHECK(split(GemmWarpPolicy::FullRow, 64, 128, 4, s32) == P(2, 2));
  CHECK(split(GemmWarpPolicy::FullCol, 128, 128, 8, s16) == P(1, 8));
  CHECK(errorOf(computeWavePartition(sq, 32, 32, 4, s32)) ==
        "cannot split a 32x32 gemm over 4 waves of 32x32 MFMA tiles: no "
        "split gives every wave whole tiles");
  CHECK(errorOf(computeWavePartition(sq, 40, 64, 1, s16)) ==
        "cannot split a 40x64 gemm over 1 waves of 16x16 MFMA tiles: m and n "
        "must be multiples of the tile");
  // Not powers of two: the waves split the tiles evenly (FlashAttention's
  // head dimension 192).
  CHECK(split(GemmWarpPolicy::FullRow, 128, 192, 4, s32) == P(4, 1));
  CHECK(split(GemmWarpPolicy::FullRow, 32, 192, 4, s16) == P(2, 2));
  CHECK(split(sq, 48, 64, 1, s16) == P(1, 1));
  CHECK(errorOf(computeWavePartition(GemmWarpPolicy::FullRow, 32, 192, 4,
                                     s32)) ==
        "cannot split a 32x192 gemm over 4 waves of 32x32 MFMA tiles: no "
        "split gives every wave whole tiles");
}

TEST_CASE("MFMA block GEMM 128x128x32, 2 waves, as gemm_relu",
          "[layout][gemm][mfma]") {
  auto sq = GemmWarpPolicy::Square;
  runBlockGemm({128, 128, 32, 2, sq, MfmaShape::M32N32K8, false, false, 2});
  runBlockGemm({128, 128, 32, 2, sq, MfmaShape::M32N32K8, false, false, 1});
  runBlockGemm({128, 128, 32, 4, sq, MfmaShape::M32N32K8, false, false, 2});
  runBlockGemm({128, 128, 32, 2, sq, MfmaShape::M16N16K16, false, false, 2});
}

TEST_CASE("MFMA block GEMM, transposes, policies, 16x16x16",
          "[layout][gemm][mfma]") {
  auto sq = GemmWarpPolicy::Square;
  runBlockGemm({64, 64, 64, 4, sq, MfmaShape::M32N32K8, false, true, 2});
  runBlockGemm({64, 64, 32, 2, sq, MfmaShape::M16N16K16, true, false, 2});
  runBlockGemm({64, 128, 32, 4, sq, MfmaShape::M16N16K16, true, true, 1});
  runBlockGemm({128, 64, 16, 4, GemmWarpPolicy::FullRow, MfmaShape::M32N32K8,
                false, false, 2});
  runBlockGemm({64, 128, 16, 2, GemmWarpPolicy::FullCol, MfmaShape::M16N16K16,
                false, true, 1});
  runBlockGemm({32, 32, 8, 1, sq, MfmaShape::M32N32K8, false, false, 1});
}

TEST_CASE("MFMA block GEMM, dimensions that are not powers of two",
          "[layout][gemm][mfma]") {
  auto row = GemmWarpPolicy::FullRow;
  // FlashAttention backward's dK = dS^T Q, head dimension 192.
  runBlockGemm({128, 192, 32, 4, row, MfmaShape::M32N32K8, false, false, 2});
  runBlockGemm({32, 192, 32, 4, row, MfmaShape::M16N16K16, true, false, 2});
  runBlockGemm({96, 64, 32, 2, GemmWarpPolicy::Square, MfmaShape::M16N16K16,
                false, true, 1});
}

TEST_CASE("MFMA block GEMM with fp32 operands (32x32x2f32, 16x16x4f32)",
          "[layout][gemm][mfma]") {
  auto sq = GemmWarpPolicy::Square;
  auto k2 = MfmaShape::M32N32K2, k4 = MfmaShape::M16N16K4;
  runBlockGemm({128, 128, 32, 4, sq, k2, false, false, 2, 4});
  runBlockGemm({128, 128, 32, 4, sq, k2, false, false, 1, 4});
  runBlockGemm({64, 64, 16, 4, sq, k4, true, true, 1, 4});
  runBlockGemm({64, 64, 32, 4, sq, k4, false, true, 2, 4});
  runBlockGemm(
      {64, 128, 32, 2, GemmWarpPolicy::FullRow, k4, true, false, 2, 4});
  runBlockGemm({32, 32, 8, 1, sq, k2, true, false, 1, 4});
  // A held in registers needs the 4 k per lane of a 16-bit instruction.
  CHECK(errorOf(mfmaRegisterOperandALayout(64, 64, k4, WarpPartition{4, 1})) ==
        "A in registers needs a 16-bit MFMA instruction");
}

TEST_CASE("MFMA with A in registers (FlashAttention's P V)",
          "[layout][gemm][mfma]") {
  auto row = GemmWarpPolicy::FullRow;
  runRegisterAGemm(128, 64, 64, 4, row, MfmaShape::M32N32K8);
  runRegisterAGemm(64, 128, 128, 4, row, MfmaShape::M16N16K16);
  runRegisterAGemm(64, 64, 64, 4, GemmWarpPolicy::Square, MfmaShape::M32N32K8);
  runRegisterAGemm(32, 32, 64, 2, GemmWarpPolicy::FullCol,
                   MfmaShape::M16N16K16);
  // K not a multiple of N_i: no register layout.
  CHECK_FALSE(errorOf(mfmaRegisterOperandALayout(
                          64, 16, MfmaShape::M32N32K8, WarpPartition{2, 1}))
                  .empty());
}

TEST_CASE("MFMA operand reads from LDS are bank-conflict free",
          "[layout][mfma][bank]") {
  // A 128x32 f16 (64-byte rows, K contiguous), kPack 2: lane l of a
  // 32x32x8 tile reads 16 bytes at (l % 32, 8 (l / 32)); of a 16x16x16
  // tile at (l % 16, 8 (l / 16)).
  for (MfmaShape shape : {MfmaShape::M32N32K8, MfmaShape::M16N16K16}) {
    int64_t rows = getMfmaDims(shape).m;
    for (int64_t cols : {32, 64, 128}) {
      SharedLayout swz = unwrap(pickSharedLayout(128, cols, 2));
      SharedLayout plain = unwrap(SharedLayout::rowMajor({128, cols}, 2));
      for (int64_t m0 : {0, 32, 96})
        for (int64_t k0 = 0; k0 < cols; k0 += 8 * (64 / rows)) {
          std::vector<SmallVector<int64_t, 2>> coords;
          for (int64_t l = 0; l < 64; ++l)
            coords.push_back({m0 + l % rows, k0 + 8 * (l / rows)});
          INFO("cols " << cols << " m0 " << m0 << " k0 " << k0);
          CHECK(waveReport(swz, coords, 16).conflicts() == 0);
          CHECK(waveReport(plain, coords, 16).conflicts() > 0);
        }
    }
  }
  // B 32x128 f16 (N contiguous): each of the 8 element reads of a lane is
  // 2 bytes, lanes of a half-wave along one row: no conflicts either way.
  SharedLayout b = unwrap(pickSharedLayout(32, 128, 2));
  for (int64_t k = 0; k < 32; ++k)
    for (int64_t n0 : {0, 32, 64, 96}) {
      std::vector<SmallVector<int64_t, 2>> coords;
      for (int64_t l = 0; l < 64; ++l)
        coords.push_back({(k + 8 * (l / 32)) % 32, n0 + l % 32});
      CHECK(waveReport(b, coords, 2).conflicts() == 0);
    }
}
