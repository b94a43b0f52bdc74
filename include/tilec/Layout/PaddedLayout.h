//===- PaddedLayout.h - Linear layouts of non-power-of-two tiles -*- C++ -*-===//
//
// A LinearLayout's dimensions are powers of two. A tile whose extent is
// not one (FlashAttention's 192-wide head dimension: 192 = 3 x 64) is laid
// out as the power-of-two tile that covers it, its "padded" shape, with
// the part past the real extent in whole registers: the instruction, lane
// and warp bits tile a power-of-two span, and only the register repeats
// above that span reach past the extent. A thread's registers whose
// elements fall past the extent hold nothing and are dropped (for every
// thread the same ones), so a 128x192 accumulator over 256 threads has 96
// registers a thread, not 128. TileLang's fragments reach the same
// elements (its repeats are placed span after span too); only the
// numbering of the kept registers is tilec's own.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LAYOUT_PADDEDLAYOUT_H
#define TILEC_LAYOUT_PADDEDLAYOUT_H

#include "tilec/Layout/LinearLayout.h"

#include <vector>

namespace tilec {

/// Every extent rounded up to a power of two: the output sizes of the
/// layout of a tile of `shape`.
llvm::SmallVector<int64_t> paddedShape(llvm::ArrayRef<int64_t> shape);

/// The registers of `layout` ((register, lane, warp) -> (dim0, ...) over
/// paddedShape(shape)) whose element lies inside `shape`, in increasing
/// order. Fails where a register's element lies inside on one thread and
/// past the extent on another (the padding would not be whole registers),
/// or where the outputs are not paddedShape(shape).
///
/// `threads` (0: all of the layout's) is how many threads exist: a block
/// of 12 warps is laid out as 16, and the 4 "phantom" warps past the
/// block must own only padding or copies of what real threads hold. The
/// register check then looks at the real threads only, and every element
/// of the tile must be held by one of them (else the error names one
/// that only a phantom thread holds).
llvm::Expected<std::vector<int32_t>>
registersWithin(const LinearLayout &layout, llvm::ArrayRef<int64_t> shape,
                int64_t threads = 0);

} // namespace tilec

#endif // TILEC_LAYOUT_PADDEDLAYOUT_H
