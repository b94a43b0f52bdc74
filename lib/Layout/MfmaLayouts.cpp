//===- MfmaLayouts.cpp - AMD MFMA fragments and their tiling --------------===//
//
// Each instruction fragment is written down as its bases, read off the ISA
// formulas of MfmaLayouts.h bit by bit (lane bits 0..log2(M_i)-1 pick the
// row of A / column of B / column of D, the remaining lane bits the group
// of 4 k, or of 4 rows of D); the unit tests check them against the
// formulas themselves and simulate whole block GEMMs through them. Block
// layouts are products, as for mma.sync: fragment * waves * repeats.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/MfmaLayouts.h"

#include <cmath>
#include <cstdlib>
#include <limits>

using namespace llvm;

namespace tilec {

namespace {
using InDim = LinearLayout::InDim;
using Basis = LinearLayout::Basis;

LinearLayout fixed2D(std::vector<InDim> ins, int64_t rows, int64_t cols) {
  return cantFail(LinearLayout::create(
      std::move(ins), {{"dim0", int32_t(rows)}, {"dim1", int32_t(cols)}}));
}

Basis along(int dim, int32_t v) { return dim == 0 ? Basis{v, 0} : Basis{0, v}; }

/// The A/B fragment with the row (A) or column (B) running along `mnDim`
/// and k along the other, E = mfmaLaneElements elements per lane: register
/// bits k+1, k+2 (E = 4; none for E = 1), then (kPack = 2) k+E; lane bits
/// over M_i along mnDim, then the lane groups, E * kPack k apart.
LinearLayout operandAtom(MfmaShape shape, int mnDim, int kPack) {
  MfmaDims dims = getMfmaDims(shape);
  int64_t elems = mfmaLaneElements(shape);
  int kDim = 1 - mnDim;
  InDim reg{"register", {}};
  for (int64_t v = 1; v < elems; v *= 2)
    reg.bases.push_back(along(kDim, int32_t(v)));
  if (kPack == 2)
    reg.bases.push_back(along(kDim, int32_t(elems)));
  int64_t mn = mnDim == 0 ? dims.m : dims.n;
  InDim lane{"lane", {}};
  for (int64_t v = 1; v < mn; v *= 2)
    lane.bases.push_back(along(mnDim, int32_t(v)));
  for (int64_t v = elems * kPack; v < dims.k * kPack; v *= 2)
    lane.bases.push_back(along(kDim, int32_t(v)));
  int64_t kExtent = dims.k * kPack;
  return mnDim == 0 ? fixed2D({reg, lane}, mn, kExtent)
                    : fixed2D({reg, lane}, kExtent, mn);
}

/// D with its rows along `rowDim`: registers r % 4 step the row by 1 and 2,
/// r / 4 by 8, 16 (32x32 only); lane bits 0..log2(N_i)-1 the column, the
/// rest the row by 4 (and 8 for 16x16).
LinearLayout accumulatorAtom(MfmaShape shape, int rowDim) {
  MfmaDims dims = getMfmaDims(shape);
  int colDim = 1 - rowDim;
  InDim reg{"register", {along(rowDim, 1), along(rowDim, 2)}};
  InDim lane{"lane", {}};
  for (int64_t v = 1; v < dims.n; v *= 2)
    lane.bases.push_back(along(colDim, int32_t(v)));
  // 64 lanes / N_i lane groups of 4 rows each; the registers beyond 4
  // continue above the groups' rows.
  int64_t groupRows = 4 * (kMfmaLanes / dims.n);
  for (int64_t v = 4; v < groupRows; v *= 2)
    lane.bases.push_back(along(rowDim, int32_t(v)));
  for (int64_t v = groupRows; v < dims.m; v *= 2)
    reg.bases.push_back(along(rowDim, int32_t(v)));
  return rowDim == 0 ? fixed2D({reg, lane}, dims.m, dims.n)
                     : fixed2D({reg, lane}, dims.n, dims.m);
}

Error checkPack(int kPack) {
  if (kPack != 1 && kPack != 2)
    return makeLayoutError("k pack must be 1 or 2, got " + Twine(kPack));
  return Error::success();
}
} // namespace

MfmaDims getMfmaDims(MfmaShape shape) {
  switch (shape) {
  case MfmaShape::M32N32K8:
    return {32, 32, 8};
  case MfmaShape::M16N16K16:
    return {16, 16, 16};
  case MfmaShape::M32N32K2:
    return {32, 32, 2};
  case MfmaShape::M16N16K4:
    return {16, 16, 4};
  }
  return {0, 0, 0};
}

int64_t mfmaLaneElements(MfmaShape shape) {
  MfmaDims dims = getMfmaDims(shape);
  return dims.m * dims.k / kMfmaLanes;
}

Expected<MfmaShape> getMfmaShape(int64_t m, int64_t n, int64_t k) {
  if (m == 32 && n == 32 && k == 8)
    return MfmaShape::M32N32K8;
  if (m == 16 && n == 16 && k == 16)
    return MfmaShape::M16N16K16;
  if (m == 32 && n == 32 && k == 2)
    return MfmaShape::M32N32K2;
  if (m == 16 && n == 16 && k == 4)
    return MfmaShape::M16N16K4;
  return makeLayoutError("no MFMA layout for a " + Twine(m) + "x" + Twine(n) +
                         "x" + Twine(k) + " instruction");
}

LinearLayout mfmaOperandA(MfmaShape shape) { return operandAtom(shape, 0, 1); }

LinearLayout mfmaOperandB(MfmaShape shape) { return operandAtom(shape, 1, 1); }

LinearLayout mfmaAccumulator(MfmaShape shape) {
  return accumulatorAtom(shape, 0);
}

LinearLayout mfmaSwappedAccumulator(MfmaShape shape) {
  // The instruction's D[i][j] is C[m = j][n = i].
  return accumulatorAtom(shape, 1);
}

Expected<LinearLayout> mfmaPackedOperandA(MfmaShape shape, int kPack) {
  if (Error err = checkPack(kPack))
    return std::move(err);
  return operandAtom(shape, 0, kPack);
}

Expected<LinearLayout> mfmaPackedOperandB(MfmaShape shape, int kPack) {
  if (Error err = checkPack(kPack))
    return std::move(err);
  return operandAtom(shape, 1, kPack);
}

Expected<WarpPartition> computeWavePartition(GemmWarpPolicy policy, int64_t m,
                                             int64_t n, int64_t numWaves,
                                             MfmaShape shape) {
  MfmaDims dims = getMfmaDims(shape);
  auto fail = [&](const Twine &why) {
    return makeLayoutError("cannot split a " + Twine(m) + "x" + Twine(n) +
                           " gemm over " + Twine(numWaves) + " waves of " +
                           Twine(dims.m) + "x" + Twine(dims.n) +
                           " MFMA tiles: " + why);
  };
  if (numWaves < 1 || !isPowerOfTwo(numWaves))
    return fail("the wave count is not a power of two");
  if (m < dims.m || n < dims.n || m % dims.m || n % dims.n)
    return fail("m and n must be multiples of the tile");
  // A dimension need not be a power of two (FlashAttention's head
  // dimension 192): the waves must then split its tiles evenly, and the
  // layouts cover its padded extent (tileFragmentOverBlock), the registers
  // past it dropped.
  int64_t tilesM = m / dims.m, tilesN = n / dims.n;
  auto fits = [&](int64_t wm) {
    int64_t wn = numWaves / wm;
    return wm <= tilesM && wn <= tilesN && tilesM % wm == 0 &&
           tilesN % wn == 0;
  };
  WarpPartition best{0, 0};
  switch (policy) {
  case GemmWarpPolicy::FullRow: {
    int64_t wm = std::min(numWaves, tilesM);
    if (fits(wm))
      best = {wm, numWaves / wm};
    break;
  }
  case GemmWarpPolicy::FullCol: {
    int64_t wn = std::min(numWaves, tilesN);
    if (fits(numWaves / wn))
      best = {numWaves / wn, wn};
    break;
  }
  case GemmWarpPolicy::Square: {
    // Everything is a power of two: compare log2(rows / cols) exactly.
    double bestScore = std::numeric_limits<double>::infinity();
    for (int64_t wm = 1; wm <= numWaves; wm *= 2) {
      if (!fits(wm))
        continue;
      int64_t wn = numWaves / wm;
      // |log2(rows / cols)|, exact for powers of two.
      double score = std::fabs(std::log2(double(m) / double(wm)) -
                               std::log2(double(n) / double(wn)));
      if (score <= bestScore) {
        bestScore = score;
        best = {wm, wn};
      }
    }
    break;
  }
  }
  if (best.warpsM == 0)
    return fail("no split gives every wave whole tiles");
  return best;
}

Expected<LinearLayout> mfmaAccumulatorLayout(int64_t blockM, int64_t blockN,
                                             MfmaShape shape,
                                             WarpPartition waves) {
  return tileFragmentOverBlock(mfmaSwappedAccumulator(shape), blockM, blockN,
                               waves, true, true);
}

Expected<LinearLayout> mfmaOperandALayout(int64_t blockM, int64_t blockK,
                                          MfmaShape shape, WarpPartition waves,
                                          int kPack) {
  Expected<LinearLayout> atom = mfmaPackedOperandA(shape, kPack);
  if (!atom)
    return atom.takeError();
  return tileFragmentOverBlock(*atom, blockM, blockK, waves, true, false);
}

Expected<LinearLayout> mfmaRegisterOperandALayout(int64_t blockM,
                                                  int64_t blockK,
                                                  MfmaShape shape,
                                                  WarpPartition waves) {
  // The swapped accumulator hands each lane 4 consecutive n, the 4 k a
  // 16-bit instruction's lane reads; an fp32 one reads 1.
  if (mfmaLaneElements(shape) != 4)
    return makeLayoutError("A in registers needs a 16-bit MFMA instruction");
  if (blockK % getMfmaDims(shape).n)
    return makeLayoutError("A in registers needs K a multiple of " +
                           Twine(getMfmaDims(shape).n) + ", got " +
                           Twine(blockK));
  return tileFragmentOverBlock(mfmaSwappedAccumulator(shape), blockM, blockK,
                               waves, true, false);
}

Expected<LinearLayout> mfmaOperandBLayout(int64_t blockK, int64_t blockN,
                                          MfmaShape shape, WarpPartition waves,
                                          int kPack) {
  Expected<LinearLayout> atom = mfmaPackedOperandB(shape, kPack);
  if (!atom)
    return atom.takeError();
  return tileFragmentOverBlock(*atom, blockK, blockN, waves, false, true);
}

} // namespace tilec
