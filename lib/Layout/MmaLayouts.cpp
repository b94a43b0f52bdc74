//===- MmaLayouts.cpp - Tensor-core fragments and their tiling -----------===//
//
// Each instruction fragment is written down as its bases, read off the PTX
// ISA formulas bit by bit (see MmaLayouts.h); the unit tests check them
// against the formulas themselves. Block-level layouts are products:
// fragment * warps * register repeats.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/MmaLayouts.h"

#include "WarpPlacement.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace llvm;

namespace tilec {

namespace {
using InDim = LinearLayout::InDim;

/// A fixed fragment; its bases are constants of this file, so failing to
/// build it is a bug here, not a bad request.
LinearLayout fixed2D(std::vector<InDim> ins, int64_t rows, int64_t cols) {
  return cantFail(LinearLayout::create(
      std::move(ins), {{"dim0", int32_t(rows)}, {"dim1", int32_t(cols)}}));
}

/// Lane bits of the m16n8 fragments: threadID_in_group picks column pairs
/// (+2, +4), groupID picks rows (+1, +2, +4). `colDim` is the dimension
/// the pairs run along.
InDim quadLanes(int colDim) {
  auto along = [&](int dim, int32_t v) -> LinearLayout::Basis {
    return dim == 0 ? LinearLayout::Basis{v, 0} : LinearLayout::Basis{0, v};
  };
  int rowDim = 1 - colDim;
  return {"lane",
          {along(colDim, 2), along(colDim, 4), along(rowDim, 1),
           along(rowDim, 2), along(rowDim, 4)}};
}

/// The extent a layout of a tile dimension of `extent` covers: `extent`
/// itself when it is a power of two, else the next power of two (a tile
/// of 192 is laid out as 256, PaddedLayout.h). Either way a whole number
/// of `unit`s (the instruction times the warps along it), so that only
/// register repeats reach past the extent.
Expected<int64_t> paddedBlock(StringRef what, int64_t extent, int64_t unit) {
  if (extent < 1 || !isPowerOfTwo(unit) || extent % unit != 0)
    return makeLayoutError(Twine(what) + " of " + Twine(extent) +
                           " is not a multiple of " + Twine(unit));
  return int64_t(PowerOf2Ceil(uint64_t(extent)));
}

/// atom * warps * repeats over a blockM x blockN tile. Warp bits run over
/// warpsM (dim0) then warpsN (dim1); a warp dimension that does not own
/// distinct data (ownM/ownN false) is broadcast. A dimension that is not
/// a power of two is laid out over its padded extent.
Expected<LinearLayout> tileOverBlock(const LinearLayout &atom, int64_t blockM,
                                     int64_t blockN, int64_t warpsM,
                                     int64_t warpsN, bool ownM, bool ownN) {
  int64_t atomM = atom.getOutDimSize("dim0");
  int64_t atomN = atom.getOutDimSize("dim1");
  if (!isPowerOfTwo(warpsM) || !isPowerOfTwo(warpsN)) {
    Expected<WarpPlacement> placement = placeWarps(
        atomM, atomN, blockM, blockN, {warpsM, warpsN}, ownM, ownN);
    if (!placement)
      return placement.takeError();
    return detail::tileOverPlacedWarps(atom, blockM, blockN, *placement, ownM,
                                       ownN);
  }
  int64_t spanM = atomM * (ownM ? warpsM : 1);
  int64_t spanN = atomN * (ownN ? warpsN : 1);
  Expected<int64_t> paddedM = paddedBlock("tile dimension 0", blockM, spanM);
  if (!paddedM)
    return paddedM.takeError();
  Expected<int64_t> paddedN = paddedBlock("tile dimension 1", blockN, spanN);
  if (!paddedN)
    return paddedN.takeError();
  blockM = *paddedM;
  blockN = *paddedN;

  InDim warp{"warp", {}};
  for (int bit = 0; bit < log2Exact(warpsM); ++bit)
    warp.bases.push_back({ownM ? int32_t(1) << bit : 0, 0});
  for (int bit = 0; bit < log2Exact(warpsN); ++bit)
    warp.bases.push_back({0, ownN ? int32_t(1) << bit : 0});
  LinearLayout warps =
      fixed2D({std::move(warp)}, ownM ? warpsM : 1, ownN ? warpsN : 1);

  int repsMLog2 = log2Exact(blockM / spanM);
  int repsNLog2 = log2Exact(blockN / spanN);
  InDim reg{"register", {}};
  for (int bit = 0; bit < repsNLog2; ++bit)
    reg.bases.push_back({0, int32_t(1) << bit});
  for (int bit = 0; bit < repsMLog2; ++bit)
    reg.bases.push_back({int32_t(1) << bit, 0});
  LinearLayout repeats = fixed2D({std::move(reg)}, int64_t(1) << repsMLog2,
                                 int64_t(1) << repsNLog2);
  return product({atom, warps, repeats});
}
} // namespace

//===----------------------------------------------------------------------===//
// mma.sync m16n8k16
//===----------------------------------------------------------------------===//

LinearLayout mmaM16N8K16OperandA() {
  return fixed2D({{"register", {{0, 1}, {8, 0}, {0, 8}}}, quadLanes(1)}, 16,
                 16);
}

LinearLayout mmaM16N8K16OperandB() {
  return fixed2D({{"register", {{1, 0}, {8, 0}}}, quadLanes(0)}, 16, 8);
}

LinearLayout mmaM16N8K16Accumulator() {
  return fixed2D({{"register", {{0, 1}, {8, 0}}}, quadLanes(1)}, 16, 8);
}

Expected<LinearLayout> mmaAccumulatorLayout(int64_t blockM, int64_t blockN,
                                            WarpPartition warps) {
  return tileOverBlock(mmaM16N8K16Accumulator(), blockM, blockN, warps.warpsM,
                       warps.warpsN, true, true);
}

Expected<LinearLayout> mmaOperandALayout(int64_t blockM, int64_t blockK,
                                         WarpPartition warps) {
  return tileOverBlock(mmaM16N8K16OperandA(), blockM, blockK, warps.warpsM,
                       warps.warpsN, true, false);
}

Expected<LinearLayout> mmaOperandBLayout(int64_t blockK, int64_t blockN,
                                         WarpPartition warps) {
  return tileOverBlock(mmaM16N8K16OperandB(), blockK, blockN, warps.warpsM,
                       warps.warpsN, false, true);
}

Expected<LinearLayout> tileFragmentOverBlock(const LinearLayout &atom,
                                             int64_t blockM, int64_t blockN,
                                             WarpPartition warps, bool ownM,
                                             bool ownN) {
  return tileOverBlock(atom, blockM, blockN, warps.warpsM, warps.warpsN, ownM,
                       ownN);
}

//===----------------------------------------------------------------------===//
// Warp partition
//===----------------------------------------------------------------------===//

Expected<WarpPartition> computeWarpPartition(GemmWarpPolicy policy, int64_t m,
                                             int64_t n, int64_t numWarps,
                                             MmaKind kind) {
  constexpr int64_t kRowsPerWarp = 16, kColsPerWarp = 8, kGroup = 4;
  if (numWarps < 1 || m < 1 || n < 1 || m % kRowsPerWarp || n % kColsPerWarp)
    return makeLayoutError("cannot split a " + Twine(m) + "x" + Twine(n) +
                           " gemm over " + Twine(numWarps) +
                           " warps: m must be a multiple of 16 and n of 8");
  bool wgmma = kind == MmaKind::Wgmma;
  if (wgmma && numWarps % kGroup)
    return makeLayoutError("wgmma needs whole warpgroups, got " +
                           Twine(numWarps) + " warps");
  int64_t step = wgmma ? kGroup : 1;
  WarpPartition best{wgmma ? kGroup : 1, 1};
  best.warpsN = numWarps / best.warpsM;
  if (policy == GemmWarpPolicy::FullRow) {
    if (!wgmma) {
      best = {numWarps, 1};
      if (m % (numWarps * kRowsPerWarp)) {
        best.warpsM = m / kRowsPerWarp;
        best.warpsN = std::max<int64_t>(1, numWarps / best.warpsM);
      }
    } else {
      for (int64_t cand = numWarps; cand >= kGroup; cand -= kGroup)
        if (numWarps % cand == 0 && m % (cand * kRowsPerWarp) == 0) {
          best = {cand, numWarps / cand};
          break;
        }
    }
  } else if (policy == GemmWarpPolicy::FullCol) {
    if (!wgmma) {
      best = {1, numWarps};
      if (n % (numWarps * kColsPerWarp)) {
        best.warpsN = n / kColsPerWarp;
        best.warpsM = std::max<int64_t>(1, numWarps / best.warpsN);
      }
    } else if (n % (best.warpsN * kColsPerWarp)) {
      for (int64_t cand = std::min(best.warpsN, n / kColsPerWarp); cand >= 1;
           --cand)
        if (numWarps % cand == 0 && (numWarps / cand) % kGroup == 0) {
          best = {numWarps / cand, cand};
          break;
        }
    }
  } else {
    // Square: per-warp tile closest to the block's aspect ratio.
    double ideal = double(m) / double(n);
    double bestScore = std::numeric_limits<double>::max();
    bool found = false;
    for (int64_t cand = step; cand <= numWarps && cand <= m / kRowsPerWarp;
         cand += step) {
      if (numWarps % cand)
        continue;
      int64_t other = numWarps / cand;
      double rowsPer = double(m) / double(cand * kRowsPerWarp);
      double colsPer = double(n) / double(other * kColsPerWarp);
      if (rowsPer < 1 || colsPer < 1)
        continue;
      // With a warp count that is not a power of two (12), only splits
      // into whole 16 x 8 parts per warp: TileLang's search would take
      // 4 x 3 warps over a 192 x 256 wgmma tile, 85.3 columns a warpgroup,
      // and then fail to lay it out; tilec takes the best split it can.
      if (!isPowerOfTwo(numWarps) &&
          (m % (cand * kRowsPerWarp) || n % (other * kColsPerWarp)))
        continue;
      double score = std::fabs(rowsPer / colsPer - ideal);
      if (score < bestScore) {
        bestScore = score;
        best = {cand, other};
        found = true;
      }
    }
    // wgmma keeps one warpgroup along M when nothing fits, as TileLang does.
    if (!found && !wgmma)
      return makeLayoutError("no square-ish split of a " + Twine(m) + "x" +
                             Twine(n) + " gemm over " + Twine(numWarps) +
                             " warps");
  }
  if (best.warpsM * best.warpsN != numWarps)
    return makeLayoutError("cannot split a " + Twine(m) + "x" + Twine(n) +
                           " gemm over " + Twine(numWarps) + " warps: got " +
                           Twine(best.warpsM) + "x" + Twine(best.warpsN));
  return best;
}

//===----------------------------------------------------------------------===//
// ldmatrix
//===----------------------------------------------------------------------===//

Expected<LinearLayout> ldmatrixAddressLayout(int numMatrices) {
  if (numMatrices != 1 && numMatrices != 2 && numMatrices != 4)
    return makeLayoutError("ldmatrix loads 1, 2 or 4 matrices, not " +
                           Twine(numMatrices));
  int matrixBits = log2Exact(numMatrices);
  InDim lane{"lane", {{0, 1}, {0, 2}, {0, 4}}};
  for (int bit = 0; bit < 2; ++bit)
    lane.bases.push_back({bit < matrixBits ? int32_t(1) << bit : 0, 0});
  return LinearLayout::create({std::move(lane)},
                              {{"matrix", numMatrices}, {"row", 8}});
}

Expected<LinearLayout> ldmatrixResultLayout(int numMatrices, bool trans) {
  if (numMatrices != 1 && numMatrices != 2 && numMatrices != 4)
    return makeLayoutError("ldmatrix loads 1, 2 or 4 matrices, not " +
                           Twine(numMatrices));
  // Outputs (matrix, row, col). A lane's pair of elements runs along the
  // stored row without .trans and down the stored column with it.
  LinearLayout::Basis pairStep =
      trans ? LinearLayout::Basis{0, 1, 0} : LinearLayout::Basis{0, 0, 1};
  InDim reg{"register", {pairStep}};
  for (int bit = 0; bit < log2Exact(numMatrices); ++bit)
    reg.bases.push_back({int32_t(1) << bit, 0, 0});
  InDim lane{"lane", {}};
  for (int32_t v : {2, 4})
    lane.bases.push_back(trans ? LinearLayout::Basis{0, v, 0}
                               : LinearLayout::Basis{0, 0, v});
  for (int32_t v : {1, 2, 4})
    lane.bases.push_back(trans ? LinearLayout::Basis{0, 0, v}
                               : LinearLayout::Basis{0, v, 0});
  return LinearLayout::create(
      {std::move(reg), std::move(lane)},
      {{"matrix", numMatrices}, {"row", 8}, {"col", 8}});
}

namespace {
/// The plan of one ldmatrix of `numMatrices` (4: a 16x16 block; 2: the
/// 16x8 block of one B operand) whose 8x8 matrices sit in the block where
/// `matrixBases` puts them, in the order the mma fragment's registers want
/// them.
Expected<LdmatrixPlan>
ldmatrixPlan(MmaOperand operand, int contiguousDim, int numMatrices,
             std::vector<LinearLayout::Basis> matrixBases, int64_t rows,
             int64_t cols) {
  if (contiguousDim != 0 && contiguousDim != 1)
    return makeLayoutError("contiguous dimension must be 0 or 1, got " +
                           Twine(contiguousDim));
  int kDim = operand == MmaOperand::A ? 1 : 0;
  int rowDim = 1 - contiguousDim;
  auto along = [](int dim, int32_t v) -> LinearLayout::Basis {
    return dim == 0 ? LinearLayout::Basis{v, 0} : LinearLayout::Basis{0, v};
  };
  LinearLayout tile =
      fixed2D({{"matrix", std::move(matrixBases)},
               {"row", {along(rowDim, 1), along(rowDim, 2), along(rowDim, 4)}},
               {"col",
                {along(contiguousDim, 1), along(contiguousDim, 2),
                 along(contiguousDim, 4)}}},
              rows, cols);
  LdmatrixPlan plan;
  plan.trans = contiguousDim != kDim;
  Expected<LinearLayout> address = ldmatrixAddressLayout(numMatrices);
  if (!address)
    return address.takeError();
  Expected<LinearLayout> rowStart = address->compose(tile);
  if (!rowStart)
    return rowStart.takeError();
  Expected<LinearLayout> result = ldmatrixResultLayout(numMatrices, plan.trans);
  if (!result)
    return result.takeError();
  Expected<LinearLayout> fragment = result->compose(tile);
  if (!fragment)
    return fragment.takeError();
  plan.rowStart = std::move(*rowStart);
  plan.fragment = std::move(*fragment);
  return plan;
}
} // namespace

Expected<LdmatrixPlan> ldmatrixX4(MmaOperand operand, int contiguousDim) {
  // A: a0a1, a2a3, a4a5, a6a7 are (m, k) blocks (0, 0), (8, 0), (0, 8),
  // (8, 8); B: (k, n) blocks (0, 0), (8, 0) of the first n8 operand, then
  // those of the second.
  return ldmatrixPlan(operand, contiguousDim, 4, {{8, 0}, {0, 8}}, 16, 16);
}

Expected<LdmatrixPlan> ldmatrixX2(MmaOperand operand, int contiguousDim) {
  if (operand != MmaOperand::B)
    return makeLayoutError("ldmatrix.x2 loads one k16 x n8 B operand; the "
                           "m16 x k16 A operand needs ldmatrix.x4");
  // b0b1 are rows k 0..7, b2b3 rows k 8..15.
  return ldmatrixPlan(operand, contiguousDim, 2, {{8, 0}}, 16, 8);
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

Expected<LinearLayout> wgmmaAccumulatorLayout(int64_t n) {
  if (!isPowerOfTwo(n) || n < 8 || n > 256)
    return makeLayoutError("wgmma m64nNk16 accumulator needs N a power of "
                           "two in [8, 256], got " +
                           Twine(n));
  InDim reg{"register", {{0, 1}, {8, 0}}};
  for (int64_t col = 8; col < n; col *= 2)
    reg.bases.push_back({0, int32_t(col)});
  InDim warp{"warp", {{16, 0}, {32, 0}}};
  return LinearLayout::create({std::move(reg), quadLanes(1), std::move(warp)},
                              {{"dim0", 64}, {"dim1", int32_t(n)}});
}

Expected<LinearLayout> wgmmaTiledAccumulatorLayout(int64_t blockM,
                                                   int64_t blockN,
                                                   WarpPartition warps,
                                                   int64_t instrN) {
  if (warps.warpsM < 4 || warps.warpsM % 4)
    return makeLayoutError("wgmma needs warpsM a multiple of 4, got " +
                           Twine(warps.warpsM));
  Expected<LinearLayout> atom = wgmmaAccumulatorLayout(instrN);
  if (!atom)
    return atom.takeError();
  return tileOverBlock(*atom, blockM, blockN, warps.warpsM / 4, warps.warpsN,
                       true, true);
}

Expected<LinearLayout> wgmmaRegisterOperandALayout(int64_t blockM,
                                                   int64_t blockK,
                                                   WarpPartition warps) {
  if (warps.warpsM < 4 || warps.warpsM % 4)
    return makeLayoutError("wgmma needs warpsM a multiple of 4, got " +
                           Twine(warps.warpsM));
  Expected<LinearLayout> atom = wgmmaAccumulatorLayout(blockK);
  if (!atom)
    return atom.takeError();
  return tileOverBlock(*atom, blockM, blockK, warps.warpsM / 4, warps.warpsN,
                       /*ownM=*/true, /*ownN=*/false);
}

} // namespace tilec
