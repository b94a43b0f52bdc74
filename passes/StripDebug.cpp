//===- StripDebug.cpp - tile-strip-debug: remove device debugging ops -----===//
//
// Algorithm: one post-order walk collects every tile.print (and, unless
// keep-asserts is set, every tile.device_assert) under the pass's op, then
// erases them. Neither op has results, so erasing one never leaves a use
// behind; values that only fed them (a condition, a loaded scalar) become
// dead and are left to canonicalize/DCE, keeping this pass a pure removal.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileOps.h"
#include "tilec/Passes/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-strip-debug"

namespace tilec {
#define GEN_PASS_DEF_TILESTRIPDEBUG
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct TileStripDebug : tilec::impl::TileStripDebugBase<TileStripDebug> {
  using TileStripDebugBase::TileStripDebugBase;

  void runOnOperation() override {
    SmallVector<Operation *> doomed;
    getOperation()->walk([&](Operation *op) {
      if (isa<tilec::tile::PrintOp>(op) ||
          (!keepAsserts && isa<tilec::tile::DeviceAssertOp>(op)))
        doomed.push_back(op);
    });
    LLVM_DEBUG(llvm::dbgs()
               << "tile-strip-debug: erasing " << doomed.size() << " ops\n");
    for (Operation *op : doomed)
      op->erase();
    if (doomed.empty())
      markAllAnalysesPreserved();
  }
};

} // namespace
