//===- LayoutTest.cpp - LinearLayout algebra laws -------------------------===//
//
// The GF(2) layout algebra checked on its own: construction errors,
// evaluation, products, composition with identities, inverses (exact and
// pseudo), reshapes, transposes, restriction, rank properties. Random
// bijections come from a fixed-seed generator so failures reproduce.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/LinearLayout.h"
#include "tilec/Layout/MmaLayouts.h"

#include <catch2/catch.hpp>

#include "LayoutTestSupport.h"

#include <random>

using namespace tilec;
using llvm::Expected;
using llvm::SmallVector;

using layout_test::errorOf;
using layout_test::unwrap;

namespace {
LinearLayout identity(int32_t size, const char *in, const char *out) {
  return unwrap(LinearLayout::identity1D(size, in, out));
}

/// The identity on the out dims of `layout` (each dim to itself).
LinearLayout identityOnOuts(const LinearLayout &layout) {
  LinearLayout result;
  for (const auto &out : layout.getOutDims())
    result = unwrap(result * identity(int32_t(1) << out.log2Size,
                                      out.name.c_str(), out.name.c_str()));
  return result;
}

/// A random bijection (register:8, lane:32) -> (dim0:16, dim1:16): random
/// columns, redrawn until independent.
LinearLayout randomBijection(std::mt19937 &rng) {
  while (true) {
    SmallVector<uint64_t> columns;
    for (int i = 0; i < 8; ++i)
      columns.push_back(rng() & 0xff);
    auto layout = unwrap(
        LinearLayout::fromFlatColumns({{"register", 8}, {"lane", 32}},
                                      {{"dim0", 16}, {"dim1", 16}}, columns));
    if (layout.isBijective())
      return layout;
  }
}
} // namespace

TEST_CASE("construction validates names, sizes and bases",
          "[layout][algebra]") {
  CHECK(errorOf(LinearLayout::identity1D(12, "lane", "dim0"))
            .find("not a power of two") != std::string::npos);
  CHECK(errorOf(LinearLayout::create({{"lane", {{4}}}}, {{"dim0", 4}}))
            .find("is 4 along `dim0` of size 4") != std::string::npos);
  CHECK(errorOf(LinearLayout::create({{"lane", {{1}}}, {"lane", {{2}}}},
                                     {{"dim0", 4}}))
            .find("duplicate input dimension `lane`") != std::string::npos);
  CHECK(errorOf(LinearLayout::create({{"lane", {{1, 0}}}}, {{"dim0", 4}}))
            .find("has 2 values for 1 output") != std::string::npos);
  auto inferred = unwrap(LinearLayout::createInferred(
      {{"lane", {{1, 0}, {0, 4}}}}, {"dim0", "dim1"}));
  CHECK(inferred.getOutDimSize("dim0") == 2);
  CHECK(inferred.getOutDimSize("dim1") == 8);
  CHECK(inferred.getOutDimSize("absent") == 1);
  CHECK(inferred.getInDimSize("absent") == 1);
}

TEST_CASE("apply is the XOR of the bases of the set bits",
          "[layout][algebra]") {
  auto layout = unwrap(LinearLayout::create(
      {{"register", {{0, 1}, {8, 0}}}, {"lane", {{0, 2}, {3, 0}}}},
      {{"dim0", 16}, {"dim1", 4}}));
  CHECK(unwrap(layout.apply({3, 0})) == SmallVector<int32_t>{8, 1});
  CHECK(unwrap(layout.apply({1, 3})) == SmallVector<int32_t>{3, 3});
  CHECK(unwrap(layout.apply({2, 2})) == SmallVector<int32_t>{11, 0});
  auto named = unwrap(layout.apply({{"lane", 1}}));
  CHECK(named ==
        SmallVector<LinearLayout::NamedValue>{{"dim0", 0}, {"dim1", 2}});
  // Flat: register is the low two bits, lane the next two; dim0 low.
  CHECK(unwrap(layout.applyFlat(1 | (2 << 2))) == (3 | (1 << 4)));
  CHECK(errorOf(layout.apply({4, 0})).find("outside `register`") !=
        std::string::npos);
  CHECK(errorOf(layout.apply({1})).find("1 values for 2") != std::string::npos);
  CHECK(errorOf(layout.apply({{"warp", 0}})).find("no input dimension") !=
        std::string::npos);
  CHECK(errorOf(layout.applyFlat(16)).find("outside the input space") !=
        std::string::npos);
}

TEST_CASE("product concatenates dims, the right factor above",
          "[layout][algebra]") {
  auto regs = identity(4, "register", "dim1");
  auto lanes = identity(8, "lane", "dim1");
  auto rows = identity(2, "lane", "dim0");
  auto layout = unwrap(product({regs, lanes, rows}));
  CHECK(layout.getInDimNames() == SmallVector<std::string>{"register", "lane"});
  CHECK(layout.getOutDimNames() == SmallVector<std::string>{"dim1", "dim0"});
  CHECK(layout.getInDimSize("lane") == 16);
  CHECK(layout.getOutDimSize("dim1") == 32);
  for (int32_t r = 0; r < 4; ++r)
    for (int32_t l = 0; l < 16; ++l)
      CHECK(unwrap(layout.apply({r, l})) ==
            SmallVector<int32_t>{r + 4 * (l % 8), l / 8});
  // A broadcast factor doubles the inputs but not the outputs.
  auto copies =
      unwrap(layout * unwrap(LinearLayout::zeros1D(4, "warp", "dim0")));
  CHECK(copies.getTotalOutBits() == layout.getTotalOutBits());
  CHECK(copies.getNumFreeBits() == 2);
  CHECK(unwrap(LinearLayout() * layout) == layout);
}

TEST_CASE("compose with identity is the layout itself", "[layout][algebra]") {
  for (const LinearLayout &layout :
       {mmaM16N8K16OperandA(), mmaM16N8K16OperandB(),
        unwrap(mmaOperandALayout(64, 32, {2, 2}))}) {
    CHECK(unwrap(layout.compose(identityOnOuts(layout))) == layout);
    LinearLayout inIdentity;
    for (const auto &in : layout.getInDims())
      inIdentity =
          unwrap(inIdentity * identity(int32_t(1) << in.bases.size(),
                                       in.name.c_str(), in.name.c_str()));
    CHECK(unwrap(inIdentity.compose(layout)) == layout);
  }
  auto small = identity(4, "lane", "dim0");
  auto wide = identity(8, "dim0", "offset");
  // A smaller output feeds the low bits of a larger input.
  CHECK(unwrap(small.compose(wide)) ==
        unwrap(LinearLayout::create({{"lane", {{1}, {2}}}}, {{"offset", 8}})));
  CHECK(errorOf(identity(8, "lane", "dim0").compose(identity(4, "dim0", "x")))
            .find("has size 8 but the outer input has 4") != std::string::npos);
  CHECK(errorOf(small.compose(identity(4, "x", "y")))
            .find("`dim0` is not an input") != std::string::npos);
}

TEST_CASE("invert is an exact inverse of a bijection", "[layout][algebra]") {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 20; ++trial) {
    LinearLayout layout = randomBijection(rng);
    LinearLayout inverse = unwrap(layout.invert());
    CHECK(inverse.getInDimNames() == layout.getOutDimNames());
    CHECK(inverse.getOutDimNames() == layout.getInDimNames());
    CHECK(unwrap(inverse.invert()) == layout);
    for (uint64_t x = 0; x < layout.getTotalInSize(); ++x)
      REQUIRE(unwrap(inverse.applyFlat(unwrap(layout.applyFlat(x)))) == x);
    // L^-1 o L is the identity on the inputs.
    auto roundTrip = unwrap(layout.compose(inverse));
    for (uint64_t x = 0; x < layout.getTotalInSize(); ++x)
      REQUIRE(unwrap(roundTrip.applyFlat(x)) == x);
  }
  auto acc = mmaM16N8K16Accumulator();
  CHECK(unwrap(unwrap(acc.invert()).invert()) == acc);
  CHECK(errorOf(unwrap(mmaOperandALayout(32, 16, {2, 2})).invert())
            .find("not bijective") != std::string::npos);
}

TEST_CASE("pseudoInvert picks the copy with free bits zero",
          "[layout][algebra]") {
  // Operand A with warps split 2x2: the warps along N hold copies.
  LinearLayout layout = unwrap(mmaOperandALayout(32, 16, {2, 2}));
  CHECK(layout.isSurjective());
  CHECK(!layout.isInjective());
  CHECK(layout.getNumFreeBits() == 1);
  auto masks = layout.getFreeBitMasks();
  CHECK(masks == SmallVector<LinearLayout::NamedValue>{
                     {"register", 0}, {"lane", 0}, {"warp", 2}});
  LinearLayout right = unwrap(layout.pseudoInvert());
  for (int32_t m = 0; m < 32; ++m) {
    for (int32_t k = 0; k < 16; ++k) {
      auto owner = unwrap(right.apply({m, k}));
      CHECK(owner[2] < 2); // the warp along N is 0
      CHECK(unwrap(layout.apply(owner)) == SmallVector<int32_t>{m, k});
    }
  }
  CHECK(
      errorOf(
          unwrap(LinearLayout::strided1D(4, 2, "lane", "dim0")).pseudoInvert())
          .find("not surjective") != std::string::npos);
}

TEST_CASE("invertAndCompose maps registers to shared offsets",
          "[layout][algebra]") {
  LinearLayout frag = unwrap(mmaAccumulatorLayout(32, 32, {2, 1}));
  // A shared tile: offset -> (dim0, dim1), row-major 32x32, then a column
  // XOR so the map is not a plain stride.
  auto shared = unwrap(LinearLayout::create({{"offset",
                                              {{0, 1},
                                               {0, 2},
                                               {0, 4},
                                               {0, 8},
                                               {0, 16},
                                               {1, 1},
                                               {2, 2},
                                               {4, 4},
                                               {8, 0},
                                               {16, 0}}}},
                                            {{"dim0", 32}, {"dim1", 32}}));
  LinearLayout toOffset = unwrap(frag.invertAndCompose(shared));
  CHECK(toOffset.getInDimNames() == frag.getInDimNames());
  CHECK(toOffset.getOutDimNames() == SmallVector<std::string>{"offset"});
  for (uint64_t x = 0; x < frag.getTotalInSize(); ++x) {
    uint64_t offset = unwrap(toOffset.applyFlat(x));
    REQUIRE(unwrap(shared.applyFlat(offset)) == unwrap(frag.applyFlat(x)));
  }
  // A target that misses outputs cannot take every fragment element.
  auto half = unwrap(LinearLayout::strided1D(16, 2, "offset", "dim1"));
  auto rowLayout = identity(32, "lane", "dim1");
  CHECK(errorOf(rowLayout.invertAndCompose(half)).find("not an output") !=
        std::string::npos);
}

TEST_CASE("reshape, transpose and sublayout", "[layout][algebra]") {
  auto flat = identity(32, "lane", "flat");
  auto split = unwrap(flat.reshapeOuts({{"dim1", 8}, {"dim0", 4}}));
  for (int32_t l = 0; l < 32; ++l)
    CHECK(unwrap(split.apply({l})) == SmallVector<int32_t>{l % 8, l / 8});
  auto swapped = unwrap(split.transposeOuts({"dim0", "dim1"}));
  for (int32_t l = 0; l < 32; ++l)
    CHECK(unwrap(swapped.apply({l})) == SmallVector<int32_t>{l / 8, l % 8});
  CHECK(unwrap(swapped.transposeOuts({"dim1", "dim0"})) == split);
  CHECK(unwrap(split.reshapeOuts({{"flat", 32}})) == flat);
  CHECK(errorOf(flat.reshapeOuts({{"dim0", 16}})).find("from 2^5") !=
        std::string::npos);
  CHECK(errorOf(split.transposeOuts({"dim0", "dim0"})).find("duplicate") !=
        std::string::npos);

  auto threads = unwrap(
      mmaM16N8K16Accumulator().reshapeIns({{"register", 4}, {"thread", 32}}));
  CHECK(threads.getInDimNames() ==
        SmallVector<std::string>{"register", "thread"});
  auto byLane =
      unwrap(mmaM16N8K16Accumulator().transposeIns({"lane", "register"}));
  CHECK(unwrap(byLane.apply({5, 3})) ==
        unwrap(mmaM16N8K16Accumulator().apply({3, 5})));

  auto rowsOfLanes =
      unwrap(mmaM16N8K16Accumulator().sublayout({"lane"}, {"dim0"}));
  CHECK(rowsOfLanes.getTotalInBits() == 5);
  for (int32_t l = 0; l < 32; ++l)
    CHECK(unwrap(rowsOfLanes.apply({l})) == SmallVector<int32_t>{l / 4});
  CHECK(errorOf(mmaM16N8K16Accumulator().sublayout({"warp"}, {}))
            .find("no input dimension `warp`") != std::string::npos);
}

TEST_CASE("rank properties", "[layout][algebra]") {
  auto zeros = unwrap(LinearLayout::zeros1D(8, "warp", "dim0"));
  CHECK(zeros.getRank() == 0);
  CHECK(zeros.getNumFreeBits() == 3);
  CHECK(zeros.isSurjective());
  CHECK(!zeros.isInjective());
  auto strided = unwrap(LinearLayout::strided1D(8, 2, "lane", "dim0"));
  CHECK(strided.isInjective());
  CHECK(!strided.isSurjective());
  CHECK(mmaM16N8K16OperandA().isBijective());
  CHECK(mmaM16N8K16OperandA().getNumFreeBits() == 0);
}

TEST_CASE("fromFunction accepts linear maps and rejects others",
          "[layout][algebra]") {
  auto xorMap = unwrap(LinearLayout::fromFunction(
      {{"lane", 32}}, {{"dim0", 32}},
      [](llvm::ArrayRef<int32_t> in) -> SmallVector<int32_t> {
        return {in[0] ^ ((in[0] >> 3) & 3)};
      }));
  CHECK(xorMap.isBijective());
  CHECK(unwrap(xorMap.apply({27})) == SmallVector<int32_t>{27 ^ 3});
  CHECK(errorOf(LinearLayout::fromFunction(
                    {{"lane", 8}}, {{"dim0", 8}},
                    [](llvm::ArrayRef<int32_t> in) -> SmallVector<int32_t> {
                      return {(3 * in[0]) % 8};
                    }))
            .find("not linear over GF(2) at (lane=3)") != std::string::npos);
}

TEST_CASE("toString lists the bases per input", "[layout][algebra]") {
  CHECK(mmaM16N8K16Accumulator().toString() ==
        "(register:4, lane:32) -> (dim0:16, dim1:8)\n"
        "  register: [0,1] [8,0]\n"
        "  lane: [0,2] [0,4] [1,0] [2,0] [4,0]");
  CHECK(LinearLayout().toString() == "() -> ()");
  CHECK(unwrap(LinearLayout::zeros1D(1, "warp", "dim0")).toString() ==
        "(warp:1) -> (dim0:1)\n  warp: -");
}
