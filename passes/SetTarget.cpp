//===- SetTarget.cpp - tile-set-target: record the chip on the module -----===//
//
// The target is decided once, by whoever builds the module (the driver from
// --target), and recorded as the module's `#tile.target`; every later pass
// and the code emitters read it through TargetInfo. This pass is that step
// for IR given to tilec-opt: it writes the attribute, and refuses to change
// a module that already names another chip.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileDialect.h"
#include "tilec/Passes/Passes.h"

namespace tilec {
#define GEN_PASS_DEF_TILESETTARGET
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {
struct TileSetTarget : tilec::impl::TileSetTargetBase<TileSetTarget> {
  using TileSetTargetBase::TileSetTargetBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto emitError = [&] { return module.emitError(); };
    if (failed(tile::TargetAttr::verify(emitError, chip)))
      return signalPassFailure();
    if (tile::TargetAttr old = tile::lookupTarget(module);
        old && old.getChip() != chip) {
      module.emitError() << "the module is already compiled for '"
                         << old.getChip() << "', not '" << chip << "'";
      return signalPassFailure();
    }
    module->setAttr(tile::kTargetAttrName,
                    tile::TargetAttr::get(&getContext(), chip));
  }
};
} // namespace
