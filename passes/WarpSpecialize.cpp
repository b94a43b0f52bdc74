//===- WarpSpecialize.cpp - Splitting a kernel into its warp roles --------===//
//
// tile-plan-warp-specialize gave a pipelined loop warp roles; the loop's
// lowering (PipelineLoops.cpp, runWarpSpecialized) built the consumers'
// loop in place and the producer's loop beside it. This file makes the
// kernel run them apart:
//
//   entry: thread id, constants, ring declarations, mbarrier init by
//          thread 0; barrier (every thread of the block)
//   if tid < C:                          // consumers
//     setmaxnreg.inc R_c
//     <the kernel body>                  // block barriers: bar.sync 0, C
//   else:                                // the producer warpgroup
//     setmaxnreg.dec R_p
//     <the values the producer needs, recomputed>
//     <the producer's loop>              // thread C only
//
// In a persistent kernel the body is a loop over the block's tiles
// (tile-outline-kernels); the producer gets a copy of that loop around
// its own, so it walks the same tiles.
//
// The body's barriers count the consumers only: the producer warpgroup
// never reaches them (its other threads exit at once, thread C when its
// loads are issued). The values the producer needs (the loop bounds, the
// copies' offsets outside the loop) are recomputed from the block indices
// and arguments by their side-effect-free defining ops, which
// tile-plan-warp-specialize checked.
//
//===----------------------------------------------------------------------===//

#include "DeviceOps.h"
#include "GemmLowering.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace tilec;

namespace {

constexpr llvm::StringLiteral kConsumersAttr = "tile.consumers";
using simt::kPersistentAttr;

tile::WarpSpecializeAttr rolesOf(gpu::GPUFuncOp func) {
  return func->getAttrOfType<tile::WarpSpecializeAttr>(
      tile::WarpSpecializeAttr::getAttrName());
}

/// Clones the side-effect-free def chain of `value` before `at`; values
/// defined outside `region` are used as they are.
LogicalResult recompute(Value value, Region &region, OpBuilder &b,
                        IRMapping &map) {
  if (map.contains(value))
    return success();
  Operation *def = value.getDefiningOp();
  if (!def || !region.isAncestor(def->getParentRegion()))
    return success();
  if (def->getNumRegions() || !isMemoryEffectFree(def))
    return def->emitError()
           << "internal: the warp-specialized producer needs a value that '"
           << def->getName() << "' computes, which it cannot recompute";
  for (Value operand : def->getOperands())
    if (failed(recompute(operand, region, b, map)))
      return failure();
  b.clone(*def, map);
  return success();
}

} // namespace

LogicalResult simt::splitWarpRoles(KernelLowering &kernel) {
  Operation *producer = kernel.getProducer();
  if (!producer)
    return success();
  gpu::GPUFuncOp func = kernel.getFunc();
  tile::WarpSpecializeAttr roles = rolesOf(func);
  if (!roles)
    return func.emitError() << "internal: a producer without warp roles";
  Location loc = func.getLoc();
  Block &entry = func.getBody().front();
  // Not through buildAtEntry: entry ops made later go before the split.
  OpBuilder b = kernel.entryBuilder();
  Value isConsumer = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, kernel.threadId(),
      arith::ConstantIndexOp::create(b, loc, roles.getConsumers()));
  auto split = scf::IfOp::create(b, loc, isConsumer, /*withElse=*/true);
  split->setAttr(kConsumersAttr, b.getUnitAttr());
  Block *consumers = split.thenBlock();
  consumers->getOperations().splice(
      consumers->getTerminator()->getIterator(), entry.getOperations(),
      std::next(split->getIterator()), entry.getTerminator()->getIterator());

  OpBuilder cb = OpBuilder::atBlockBegin(consumers);
  const DeviceOpBuilder &ops = simt::deviceOps(func);
  ops.setMaxRegisters(cb, loc, int32_t(roles.getConsumerRegisters()),
                      /*increase=*/true);
  OpBuilder pb = OpBuilder::atBlockBegin(split.elseBlock());
  ops.setMaxRegisters(pb, loc, int32_t(roles.getProducerRegisters()),
                      /*increase=*/false);
  // What the producer uses from the consumers' side (collected while it is
  // still among them), recomputed.
  llvm::SetVector<Value> used(producer->getOperands().begin(),
                              producer->getOperands().end());
  for (Region &region : producer->getRegions())
    getUsedValuesDefinedAbove(region, used);
  producer->moveBefore(split.elseBlock()->getTerminator());
  IRMapping map;
  pb.setInsertionPoint(producer);
  Region &consumerRegion = split.getThenRegion();

  // A persistent kernel: the producer walks the same tiles, in a copy of
  // the consumers' loop over them (bounds recomputed).
  scf::ForOp tiles;
  consumerRegion.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(kPersistentAttr))
      tiles = loop;
  });
  if (tiles) {
    for (Value bound :
         {tiles.getLowerBound(), tiles.getUpperBound(), tiles.getStep()})
      if (failed(recompute(bound, consumerRegion, pb, map)))
        return failure();
    auto copy =
        scf::ForOp::create(pb, loc, map.lookupOrDefault(tiles.getLowerBound()),
                           map.lookupOrDefault(tiles.getUpperBound()),
                           map.lookupOrDefault(tiles.getStep()));
    map.map(tiles.getInductionVar(), copy.getInductionVar());
    producer->moveBefore(copy.getBody()->getTerminator());
    pb.setInsertionPoint(producer);
  }

  for (Value value : used)
    if (failed(recompute(value, consumerRegion, pb, map)))
      return failure();
  for (Value value : used)
    if (Value clone = map.lookupOrNull(value))
      value.replaceUsesWithIf(clone, [&](OpOperand &use) {
        return producer->isAncestor(use.getOwner());
      });
  kernel.setProducer(nullptr);
  // One block per multiprocessor (the planner's condition), said to
  // ptxas: with it, ptxas knows the registers each thread holds at entry
  // (the file divided by the block), which setmaxnreg moves between the
  // roles; without it ptxas ignores setmaxnreg (C7508). targets/ spells
  // it (NVVM: nvvm.minctasm, .minnctapersm).
  func->setAttr(tile::kMinBlocksPerMultiprocessorAttrName,
                b.getI32IntegerAttr(1));
  return success();
}

void simt::nameConsumerBarriers(KernelLowering &kernel) {
  gpu::GPUFuncOp func = kernel.getFunc();
  tile::WarpSpecializeAttr roles = rolesOf(func);
  if (!roles)
    return;
  SmallVector<scf::IfOp> splits;
  func.walk([&](scf::IfOp op) {
    if (op->hasAttr(kConsumersAttr))
      splits.push_back(op);
  });
  for (scf::IfOp split : splits) {
    SmallVector<gpu::BarrierOp> barriers;
    split.getThenRegion().walk(
        [&](gpu::BarrierOp barrier) { barriers.push_back(barrier); });
    for (gpu::BarrierOp barrier : barriers) {
      OpBuilder b(barrier);
      Location loc = barrier.getLoc();
      // Barrier 0 with a thread count: __syncthreads' barrier, counting the
      // consumers (ThreadGuards.cpp's named barriers use ids 1 to 15).
      simt::deviceOps(func).namedBarrier(
          b, loc, arith::ConstantIntOp::create(b, loc, 0, 32),
          arith::ConstantIntOp::create(b, loc, roles.getConsumers(), 32));
      barrier.erase();
    }
    split->removeAttr(kConsumersAttr);
  }
}
