//===- LayoutPrinter.h - ASCII pictures of layouts --------------*- C++ -*-===//
//
// Deterministic pictures for `tilec --emit=layouts`, docs and test
// snapshots: who owns each element of a fragment, and which bank each
// element of a shared tile sits in.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LAYOUT_LAYOUTPRINTER_H
#define TILEC_LAYOUT_LAYOUTPRINTER_H

#include "tilec/Layout/SharedLayout.h"

namespace tilec {

/// A dim0 x dim1 grid (one row for a 1-D layout) whose cells read
/// "T<thread>:<register>": the owner of the element with the lowest thread,
/// then the lowest register. The thread is every in dim except "register"
/// flattened in order (lane + 32 * warp for (register, lane, warp)).
/// Elements nobody owns print "-". A header line gives the layout's sizes
/// and, if threads or registers hold copies, how many.
llvm::Expected<std::string> renderFragment(const LinearLayout &layout);

/// A rows x cols grid of the 4-byte bank (0..31) of every element of a
/// 2-D shared tile.
llvm::Expected<std::string> renderSharedBanks(const SharedLayout &layout);

} // namespace tilec

#endif // TILEC_LAYOUT_LAYOUTPRINTER_H
