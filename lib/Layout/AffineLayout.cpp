//===- AffineLayout.cpp - Shape/stride layouts ---------------------------===//
//
// Padded and general row-major layouts, and the two bridges to the GF(2)
// world: toLinear (no carries, so OR = XOR = +) and composeLinear (a linear
// map whose bases along each output never share a bit, so its XOR is a
// sum and the composite stays affine in the input bits).
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/AffineLayout.h"

using namespace llvm;

namespace tilec {

std::string tensorDimName(size_t index) {
  return "dim" + std::to_string(index);
}

Expected<AffineLayout> AffineLayout::create(ArrayRef<int64_t> shape,
                                            ArrayRef<int64_t> stride) {
  if (shape.size() != stride.size())
    return makeLayoutError("shape has rank " + Twine(shape.size()) +
                           " but stride has rank " + Twine(stride.size()));
  for (auto [index, extent] : llvm::enumerate(shape))
    if (extent < 1 || stride[index] < 0)
      return makeLayoutError("dimension " + Twine(index) + " has extent " +
                             Twine(extent) + " and stride " +
                             Twine(stride[index]));
  AffineLayout layout;
  layout.shape.assign(shape.begin(), shape.end());
  layout.stride.assign(stride.begin(), stride.end());
  return layout;
}

Expected<AffineLayout> AffineLayout::rowMajor(ArrayRef<int64_t> shape) {
  return padded(shape, 0);
}

Expected<AffineLayout> AffineLayout::padded(ArrayRef<int64_t> shape,
                                            int64_t pad) {
  if (pad < 0 || (pad > 0 && shape.size() < 2))
    return makeLayoutError(
        "padding " + Twine(pad) +
        " needs a non-negative pad and rank >= 2, got rank " +
        Twine(shape.size()));
  SmallVector<int64_t> stride(shape.size(), 1);
  int64_t next = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] < 1)
      return makeLayoutError("dimension " + Twine(i) + " has extent " +
                             Twine(shape[i]));
    stride[i] = next;
    next *= shape[i];
    if (i + 1 == shape.size())
      next += pad;
  }
  return create(shape, stride);
}

int64_t AffineLayout::getSize() const {
  int64_t size = 1;
  for (int64_t extent : shape)
    size *= extent;
  return size;
}

int64_t AffineLayout::getCosize() const {
  int64_t last = 0;
  for (auto [extent, step] : llvm::zip(shape, stride))
    last += (extent - 1) * step;
  return last + 1;
}

Expected<int64_t> AffineLayout::offset(ArrayRef<int64_t> coord) const {
  if (coord.size() != shape.size())
    return makeLayoutError("coordinate of rank " + Twine(coord.size()) +
                           " for a layout of rank " + Twine(shape.size()));
  int64_t result = 0;
  for (auto [index, value] : llvm::enumerate(coord)) {
    if (value < 0 || value >= shape[index])
      return makeLayoutError("coordinate " + Twine(value) +
                             " is outside dimension " + Twine(index) +
                             " of extent " + Twine(shape[index]));
    result += value * stride[index];
  }
  return result;
}

Expected<LinearLayout> AffineLayout::toLinear(StringRef outName) const {
  uint64_t used = 0;
  std::vector<LinearLayout::InDim> ins;
  for (auto [index, extent] : llvm::enumerate(shape)) {
    int64_t step = stride[index];
    if (!isPowerOfTwo(extent) || (step != 0 && !isPowerOfTwo(step)))
      return makeLayoutError("affine layout " + toString() +
                             " is not linear: dimension " + Twine(index) +
                             " has extent " + Twine(extent) + " and stride " +
                             Twine(step));
    LinearLayout::InDim in{tensorDimName(index), {}};
    for (int bit = 0; bit < log2Exact(extent); ++bit) {
      int64_t value = step << bit;
      if (value != 0 && (used & uint64_t(value)))
        return makeLayoutError("affine layout " + toString() +
                               " is not linear: dimension " + Twine(index) +
                               " overlaps another");
      used |= uint64_t(value);
      if (value > INT32_MAX)
        return makeLayoutError("affine layout " + toString() + " is too large");
      in.bases.push_back({int32_t(value)});
    }
    ins.push_back(std::move(in));
  }
  return LinearLayout::createInferred(std::move(ins), {outName.str()});
}

Expected<AffineLayout>
AffineLayout::composeLinear(const LinearLayout &inner) const {
  SmallVector<int> dimOf;
  for (const LinearLayout::OutDim &out : inner.getOutDims()) {
    int dim = -1;
    for (size_t i = 0; i < shape.size(); ++i)
      if (out.name == tensorDimName(i))
        dim = int(i);
    if (dim < 0)
      return makeLayoutError("cannot compose: output `" + out.name +
                             "` is not a dimension of " + toString());
    if ((int64_t(1) << out.log2Size) > shape[dim])
      return makeLayoutError("cannot compose: output `" + out.name +
                             "` has size " + Twine(int64_t(1) << out.log2Size) +
                             " but the dimension has extent " +
                             Twine(shape[dim]));
    dimOf.push_back(dim);
  }
  SmallVector<int64_t> modeShape, modeStride;
  SmallVector<int32_t> usedBits(dimOf.size(), 0);
  for (const LinearLayout::InDim &in : inner.getInDims()) {
    for (auto [bit, basis] : llvm::enumerate(in.bases)) {
      int64_t step = 0;
      for (auto [o, value] : llvm::enumerate(basis)) {
        if (usedBits[o] & value)
          return makeLayoutError("cannot compose: bit " + Twine(bit) + " of `" +
                                 in.name +
                                 "` carries into earlier bits along `" +
                                 inner.getOutDims()[o].name + "`");
        usedBits[o] |= value;
        step += int64_t(value) * stride[dimOf[o]];
      }
      modeShape.push_back(2);
      modeStride.push_back(step);
    }
  }
  return create(modeShape, modeStride);
}

std::string AffineLayout::toString() const {
  std::string text;
  raw_string_ostream os(text);
  auto list = [&](ArrayRef<int64_t> values) {
    os << "(";
    for (auto [index, value] : llvm::enumerate(values))
      os << (index ? "," : "") << value;
    os << ")";
  };
  list(shape);
  os << ":";
  list(stride);
  return text;
}

} // namespace tilec
