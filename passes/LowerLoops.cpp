//===- LowerLoops.cpp - tile-lower-simt: tile.for and tile.pipelined ------===//
//
// Innermost first, each loop becomes an scf.for whose body is the loop's
// body moved as is. `unroll` and `vectorized` loops with constant bounds
// are then fully unrolled: for `unroll` that is the request, for
// `vectorized` it puts the accesses to consecutive elements next to each
// other so LLVM's load/store vectorizer can merge them into one wide
// access (and any register index they compute becomes a constant). A
// pipelined loop runs its iterations one after another for now, with its
// schedule kept as `tile.num_stages` / `tile.order` / `tile.stage` /
// `tile.group` attributes for the pipelining pass to come.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

/// Moves the body of a tile loop into a new scf.for built before it.
scf::ForOp replaceWithFor(Operation *op, Value lb, Value ub, Value step,
                          Block *body) {
  OpBuilder b(op);
  auto forOp = scf::ForOp::create(b, op->getLoc(), lb, ub, step);
  Block *newBody = forOp.getBody();
  body->getArgument(0).replaceAllUsesWith(forOp.getInductionVar());
  // Everything but the old terminator goes before the new one.
  newBody->getOperations().splice(Block::iterator(newBody->getTerminator()),
                                  body->getOperations(), body->begin(),
                                  std::prev(body->end()));
  for (NamedAttribute attr : op->getDiscardableAttrs())
    forOp->setAttr(attr.getName(), attr.getValue());
  return forOp;
}

bool hasConstantBounds(scf::ForOp forOp) {
  return matchPattern(forOp.getLowerBound(), m_Constant()) &&
         matchPattern(forOp.getUpperBound(), m_Constant()) &&
         matchPattern(forOp.getStep(), m_Constant());
}

} // namespace

LogicalResult simt::lowerLoops(gpu::GPUFuncOp func) {
  SmallVector<Operation *> loops;
  // Post-order: inner loops are lowered (and unrolled) first.
  func.walk([&](Operation *op) {
    if (isa<tile::ForOp, tile::PipelinedOp>(op))
      loops.push_back(op);
  });
  for (Operation *op : loops) {
    if (auto loop = dyn_cast<tile::PipelinedOp>(op)) {
      scf::ForOp forOp = replaceWithFor(op, loop.getLb(), loop.getUb(),
                                        loop.getStep(), loop.getBody());
      OpBuilder b(forOp);
      forOp->setAttr("tile.num_stages", loop.getNumStagesAttr());
      if (auto order = loop.getOrderAttr())
        forOp->setAttr("tile.order", order);
      if (auto stage = loop.getStageAttr())
        forOp->setAttr("tile.stage", stage);
      if (auto group = loop.getGroupAttr())
        forOp->setAttr("tile.group", group);
      op->erase();
      continue;
    }
    auto loop = cast<tile::ForOp>(op);
    scf::ForOp forOp = replaceWithFor(op, loop.getLb(), loop.getUb(),
                                      loop.getStep(), loop.getBody());
    tile::LoopKind kind = loop.getKind();
    op->erase();
    if (kind == tile::LoopKind::serial || !hasConstantBounds(forOp))
      continue;
    if (failed(loopUnrollFull(forOp)))
      return forOp.emitError("cannot unroll this loop");
  }
  return success();
}
