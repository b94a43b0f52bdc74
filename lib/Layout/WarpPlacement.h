//===- WarpPlacement.h - Warp counts that are not powers of two -*- C++ -*-===//
//
// Private to TilecLayout: the tiling of a fragment over a block whose warp
// count along one dimension is not a power of two (MmaLayouts.h,
// placeWarps).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_LAYOUT_WARPPLACEMENT_H
#define TILEC_LIB_LAYOUT_WARPPLACEMENT_H

#include "tilec/Layout/MmaLayouts.h"

namespace tilec::detail {

/// `atom` tiled over a blockM x blockN tile with warps placed by
/// `placement` (one count not a power of two): the outputs are the padded
/// extents, the warp input spans placement.paddedWarps() times the atom's
/// own warps.
llvm::Expected<LinearLayout>
tileOverPlacedWarps(const LinearLayout &atom, int64_t blockM, int64_t blockN,
                    const WarpPlacement &placement, bool ownM, bool ownN);

} // namespace tilec::detail

#endif // TILEC_LIB_LAYOUT_WARPPLACEMENT_H
