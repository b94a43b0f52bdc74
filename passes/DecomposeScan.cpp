//===- DecomposeScan.cpp - tile-decompose-scan: T.cumsum / T.cummax -------===//
//
// Algorithm: tile-lower-simt scans shared buffers (LowerScan.cpp: warp
// shuffles along the contiguous dimension, a thread per column vector along
// the others, one read and one write of every element). A scan whose source
// or destination is not shared memory (a fragment, in TileLang's kernels)
// is staged through a shared scratch buffer here: the source is copied into
// it, scanned in place (or straight from a shared source), and copied out
// to the destination. A scan between shared buffers is left alone. Barriers
// come from tile-insert-barriers like for any other shared write.
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

bool isShared(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  return tile::getMemorySpace(type) == tile::MemorySpace::shared;
}

LogicalResult decompose(tile::ScanOp scan) {
  auto srcType = cast<MemRefType>(scan.getSrc().getType());
  if (!srcType.hasStaticShape())
    return scan.emitOpError("needs a statically shaped source");
  auto kernel = scan->getParentOfType<tile::KernelOp>();
  if (!kernel)
    return scan.emitOpError("must be inside a tile.kernel");
  bool sharedSrc = isShared(scan.getSrc()), sharedDst = isShared(scan.getDst());
  if (sharedSrc && sharedDst)
    return success();
  Location loc = scan.getLoc();
  OpBuilder b(scan);
  ArrayRef<int64_t> shape = srcType.getShape();

  // The scratch buffer lives with the kernel's other allocations.
  OpBuilder top = OpBuilder::atBlockBegin(kernel.getBody());
  Value scratch = tile::AllocOp::create(
      top, loc,
      tile::getBufferType(shape, srcType.getElementType(),
                          tile::MemorySpace::shared),
      "scan_scratch");

  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> zeros(shape.size(), zero);
  Value from = scan.getSrc(), to = scan.getDst();
  if (!sharedSrc) {
    tile::CopyOp::create(b, loc, from, zeros, shape, scratch, zeros, shape);
    from = scratch;
  }
  if (!sharedDst)
    to = scratch;
  tile::ScanOp::create(b, loc, scan.getKind(), from, to, scan.getDim(),
                       scan.getReverse());
  if (!sharedDst)
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
