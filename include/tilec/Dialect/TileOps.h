//===- TileOps.h - Operations of the tile dialect ---------------*- C++ -*-===//
//-*-===//
//
// Declares the tile dialect's operations (generated from TileOps.td) and the
// `InKernel` trait that keeps device ops inside a `tile.kernel`.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_DIALECT_TILEOPS_H
#define TILEC_DIALECT_TILEOPS_H

#include "tilec/Dialect/TileDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <array>

namespace tilec::tile {

/// Verifies that `op` is nested in a `tile.kernel` (or in the `gpu.launch` /
/// `gpu.func` that a kernel was lowered to).
mlir::LogicalResult verifyInKernel(mlir::Operation *op);

/// Trait of the ops that only make sense on the device, inside a kernel.
template <typename ConcreteType>
class InKernel : public mlir::OpTrait::TraitBase<ConcreteType, InKernel> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyInKernel(op);
  }
};

} // namespace tilec::tile

#define GET_OP_CLASSES
#include "tilec/Dialect/TileOps.h.inc"

namespace tilec::tile {

/// The buffer `value` views: the source of a `tile.reshape`, else `value`
/// itself. Passes that ask which ops touch a fragment (pipelining, warp
/// specialization, partitions) compare buffers through this.
mlir::Value viewSource(mlir::Value value);

} // namespace tilec::tile

#endif // TILEC_DIALECT_TILEOPS_H
