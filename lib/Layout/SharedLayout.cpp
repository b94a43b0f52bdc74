//===- SharedLayout.cpp - Row-major, padded and swizzled tiles -----------===//
//
// Shared memory has 32 banks of 4 bytes, so a 128-byte line touches every
// bank once and a 16-byte chunk covers 4 banks. Rows that are a multiple of
// 128 bytes start on bank 0, so 8 rows read at the same column hit the same
// 4 banks 8 times. The swizzles here XOR the chunk index with the row bits
// that pick the chunk's position in its 128-byte line, which turns the
// column of 8 chunks into a permutation of the 8 bank groups.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/SharedLayout.h"

using namespace llvm;

namespace tilec {

StringRef stringifySwizzleMode(SwizzleMode mode) {
  switch (mode) {
  case SwizzleMode::None:
    return "none";
  case SwizzleMode::Bytes32:
    return "32B";
  case SwizzleMode::Bytes64:
    return "64B";
  case SwizzleMode::Bytes128:
    return "128B";
  }
  return "none";
}

int64_t swizzleBytes(SwizzleMode mode) {
  return mode == SwizzleMode::None ? 0 : int64_t(16) << int(mode);
}

int64_t atomSwizzledOffset(int64_t rows, int64_t cols,
                           const XorSwizzle &swizzle, int64_t atom, int64_t r,
                           int64_t c) {
  if (!atom)
    return swizzle.apply(r * cols + c);
  return (c / atom) * rows * atom + swizzle.apply(r * atom + c % atom);
}

int64_t XorSwizzle::apply(int64_t offset) const {
  int64_t mask = ((int64_t(1) << bits) - 1) << base;
  return offset ^ ((offset >> shift) & mask);
}

Expected<LinearLayout> XorSwizzle::toLinear(int32_t log2Size) const {
  if (bits < 0 || base < 0 || shift < bits ||
      (bits > 0 && base + shift + bits > log2Size))
    return makeLayoutError("swizzle<" + Twine(bits) + "," + Twine(base) + "," +
                           Twine(shift) + "> does not fit 2^" +
                           Twine(log2Size) + " elements");
  LinearLayout::InDim in{"offset", {}};
  for (int bit = 0; bit < log2Size; ++bit) {
    int32_t image = int32_t(1) << bit;
    if (bit >= base + shift && bit < base + shift + bits)
      image |= int32_t(1) << (bit - shift);
    in.bases.push_back({image});
  }
  return LinearLayout::create({std::move(in)},
                              {{"offset", int32_t(1) << log2Size}});
}

namespace {
Error checkElemBytes(int64_t elemBytes) {
  if (!isPowerOfTwo(elemBytes) || elemBytes > 16)
    return makeLayoutError("element width " + Twine(elemBytes) +
                           " bytes is not 1, 2, 4, 8 or 16");
  return Error::success();
}

/// offset -> (dim0, dim1) for a row-major rows x cols tile.
Expected<LinearLayout> rowMajorLinear(int64_t rows, int64_t cols) {
  Expected<LinearLayout> inner =
      LinearLayout::identity1D(cols, "offset", "dim1");
  if (!inner)
    return inner.takeError();
  Expected<LinearLayout> outer =
      LinearLayout::identity1D(rows, "offset", "dim0");
  if (!outer)
    return outer.takeError();
  Expected<LinearLayout> both = *inner * *outer;
  if (!both)
    return both.takeError();
  return both->transposeOuts({"dim0", "dim1"});
}
} // namespace

Expected<SharedLayout> SharedLayout::fromAffine(const AffineLayout &layout,
                                                int64_t elemBytes) {
  if (Error err = checkElemBytes(elemBytes))
    return std::move(err);
  SharedLayout shared;
  shared.shape.assign(layout.getShape().begin(), layout.getShape().end());
  shared.elemBytes = elemBytes;
  shared.affine = layout;
  return shared;
}

Expected<SharedLayout> SharedLayout::rowMajor(ArrayRef<int64_t> shape,
                                              int64_t elemBytes) {
  return padded(shape, elemBytes, 0);
}

Expected<SharedLayout> SharedLayout::padded(ArrayRef<int64_t> shape,
                                            int64_t elemBytes,
                                            int64_t padElems) {
  Expected<AffineLayout> layout = AffineLayout::padded(shape, padElems);
  if (!layout)
    return layout.takeError();
  return fromAffine(*layout, elemBytes);
}

Expected<SharedLayout> SharedLayout::fromLinear(const LinearLayout &layout,
                                                int64_t elemBytes) {
  if (Error err = checkElemBytes(elemBytes))
    return std::move(err);
  if (layout.getNumInDims() != 1 || !layout.hasInDim("offset"))
    return makeLayoutError("a shared layout maps `offset` alone, got\n" +
                           layout.toString());
  SharedLayout shared;
  for (auto [index, out] : llvm::enumerate(layout.getOutDims())) {
    if (out.name != tensorDimName(index))
      return makeLayoutError("shared layout output " + Twine(index) + " is `" +
                             out.name + "`, expected `" + tensorDimName(index) +
                             "`");
    shared.shape.push_back(int64_t(1) << out.log2Size);
  }
  Expected<LinearLayout> inverse = layout.invert();
  if (!inverse)
    return inverse.takeError();
  shared.elemBytes = elemBytes;
  shared.linear = layout;
  shared.inverse = std::move(*inverse);
  return shared;
}

Expected<SharedLayout> SharedLayout::swizzled(int64_t rows, int64_t cols,
                                              int64_t elemBytes,
                                              SwizzleMode mode) {
  if (Error err = checkElemBytes(elemBytes))
    return std::move(err);
  if (!isPowerOfTwo(rows) || !isPowerOfTwo(cols))
    return makeLayoutError("a swizzled tile needs power-of-two extents, got " +
                           Twine(rows) + "x" + Twine(cols));
  Expected<LinearLayout> plain = rowMajorLinear(rows, cols);
  if (!plain)
    return plain.takeError();
  if (mode == SwizzleMode::None)
    return fromLinear(*plain, elemBytes);

  int64_t rowBytes = cols * elemBytes;
  if (rowBytes < swizzleBytes(mode) || rows < 8)
    return makeLayoutError(Twine("a ") + stringifySwizzleMode(mode) +
                           " swizzle needs rows of at least " +
                           Twine(swizzleBytes(mode)) +
                           " bytes and at least 8 rows, got " + Twine(rows) +
                           " rows of " + Twine(rowBytes) + " bytes");
  // Chunk bits start at M (elements per 16-byte chunk); the XOR source is
  // the lowest row bit that changes the row's position in a 128-byte line.
  int chunkBase = log2Exact(16 / elemBytes);
  int chunksPerRowLog2 = log2Exact(rowBytes / 16);
  int source = log2Exact(cols) + std::max(0, 3 - chunksPerRowLog2);
  XorSwizzle swizzle{int32_t(mode), chunkBase, source - chunkBase};
  Expected<LinearLayout> xorLayout =
      swizzle.toLinear(log2Exact(rows) + log2Exact(cols));
  if (!xorLayout)
    return xorLayout.takeError();
  // Physical offset -> logical row-major offset (the XOR is an involution)
  // -> coordinates.
  Expected<LinearLayout> layout = xorLayout->compose(*plain);
  if (!layout)
    return layout.takeError();
  Expected<SharedLayout> shared = fromLinear(*layout, elemBytes);
  if (shared)
    shared->swizzle = mode;
  return shared;
}

Expected<SharedLayout> SharedLayout::swizzledAtoms(int64_t rows, int64_t cols,
                                                   int64_t elemBytes,
                                                   SwizzleMode mode) {
  if (mode == SwizzleMode::None)
    return swizzled(rows, cols, elemBytes, mode);
  if (Error err = checkElemBytes(elemBytes))
    return std::move(err);
  int64_t atomCols = swizzleBytes(mode) / elemBytes;
  if (!isPowerOfTwo(cols) || cols < atomCols)
    return makeLayoutError(Twine("a tile of ") + Twine(cols) +
                           " columns is not a whole number of " +
                           stringifySwizzleMode(mode) + " atoms of " +
                           Twine(atomCols) + " columns");
  Expected<SharedLayout> atom = swizzled(rows, atomCols, elemBytes, mode);
  if (!atom)
    return atom.takeError();
  Expected<LinearLayout> blocks =
      LinearLayout::identity1D(cols / atomCols, "offset", "dim1");
  if (!blocks)
    return blocks.takeError();
  Expected<LinearLayout> layout = *atom->getLinear() * *blocks;
  if (!layout)
    return layout.takeError();
  Expected<SharedLayout> shared = fromLinear(*layout, elemBytes);
  if (shared)
    shared->swizzle = mode;
  return shared;
}

int64_t SharedLayout::getAllocElems() const {
  if (affine)
    return affine->getCosize();
  return int64_t(linear->getTotalInSize());
}

Expected<int64_t> SharedLayout::offset(ArrayRef<int64_t> coord) const {
  if (affine)
    return affine->offset(coord);
  if (coord.size() != shape.size())
    return makeLayoutError("coordinate of rank " + Twine(coord.size()) +
                           " for a tile of rank " + Twine(shape.size()));
  SmallVector<int32_t> values;
  for (auto [index, value] : llvm::enumerate(coord)) {
    if (value < 0 || value >= shape[index])
      return makeLayoutError("coordinate " + Twine(value) +
                             " is outside dimension " + Twine(index) +
                             " of extent " + Twine(shape[index]));
    values.push_back(int32_t(value));
  }
  Expected<SmallVector<int32_t>> result = inverse->apply(values);
  if (!result)
    return result.takeError();
  return int64_t((*result)[0]);
}

std::string SharedLayout::summary() const {
  std::string text;
  raw_string_ostream os(text);
  if (affine) {
    Expected<AffineLayout> plain = AffineLayout::rowMajor(shape);
    if (plain && *plain == *affine)
      os << "row-major ";
    else
      os << (affine->getCosize() > affine->getSize() ? "padded " : "affine ");
    if (!plain)
      consumeError(plain.takeError());
  } else if (swizzle != SwizzleMode::None)
    os << "swizzled " << stringifySwizzleMode(swizzle) << " ";
  else
    os << "linear ";
  for (auto [index, extent] : llvm::enumerate(shape))
    os << (index ? "x" : "") << extent;
  os << " x " << elemBytes << "B";
  return text;
}

std::string SharedLayout::toString() const {
  if (affine)
    return summary() + " " + affine->toString();
  return summary() + "\n" + linear->toString();
}

SwizzleMode pickSwizzle(int64_t elemBytes, int64_t innerExtent) {
  if (!isPowerOfTwo(elemBytes) || elemBytes > 16 || innerExtent < 1)
    return SwizzleMode::None;
  int64_t rowBytes = elemBytes * innerExtent;
  if (!isPowerOfTwo(rowBytes) || rowBytes < 32)
    return SwizzleMode::None;
  if (rowBytes >= 128)
    return SwizzleMode::Bytes128;
  return rowBytes == 64 ? SwizzleMode::Bytes64 : SwizzleMode::Bytes32;
}

int64_t pickPadding(int64_t elemBytes, int64_t innerExtent) {
  int64_t rowBytes = elemBytes * innerExtent;
  if (elemBytes < 1 || elemBytes > 16 || rowBytes % 16 != 0)
    return 0;
  // 8 rows at a stride of C chunks hit 8 distinct chunk positions mod 8
  // exactly when C is odd; one more chunk makes an even C odd.
  return (rowBytes / 16) % 2 == 1 ? 0 : 16 / elemBytes;
}

Expected<SharedLayout> pickSharedLayout(int64_t rows, int64_t cols,
                                        int64_t elemBytes) {
  SwizzleMode mode = pickSwizzle(elemBytes, cols);
  if (mode != SwizzleMode::None && isPowerOfTwo(rows) && rows >= 8)
    return SharedLayout::swizzled(rows, cols, elemBytes, mode);
  return SharedLayout::padded({rows, cols}, elemBytes,
                              pickPadding(elemBytes, cols));
}

} // namespace tilec
