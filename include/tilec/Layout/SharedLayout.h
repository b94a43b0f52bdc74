//===- SharedLayout.h - Shared-memory tile layouts --------------*- C++ -*-===//
//
// How a tile is placed in shared memory: tile coordinate -> element offset.
// Three families:
// - row-major and padded (affine: offset = row * (cols + pad) + col);
// - XOR swizzles (linear over GF(2)): the 16-byte chunk index within each
//   128-byte line is XORed with row bits, so the 8 rows an ldmatrix phase
//   reads, or the 8 chunks a quarter-warp of 16-byte cp.async writes, land
//   in 8 different groups of 4 banks. The 32/64/128-byte patterns are
//   CUTLASS's Swizzle<B, M, S> with B = 1/2/3 bits;
// - the same swizzles cut into atoms one swizzle wide (the TMA/wgmma
//   canonical layouts, whose boxes are at most the swizzle width).
// A swizzled layout is kept as a LinearLayout "offset" -> (dim0, dim1) (the
// Triton convention for shared memory) together with its inverse, so
// passes can compose it with fragment layouts.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LAYOUT_SHAREDLAYOUT_H
#define TILEC_LAYOUT_SHAREDLAYOUT_H

#include "tilec/Layout/AffineLayout.h"
#include "tilec/Layout/LinearLayout.h"

#include <optional>

namespace tilec {

/// Swizzle width: the value is the number of chunk bits XORed (B).
enum class SwizzleMode { None = 0, Bytes32 = 1, Bytes64 = 2, Bytes128 = 3 };

/// "none", "32B", "64B", "128B".
llvm::StringRef stringifySwizzleMode(SwizzleMode mode);
/// 0, 32, 64, 128.
int64_t swizzleBytes(SwizzleMode mode);

/// CUTLASS's Swizzle<bits, base, shift> on element offsets: the bits
/// [base, base+bits) are XORed with the bits [base+shift, base+shift+bits).
/// With shift >= bits it is its own inverse.
struct XorSwizzle {
  int32_t bits = 0;
  int32_t base = 0;
  int32_t shift = 0;

  int64_t apply(int64_t offset) const;
  /// "offset" -> "offset" over 2^log2Size elements; fails if the source
  /// bits do not fit or overlap the target bits.
  llvm::Expected<LinearLayout> toLinear(int32_t log2Size) const;
};

/// The element offset, within a rows x cols tile, of element (r, c) when
/// the columns are cut into atoms of `atom` columns (0: the row is one
/// atom), each atom stored whole after the previous one with `swizzle`
/// applied to its own row-major offset: the layout
/// SharedLayout::swizzledAtoms describes, as one formula the lowering can
/// emit.
int64_t atomSwizzledOffset(int64_t rows, int64_t cols,
                           const XorSwizzle &swizzle, int64_t atom, int64_t r,
                           int64_t c);

class SharedLayout {
public:
  /// Plain row-major (any extents).
  static llvm::Expected<SharedLayout> rowMajor(llvm::ArrayRef<int64_t> shape,
                                               int64_t elemBytes);
  /// Row-major with `padElems` elements after every row.
  static llvm::Expected<SharedLayout>
  padded(llvm::ArrayRef<int64_t> shape, int64_t elemBytes, int64_t padElems);
  /// A rows x cols row-major tile with the chunk XOR of `mode`: the 16-byte
  /// chunk index (its low B bits) is XORed with the row bits that pick the
  /// chunk's 128-byte line position (for rows of 128 bytes or more, row bits
  /// 0..B-1; for 64-byte rows, bits 1..2; for 32-byte rows, bit 2). Rows and
  /// cols powers of two, rows >= 8, rows at least as wide as the swizzle.
  static llvm::Expected<SharedLayout>
  swizzled(int64_t rows, int64_t cols, int64_t elemBytes, SwizzleMode mode);
  /// The TMA/wgmma canonical form: cols split into atoms one swizzle wide,
  /// each atom rows x (swizzle bytes / elemBytes) swizzled as above, atoms
  /// stored one after another. Equals swizzled() when the row is exactly
  /// one swizzle wide.
  static llvm::Expected<SharedLayout> swizzledAtoms(int64_t rows, int64_t cols,
                                                    int64_t elemBytes,
                                                    SwizzleMode mode);
  /// A bijective "offset" -> (dim0, dim1, ...) layout.
  static llvm::Expected<SharedLayout> fromLinear(const LinearLayout &layout,
                                                 int64_t elemBytes);
  static llvm::Expected<SharedLayout> fromAffine(const AffineLayout &layout,
                                                 int64_t elemBytes);

  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getElemBytes() const { return elemBytes; }
  SwizzleMode getSwizzle() const { return swizzle; }
  /// The linear form "offset" -> (dim0, ...), for swizzled layouts.
  const std::optional<LinearLayout> &getLinear() const { return linear; }
  /// The affine form, for row-major and padded layouts.
  const std::optional<AffineLayout> &getAffine() const { return affine; }
  /// Elements to allocate (padding included).
  int64_t getAllocElems() const;

  /// Element offset of a tile coordinate; fails out of bounds.
  llvm::Expected<int64_t> offset(llvm::ArrayRef<int64_t> coord) const;
  llvm::Expected<int64_t> byteOffset(llvm::ArrayRef<int64_t> coord) const {
    llvm::Expected<int64_t> elems = offset(coord);
    if (!elems)
      return elems.takeError();
    return *elems * elemBytes;
  }

  /// One line, e.g. "swizzled 128B 64x64 x 2B" or "padded 64x32 x 2B".
  std::string summary() const;
  /// summary() followed by the affine layout or the linear bases.
  std::string toString() const;

private:
  SharedLayout() = default;

  llvm::SmallVector<int64_t, 4> shape;
  int64_t elemBytes = 0;
  SwizzleMode swizzle = SwizzleMode::None;
  std::optional<LinearLayout> linear;  // offset -> coordinates
  std::optional<LinearLayout> inverse; // coordinates -> offset
  std::optional<AffineLayout> affine;  // coordinates -> offset
};

/// The widest swizzle that makes 8-row ldmatrix reads and 16-byte cp.async
/// writes of rows of `innerExtent` elements conflict-free: the row must be a
/// power-of-two number of bytes; 128B for rows of 128 bytes or more, 64B
/// and 32B for 64- and 32-byte rows, None otherwise (a 16-byte row is
/// conflict-free unswizzled; other widths need padding).
SwizzleMode pickSwizzle(int64_t elemBytes, int64_t innerExtent);

/// The elements of padding per row that make 8 consecutive rows start in 8
/// different 16-byte bank groups (0 if they already do); rows must be whole
/// 16-byte chunks, otherwise 0.
int64_t pickPadding(int64_t elemBytes, int64_t innerExtent);

/// The layout a pass should use for a rows x cols tile read by ldmatrix
/// and written by 16-byte copies: swizzled when pickSwizzle finds one and
/// rows is a power of two >= 8, else padded by pickPadding.
llvm::Expected<SharedLayout> pickSharedLayout(int64_t rows, int64_t cols,
                                              int64_t elemBytes);

} // namespace tilec

#endif // TILEC_LAYOUT_SHAREDLAYOUT_H
