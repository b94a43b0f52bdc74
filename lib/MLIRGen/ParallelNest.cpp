//===- ParallelNest.cpp - Perfectly nested T.Parallel loops ---------------===//
//
// TileLang builds one parallel loop nest from every T.Parallel loop nested
// in another: all their variables are data-parallel coordinates of one
// iteration space, laid out over the threads together. tilec's
// tile.parallel carries its whole space in one op, so a T.Parallel loop
// whose body is exactly one T.Parallel loop (nothing before or after it in
// the outer body) becomes one tile.parallel over the outer extents then the
// inner ones. Other nestings stay nested and are rejected by layout
// inference with a located error.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Dialect/TileOps.h"

using namespace mlir;

namespace tilec::mlirgen {

void mergeParallelNest(tile::ParallelOp outer) {
  Block *body = outer.getBody();
  // The inner loop and the terminator, nothing else.
  if (!llvm::hasSingleElement(body->without_terminator()))
    return;
  auto inner = dyn_cast<tile::ParallelOp>(body->front());
  // A loop with a layout of its own (loop_layout=) keeps its nesting.
  if (!inner || outer.getLoopLayout() || inner.getLoopLayout())
    return;
  SmallVector<int64_t> extents(outer.getExtents());
  llvm::append_range(extents, inner.getExtents());
  OpBuilder b(outer);
  auto merged = tile::ParallelOp::create(b, outer.getLoc(), extents);
  Block *to = merged.getBody();
  unsigned outerRank = outer.getExtents().size();
  for (auto [k, arg] : llvm::enumerate(body->getArguments()))
    arg.replaceAllUsesWith(to->getArgument(k));
  for (auto [k, arg] : llvm::enumerate(inner.getBody()->getArguments()))
    arg.replaceAllUsesWith(to->getArgument(outerRank + k));
  // Move the inner body (without its terminator) before the new one's.
  Block *from = inner.getBody();
  to->getOperations().splice(to->getTerminator()->getIterator(),
                             from->getOperations(), from->begin(),
                             from->getTerminator()->getIterator());
  outer.erase();
}

} // namespace tilec::mlirgen
