//===- DeviceOps.h - The vendor op builder of the chip an op is for -*- C++ -*-===//
//
// The passes emit vendor operations through DeviceOpBuilder
// (include/tilec/Target/DeviceOpBuilder.h), never by naming a vendor
// dialect. This is how a lowering finds the builder: from the module's
// #tile.target, which every pass that reaches here has already required.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_PASSES_DEVICEOPS_H
#define TILEC_PASSES_DEVICEOPS_H

#include "tilec/Dialect/TileDialect.h"
#include "tilec/Target/DeviceOpBuilder.h"

#include <cassert>

namespace tilec::simt {

/// The DeviceOpBuilder of the chip the module around `at` is compiled for.
inline const DeviceOpBuilder &deviceOps(mlir::Operation *at) {
  tile::TargetAttr target = tile::lookupTarget(at);
  assert(target && "lowering a module without #tile.target");
  return DeviceOpBuilder::get(target.getInfo());
}

} // namespace tilec::simt

#endif // TILEC_PASSES_DEVICEOPS_H
