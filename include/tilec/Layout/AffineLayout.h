//===- AffineLayout.h - Shape/stride layouts --------------------*- C++ -*-===//
//
// offset(coord) = sum_i coord[i] * stride[i], over a shape (CuTe's flat
// layouts). Padded shared-memory tiles (row stride = inner extent + pad)
// and tiles of non-power-of-two extent are affine but not GF(2)-linear, so
// they live here; where an affine layout has no carries (power-of-two
// extents and strides whose bit ranges do not overlap) it converts to a
// LinearLayout, and a LinearLayout whose bases never carry composes into an
// affine one (fragment element -> padded shared offset).
//
// Tensor dimensions are named "dim0", "dim1", ... by position, as in the
// LinearLayouts of tensors.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LAYOUT_AFFINELAYOUT_H
#define TILEC_LAYOUT_AFFINELAYOUT_H

#include "tilec/Layout/LinearLayout.h"

namespace tilec {

/// The name of tensor dimension `index`: "dim0", "dim1", ...
std::string tensorDimName(size_t index);

class AffineLayout {
public:
  AffineLayout() = default;

  /// Fails on a rank mismatch, an extent < 1 or a negative stride.
  static llvm::Expected<AffineLayout> create(llvm::ArrayRef<int64_t> shape,
                                             llvm::ArrayRef<int64_t> stride);
  /// The last dimension fastest.
  static llvm::Expected<AffineLayout> rowMajor(llvm::ArrayRef<int64_t> shape);
  /// Row-major with `pad` extra elements after each innermost row (rank >=
  /// 2): the classic bank-conflict fix when a swizzle does not fit.
  static llvm::Expected<AffineLayout> padded(llvm::ArrayRef<int64_t> shape,
                                             int64_t pad);

  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  llvm::ArrayRef<int64_t> getStride() const { return stride; }
  size_t getRank() const { return shape.size(); }
  /// Number of coordinates.
  int64_t getSize() const;
  /// One past the largest offset: the elements to allocate.
  int64_t getCosize() const;

  /// Fails on a coordinate of the wrong rank or out of bounds.
  llvm::Expected<int64_t> offset(llvm::ArrayRef<int64_t> coord) const;

  /// The same map as a LinearLayout (dim0, dim1, ...) -> `outName`, when
  /// every extent is a power of two and every stride a power of two (or 0)
  /// with no two dimensions' bit ranges overlapping.
  llvm::Expected<LinearLayout>
  toLinear(llvm::StringRef outName = "offset") const;

  /// this(inner(x)) as an affine layout with one mode of extent 2 per input
  /// bit of `inner` (in in-dim order), so offset = sum of strides of the
  /// set bits. `inner`'s outputs must be dim0.. of this layout (within its
  /// shape), and along each output its bases must use disjoint bits so
  /// that XOR equals addition.
  llvm::Expected<AffineLayout> composeLinear(const LinearLayout &inner) const;

  bool operator==(const AffineLayout &other) const {
    return shape == other.shape && stride == other.stride;
  }

  /// CuTe notation: "(64,32):(40,1)".
  std::string toString() const;

private:
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<int64_t, 4> stride;
};

} // namespace tilec

#endif // TILEC_LAYOUT_AFFINELAYOUT_H
