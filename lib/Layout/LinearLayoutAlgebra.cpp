//===- LinearLayoutAlgebra.cpp - Composition, inverses, rank -------------===//
//
// The GF(2) half of LinearLayout. Every algorithm reduces the layout's
// columns (one flat output value per input bit) into an XOR basis that
// remembers which inputs built each vector (GF2.h): rank is its size,
// a free bit is a column that did not enter it, and a preimage is a solve.
//
//===----------------------------------------------------------------------===//

#include "GF2.h"
#include "tilec/Layout/LinearLayout.h"

using namespace llvm;

namespace tilec {

namespace {
/// The basis of a layout's columns, each tagged with its own input bit, so
/// a solve returns a flat input index.
gf2::XorBasis reduceColumns(ArrayRef<uint64_t> columns) {
  gf2::XorBasis basis;
  for (auto [bit, column] : llvm::enumerate(columns))
    basis.insert(column, uint64_t(1) << bit);
  return basis;
}
} // namespace

int LinearLayout::getRank() const {
  return reduceColumns(getFlatColumns()).rank();
}

SmallVector<LinearLayout::NamedValue> LinearLayout::getFreeBitMasks() const {
  SmallVector<NamedValue> masks;
  gf2::XorBasis basis;
  SmallVector<uint64_t> columns = getFlatColumns();
  size_t column = 0;
  for (const InDim &in : inDims) {
    int32_t mask = 0;
    for (size_t bit = 0; bit < in.bases.size(); ++bit, ++column)
      if (!basis.insert(columns[column], uint64_t(1) << column))
        mask |= int32_t(1) << bit;
    masks.push_back({in.name, mask});
  }
  return masks;
}

Expected<LinearLayout> LinearLayout::compose(const LinearLayout &outer) const {
  SmallVector<int> outerIndex;
  for (const OutDim &out : outDims) {
    int index = outer.inIndex(out.name);
    if (index < 0) {
      // A size-1 output carries no bits, so it needs no matching input.
      if (out.log2Size == 0) {
        outerIndex.push_back(-1);
        continue;
      }
      return makeLayoutError("cannot compose: output `" + out.name +
                             "` is not an input of the outer layout");
    }
    if (size_t(out.log2Size) > outer.inDims[index].bases.size())
      return makeLayoutError(
          "cannot compose: output `" + out.name + "` has size " +
          Twine(int64_t(1) << out.log2Size) + " but the outer input has " +
          Twine(int64_t(1) << outer.inDims[index].bases.size()));
    outerIndex.push_back(index);
  }

  std::vector<InDim> ins;
  for (const InDim &in : inDims) {
    InDim dim{in.name, {}};
    for (const Basis &basis : in.bases) {
      Basis image(outer.outDims.size(), 0);
      for (auto [value, index] : llvm::zip(basis, outerIndex)) {
        if (index < 0)
          continue;
        for (auto [bit, outerBasis] :
             llvm::enumerate(outer.inDims[index].bases))
          if ((value >> bit) & 1)
            for (size_t o = 0; o < image.size(); ++o)
              image[o] ^= outerBasis[o];
      }
      dim.bases.push_back(std::move(image));
    }
    ins.push_back(std::move(dim));
  }
  return build(std::move(ins), outer.outDims);
}

Expected<LinearLayout> LinearLayout::pseudoInvert() const {
  SmallVector<uint64_t> columns = getFlatColumns();
  gf2::XorBasis basis = reduceColumns(columns);
  if (basis.rank() != getTotalOutBits())
    return makeLayoutError(
        "layout is not surjective: rank " + Twine(basis.rank()) + " of " +
        Twine(getTotalOutBits()) + " output bits\n" + toString());
  SmallVector<uint64_t> inverse;
  for (int bit = 0; bit < getTotalOutBits(); ++bit)
    inverse.push_back(*basis.solve(uint64_t(1) << bit));
  return fromFlatColumns(outSizes(), inSizes(), inverse);
}

Expected<LinearLayout> LinearLayout::invert() const {
  if (getTotalInBits() != getTotalOutBits() || !isInjective())
    return makeLayoutError(
        "layout is not bijective: " + Twine(getTotalInBits()) +
        " input bits, " + Twine(getTotalOutBits()) + " output bits, rank " +
        Twine(getRank()) + "\n" + toString());
  return pseudoInvert();
}

Expected<LinearLayout>
LinearLayout::invertAndCompose(const LinearLayout &target) const {
  // Where each of this layout's outputs sits in target's flat output space.
  SmallVector<int> shift;
  for (const OutDim &out : outDims) {
    if (out.log2Size == 0) {
      shift.push_back(0);
      continue;
    }
    int index = target.outIndex(out.name);
    if (index < 0)
      return makeLayoutError("cannot invert and compose: output `" + out.name +
                             "` is not an output of the target");
    if (out.log2Size > target.outDims[index].log2Size)
      return makeLayoutError(
          "cannot invert and compose: output `" + out.name + "` has size " +
          Twine(int64_t(1) << out.log2Size) + " but the target's has " +
          Twine(int64_t(1) << target.outDims[index].log2Size));
    int offset = 0;
    for (int i = 0; i < index; ++i)
      offset += target.outDims[i].log2Size;
    shift.push_back(offset);
  }

  gf2::XorBasis basis = reduceColumns(target.getFlatColumns());
  SmallVector<uint64_t> columns;
  for (const InDim &in : inDims) {
    for (auto [bit, image] : llvm::enumerate(in.bases)) {
      uint64_t flat = 0;
      for (auto [value, offset] : llvm::zip(image, shift))
        flat |= uint64_t(value) << offset;
      std::optional<uint64_t> preimage = basis.solve(flat);
      if (!preimage)
        return makeLayoutError("cannot invert and compose: the image of `" +
                               in.name + "` bit " + Twine(bit) +
                               " is not an output of the target");
      columns.push_back(*preimage);
    }
  }
  return fromFlatColumns(inSizes(), target.inSizes(), columns);
}

} // namespace tilec
