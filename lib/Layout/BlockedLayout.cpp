//===- BlockedLayout.cpp - Layouts of elementwise loops and copies -------===//
//
// Built in the flat row-major index space, where the layout is just "which
// bit of the element index each register/lane/warp bit is", then reshaped
// into the tile's dimensions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/BlockedLayout.h"
#include "tilec/Layout/AffineLayout.h"

using namespace llvm;

namespace tilec {

Expected<LinearLayout> blockedLayout(ArrayRef<int64_t> shape, int64_t vec,
                                     int64_t numThreads, int64_t warpSize) {
  if (shape.empty())
    return makeLayoutError("blocked layout of a rank-0 tile");
  int elemBits = 0;
  for (int64_t extent : shape) {
    if (!isPowerOfTwo(extent))
      return makeLayoutError("blocked layout needs power-of-two extents, got " +
                             Twine(extent));
    elemBits += log2Exact(extent);
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

  // Element-index bits in order: vector, lanes, warps, then iterations.
  int next = 0;
  auto take = [&](int count, SmallVector<uint64_t> &columns) {
    for (int i = 0; i < count; ++i, ++next)
      columns.push_back(next < elemBits ? uint64_t(1) << next : 0);
  };
  SmallVector<uint64_t> vecCols, laneCols, warpCols, iterCols;
  take(log2Exact(vec), vecCols);
  take(log2Exact(lanes), laneCols);
  take(log2Exact(warps), warpCols);
  take(std::max(0, elemBits - next), iterCols);

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
    minorFirst.push_back({tensorDimName(i), int32_t(shape[i])});
  for (size_t i = 0; i < shape.size(); ++i)
    names.push_back(tensorDimName(i));
  Expected<LinearLayout> split = flat->reshapeOuts(minorFirst);
  if (!split)
    return split.takeError();
  return split->transposeOuts(names);
}

} // namespace tilec
