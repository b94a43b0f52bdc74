//===- LayoutPaddedTest.cpp - Layouts of non-power-of-two tiles -----------===//
//
// The mma.sync fragments of tiles whose extent is not a power of two
// (FlashAttention's 192-wide head dimension), checked on every element
// against TileLang's placement written here from its description: warp
// w_n covers columns [8 w_n, 8 w_n + 8) of every 8 * warpsN, and repeat
// i of a warp lies 8 * warpsN * i columns further (likewise rows). The
// registers past the extent must be whole registers and dropped on every
// thread alike; the kept ones must cover the tile exactly once.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/BlockedLayout.h"
#include "tilec/Layout/MmaLayouts.h"
#include "tilec/Layout/PaddedLayout.h"

#include <catch2/catch.hpp>

#include "LayoutTestSupport.h"

#include <map>
#include <set>

using namespace tilec;
using llvm::SmallVector;
using Coord = SmallVector<int32_t>;

using layout_test::errorOf;
using layout_test::unwrap;

namespace {
// PTX ISA, "Matrix Fragments for mma.m16n8k16": accumulator c0..c3.
Coord ptxC(int lane, int i) {
  int group = lane >> 2, tig = lane % 4;
  return {i < 2 ? group : group + 8, tig * 2 + (i & 1)};
}
} // namespace

TEST_CASE("padded shapes round every extent up to a power of two",
          "[layout][padded]") {
  CHECK(paddedShape({128, 192}) == SmallVector<int64_t>{128, 256});
  CHECK(paddedShape({48, 1, 96}) == SmallVector<int64_t>{64, 1, 128});
  CHECK(paddedShape({}).empty());
}

TEST_CASE("mma.sync accumulators of 192 columns keep whole registers",
          "[layout][padded][mma]") {
  struct Case {
    int64_t m, n, wm, wn, keptRegs;
  };
  // 128x192 over 8 warps along M (FlashAttention bwd's dK): 24 n8 repeats
  // of 4 registers; 32x192 over 2x4 warps (its dQ): 6 repeats of 32
  // columns; 48x64 over one warp: 3 m16 repeats; 96x192 both dimensions.
  for (Case c : {Case{128, 192, 8, 1, 96}, Case{32, 192, 2, 4, 24},
                 Case{48, 64, 1, 1, 96}, Case{96, 192, 2, 2, 3 * 12 * 4}}) {
    CAPTURE(c.m, c.n, c.wm, c.wn);
    LinearLayout acc = unwrap(mmaAccumulatorLayout(c.m, c.n, {c.wm, c.wn}));
    SmallVector<int64_t> padded = paddedShape({c.m, c.n});
    REQUIRE(acc.getOutDimSize("dim0") == padded[0]);
    REQUIRE(acc.getOutDimSize("dim1") == padded[1]);
    std::vector<int32_t> kept = unwrap(registersWithin(acc, {c.m, c.n}));
    REQUIRE(int64_t(kept.size()) == c.keptRegs);
    // The kept registers are whole instruction fragments (4 each, in
    // order) and their tiles sit where TileLang puts them.
    int64_t nRep = padded[1] / (8 * c.wn);
    std::set<std::pair<int, int>> seen;
    for (size_t k = 0; k < kept.size(); ++k) {
      int32_t r = kept[k];
      CHECK(r % 4 == int32_t(k % 4));
      for (int w = 0; w < c.wm * c.wn; ++w)
        for (int lane = 0; lane < 32; ++lane) {
          Coord atom = ptxC(lane, r % 4);
          int64_t rep = r / 4, mi = rep / nRep, ni = rep % nRep;
          Coord expect{int32_t(mi * 16 * c.wm + (w % c.wm) * 16 + atom[0]),
                       int32_t(ni * 8 * c.wn + (w / c.wm) * 8 + atom[1])};
          Coord got = unwrap(acc.apply({r, lane, w}));
          REQUIRE(got == expect);
          CHECK(seen.insert({got[0], got[1]}).second);
        }
    }
    CHECK(int64_t(seen.size()) == c.m * c.n);
  }
}

TEST_CASE("operand A with a K of 192 keeps 12 k16 steps",
          "[layout][padded][mma]") {
  LinearLayout opA = unwrap(mmaOperandALayout(64, 192, {4, 1}));
  std::vector<int32_t> kept = unwrap(registersWithin(opA, {64, 192}));
  CHECK(kept.size() == 12 * 8);
  for (int32_t r : kept)
    for (int lane = 0; lane < 32; ++lane)
      CHECK(unwrap(opA.apply({r, lane, 0}))[1] < 192);
}

TEST_CASE("padding that lands on threads is an error", "[layout][padded]") {
  // A blocked [1, 256] layout over 256 threads: columns 192.. belong to
  // threads 192.., not to registers, so no register can be dropped.
  LinearLayout blocked = unwrap(blockedLayout({1, 256}, 1, 256, 32));
  std::string error = errorOf(registersWithin(blocked, {1, 192}));
  CHECK(error.find("holds an element of the tile on 192 of 256 threads only") !=
        std::string::npos);
  // Outputs that are not the padded extents.
  CHECK(errorOf(registersWithin(blocked, {1, 100}))
            .find("is not a padded extent") != std::string::npos);
  // A power-of-two tile keeps every register.
  LinearLayout acc = unwrap(mmaAccumulatorLayout(64, 64, {4, 1}));
  CHECK(unwrap(registersWithin(acc, {64, 64})).size() == 32);
  // A multiple of the warps' span only.
  CHECK(errorOf(mmaAccumulatorLayout(128, 196, {8, 1}))
            .find("196 is not a multiple of 8") != std::string::npos);
  CHECK(errorOf(mmaAccumulatorLayout(32, 48, {1, 4}))
            .find("48 is not a multiple of 32") != std::string::npos);
}
