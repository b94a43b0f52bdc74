//===- IndexWidthTest.cpp - The proof behind 32-bit index arithmetic ------===//
//
// decideIndexWidth keeps a kernel 32-bit exactly when every in-bounds
// element offset of its global tensors fits in a signed 32-bit integer
// (static counts <= INT32_MAX), needs launch-header checks when run-time
// dimensions can multiply past it, and is 64-bit otherwise or when forced.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/IndexWidth.h"

#include <catch2/catch.hpp>

using namespace tilec;

namespace {
constexpr std::nullopt_t dyn = std::nullopt;

IndexWidthDecision decide(std::vector<TensorDims> tensors,
                          IndexBits option = IndexBits::Auto) {
  std::vector<std::string> names;
  for (size_t k = 0; k < tensors.size(); ++k)
    names.push_back("T" + std::to_string(k));
  return decideIndexWidth(tensors, names, option);
}
} // namespace

TEST_CASE("static tensors up to INT32_MAX elements stay 32-bit",
          "[index-width]") {
  CHECK(decide({}).bits == 32);
  CHECK(decide({{1024, 1024}, {4096}}).bits == 32);
  IndexWidthDecision edge = decide({{INT32_MAX}});
  CHECK(edge.bits == 32);
  CHECK_FALSE(edge.needsLaunchChecks);
  // 2^31 - 1 = 7 * 31 * 151 * 65537: the largest count, as a product.
  CHECK(decide({{7, 31, 151, 65537}}).bits == 32);
}

TEST_CASE("a static tensor past INT32_MAX elements makes the kernel 64-bit",
          "[index-width]") {
  IndexWidthDecision d = decide({{16, 16}, {2147483648}});
  CHECK(d.bits == 64);
  CHECK(d.reason == "`T1` has 2147483648 elements");
  CHECK_FALSE(d.needsLaunchChecks);
  // 2^31 + 2^20 fp16 elements, as rows: the GPU check's tensor.
  CHECK(decide({{2049, 1048576}}).bits == 64);
  // Past int64: still 64-bit (elaboration rejects the shape itself).
  CHECK(decide({{INT64_MAX, 4}}).reason == "`T0` has > 2^63 elements");
}

TEST_CASE("run-time dimensions: 32-bit with launch checks under auto",
          "[index-width]") {
  // A lone dynamic dimension is an int32 launch argument: no product to
  // check.
  IndexWidthDecision lone = decide({{dyn}});
  CHECK(lone.bits == 32);
  CHECK_FALSE(lone.needsLaunchChecks);
  IndexWidthDecision rows = decide({{dyn, 4096}});
  CHECK(rows.bits == 32);
  CHECK(rows.needsLaunchChecks);
  CHECK(decide({{dyn, dyn}}).needsLaunchChecks);
  // Static dimensions alone past the limit: 64-bit, no checks needed.
  IndexWidthDecision wide = decide({{dyn, 65536, 65536}});
  CHECK(wide.bits == 64);
  CHECK(wide.reason ==
        "`T0` has 4294967296 elements in its static dimensions alone");
  CHECK_FALSE(wide.needsLaunchChecks);
}

TEST_CASE("-findex-bits forces a width", "[index-width]") {
  IndexWidthDecision forced = decide({{16}, {dyn, 4096}}, IndexBits::Bits64);
  CHECK(forced.bits == 64);
  CHECK_FALSE(forced.needsLaunchChecks);
  // Forced 32: a static tensor past the limit is elaboration's error, the
  // decision stays 32.
  CHECK(decide({{2147483648}}, IndexBits::Bits32).bits == 32);
  CHECK(decide({{dyn, 4096}}, IndexBits::Bits32).needsLaunchChecks);
}

TEST_CASE("parseIndexBits", "[index-width]") {
  CHECK(parseIndexBits("auto") == IndexBits::Auto);
  CHECK(parseIndexBits("32") == IndexBits::Bits32);
  CHECK(parseIndexBits("64") == IndexBits::Bits64);
  CHECK_FALSE(parseIndexBits("16").has_value());
  CHECK_FALSE(parseIndexBits("").has_value());
}
