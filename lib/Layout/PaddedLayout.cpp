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

#include <string>

using namespace llvm;

namespace tilec {

SmallVector<int64_t> paddedShape(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> padded;
  for (int64_t extent : shape)
    padded.push_back(extent < 1 ? extent : int64_t(PowerOf2Ceil(extent)));
  return padded;
}

Expected<std::vector<int32_t>> registersWithin(const LinearLayout &layout,
                                               ArrayRef<int64_t> shape,
                                               int64_t threads) {
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
  std::vector<Coord> regs = span(regBases), all = span(threadBases);
  if (threads < 0 || threads > int64_t(all.size()))
    return makeLayoutError("a layout over " + Twine(all.size()) +
                           " threads cannot describe " + Twine(threads));
  // Only the real threads (the first `threads`) are checked; the phantom
  // ones past them do not run.
  ArrayRef<Coord> real(all.data(), threads ? size_t(threads) : all.size());
  auto inside = [&](const Coord &reg, const Coord &thread) {
    for (size_t d = 0; d < rank; ++d)
      if ((reg[d] ^ thread[d]) >= shape[d])
        return false;
    return true;
  };

  std::vector<int32_t> kept;
  for (auto [r, reg] : enumerate(regs)) {
    size_t count = 0;
    for (const Coord &thread : real)
      count += inside(reg, thread);
    if (count == real.size())
      kept.push_back(int32_t(r));
    else if (count != 0)
      return makeLayoutError(
          "register " + Twine(r) + " holds an element of the tile on " +
          Twine(count) + " of " + Twine(real.size()) +
          " threads only: the part past the tile's extent is not whole "
          "registers");
  }
  if (real.size() == all.size())
    return kept; // a surjective layout covers the padded tile
  // With phantom threads: every element must be held by a real thread.
  int64_t elements = 1;
  for (int64_t extent : padded)
    elements *= extent;
  auto flat = [&](const Coord &c) {
    int64_t f = 0;
    for (size_t d = 0; d < rank; ++d)
      f = f * padded[d] + c[d];
    return f;
  };
  std::vector<bool> held(size_t(elements), false);
  for (int32_t r : kept)
    for (const Coord &thread : real) {
      Coord e(rank);
      for (size_t d = 0; d < rank; ++d)
        e[d] = regs[r][d] ^ thread[d];
      held[size_t(flat(e))] = true;
    }
  for (size_t t = real.size(); t < all.size(); ++t)
    for (const Coord &reg : regs) {
      if (!inside(reg, all[t]))
        continue;
      Coord e(rank);
      for (size_t d = 0; d < rank; ++d)
        e[d] = reg[d] ^ all[t][d];
      if (held[size_t(flat(e))])
        continue;
      std::string at;
      for (size_t d = 0; d < rank; ++d)
        at += (d ? ", " : "") + std::to_string(e[d]);
      return makeLayoutError("element (" + Twine(at) + ") is held by thread " +
                             Twine(t) + " only, past the block's " +
                             Twine(threads) + " threads");
    }
  return kept;
}

} // namespace tilec
