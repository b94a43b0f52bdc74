//===- PaddedLayout.cpp - Linear layouts of non-power-of-two tiles --------===//
//
// Which registers of a padded layout hold elements of the real tile. The
// check is exhaustive (every register against every thread's part), as
// the SIMT tables are: fragments have at most a few thousand registers x
// 1024 threads, and a register that is inside on some threads only must be
// named, not guessed.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/PaddedLayout.h"

#include "tilec/Layout/AffineLayout.h"

#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace tilec {

SmallVector<int64_t> paddedShape(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> padded;
  for (int64_t extent : shape)
    padded.push_back(extent < 1 ? extent : int64_t(PowerOf2Ceil(extent)));
  return padded;
}

Expected<std::vector<int32_t>> registersWithin(const LinearLayout &layout,
                                               ArrayRef<int64_t> shape) {
  SmallVector<int64_t> padded = paddedShape(shape);
  size_t rank = shape.size();
  // Position of each tile dimension among the outputs (-1: size 1).
  SmallVector<int> outPos(rank, -1);
  for (auto [pos, out] : enumerate(layout.getOutDims())) {
    int found = -1;
    for (size_t d = 0; d < rank; ++d)
      if (out.name == tensorDimName(d))
        found = int(d);
    if (found < 0 || (int64_t(1) << out.log2Size) != padded[found])
      return makeLayoutError("layout output `" + out.name + "` of size " +
                             Twine(int64_t(1) << out.log2Size) +
                             " is not a padded extent of the tile");
    outPos[found] = int(pos);
  }
  for (size_t d = 0; d < rank; ++d)
    if (outPos[d] < 0 && padded[d] != 1)
      return makeLayoutError("layout has no output `" + tensorDimName(d) +
                             "` for an extent of " + Twine(shape[d]));

  // Register and thread parts as coordinate vectors, bit by bit.
  using Coord = SmallVector<int64_t, 4>;
  auto coordOf = [&](const LinearLayout::Basis &basis) {
    Coord c(rank, 0);
    for (size_t d = 0; d < rank; ++d)
      if (outPos[d] >= 0)
        c[d] = basis[outPos[d]];
    return c;
  };
  std::vector<Coord> regBases, threadBases;
  for (const LinearLayout::InDim &in : layout.getInDims())
    for (const LinearLayout::Basis &basis : in.bases)
      (in.name == "register" ? regBases : threadBases)
          .push_back(coordOf(basis));
  if (regBases.size() + threadBases.size() > 24)
    return makeLayoutError("layout with 2^" +
                           Twine(regBases.size() + threadBases.size()) +
                           " register-thread pairs is too large to check");
  auto span = [&](const std::vector<Coord> &bases) {
    std::vector<Coord> values(size_t(1) << bases.size(), Coord(rank, 0));
    for (size_t i = 1; i < values.size(); ++i) {
      const Coord &lower = values[i & (i - 1)];
      const Coord &bit = bases[countr_zero(i)];
      for (size_t d = 0; d < rank; ++d)
        values[i][d] = lower[d] ^ bit[d];
    }
    return values;
  };
  std::vector<Coord> regs = span(regBases), threads = span(threadBases);

  std::vector<int32_t> kept;
  for (auto [r, reg] : enumerate(regs)) {
    size_t inside = 0;
    for (const Coord &thread : threads) {
      bool in = true;
      for (size_t d = 0; d < rank && in; ++d)
        in = (reg[d] ^ thread[d]) < shape[d];
      inside += in;
    }
    if (inside == threads.size())
      kept.push_back(int32_t(r));
    else if (inside != 0)
      return makeLayoutError(
          "register " + Twine(r) + " holds an element of the tile on " +
          Twine(inside) + " of " + Twine(threads.size()) +
          " threads only: the part past the tile's extent is not whole "
          "registers");
  }
  return kept;
}

} // namespace tilec
