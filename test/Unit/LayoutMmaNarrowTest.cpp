//===- LayoutMmaNarrowTest.cpp - tf32 and 8-bit mma.sync fragments --------===//
//
// The m16n8k8 .tf32 and m16n8k32 8-bit operand fragments against formulas
// written here from the PTX ISA ("Matrix Fragments for mma.m16n8k8",
// "... for mma.m16n8k32"), and the b16 ldmatrix read as 8- or 32-bit
// elements against a byte-level simulation of ldmatrix: lane l receives,
// in word i, bytes 4 (l % 4) .. 4 (l % 4) + 3 of the 16-byte row lane
// 8 i + l / 4 addressed.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/MmaLayouts.h"

#include <catch2/catch.hpp>

#include "LayoutTestSupport.h"

#include <set>

using namespace tilec;
using llvm::SmallVector;
using Coord = SmallVector<int32_t>;

using layout_test::errorOf;
using layout_test::unwrap;

namespace {
int groupOf(int lane) { return lane >> 2; }
int tigOf(int lane) { return lane % 4; }

Coord tf32A(int lane, int i) {
  int row = (i == 0 || i == 2) ? groupOf(lane) : groupOf(lane) + 8;
  int col = i < 2 ? tigOf(lane) : tigOf(lane) + 4;
  return {row, col};
}
Coord tf32B(int lane, int i) {
  int row = i == 0 ? tigOf(lane) : tigOf(lane) + 4;
  return {row, groupOf(lane)};
}
Coord b8A(int lane, int i) {
  bool low = (i < 4) || (i >= 8 && i < 12);
  int row = low ? groupOf(lane) : groupOf(lane) + 8;
  int col = tigOf(lane) * 4 + (i & 0x3) + (i < 8 ? 0 : 16);
  return {row, col};
}
Coord b8B(int lane, int i) {
  int row = tigOf(lane) * 4 + (i & 0x3) + (i < 4 ? 0 : 16);
  return {row, groupOf(lane)};
}

void checkFragment(const LinearLayout &layout, int regs, int rows, int cols,
                   Coord (*formula)(int, int)) {
  REQUIRE(layout.getInDimSize("register") == regs);
  REQUIRE(layout.getInDimSize("lane") == 32);
  REQUIRE(layout.getOutDimSize("dim0") == rows);
  REQUIRE(layout.getOutDimSize("dim1") == cols);
  std::set<std::pair<int, int>> seen;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < regs; ++i) {
      Coord coord = unwrap(layout.apply({i, lane}));
      INFO("lane " << lane << " register " << i);
      CHECK(coord == formula(lane, i));
      seen.insert({coord[0], coord[1]});
    }
  CHECK(seen.size() == size_t(rows * cols));
}

/// Element e of word `word` that lane `lane` receives from an ldmatrix
/// (no .trans) of `plan` on K-contiguous data of `elemBits`-bit elements.
Coord simulate(const LdmatrixPlan &plan, int kDim, int elemBits, int word,
               int e, int lane) {
  Coord start = unwrap(plan.rowStart.apply({8 * word + lane / 4}));
  int elemBytes = elemBits / 8;
  int byte = 2 * start[kDim] + 4 * (lane % 4) + e * elemBytes;
  Coord at = start;
  at[kDim] = byte / elemBytes;
  return at;
}

void checkLdmatrix(const LdmatrixPlan &plan, int words, int kDim, int elemBits,
                   const LinearLayout &want) {
  REQUIRE_FALSE(plan.trans);
  LinearLayout got = unwrap(ldmatrixAsElements(plan, kDim, elemBits));
  int perWord = 32 / elemBits;
  REQUIRE(got.getInDimSize("register") == words * perWord);
  for (int lane = 0; lane < 32; ++lane)
    for (int w = 0; w < words; ++w)
      for (int e = 0; e < perWord; ++e) {
        INFO("lane " << lane << " word " << w << " element " << e);
        Coord sim = simulate(plan, kDim, elemBits, w, e, lane);
        CHECK(unwrap(got.apply({w * perWord + e, lane})) == sim);
        CHECK(unwrap(want.apply({w * perWord + e, lane})) == sim);
      }
}
} // namespace

TEST_CASE("mma.m16n8k8 tf32 and m16n8k32 8-bit fragments match the PTX ISA",
          "[layout][mma]") {
  checkFragment(mmaM16N8K8Tf32OperandA(), 4, 16, 8, tf32A);
  checkFragment(mmaM16N8K8Tf32OperandB(), 2, 8, 8, tf32B);
  checkFragment(mmaM16N8K32B8OperandA(), 16, 16, 32, b8A);
  checkFragment(mmaM16N8K32B8OperandB(), 8, 32, 8, b8B);
  CHECK(unwrap(mmaSyncOperands(8)).k == 32);
  CHECK(unwrap(mmaSyncOperands(16)).k == 16);
  CHECK(unwrap(mmaSyncOperands(32)).k == 8);
  CHECK(errorOf(mmaSyncOperands(4)).find("4-bit") != std::string::npos);
}

TEST_CASE("b16 ldmatrix of K-contiguous tf32 and 8-bit data delivers their "
          "mma operands",
          "[layout][mma]") {
  LdmatrixPlan a = unwrap(ldmatrixX4(MmaOperand::A, 1));
  LdmatrixPlan b2 = unwrap(ldmatrixX2(MmaOperand::B, 0));
  checkLdmatrix(a, 4, 1, 32, mmaM16N8K8Tf32OperandA());
  checkLdmatrix(a, 4, 1, 8, mmaM16N8K32B8OperandA());
  checkLdmatrix(b2, 2, 0, 32, mmaM16N8K8Tf32OperandB());
  checkLdmatrix(b2, 2, 0, 8, mmaM16N8K32B8OperandB());
  // The x4 B load is two n8 operands side by side.
  LdmatrixPlan b4 = unwrap(ldmatrixX4(MmaOperand::B, 0));
  for (int bits : {8, 32}) {
    LinearLayout got = unwrap(ldmatrixAsElements(b4, 0, bits));
    int perWord = 32 / bits;
    LinearLayout one =
        bits == 8 ? mmaM16N8K32B8OperandB() : mmaM16N8K8Tf32OperandB();
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < 4 * perWord; ++r) {
        Coord want = unwrap(one.apply({r % (2 * perWord), lane}));
        want[1] += 8 * (r / (2 * perWord));
        INFO("bits " << bits << " lane " << lane << " register " << r);
        CHECK(unwrap(got.apply({r, lane})) == want);
      }
  }
  CHECK(unwrap(ldmatrixAsElements(a, 1, 16)) == a.fragment);
  // .trans moves 16-bit halves across rows: not a K-contiguous read.
  LdmatrixPlan trans = unwrap(ldmatrixX4(MmaOperand::A, 0));
  CHECK(errorOf(ldmatrixAsElements(trans, 1, 8)).find(".trans") !=
        std::string::npos);
  CHECK(errorOf(ldmatrixAsElements(a, 1, 4)).find("only 8, 16 or 32") !=
        std::string::npos);
}

#include "tilec/Target/TargetInfo.h"

TEST_CASE("mma.sync fp8 is in sm_90a's table, not sm_80's", "[layout][mma]") {
  auto count = [](const char *chip, MMAElementType a, MMAElementType b) {
    const TargetInfo *target = TargetInfo::lookup(chip);
    REQUIRE(target);
    int found = 0;
    for (const MMAInstruction &i : target->mmaInstructions())
      if (i.kind == MMAKind::WarpSync && i.a == a && i.b == b &&
          i.acc == MMAElementType::F32) {
        CHECK(i.m == 16);
        CHECK(i.n == 8);
        CHECK(i.k ==
              unwrap(mmaSyncOperands(a == MMAElementType::TF32 ? 32 : 8)).k);
        ++found;
      }
    return found;
  };
  using ET = MMAElementType;
  for (auto [a, b] : {std::pair{ET::F8E4M3, ET::F8E4M3},
                      {ET::F8E4M3, ET::F8E5M2},
                      {ET::F8E5M2, ET::F8E4M3},
                      {ET::F8E5M2, ET::F8E5M2}}) {
    CHECK(count("sm_90a", a, b) == 1);
    CHECK(count("sm_80", a, b) == 0);
  }
  CHECK(count("sm_80", ET::TF32, ET::TF32) == 1);
  CHECK(count("sm_90a", ET::TF32, ET::TF32) == 1);
}
