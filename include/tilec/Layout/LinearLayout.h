//===- LinearLayout.h - Layouts as linear maps over GF(2) -------*- C++ -*-===//
//
// A LinearLayout maps named input dimensions (hardware resources: "register",
// "lane", "warp", "block"; or "offset" for shared memory) to named output
// dimensions (tensor coordinates "dim0", "dim1", ...). Every dimension has a
// power-of-two size, so a value is a bit vector, and the map is linear over
// GF(2): each input bit has a basis vector (one value per output dimension)
// and apply(x) is the XOR of the bases of the bits set in x.
//
// Why: with layouts as matrices, the questions passes ask (who owns element
// (i, j), which shared address does register r of lane l read, is this
// conversion a register permutation, is this swizzle conflict-free) become
// composition, inversion and rank, computed in one place. The idea is
// Triton's LinearLayout; this is an independent implementation.
//
// Conventions:
// - When dimensions are flattened (reshapes, the flat views), the first
//   listed dimension is the least significant one, as in Triton: a
//   row-major (dim0, dim1) tensor flattens from the out-dim order
//   (dim1, dim0).
// - A dimension a layout does not name has size 1.
// - Operations that can be asked something invalid return llvm::Expected
//   with a message; nothing here aborts.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LAYOUT_LINEARLAYOUT_H
#define TILEC_LAYOUT_LINEARLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tilec {

class LinearLayout {
public:
  /// The image of one input bit: one value per output dimension, in the
  /// layout's out-dim order.
  using Basis = llvm::SmallVector<int32_t, 4>;

  /// An input dimension: its size is 2^bases.size().
  struct InDim {
    std::string name;
    std::vector<Basis> bases;
  };

  /// An output dimension: its size is 2^log2Size.
  struct OutDim {
    std::string name;
    int32_t log2Size = 0;
  };

  /// A (name, size) pair naming a dimension and its size (a power of two).
  using NamedSize = std::pair<std::string, int32_t>;
  /// A (name, value) pair naming a dimension and a coordinate along it.
  using NamedValue = std::pair<std::string, int32_t>;

  /// Layouts hold at most this many input bits and output bits in total, so
  /// a flattened value fits a 64-bit word.
  static constexpr int kMaxBits = 62;

  /// The empty layout: no dimensions, maps the only point to itself.
  LinearLayout() = default;

  //===--------------------------------------------------------------------===//
  // Construction
  //===--------------------------------------------------------------------===//

  /// A layout from explicit bases and output (name, size) pairs. Fails on
  /// duplicate names, a size that is not a power of two, a basis of the
  /// wrong length or a basis value out of range.
  static llvm::Expected<LinearLayout> create(std::vector<InDim> ins,
                                             llvm::ArrayRef<NamedSize> outs);

  /// As create, with each output size the smallest power of two that holds
  /// every basis value along it.
  static llvm::Expected<LinearLayout>
  createInferred(std::vector<InDim> ins, llvm::ArrayRef<std::string> outNames);

  /// in[i] -> out[i]; size must be a power of two.
  static llvm::Expected<LinearLayout>
  identity1D(int32_t size, llvm::StringRef inDim, llvm::StringRef outDim);

  /// in[i] -> out[i * stride]; size and stride powers of two. The output
  /// size is size * stride.
  static llvm::Expected<LinearLayout> strided1D(int32_t size, int32_t stride,
                                                llvm::StringRef inDim,
                                                llvm::StringRef outDim);

  /// Every in[i] -> out[0] (broadcast): `size` copies of an output of size
  /// outSize (both powers of two).
  static llvm::Expected<LinearLayout> zeros1D(int32_t size,
                                              llvm::StringRef inDim,
                                              llvm::StringRef outDim,
                                              int32_t outSize = 1);

  /// The layout that agrees with `fn` (one value per in dim -> one value per
  /// out dim), read off at the unit vectors; fails, naming the first
  /// counterexample, if `fn` is not linear over GF(2) on every input. Costs
  /// one call of fn per input point.
  static llvm::Expected<LinearLayout> fromFunction(
      llvm::ArrayRef<NamedSize> ins, llvm::ArrayRef<NamedSize> outs,
      llvm::function_ref<llvm::SmallVector<int32_t>(llvm::ArrayRef<int32_t>)>
          fn);

  //===--------------------------------------------------------------------===//
  // Queries
  //===--------------------------------------------------------------------===//

  llvm::ArrayRef<InDim> getInDims() const { return inDims; }
  llvm::ArrayRef<OutDim> getOutDims() const { return outDims; }
  llvm::SmallVector<std::string> getInDimNames() const;
  llvm::SmallVector<std::string> getOutDimNames() const;
  size_t getNumInDims() const { return inDims.size(); }
  size_t getNumOutDims() const { return outDims.size(); }
  bool hasInDim(llvm::StringRef name) const { return inIndex(name) >= 0; }
  bool hasOutDim(llvm::StringRef name) const { return outIndex(name) >= 0; }

  /// Sizes; a dimension the layout does not name has size 1 (log2 0).
  int32_t getInDimSizeLog2(llvm::StringRef name) const;
  int32_t getOutDimSizeLog2(llvm::StringRef name) const;
  int32_t getInDimSize(llvm::StringRef name) const {
    return int32_t(1) << getInDimSizeLog2(name);
  }
  int32_t getOutDimSize(llvm::StringRef name) const {
    return int32_t(1) << getOutDimSizeLog2(name);
  }
  int getTotalInBits() const;
  int getTotalOutBits() const;
  uint64_t getTotalInSize() const { return uint64_t(1) << getTotalInBits(); }
  uint64_t getTotalOutSize() const { return uint64_t(1) << getTotalOutBits(); }

  /// The basis of bit `bit` of in dim `inDim`, or an error if absent.
  llvm::Expected<Basis> getBasis(llvm::StringRef inDim, int bit) const;

  //===--------------------------------------------------------------------===//
  // Evaluation
  //===--------------------------------------------------------------------===//

  /// One value per in dim (in order) -> one value per out dim (in order).
  llvm::Expected<llvm::SmallVector<int32_t>>
  apply(llvm::ArrayRef<int32_t> ins) const;

  /// By name, in any order; in dims not named are 0. Returns every out dim.
  llvm::Expected<llvm::SmallVector<NamedValue>>
  apply(llvm::ArrayRef<NamedValue> ins) const;

  /// The flattened view: a flat input index -> a flat output index.
  llvm::Expected<uint64_t> applyFlat(uint64_t flatIn) const;

  //===--------------------------------------------------------------------===//
  // Algebra
  //===--------------------------------------------------------------------===//

  /// The product: in and out dims are the union (this's first); a dim in
  /// both gets this's bits as its low bits and rhs's above them. Useful to
  /// tile: atom * warps * repeats. Fails only past kMaxBits.
  friend llvm::Expected<LinearLayout> operator*(const LinearLayout &lhs,
                                                const LinearLayout &rhs);

  /// outer(this(x)). Each out dim of this must be an in dim of outer of at
  /// least the same size, matched by name; outer's other in dims are 0.
  llvm::Expected<LinearLayout> compose(const LinearLayout &outer) const;

  /// The inverse of a bijective layout: ins are this's outs and vice versa.
  llvm::Expected<LinearLayout> invert() const;

  /// A right inverse R of a surjective layout (this(R(y)) == y for all y),
  /// choosing 0 for the free (broadcast) bits: when several inputs reach
  /// an output, R picks the one built from the earliest input bits (lower
  /// in-dim index, lower bit), so registers are preferred over lanes.
  llvm::Expected<LinearLayout> pseudoInvert() const;

  /// The layout C from this's ins to target's ins with target(C(x)) ==
  /// this(x), choosing 0 for target's free bits: e.g. fragment.
  /// invertAndCompose(shared) gives (register, lane, warp) -> offset. Fails
  /// if some this(x) is not an output of target.
  llvm::Expected<LinearLayout>
  invertAndCompose(const LinearLayout &target) const;

  /// Re-split the flattened in (out) space into new dims; total sizes must
  /// match and every size be a power of two.
  llvm::Expected<LinearLayout>
  reshapeIns(llvm::ArrayRef<NamedSize> newIns) const;
  llvm::Expected<LinearLayout>
  reshapeOuts(llvm::ArrayRef<NamedSize> newOuts) const;

  /// Reorder the in (out) dims; `order` must be a permutation of the names.
  llvm::Expected<LinearLayout>
  transposeIns(llvm::ArrayRef<std::string> order) const;
  llvm::Expected<LinearLayout>
  transposeOuts(llvm::ArrayRef<std::string> order) const;

  /// The restriction to the named in dims and the projection onto the named
  /// out dims (both kept in this layout's order).
  llvm::Expected<LinearLayout>
  sublayout(llvm::ArrayRef<std::string> inNames,
            llvm::ArrayRef<std::string> outNames) const;

  //===--------------------------------------------------------------------===//
  // Properties
  //===--------------------------------------------------------------------===//

  /// Rank of the matrix over GF(2).
  int getRank() const;
  /// Every output is reached.
  bool isSurjective() const { return getRank() == getTotalOutBits(); }
  /// No two inputs reach the same output.
  bool isInjective() const { return getRank() == getTotalInBits(); }
  bool isBijective() const { return isSurjective() && isInjective(); }
  /// Input bits that add nothing new (broadcast / replication):
  /// getTotalInBits() - getRank().
  int getNumFreeBits() const { return getTotalInBits() - getRank(); }
  /// Per in dim, the mask of its bits whose basis depends on earlier bits
  /// (zero bases included): flipping such a bit alone never changes which
  /// outputs the layout reaches, only which copy.
  llvm::SmallVector<NamedValue> getFreeBitMasks() const;

  bool operator==(const LinearLayout &other) const;
  bool operator!=(const LinearLayout &other) const { return !(*this == other); }

  /// Deterministic text, e.g.
  ///   (register:4, lane:32) -> (dim0:16, dim1:8)
  ///     register: [0,1] [8,0]
  ///     lane: [0,2] [0,4] [1,0] [2,0] [4,0]
  std::string toString() const;

  //===--------------------------------------------------------------------===//
  // Flat column view (for the GF(2) algorithms)
  //===--------------------------------------------------------------------===//

  /// The image of every input bit as a flat output index, in in-dim order.
  llvm::SmallVector<uint64_t> getFlatColumns() const;

  /// The layout whose input bit i maps to flat output columns[i]. Fails if
  /// the sizes disagree with columns.size() or a value is out of range.
  static llvm::Expected<LinearLayout>
  fromFlatColumns(llvm::ArrayRef<NamedSize> ins, llvm::ArrayRef<NamedSize> outs,
                  llvm::ArrayRef<uint64_t> columns);

private:
  /// create() with log2 sizes, for the algorithms that already hold them.
  static llvm::Expected<LinearLayout> build(std::vector<InDim> ins,
                                            std::vector<OutDim> outs);
  int inIndex(llvm::StringRef name) const;
  int outIndex(llvm::StringRef name) const;
  llvm::SmallVector<NamedSize> inSizes() const;
  llvm::SmallVector<NamedSize> outSizes() const;

  std::vector<InDim> inDims;
  std::vector<OutDim> outDims;
};

llvm::raw_ostream &operator<<(llvm::raw_ostream &os, const LinearLayout &l);

/// The product of several layouts, left to right (the first is the most
/// minor); the product of none is the empty layout.
llvm::Expected<LinearLayout> product(llvm::ArrayRef<LinearLayout> factors);

/// True for 1, 2, 4, ...
inline bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
/// log2 of a power of two.
int log2Exact(int64_t v);

/// An llvm::Error carrying `msg` (lower case, no final period).
llvm::Error makeLayoutError(const llvm::Twine &msg);

} // namespace tilec

#endif // TILEC_LAYOUT_LINEARLAYOUT_H
