//===- BlockedLayout.h - Layouts of elementwise loops and copies -*- C++
//-*-===//
//
// The fragment layout T.Parallel loops and vectorized global<->shared/
// register copies use when nothing else (a gemm) imposes one: each thread
// owns `vec` contiguous elements of the fastest dimension, consecutive
// threads take consecutive vectors (so a warp reads whole, coalesced
// segments), and a thread's further elements come every numThreads * vec
// elements. In flat row-major terms: element = (iteration * numThreads +
// thread) * vec + v, with thread = lane + warpSize * warp and register =
// v + vec * iteration (Triton's blocked layout, TileLang's default
// parallel-loop layout).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LAYOUT_BLOCKEDLAYOUT_H
#define TILEC_LAYOUT_BLOCKEDLAYOUT_H

#include "tilec/Layout/LinearLayout.h"

namespace tilec {

/// (register, lane, warp) -> (dim0, ..., dimN-1) for a row-major tile of
/// `shape` (last dimension fastest). vec and numThreads are powers of two,
/// vec divides the innermost extent; lanes = min(numThreads, warpSize).
/// Threads past the tile's shape / vec vectors hold copies (broadcast
/// bits). An extent E that is not a power of two is padded to the next one
/// (outputs of paddedShape(shape)) with the padding in whole registers:
/// threads take only the coordinate bits below E's lowest set bit (a [24]
/// tile over 128 threads: 8 threads of 3 registers, the others copies; a
/// [48, 64] one: 3 iterations of the [16, 64] it would be), so
/// registersWithin keeps the same registers on every thread.
llvm::Expected<LinearLayout> blockedLayout(llvm::ArrayRef<int64_t> shape,
                                           int64_t vec, int64_t numThreads,
                                           int64_t warpSize = 32);

} // namespace tilec

#endif // TILEC_LAYOUT_BLOCKEDLAYOUT_H
