//===- BlockedLayout.cpp - Layouts of elementwise loops and copies -------===//
//
// Built in the flat row-major index space, where the layout is just "which
// bit of the element index each register/lane/warp bit is", then reshaped
// into the tile's dimensions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/BlockedLayout.h"
#include "tilec/Layout/AffineLayout.h"
#include "tilec/Layout/PaddedLayout.h"

using namespace llvm;

namespace tilec {

Expected<LinearLayout> blockedLayout(ArrayRef<int64_t> shape, int64_t vec,
                                     int64_t numThreads, int64_t warpSize) {
  if (shape.empty())
    return makeLayoutError("blocked layout of a rank-0 tile");
  // A tile whose extent is not a power of two is laid out as its padded
  // tile (PaddedLayout.h), with the padding in whole registers: of the bits
  // of a coordinate of extent E, only those below E's lowest set bit may
  // go to the vector, lanes or warps (then a thread's part of the
  // coordinate stays below that power of two, which divides E, and
  // whether an element lies inside depends on its register alone); the
  // higher bits are iterations. A power-of-two extent is all low bits.
  SmallVector<int64_t> padded = paddedShape(shape);
  int elemBits = 0;
  SmallVector<int> threadable; // flat bits lanes and warps may take
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] < 1)
      return makeLayoutError("blocked layout needs positive extents, got " +
                             Twine(shape[d]));
    int bits = log2Exact(padded[d]);
    int low = countr_zero(uint64_t(shape[d]));
    for (int b = 0; b < bits; ++b)
      if (b < low)
        threadable.push_back(elemBits + b);
    elemBits += bits;
  }
  if (elemBits > 30)
    return makeLayoutError("blocked layout of 2^" + Twine(elemBits) +
                           " elements is too large");
  if (!isPowerOfTwo(vec) || shape.back() % vec != 0)
    return makeLayoutError("vector width " + Twine(vec) +
                           " does not divide the innermost extent " +
                           Twine(shape.back()));
  if (!isPowerOfTwo(numThreads) || !isPowerOfTwo(warpSize))
    return makeLayoutError("blocked layout needs power-of-two thread counts, "
                           "got " +
                           Twine(numThreads) + " threads, warps of " +
                           Twine(warpSize));
  int64_t lanes = std::min(numThreads, warpSize);
  int64_t warps = numThreads / lanes;

  // Element-index bits in order: vector, lanes, warps (the threadable
  // bits, lowest first; a thread bit past them holds copies), then
  // iterations (every bit left, lowest first). vec divides the innermost
  // extent, so its bits are that dimension's lowest, all threadable.
  size_t next = 0;
  SmallVector<bool> used(elemBits, false);
  auto take = [&](int count, SmallVector<uint64_t> &columns) {
    for (int i = 0; i < count; ++i, ++next) {
      if (next >= threadable.size()) {
        columns.push_back(0);
        continue;
      }
      used[threadable[next]] = true;
      columns.push_back(uint64_t(1) << threadable[next]);
    }
  };
  SmallVector<uint64_t> vecCols, laneCols, warpCols, iterCols;
  take(log2Exact(vec), vecCols);
  take(log2Exact(lanes), laneCols);
  take(log2Exact(warps), warpCols);
  for (int bit = 0; bit < elemBits; ++bit)
    if (!used[bit])
      iterCols.push_back(uint64_t(1) << bit);

  SmallVector<uint64_t> columns(vecCols);
  columns.append(iterCols);
  columns.append(laneCols);
  columns.append(warpCols);
  int64_t registers = int64_t(1) << (vecCols.size() + iterCols.size());
  Expected<LinearLayout> flat = LinearLayout::fromFlatColumns(
      {{"register", int32_t(registers)},
       {"lane", int32_t(lanes)},
       {"warp", int32_t(warps)}},
      {{"flat", int32_t(1) << elemBits}}, columns);
  if (!flat)
    return flat.takeError();

  // Row-major: the last dimension is the least significant.
  SmallVector<LinearLayout::NamedSize> minorFirst;
  SmallVector<std::string> names;
  for (size_t i = shape.size(); i-- > 0;)
    minorFirst.push_back({tensorDimName(i), int32_t(padded[i])});
  for (size_t i = 0; i < shape.size(); ++i)
    names.push_back(tensorDimName(i));
  Expected<LinearLayout> split = flat->reshapeOuts(minorFirst);
  if (!split)
    return split.takeError();
  return split->transposeOuts(names);
}

} // namespace tilec
