//===- LayoutSharedTest.cpp - Shared layouts, swizzles, bank conflicts ----===//
//
// Swizzled layouts against the CUTLASS-style formula written out here
// (chunk index XOR row bits), affine layouts and their bridges to linear
// ones, the wavefront counter on hand-made patterns, and the claim that
// matters: the swizzles pickSwizzle chooses make ldmatrix reads and 16-byte
// cp.async writes conflict-free where row-major is not.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/BankConflicts.h"
#include "tilec/Layout/BlockedLayout.h"
#include "tilec/Layout/MmaLayouts.h"

#include <catch2/catch.hpp>

#include "LayoutTestSupport.h"

using namespace tilec;
using llvm::Expected;
using llvm::SmallVector;
using Coord2 = SmallVector<int64_t, 2>;

using layout_test::errorOf;
using layout_test::unwrap;

namespace {
/// The swizzle written directly: the 16-byte chunk index of (row, col) in
/// a row-major tile has its low `bits` bits XORed with the row bits that
/// place the chunk in its 128-byte line.
int64_t swizzledOffset(int64_t row, int64_t col, int64_t cols,
                       int64_t elemBytes, int bits) {
  int64_t perChunk = 16 / elemBytes;
  int64_t chunk = col / perChunk;
  int64_t rowsPerLine = std::max<int64_t>(1, 128 / (cols * elemBytes));
  int64_t rowBits = (row / rowsPerLine) & ((1 << bits) - 1);
  return row * cols + (chunk ^ rowBits) * perChunk + col % perChunk;
}

/// Every ldmatrix.x4 of 16x16 blocks of a rows x cols tile stored
/// row-major-ish (dim 1 contiguous): the wavefronts of each, summed, and
/// the ideal (4 per instruction).
BankReport ldmatrixReads(const SharedLayout &layout) {
  LdmatrixPlan plan = unwrap(ldmatrixX4(MmaOperand::A, 1));
  BankReport total;
  int64_t rows = layout.getShape()[0], cols = layout.getShape()[1];
  for (int64_t r0 = 0; r0 < rows; r0 += 16)
    for (int64_t c0 = 0; c0 < cols; c0 += 16) {
      SmallVector<Coord2> coords;
      for (int lane = 0; lane < 32; ++lane) {
        auto start = unwrap(plan.rowStart.apply({lane}));
        coords.push_back({r0 + start[0], c0 + start[1]});
      }
      BankReport one = unwrap(countWavefronts(layout, coords, 16));
      total.wavefronts += one.wavefronts;
      total.ideal += one.ideal;
    }
  return total;
}

/// 8 consecutive rows of one 16-byte column per phase (the ldmatrix phase
/// pattern for any element width), 4 phases over 4 row groups.
BankReport columnReads(const SharedLayout &layout) {
  BankReport total;
  int64_t rows = layout.getShape()[0], cols = layout.getShape()[1];
  int64_t perChunk = 16 / layout.getElemBytes();
  for (int64_t r0 = 0; r0 < rows; r0 += 32)
    for (int64_t c = 0; c < cols; c += perChunk) {
      SmallVector<Coord2> coords;
      for (int lane = 0; lane < 32; ++lane)
        coords.push_back({r0 + lane, c});
      BankReport one = unwrap(countWavefronts(layout, coords, 16));
      total.wavefronts += one.wavefronts;
      total.ideal += one.ideal;
    }
  return total;
}

/// Coalesced 16-byte writes of the whole tile by 128 threads (the
/// cp.async pattern), one warp instruction at a time.
BankReport vectorWrites(const SharedLayout &layout) {
  int64_t vec = 16 / layout.getElemBytes();
  auto copy = unwrap(blockedLayout(layout.getShape(), vec, 128));
  BankReport total;
  for (int warp = 0; warp < copy.getInDimSize("warp"); ++warp)
    for (int reg = 0; reg < copy.getInDimSize("register"); reg += vec) {
      SmallVector<Coord2> coords;
      for (int lane = 0; lane < 32; ++lane) {
        auto c = unwrap(copy.apply({reg, lane, warp}));
        coords.push_back({c[0], c[1]});
      }
      BankReport one = unwrap(countWavefronts(layout, coords, 16));
      total.wavefronts += one.wavefronts;
      total.ideal += one.ideal;
    }
  return total;
}
} // namespace

TEST_CASE("wavefront counting on hand-made patterns", "[layout][shared]") {
  auto lanes = [](auto addressOf) {
    SmallVector<std::optional<int64_t>> addresses;
    for (int64_t lane = 0; lane < 32; ++lane)
      addresses.push_back(addressOf(lane));
    return addresses;
  };
  auto run = [](llvm::ArrayRef<std::optional<int64_t>> a, int64_t bytes) {
    auto report = unwrap(countWavefronts(a, bytes));
    return std::make_pair(report.wavefronts, report.ideal);
  };
  using P = std::pair<int64_t, int64_t>;
  CHECK(run(lanes([](int64_t l) { return 4 * l; }), 4) == P{1, 1});
  CHECK(run(lanes([](int64_t) { return 64; }), 4) == P{1, 1}); // broadcast
  CHECK(run(lanes([](int64_t l) { return 128 * l; }), 4) == P{32, 1});
  CHECK(run(lanes([](int64_t l) { return 8 * (l % 16); }), 2) == P{1, 1});
  CHECK(run(lanes([](int64_t l) { return 8 * l; }), 4) == P{2, 1});
  CHECK(run(lanes([](int64_t l) { return 8 * l; }), 8) == P{2, 2});
  CHECK(run(lanes([](int64_t l) { return 16 * l; }), 16) == P{4, 4});
  CHECK(run(lanes([](int64_t l) { return 128 * l; }), 16) == P{32, 4});
  CHECK(run(lanes([](int64_t l) -> std::optional<int64_t> {
              if (l >= 8)
                return std::nullopt;
              return 256 * l;
            }),
            16) == P{8, 1});
  CHECK(errorOf(countWavefronts({std::optional<int64_t>(6)}, 4))
            .find("not a valid 4-byte access") != std::string::npos);
  CHECK(errorOf(countWavefronts({std::optional<int64_t>(0)}, 3))
            .find("not 1, 2, 4, 8 or 16") != std::string::npos);
}

TEST_CASE("xor swizzles match the chunk-XOR formula", "[layout][shared]") {
  struct Case {
    int64_t rows, cols, elemBytes;
    SwizzleMode mode;
  };
  for (Case c : {Case{64, 64, 2, SwizzleMode::Bytes128},
                 Case{32, 32, 2, SwizzleMode::Bytes64},
                 Case{16, 16, 2, SwizzleMode::Bytes32},
                 Case{64, 128, 2, SwizzleMode::Bytes128},
                 Case{8, 32, 4, SwizzleMode::Bytes128},
                 Case{16, 16, 4, SwizzleMode::Bytes64},
                 Case{32, 256, 1, SwizzleMode::Bytes128}}) {
    INFO(c.rows << "x" << c.cols << " x " << c.elemBytes << "B "
                << stringifySwizzleMode(c.mode).str());
    auto layout =
        unwrap(SharedLayout::swizzled(c.rows, c.cols, c.elemBytes, c.mode));
    CHECK(layout.getAllocElems() == c.rows * c.cols);
    CHECK(layout.getSwizzle() == c.mode);
    for (int64_t r = 0; r < c.rows; ++r)
      for (int64_t col = 0; col < c.cols; ++col)
        REQUIRE(unwrap(layout.offset({r, col})) ==
                swizzledOffset(r, col, c.cols, c.elemBytes, int(c.mode)));
  }
  // The 128-byte pattern for f16 is CUTLASS's Swizzle<3,3,3>.
  XorSwizzle sw128{3, 3, 3};
  auto linear = unwrap(sw128.toLinear(12));
  for (int64_t o = 0; o < 4096; ++o) {
    REQUIRE(unwrap(linear.applyFlat(uint64_t(o))) == uint64_t(sw128.apply(o)));
    REQUIRE(sw128.apply(sw128.apply(o)) == o);
  }
  CHECK(errorOf(XorSwizzle{3, 3, 3}.toLinear(8)).find("does not fit") !=
        std::string::npos);
  CHECK(errorOf(SharedLayout::swizzled(4, 64, 2, SwizzleMode::Bytes128))
            .find("at least 8 rows") != std::string::npos);
  CHECK(errorOf(SharedLayout::swizzled(64, 16, 2, SwizzleMode::Bytes128))
            .find("at least 128 bytes") != std::string::npos);
  CHECK(errorOf(SharedLayout::swizzled(64, 48, 2, SwizzleMode::Bytes32))
            .find("power-of-two") != std::string::npos);
  auto small = unwrap(SharedLayout::swizzled(8, 64, 2, SwizzleMode::Bytes128));
  CHECK(errorOf(small.offset({8, 0})).find("outside dimension 0") !=
        std::string::npos);
}

TEST_CASE("swizzle atoms are the TMA canonical layout", "[layout][shared]") {
  // Row exactly one swizzle wide: same as the plain swizzle.
  CHECK(*unwrap(SharedLayout::swizzledAtoms(64, 64, 2, SwizzleMode::Bytes128))
             .getLinear() ==
        *unwrap(SharedLayout::swizzled(64, 64, 2, SwizzleMode::Bytes128))
             .getLinear());
  // Wider rows: 64-column atoms stored one after another.
  auto atoms =
      unwrap(SharedLayout::swizzledAtoms(32, 256, 2, SwizzleMode::Bytes128));
  for (int64_t r = 0; r < 32; ++r)
    for (int64_t c = 0; c < 256; ++c)
      REQUIRE(unwrap(atoms.offset({r, c})) ==
              (c / 64) * (32 * 64) + swizzledOffset(r, c % 64, 64, 2, 3));
  auto sw64 =
      unwrap(SharedLayout::swizzledAtoms(16, 64, 2, SwizzleMode::Bytes64));
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < 64; ++c)
      REQUIRE(unwrap(sw64.offset({r, c})) ==
              (c / 32) * (16 * 32) + swizzledOffset(r, c % 32, 32, 2, 2));
  CHECK(errorOf(SharedLayout::swizzledAtoms(16, 32, 2, SwizzleMode::Bytes128))
            .find("not a whole number") != std::string::npos);
}

TEST_CASE("the wgmma operand formula is the canonical layout",
          "[layout][shared]") {
  // What tile-infer-layouts records for a wgmma operand (XOR [bits, log2(16
  // / elemBytes), 3], atoms one swizzle wide) and what the lowering emits
  // (atomSwizzledOffset) must place every element where the layout
  // library's TMA/wgmma canonical layout does.
  for (int64_t elemBytes : {1, 2, 4})
    for (SwizzleMode mode :
         {SwizzleMode::Bytes32, SwizzleMode::Bytes64, SwizzleMode::Bytes128})
      for (int64_t cols : {16, 32, 64, 128, 256}) {
        int64_t width = swizzleBytes(mode) / elemBytes;
        if (cols < width)
          continue;
        int32_t bits = int32_t(mode);
        XorSwizzle xorOf{bits, int32_t(log2Exact(16 / elemBytes)), 3};
        int64_t atom = cols > width ? width : 0, rows = 16;
        auto layout = unwrap(
            SharedLayout::swizzledAtoms(rows, cols, elemBytes, mode));
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c)
            REQUIRE(atomSwizzledOffset(rows, cols, xorOf, atom, r, c) ==
                    unwrap(layout.offset({r, c})));
      }
}

TEST_CASE("affine layouts and their bridges to linear ones",
          "[layout][shared]") {
  auto padded = unwrap(AffineLayout::padded({64, 32}, 8));
  CHECK(padded.toString() == "(64,32):(40,1)");
  CHECK(padded.getCosize() == 63 * 40 + 32);
  CHECK(unwrap(padded.offset({3, 5})) == 125);
  CHECK(errorOf(padded.offset({64, 0})).find("outside dimension 0") !=
        std::string::npos);
  CHECK(errorOf(padded.toLinear()).find("not linear") != std::string::npos);
  CHECK(errorOf(AffineLayout::create({4, 4}, {1})).find("rank") !=
        std::string::npos);

  auto colMajor = unwrap(AffineLayout::create({16, 8}, {1, 16}));
  auto asLinear = unwrap(colMajor.toLinear());
  CHECK(asLinear.isBijective());
  for (int32_t r = 0; r < 16; ++r)
    for (int32_t c = 0; c < 8; ++c)
      CHECK(unwrap(asLinear.apply({r, c}))[0] ==
            unwrap(colMajor.offset({r, c})));
  CHECK(errorOf(unwrap(AffineLayout::create({4, 4}, {1, 2})).toLinear())
            .find("overlaps") != std::string::npos);

  // Fragment element -> padded shared offset stays affine in the bits.
  auto frag = unwrap(mmaAccumulatorLayout(64, 32, {2, 1}));
  auto perBit = unwrap(padded.composeLinear(frag));
  CHECK(perBit.getRank() == size_t(frag.getTotalInBits()));
  auto flatFrag =
      unwrap(frag.reshapeIns({{"flat", int32_t(frag.getTotalInSize())}}));
  for (uint64_t x = 0; x < frag.getTotalInSize(); ++x) {
    SmallVector<int64_t> bits;
    for (int b = 0; b < frag.getTotalInBits(); ++b)
      bits.push_back(int64_t((x >> b) & 1));
    auto xy = unwrap(flatFrag.apply({int32_t(x)}));
    REQUIRE(unwrap(perBit.offset(bits)) ==
            unwrap(padded.offset({xy[0], xy[1]})));
  }
  // A swizzle's XOR carries, so it is not affine.
  auto swz = *unwrap(SharedLayout::swizzled(8, 64, 2, SwizzleMode::Bytes128))
                  .getLinear();
  CHECK(errorOf(unwrap(AffineLayout::rowMajor({8, 64})).composeLinear(swz))
            .find("carries") != std::string::npos);
}

TEST_CASE("pickSwizzle chooses the widest conflict-free swizzle",
          "[layout][shared]") {
  CHECK(pickSwizzle(2, 8) == SwizzleMode::None);
  CHECK(pickSwizzle(2, 16) == SwizzleMode::Bytes32);
  CHECK(pickSwizzle(2, 32) == SwizzleMode::Bytes64);
  CHECK(pickSwizzle(2, 64) == SwizzleMode::Bytes128);
  CHECK(pickSwizzle(2, 128) == SwizzleMode::Bytes128);
  CHECK(pickSwizzle(2, 48) == SwizzleMode::None);
  CHECK(pickSwizzle(4, 8) == SwizzleMode::Bytes32);
  CHECK(pickSwizzle(4, 32) == SwizzleMode::Bytes128);
  CHECK(pickSwizzle(1, 128) == SwizzleMode::Bytes128);
  CHECK(pickPadding(2, 64) == 8);
  CHECK(pickPadding(2, 48) == 8);
  CHECK(pickPadding(2, 24) == 0); // 3 chunks per row: already staggered
  CHECK(pickPadding(2, 4) == 0);

  // Every inner extent the kernels use, 64 rows. The layout depends only
  // on the element width, so bf16 gets what f16 gets.
  struct Case {
    const char *dtype;
    int64_t elemBytes, cols;
  };
  for (Case c : {Case{"f16", 2, 32}, Case{"f16", 2, 64}, Case{"f16", 2, 128},
                 Case{"bf16", 2, 32}, Case{"bf16", 2, 64}, Case{"bf16", 2, 128},
                 Case{"f32", 4, 16}, Case{"f32", 4, 32}, Case{"f32", 4, 64},
                 Case{"f32", 4, 128}, Case{"f8", 1, 128}}) {
    INFO(c.dtype << " (" << c.elemBytes << " bytes), inner extent " << c.cols);
    auto chosen = unwrap(pickSharedLayout(64, c.cols, c.elemBytes));
    auto plain = unwrap(SharedLayout::rowMajor({64, c.cols}, c.elemBytes));
    REQUIRE(chosen.getSwizzle() != SwizzleMode::None);
    BankReport reads = columnReads(chosen);
    BankReport writes = vectorWrites(chosen);
    CHECK(reads.conflicts() == 0);
    CHECK(writes.conflicts() == 0);
    // Row-major: rows of >= 128 bytes put a column of 8 rows in one bank
    // group (8 wavefronts a phase); 64-byte rows, in two (4 a phase).
    int64_t perPhase = c.cols * c.elemBytes >= 128 ? 8 : 4;
    CHECK(columnReads(plain).wavefronts == perPhase * columnReads(plain).ideal);
    CHECK(vectorWrites(plain).conflicts() == 0);
    if (c.elemBytes == 2) {
      CHECK(ldmatrixReads(chosen).conflicts() == 0);
      CHECK(ldmatrixReads(plain).wavefronts ==
            perPhase * ldmatrixReads(plain).ideal);
      // Padding fixes ldmatrix reads too (at the cost of memory).
      auto pad =
          unwrap(SharedLayout::padded({64, c.cols}, 2, pickPadding(2, c.cols)));
      CHECK(ldmatrixReads(pad).conflicts() == 0);
    }
  }
  // Narrow rows: padding staggers reads but 16-byte writes of 64-byte rows
  // then straddle lines, which the swizzle avoids.
  auto pad32 = unwrap(SharedLayout::padded({64, 32}, 2, pickPadding(2, 32)));
  CHECK(vectorWrites(pad32).conflicts() > 0);
  // Rows that are not a power of two fall back to padding.
  auto odd = unwrap(pickSharedLayout(64, 48, 2));
  CHECK(odd.getAffine().has_value());
  CHECK(odd.getAllocElems() == 63 * 56 + 48);
  CHECK(columnReads(odd).conflicts() == 0);
}

TEST_CASE("a vector access must stay contiguous in the layout",
          "[layout][shared]") {
  auto colMajor = unwrap(SharedLayout::fromAffine(
      unwrap(AffineLayout::create({64, 64}, {1, 64})), 2));
  SmallVector<Coord2> coords{{0, 0}};
  CHECK(errorOf(countWavefronts(colMajor, coords, 16)).find("not contiguous") !=
        std::string::npos);
  auto fromLinear = SharedLayout::fromLinear(mmaM16N8K16Accumulator(), 2);
  CHECK(errorOf(std::move(fromLinear)).find("maps `offset` alone") !=
        std::string::npos);
}
