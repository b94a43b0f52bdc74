//===- LayoutMmaTest.cpp - Fragment layouts against the PTX ISA -----------===//
//
// Every concrete fragment layout checked on every element against a formula
// written here from the PTX ISA description (groupID = lane >> 2,
// threadID_in_group = lane % 4), independently of the bases the library
// writes down. ldmatrix is simulated from its ISA description (which lane
// gives which row address, which elements each lane receives) and must
// deliver exactly the mma operand fragments.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/BlockedLayout.h"
#include "tilec/Layout/PaddedLayout.h"
#include "tilec/Layout/MmaLayouts.h"

#include <catch2/catch.hpp>

#include "LayoutTestSupport.h"

#include <set>
#include <tuple>

using namespace tilec;
using llvm::Expected;
using llvm::SmallVector;
using Coord = SmallVector<int32_t>;

using layout_test::errorOf;
using layout_test::unwrap;

namespace {
// PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type".
Coord ptxA(int lane, int i) {
  int group = lane >> 2, tig = lane % 4;
  int row = (i < 2 || (i >= 4 && i < 6)) ? group : group + 8;
  int col = (i < 4) ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
  return {row, col};
}
Coord ptxB(int lane, int i) {
  int group = lane >> 2, tig = lane % 4;
  int row = (i < 2) ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
  return {row, group};
}
Coord ptxC(int lane, int i) {
  int group = lane >> 2, tig = lane % 4;
  int row = (i < 2) ? group : group + 8;
  return {row, tig * 2 + (i & 1)};
}

/// Checks layout(register, lane) == formula for every element and that the
/// layout is a bijection onto rows x cols.
void checkWarpFragment(const LinearLayout &layout, int regs, int rows, int cols,
                       Coord (*formula)(int, int)) {
  REQUIRE(layout.getInDimSize("register") == regs);
  REQUIRE(layout.getInDimSize("lane") == 32);
  REQUIRE(layout.getOutDimSize("dim0") == rows);
  REQUIRE(layout.getOutDimSize("dim1") == cols);
  std::set<std::pair<int, int>> seen;
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < regs; ++i) {
      Coord coord = unwrap(layout.apply({i, lane}));
      INFO("lane " << lane << " register " << i);
      CHECK(coord == formula(lane, i));
      seen.insert({coord[0], coord[1]});
    }
  }
  CHECK(seen.size() == size_t(rows * cols));
}
} // namespace

TEST_CASE("mma.m16n8k16 fragments match the PTX ISA", "[layout][mma]") {
  checkWarpFragment(mmaM16N8K16OperandA(), 8, 16, 16, ptxA);
  checkWarpFragment(mmaM16N8K16OperandB(), 4, 16, 8, ptxB);
  checkWarpFragment(mmaM16N8K16Accumulator(), 4, 16, 8, ptxC);
}

TEST_CASE("block fragments tile warps inside register repeats",
          "[layout][mma]") {
  struct Case {
    int64_t m, n, k;
    WarpPartition warps;
  };
  for (Case c : {Case{64, 64, 32, {2, 2}}, Case{128, 128, 32, {2, 2}},
                 Case{128, 256, 32, {2, 4}}, Case{16, 8, 16, {1, 1}},
                 Case{64, 32, 16, {4, 1}}, Case{32, 128, 64, {1, 8}}}) {
    INFO("block " << c.m << "x" << c.n << "x" << c.k << " warps "
                  << c.warps.warpsM << "x" << c.warps.warpsN);
    int64_t wm = c.warps.warpsM, wn = c.warps.warpsN;
    auto acc = unwrap(mmaAccumulatorLayout(c.m, c.n, c.warps));
    auto opA = unwrap(mmaOperandALayout(c.m, c.k, c.warps));
    auto opB = unwrap(mmaOperandBLayout(c.k, c.n, c.warps));
    CHECK(acc.isBijective());
    CHECK(opA.getNumFreeBits() == log2Exact(wn));
    CHECK(opB.getNumFreeBits() == log2Exact(wm));
    CHECK(acc.getInDimSize("warp") == wm * wn);

    // Accumulator: registers = 4 per atom, atoms N-fastest; warp w sits at
    // (w % warpsM, w / warpsM) inside each repeat.
    int64_t nRep = c.n / (8 * wn);
    for (int w = 0; w < wm * wn; ++w)
      for (int lane = 0; lane < 32; ++lane)
        for (int r = 0; r < acc.getInDimSize("register"); ++r) {
          Coord atom = ptxC(lane, r % 4);
          int64_t rep = r / 4, mi = rep / nRep, ni = rep % nRep;
          Coord expect{int32_t(mi * 16 * wm + (w % wm) * 16 + atom[0]),
                       int32_t(ni * 8 * wn + (w / wm) * 8 + atom[1])};
          REQUIRE(unwrap(acc.apply({r, lane, w})) == expect);
        }
    int64_t kRepA = c.k / 16, kRepB = c.k / 16;
    int64_t nRepB = c.n / (8 * wn);
    for (int w = 0; w < wm * wn; ++w)
      for (int lane = 0; lane < 32; ++lane) {
        for (int r = 0; r < opA.getInDimSize("register"); ++r) {
          Coord atom = ptxA(lane, r % 8);
          int64_t rep = r / 8, mi = rep / kRepA, ki = rep % kRepA;
          Coord expect{int32_t(mi * 16 * wm + (w % wm) * 16 + atom[0]),
                       int32_t(ki * 16 + atom[1])};
          REQUIRE(unwrap(opA.apply({r, lane, w})) == expect);
        }
        for (int r = 0; r < opB.getInDimSize("register"); ++r) {
          Coord atom = ptxB(lane, r % 4);
          int64_t rep = r / 4, ki = rep / nRepB, ni = rep % nRepB;
          (void)kRepB;
          Coord expect{int32_t(ki * 16 + atom[0]),
                       int32_t(ni * 8 * wn + (w / wm) * 8 + atom[1])};
          REQUIRE(unwrap(opB.apply({r, lane, w})) == expect);
        }
      }

    // What a warp multiplies must match what it accumulates: the rows of A
    // a warp holds are the rows of C it owns, likewise B's and C's columns.
    for (int w = 0; w < wm * wn; ++w) {
      std::set<int> rowsA, rowsC, colsB, colsC;
      for (int lane = 0; lane < 32; ++lane) {
        for (int r = 0; r < acc.getInDimSize("register"); ++r) {
          Coord xy = unwrap(acc.apply({r, lane, w}));
          rowsC.insert(xy[0]);
          colsC.insert(xy[1]);
        }
        for (int r = 0; r < opA.getInDimSize("register"); ++r)
          rowsA.insert(unwrap(opA.apply({r, lane, w}))[0]);
        for (int r = 0; r < opB.getInDimSize("register"); ++r)
          colsB.insert(unwrap(opB.apply({r, lane, w}))[1]);
      }
      CHECK(rowsA == rowsC);
      CHECK(colsB == colsC);
    }
  }
  // 48 = 3 x 16 is laid out padded (LayoutPaddedTest.cpp); 40 is no
  // whole number of instructions.
  CHECK(errorOf(mmaAccumulatorLayout(40, 64, {1, 1}))
            .find("40 is not a multiple of 16") != std::string::npos);
  CHECK(errorOf(mmaAccumulatorLayout(64, 64, {8, 1})).find("multiple of 128") !=
        std::string::npos);
  CHECK(errorOf(mmaOperandALayout(64, 8, {1, 1})).find("multiple of 16") !=
        std::string::npos);
}

TEST_CASE("an accumulator split along M is already operand A",
          "[layout][mma]") {
  // Two adjacent n8 accumulators hold, register for register, the m16k16
  // A fragment, and both order their repeats minor dimension first, so
  // P = softmax(S) feeds P @ V without shuffles (FlashAttention's trick).
  for (auto [m, n, warps] : {std::tuple{16, 16, WarpPartition{1, 1}},
                             std::tuple{64, 16, WarpPartition{4, 1}},
                             std::tuple{128, 64, WarpPartition{4, 1}}}) {
    auto acc = unwrap(mmaAccumulatorLayout(m, n, warps));
    auto opA = unwrap(mmaOperandALayout(m, n, warps));
    CHECK(acc == opA);
    auto conversion = unwrap(acc.invertAndCompose(opA));
    for (uint64_t x = 0; x < conversion.getTotalInSize(); ++x)
      REQUIRE(unwrap(conversion.applyFlat(x)) == x);
  }
  // Warps along N own different columns of C but copies of A: converting
  // moves data between warps (the warp bits map onto registers).
  auto acc = unwrap(mmaAccumulatorLayout(32, 32, {2, 2}));
  auto opA = unwrap(mmaOperandALayout(32, 32, {2, 2}));
  CHECK(acc != opA);
  auto conversion = unwrap(acc.invertAndCompose(opA));
  auto warpToRegs = unwrap(conversion.sublayout({"warp"}, {"register"}));
  CHECK(warpToRegs.getRank() == 1);
  auto lanes = unwrap(conversion.sublayout({"lane"}, {"lane"}));
  CHECK(lanes == unwrap(LinearLayout::identity1D(32, "lane", "lane")));
}

TEST_CASE("warp partition follows TileLang's policies", "[layout][mma]") {
  auto split = [](GemmWarpPolicy policy, int64_t m, int64_t n, int64_t warps,
                  MmaKind kind = MmaKind::MmaSync) {
    auto result = unwrap(computeWarpPartition(policy, m, n, warps, kind));
    return std::make_pair(result.warpsM, result.warpsN);
  };
  using P = std::pair<int64_t, int64_t>;
  using enum GemmWarpPolicy;
  // Square: |(m/16/wm) / (n/8/wn) - m/n| smallest.
  CHECK(split(Square, 128, 128, 4) == P{2, 2});
  CHECK(split(Square, 128, 256, 8) == P{2, 4});
  CHECK(split(Square, 64, 64, 1) == P{1, 1});
  CHECK(split(Square, 256, 64, 8) == P{2, 4}); // ratio 8/2 == 256/64
  CHECK(split(FullRow, 128, 128, 4) == P{4, 1});
  CHECK(split(FullRow, 32, 128, 4) == P{2, 2}); // M fits only 2 warps
  CHECK(split(FullCol, 128, 128, 4) == P{1, 4});
  CHECK(split(FullCol, 128, 16, 4) == P{2, 2}); // N fits only 2 warps
  // wgmma: warps come in groups of 4 along M.
  CHECK(split(Square, 128, 256, 8, MmaKind::Wgmma) == P{4, 2});
  CHECK(split(FullRow, 128, 128, 8, MmaKind::Wgmma) == P{8, 1});
  CHECK(split(FullRow, 64, 128, 8, MmaKind::Wgmma) == P{4, 2});
  CHECK(split(FullCol, 128, 256, 8, MmaKind::Wgmma) == P{4, 2});
  CHECK(
      errorOf(computeWarpPartition(Square, 8, 64, 4)).find("multiple of 16") !=
      std::string::npos);
  CHECK(errorOf(computeWarpPartition(Square, 64, 64, 6, MmaKind::Wgmma))
            .find("whole warpgroups") != std::string::npos);
  CHECK(errorOf(computeWarpPartition(FullRow, 48, 64, 2)).find("got 3x1") !=
        std::string::npos);
}

namespace {
/// ldmatrix.x4 simulated from the PTX ISA: lanes 8i..8i+7 give the row
/// addresses (here tile coordinates of the row's first element) of matrix
/// i; each row is 8 consecutive elements along `contiguousDim`. Without
/// .trans lane t receives, from matrix i, elements 2(t%4) and 2(t%4)+1 of
/// row t/4; with .trans, element t/4 of rows 2(t%4) and 2(t%4)+1.
Coord simulateLdmatrix(const LinearLayout &rowStart, bool trans,
                       int contiguousDim, int reg, int lane) {
  int matrix = reg / 2, half = reg % 2;
  int row = trans ? 2 * (lane % 4) + half : lane / 4;
  int elem = trans ? lane / 4 : 2 * (lane % 4) + half;
  Coord start = unwrap(rowStart.apply({matrix * 8 + row}));
  start[contiguousDim] += elem;
  return start;
}
} // namespace

TEST_CASE("ldmatrix.x4 delivers the mma operand fragments", "[layout][mma]") {
  // Two B fragments side by side: registers 4..7 are the second n8 block.
  auto ptxBPair = [](int lane, int i) {
    Coord c = ptxB(lane, i % 4);
    c[1] += 8 * (i / 4);
    return c;
  };
  for (int contiguous : {0, 1}) {
    for (MmaOperand operand : {MmaOperand::A, MmaOperand::B}) {
      INFO("operand " << (operand == MmaOperand::A ? "A" : "B")
                      << ", contiguous dim " << contiguous);
      LdmatrixPlan plan = unwrap(ldmatrixX4(operand, contiguous));
      int kDim = operand == MmaOperand::A ? 1 : 0;
      CHECK(plan.trans == (contiguous != kDim));
      // 32 lanes address 32 distinct 16-byte rows.
      std::set<std::pair<int, int>> rows;
      for (int lane = 0; lane < 32; ++lane) {
        Coord start = unwrap(plan.rowStart.apply({lane}));
        CHECK(start[contiguous] % 8 == 0);
        rows.insert({start[0], start[1]});
      }
      CHECK(rows.size() == 32);
      for (int lane = 0; lane < 32; ++lane)
        for (int reg = 0; reg < 8; ++reg) {
          Coord loaded = simulateLdmatrix(plan.rowStart, plan.trans, contiguous,
                                          reg, lane);
          Coord want =
              operand == MmaOperand::A ? ptxA(lane, reg) : ptxBPair(lane, reg);
          INFO("lane " << lane << " register " << reg);
          REQUIRE(loaded == want);
          REQUIRE(unwrap(plan.fragment.apply({reg, lane})) == want);
        }
    }
  }
  // The B pair is the block-level B layout of a 16x16 tile on one warp.
  auto pairB = unwrap(mmaOperandBLayout(16, 16, {1, 1}));
  CHECK(unwrap(pairB.sublayout({"register", "lane"}, {"dim0", "dim1"})) ==
        unwrap(ldmatrixX4(MmaOperand::B, 1)).fragment);
  CHECK(errorOf(ldmatrixX4(MmaOperand::A, 2)).find("0 or 1") !=
        std::string::npos);
}

TEST_CASE("ldmatrix.x2 delivers one mma B fragment", "[layout][mma]") {
  for (int contiguous : {0, 1}) {
    INFO("contiguous dim " << contiguous);
    LdmatrixPlan plan = unwrap(ldmatrixX2(MmaOperand::B, contiguous));
    CHECK(plan.trans == (contiguous != 0));
    REQUIRE(plan.fragment.getInDimSize("register") == 4);
    REQUIRE(plan.fragment.getOutDimSize("dim0") == 16);
    REQUIRE(plan.fragment.getOutDimSize("dim1") == 8);
    // Lanes 0..15 address the 16 distinct 16-byte rows of the k16 x n8
    // block; lanes 16..31 (ignored by the hardware) repeat them, so their
    // addresses stay inside the tile.
    std::set<std::pair<int, int>> rows;
    for (int lane = 0; lane < 32; ++lane) {
      Coord start = unwrap(plan.rowStart.apply({lane}));
      CHECK(start[contiguous] % 8 == 0);
      CHECK(start == unwrap(plan.rowStart.apply({lane % 16})));
      rows.insert({start[0], start[1]});
    }
    CHECK(rows.size() == 16);
    for (int lane = 0; lane < 32; ++lane)
      for (int reg = 0; reg < 4; ++reg) {
        Coord loaded =
            simulateLdmatrix(plan.rowStart, plan.trans, contiguous, reg, lane);
        INFO("lane " << lane << " register " << reg);
        REQUIRE(loaded == ptxB(lane, reg));
        REQUIRE(unwrap(plan.fragment.apply({reg, lane})) == ptxB(lane, reg));
      }
    // The x4 plan's registers 0..3 (its first n8 tile) are the same
    // fragment from the same lane rows.
    LdmatrixPlan x4 = unwrap(ldmatrixX4(MmaOperand::B, contiguous));
    for (int lane = 0; lane < 16; ++lane)
      CHECK(unwrap(plan.rowStart.apply({lane})) ==
            unwrap(x4.rowStart.apply({lane})));
  }
  CHECK(unwrap(ldmatrixX2(MmaOperand::B, 1)).fragment == mmaM16N8K16OperandB());
  CHECK(errorOf(ldmatrixX2(MmaOperand::A, 1)).find("needs ldmatrix.x4") !=
        std::string::npos);
  CHECK(errorOf(ldmatrixX2(MmaOperand::B, 2)).find("0 or 1") !=
        std::string::npos);
}

TEST_CASE("ldmatrix address and result layouts", "[layout][mma]") {
  auto x1 = unwrap(ldmatrixAddressLayout(1));
  auto x2 = unwrap(ldmatrixAddressLayout(2));
  for (int lane = 0; lane < 32; ++lane) {
    CHECK(unwrap(x1.apply({lane})) == Coord{0, lane % 8});
    CHECK(unwrap(x2.apply({lane})) == Coord{(lane / 8) % 2, lane % 8});
  }
  auto result = unwrap(ldmatrixResultLayout(2, false));
  auto resultT = unwrap(ldmatrixResultLayout(2, true));
  CHECK(result.isBijective());
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < 4; ++reg) {
      CHECK(unwrap(result.apply({reg, lane})) ==
            Coord{reg / 2, lane / 4, 2 * (lane % 4) + reg % 2});
      CHECK(unwrap(resultT.apply({reg, lane})) ==
            Coord{reg / 2, 2 * (lane % 4) + reg % 2, lane / 4});
    }
  CHECK(errorOf(ldmatrixAddressLayout(3)).find("1, 2 or 4") !=
        std::string::npos);
}

TEST_CASE("wgmma m64nNk16 accumulator matches the PTX ISA", "[layout][mma]") {
  // PTX ISA, "wgmma .m64nNk16 register fragment layout for accumulator".
  auto ptxD = [](int warp, int lane, int i) {
    int group = lane >> 2, tig = lane % 4;
    return Coord{16 * warp + group + 8 * ((i >> 1) & 1),
                 8 * (i >> 2) + 2 * tig + (i & 1)};
  };
  for (int64_t n : {8, 16, 64, 256}) {
    auto layout = unwrap(wgmmaAccumulatorLayout(n));
    CHECK(layout.isBijective());
    CHECK(layout.getInDimSize("register") == n / 2);
    for (int warp = 0; warp < 4; ++warp)
      for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < n / 2; ++i)
          REQUIRE(unwrap(layout.apply({i, lane, warp})) == ptxD(warp, lane, i));
  }
  // Two warpgroups along M, two along N, instruction n = 64, 256x256 tile.
  WarpPartition warps{8, 2};
  auto tiled = unwrap(wgmmaTiledAccumulatorLayout(256, 256, warps, 64));
  CHECK(tiled.isBijective());
  int64_t nRep = 256 / (64 * 2);
  for (int w = 0; w < 16; ++w)
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < tiled.getInDimSize("register"); ++r) {
        Coord atom = ptxD(w % 4, lane, r % 32);
        int64_t group = (w / 4) % 2, wn = w / 8;
        int64_t rep = r / 32, mi = rep / nRep, ni = rep % nRep;
        Coord expect{int32_t(mi * 128 + group * 64 + atom[0]),
                     int32_t(ni * 128 + wn * 64 + atom[1])};
        REQUIRE(unwrap(tiled.apply({r, lane, w})) == expect);
      }
  CHECK(errorOf(wgmmaAccumulatorLayout(24)).find("power of two") !=
        std::string::npos);
  CHECK(errorOf(wgmmaTiledAccumulatorLayout(128, 128, {2, 2}, 64))
            .find("multiple of 4") != std::string::npos);
}

TEST_CASE("wgmma register A operand replicated over N warpgroups",
          "[layout][mma]") {
  // PTX ISA, "wgmma .m64nNk16 register fragment layout for matrix A": the
  // D fragment of N = 16 per k16 step. A warpgroup along N holds its M
  // block's rows, the same registers as the warpgroup beside it.
  auto ptxA = [](int warp, int lane, int i) {
    int group = lane >> 2, tig = lane % 4;
    return Coord{16 * warp + group + 8 * ((i >> 1) & 1),
                 8 * (i >> 2) + 2 * tig + (i & 1)};
  };
  // One warpgroup along M (128 rows: two m64 blocks), two along N; K 128.
  auto layout = unwrap(wgmmaRegisterOperandALayout(128, 128, {4, 2}));
  CHECK(layout.getInDimSize("register") == 128);
  CHECK(layout.getInDimSize("warp") == 8);
  for (int w = 0; w < 8; ++w)
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < 128; ++r) {
        // Registers: 64 along K (the atom), then the second m64 block.
        Coord atom = ptxA(w % 4, lane, r % 64);
        Coord expect{int32_t((r / 64) * 64 + atom[0]), atom[1]};
        REQUIRE(unwrap(layout.apply({r, lane, w})) == expect);
      }
  // Without warpgroups along N it is the accumulator layout of M x K.
  CHECK(unwrap(wgmmaRegisterOperandALayout(128, 64, {8, 1})) ==
        unwrap(wgmmaTiledAccumulatorLayout(128, 64, {8, 1}, 64)));
  CHECK(errorOf(wgmmaRegisterOperandALayout(64, 64, {2, 2}))
            .find("multiple of 4") != std::string::npos);
}

TEST_CASE("blocked layout: vectors per thread, threads along the fast dim",
          "[layout][mma]") {
  struct Case {
    SmallVector<int64_t> shape;
    int64_t vec, threads;
  };
  for (const Case &c :
       {Case{{64, 64}, 8, 128}, Case{{32}, 4, 256}, Case{{4, 8, 16}, 4, 64},
        Case{{128, 32}, 1, 32}, Case{{16, 16}, 2, 16}}) {
    auto layout = unwrap(blockedLayout(c.shape, c.vec, c.threads));
    int64_t total = 1;
    for (int64_t e : c.shape)
      total *= e;
    int64_t lanes = std::min<int64_t>(c.threads, 32);
    for (int w = 0; w < layout.getInDimSize("warp"); ++w)
      for (int lane = 0; lane < layout.getInDimSize("lane"); ++lane)
        for (int r = 0; r < layout.getInDimSize("register"); ++r) {
          int64_t thread = lane + lanes * w;
          int64_t v = r % c.vec, iter = r / c.vec;
          int64_t flat = ((iter * c.threads + thread) * c.vec + v) % total;
          Coord expect(c.shape.size());
          for (size_t d = c.shape.size(); d-- > 0;) {
            expect[d] = int32_t(flat % c.shape[d]);
            flat /= c.shape[d];
          }
          REQUIRE(unwrap(layout.apply({r, lane, w})) == expect);
        }
    CHECK(layout.isSurjective());
    int64_t copies = std::max<int64_t>(1, c.threads * c.vec / total);
    CHECK(layout.getNumFreeBits() == log2Exact(copies));
  }
  CHECK(errorOf(blockedLayout({64, 4}, 8, 128)).find("does not divide") !=
        std::string::npos);
  // Extents that are not powers of two: padded, with the padding in whole
  // registers (the same registers kept on every thread).
  LinearLayout rows = unwrap(blockedLayout({48, 64}, 8, 128));
  CHECK(unwrap(registersWithin(rows, {48, 64})).size() == 24);
  LinearLayout small = unwrap(blockedLayout({24}, 1, 128));
  CHECK(unwrap(registersWithin(small, {24})) == std::vector<int32_t>{0, 1, 2});
  CHECK(small.getNumFreeBits() == 4);
}
