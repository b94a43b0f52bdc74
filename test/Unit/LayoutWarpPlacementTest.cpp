//===- LayoutWarpPlacementTest.cpp - Warp counts not powers of two -------===//
//
// Blocks of 12 warps (384 threads) laid out as 16: every element of the
// tile must be held by exactly one real thread (warps 0..11) in a kept
// register, and the 4 phantom warps may hold only the padding past the
// tile. Checked element by element against the placement written here
// from the PTX fragment formulas: warp w's part starts at placeWarps'
// origin, and wgmma warpgroup g owns rows 64 g .. 64 g + 63 (TileLang's
// placement for wgmma, and LowerGemmWgmma.cpp's numbering).
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/BlockedLayout.h"
#include "tilec/Layout/MmaLayouts.h"
#include "tilec/Layout/PaddedLayout.h"

#include <catch2/catch.hpp>

#include "LayoutTestSupport.h"

#include <map>

using namespace tilec;
using llvm::SmallVector;
using Coord = SmallVector<int32_t>;

using layout_test::errorOf;
using layout_test::unwrap;

namespace {
// PTX ISA, mma.m16n8k16 accumulator c0..c3.
Coord ptxC(int lane, int i) {
  int group = lane >> 2, tig = lane % 4;
  return {i < 2 ? group : group + 8, tig * 2 + (i & 1)};
}

/// How many times each element of an m x n tile is held by the first
/// `threads` threads of `layout` in a kept register; phantom threads must
/// hold only elements past the tile (`copies`: or copies of what real
/// threads hold).
std::map<std::pair<int, int>, int> holders(const LinearLayout &layout,
                                           int64_t m, int64_t n,
                                           int64_t threads,
                                           bool copies = false) {
  std::vector<std::pair<int, int>> phantomHeld;
  std::vector<int32_t> kept = unwrap(registersWithin(layout, {m, n}, threads));
  std::map<std::pair<int, int>, int> held;
  int32_t lanes = layout.getInDimSize("lane");
  int32_t warps = layout.getInDimSize("warp");
  for (int32_t w = 0; w < warps; ++w)
    for (int32_t l = 0; l < lanes; ++l)
      for (int32_t r : kept) {
        Coord e = unwrap(layout.apply({r, l, w}));
        bool inside = e[0] < m && e[1] < n;
        if (w * lanes + l < threads) {
          REQUIRE(inside);
          ++held[{e[0], e[1]}];
        } else if (inside) {
          REQUIRE(copies);
          phantomHeld.push_back({e[0], e[1]});
        }
      }
  for (auto element : phantomHeld)
    REQUIRE(held.count(element));
  return held;
}
} // namespace

TEST_CASE("12 warps split 12x1 or 3x4 over a 192x256 mma.sync accumulator",
          "[layout][warps][mma]") {
  struct Case {
    int64_t wm, wn, rowsPerWarp, colsPerWarp;
  };
  for (Case c : {Case{12, 1, 16, 256}, Case{3, 4, 64, 64}}) {
    CAPTURE(c.wm, c.wn);
    WarpPlacement place =
        unwrap(placeWarps(16, 8, 192, 256, {c.wm, c.wn}, true, true));
    CHECK(place.paddedWarps() == 16);
    LinearLayout acc = unwrap(mmaAccumulatorLayout(192, 256, {c.wm, c.wn}));
    CHECK(acc.getInDimSize("warp") == 16);
    CHECK(acc.getOutDimSize("dim0") == 256);
    std::map<std::pair<int, int>, int> held = holders(acc, 192, 256, 384);
    CHECK(held.size() == 192 * 256);
    for (auto [element, count] : held)
      REQUIRE(count == 1);
    // Every warp holds its rows x cols part, as m16n8 fragments whose
    // origins are placeWarps' plus a per-register constant.
    int32_t regs = acc.getInDimSize("register");
    CHECK(regs * 384 == 192 * 256);
    for (int32_t w = 0; w < 12; ++w) {
      auto [om, on] = place.origin(w);
      auto [wm, wn] = place.coords(w);
      CHECK(wm < c.wm);
      CHECK(wn < c.wn);
      for (int32_t l = 0; l < 32; ++l)
        for (int32_t r = 0; r < regs; ++r) {
          Coord base = unwrap(acc.apply({r & ~3, 0, 0}));
          Coord got = unwrap(acc.apply({r, l, w}));
          Coord atom = ptxC(l, r % 4);
          REQUIRE(got == Coord{int32_t(base[0] + om + atom[0]),
                               int32_t(base[1] + on + atom[1])});
          if (c.wm == 3) { // the odd count: contiguous runs of 64 rows
            CHECK(got[0] / c.rowsPerWarp == wm);
          } else {
            CHECK(got[0] / 16 == w); // TileLang's rows 16 w .. 16 w + 15
          }
        }
    }
  }
}

TEST_CASE("three wgmma warpgroups own 64 rows each", "[layout][warps][wgmma]") {
  LinearLayout acc =
      unwrap(wgmmaTiledAccumulatorLayout(192, 256, {12, 1}, 256));
  CHECK(acc.getInDimSize("warp") == 16);
  std::map<std::pair<int, int>, int> held = holders(acc, 192, 256, 384);
  CHECK(held.size() == 192 * 256);
  // PTX ISA, wgmma m64nNk16 D fragment, per warpgroup g.
  for (int32_t t = 0; t < 384; ++t) {
    int32_t g = t / 128, w = (t % 128) / 32, l = t % 32;
    for (int32_t i = 0; i < 128; ++i) {
      Coord expect{64 * g + 16 * w + l / 4 + 8 * ((i >> 1) & 1),
                   8 * (i >> 2) + 2 * (l % 4) + (i & 1)};
      REQUIRE(unwrap(acc.apply({i, t % 32, t / 32})) == expect);
    }
  }
  // 6 warpgroups over 384 rows: 64 each, padded to 8 x 64.
  LinearLayout six =
      unwrap(wgmmaTiledAccumulatorLayout(384, 64, {24, 1}, 64));
  CHECK(holders(six, 384, 64, 768).size() == 384 * 64);
}

TEST_CASE("operands with copies over an odd warp count", "[layout][warps]") {
  // B of a 3x4 split: the warps along M hold copies, phantoms included.
  LinearLayout b = unwrap(mmaOperandBLayout(32, 256, {3, 4}));
  std::map<std::pair<int, int>, int> held =
      holders(b, 32, 256, 384, /*copies=*/true);
  CHECK(held.size() == 32 * 256);
  for (auto [element, count] : held)
    REQUIRE(count == 3); // once per warp along M
  // A of a 12x1 split over K = 64.
  LinearLayout a = unwrap(mmaOperandALayout(192, 64, {12, 1}));
  CHECK(holders(a, 192, 64, 384).size() == 192 * 64);
}

TEST_CASE("power-of-two splits keep TileLang's interleave",
          "[layout][warps]") {
  WarpPlacement place =
      unwrap(placeWarps(16, 8, 128, 128, {2, 4}, true, true));
  CHECK(place.mMinor);
  for (int64_t w = 0; w < 8; ++w)
    CHECK(place.origin(w) == std::pair<int64_t, int64_t>{16 * (w % 2),
                                                          8 * (w / 2)});
}

TEST_CASE("warps that cannot be laid out are named", "[layout][warps]") {
  CHECK(errorOf(placeWarps(16, 8, 192, 192, {3, 3}, true, true))
            .find("only one of its counts may be other than a power of two") !=
        std::string::npos);
  // 144 rows over 3 warps: 48 each, 3 m16 fragments.
  CHECK(errorOf(mmaAccumulatorLayout(144, 64, {3, 1}))
            .find("cannot be split over 3 warps") != std::string::npos);
  // A blocked layout over 512 threads for 384: thread 384 holds column
  // 384 of a 1 x 512 row, which no real thread holds.
  LinearLayout blocked = unwrap(blockedLayout({1, 512}, 1, 512, 32));
  CHECK(errorOf(registersWithin(blocked, {1, 512}, 384))
            .find("element (0, 384) is held by thread 384 only, past the "
                  "block's 384 threads") != std::string::npos);
  // A tile smaller than the threads: the phantoms hold copies.
  LinearLayout small = unwrap(blockedLayout({1, 64}, 1, 512, 32));
  CHECK(unwrap(registersWithin(small, {1, 64}, 384)).size() == 1);
}

TEST_CASE("Square and FullRow splits of 12 warps", "[layout][warps]") {
  using P = GemmWarpPolicy;
  CHECK(unwrap(computeWarpPartition(P::Square, 192, 256, 12)) ==
        WarpPartition{3, 4});
  // TileLang's search would take 4x3 (85.3 columns a warpgroup).
  CHECK(unwrap(computeWarpPartition(P::Square, 192, 256, 12,
                                    MmaKind::Wgmma)) == WarpPartition{12, 1});
  CHECK(unwrap(computeWarpPartition(P::FullRow, 192, 256, 12)) ==
        WarpPartition{12, 1});
  CHECK(unwrap(computeWarpPartition(P::FullRow, 192, 256, 12,
                                    MmaKind::Wgmma)) == WarpPartition{12, 1});
}
