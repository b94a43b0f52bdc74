//===- DecomposeScan.cpp - tile-decompose-scan: T.cumsum / T.cummax -------===//
//
// Algorithm: a prefix scan of a tile along `dim` becomes tile ops the SIMT
// lowering already handles, staged through shared memory: copy the source
// into a shared scratch buffer, then one T.Parallel loop over every position
// of the other dimensions runs the scan sequentially along `dim` in place
// (from the far end when `reverse`), then copy the scratch to the
// destination. Barriers come from tile-insert-barriers like for any other
// shared write. Each scan line is one thread's serial loop: right for the
// tile sizes kernels scan (rows of a block); a warp-parallel scan over
// registers is the faster form to add when a kernel needs it.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileDialect.h"
#include "tilec/Dialect/TileOps.h"
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#define DEBUG_TYPE "tile-decompose-scan"

namespace tilec {
#define GEN_PASS_DEF_TILEDECOMPOSESCAN
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

Value combine(OpBuilder &b, Location loc, tile::ScanKind kind, Value acc,
              Value x) {
  bool isFloat = isa<FloatType>(x.getType());
  if (kind == tile::ScanKind::sum)
    return isFloat ? (Value)arith::AddFOp::create(b, loc, acc, x)
                   : (Value)arith::AddIOp::create(b, loc, acc, x);
  return isFloat ? (Value)arith::MaxNumFOp::create(b, loc, acc, x)
                 : (Value)arith::MaxSIOp::create(b, loc, acc, x);
}

LogicalResult decompose(tile::ScanOp scan) {
  auto srcType = cast<MemRefType>(scan.getSrc().getType());
  if (!srcType.hasStaticShape())
    return scan.emitOpError("needs a statically shaped source");
  auto kernel = scan->getParentOfType<tile::KernelOp>();
  if (!kernel)
    return scan.emitOpError("must be inside a tile.kernel");
  Location loc = scan.getLoc();
  OpBuilder b(scan);
  ArrayRef<int64_t> shape = srcType.getShape();
  int64_t dim = scan.getDim();
  int64_t n = shape[dim];

  // The scratch buffer lives with the kernel's other allocations.
  OpBuilder top = OpBuilder::atBlockBegin(kernel.getBody());
  auto scratch = tile::AllocOp::create(
      top, loc,
      tile::getBufferType(shape, srcType.getElementType(),
                          tile::MemorySpace::shared),
      "scan_scratch");

  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> zeros(shape.size(), zero);
  tile::CopyOp::create(b, loc, scan.getSrc(), zeros, shape, scratch, zeros,
                       shape);

  // One line per position of the other dimensions.
  SmallVector<int64_t> lines;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d)
    if (d != dim)
      lines.push_back(shape[d]);
  if (lines.empty())
    lines.push_back(1);
  auto par = tile::ParallelOp::create(b, loc, lines);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(par.getBody()->getTerminator());
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value lb = one;
    Value ub = arith::ConstantIndexOp::create(b, loc, n);
    auto loop = tile::ForOp::create(b, loc, tile::LoopKind::serial, lb, ub, one);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    // Position k along `dim` (n-1-k when reverse) and its predecessor.
    Value k = loop.getInductionVar();
    Value cur = k, prev = arith::SubIOp::create(b, loc, k, one);
    if (scan.getReverse()) {
      Value last = arith::ConstantIndexOp::create(b, loc, n - 1);
      cur = arith::SubIOp::create(b, loc, last, k);
      prev = arith::AddIOp::create(b, loc, cur, one);
    }
    auto indices = [&](Value at) {
      SmallVector<Value> idx;
      unsigned next = 0;
      for (int64_t d = 0; d < int64_t(shape.size()); ++d)
        idx.push_back(d == dim ? at
                               : (Value)par.getBody()->getArgument(next++));
      return idx;
    };
    Value a = memref::LoadOp::create(b, loc, scratch, indices(prev));
    Value x = memref::LoadOp::create(b, loc, scratch, indices(cur));
    memref::StoreOp::create(b, loc, combine(b, loc, scan.getKind(), a, x),
                            scratch, indices(cur));
  }
  tile::CopyOp::create(b, loc, scratch, zeros, shape, scan.getDst(), zeros,
                       shape);
  scan.erase();
  return success();
}

struct TileDecomposeScanPass
    : public tilec::impl::TileDecomposeScanBase<TileDecomposeScanPass> {
  void runOnOperation() override {
    SmallVector<tile::ScanOp> scans;
    getOperation()->walk([&](tile::ScanOp op) { scans.push_back(op); });
    for (tile::ScanOp scan : scans)
      if (failed(decompose(scan)))
        return signalPassFailure();
  }
};

} // namespace
