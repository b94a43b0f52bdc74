//===- LowerTmaStore.cpp - tile-lower-simt: shared -> global by TMA -------===//
//
// Follows `#tile.tma_store<box, swizzle>` (PlanTmaStores.cpp) on a
// tile.copy from a whole shared buffer into a kernel tensor argument, as
// CUTLASS's and Triton's TMA epilogues do:
//
//   every thread:  fence.proxy.async.shared::cta  # its st.shared / stmatrix
//                  bar.sync                       # the writes of all of them
//   one thread:    cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group
//                      [map, coords], [buffer + atom]   # one per box
//                  cp.async.bulk.commit_group
//                  cp.async.bulk.wait_group.read 0
//
// The fence orders each thread's generic-proxy writes before the async
// proxy's reads; the barrier is the block barrier tile-insert-barriers put
// after the writing copy (the fence goes before it), or one of its own.
// The issuing thread (the first of the block, or of the op's partition)
// waits until the boxes have been read out of shared memory: only then may
// the buffer be written again (tile-insert-barriers' barrier before the next
// writer, which that thread reaches after its wait) or the block exit. The
// global writes complete asynchronously; the kernel's end makes them
// visible. Elements of a box past the tensor's edges are not written (a
// partial tile at the end of a dimension needs no guard). The map is a
// kernel parameter as for the loads (tensorMapArgument, PipelineTma.cpp:
// `tile.tensor_map` on the appended argument, encoded by the launch header
// from the output tensor's pointer and shape).
//
//===----------------------------------------------------------------------===//

#include "DeviceOps.h"
#include "GemmLowering.h"
#include "Partitions.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

LogicalResult simt::lowerTmaStore(KernelLowering &kernel, tile::CopyOp copy,
                                  tile::TmaStoreAttr plan) {
  Location loc = copy.getLoc();
  Value src = copy.getSrc();
  auto srcType = cast<MemRefType>(src.getType());
  auto dstType = cast<MemRefType>(copy.getDst().getType());
  BlockArgument arg = tmaTensorArgument(copy.getDst());
  ArrayRef<int64_t> box = plan.getBox();
  int64_t rank = dstType.getRank();
  int64_t rows = srcType.getDimSize(0), cols = srcType.getDimSize(1);
  int64_t width = box.empty() ? 0 : box[0];
  if (!arg || int64_t(box.size()) != rank || srcType.getRank() != 2 ||
      width <= 0 || cols % width)
    return copy.emitError("internal: the #tile.tma_store decision does not "
                          "match the copy's buffers");
  Value map = tensorMapArgument(kernel.getFunc(), arg.getArgNumber(), box,
                                plan.getSwizzle());
  if (!map)
    return copy.emitError("the kernel's tensor-map parameter could not be "
                          "added");
  const DeviceOpBuilder &ops = deviceOps(copy);
  OpBuilder b(copy);
  // The barrier after the writer, past the index arithmetic of the copy's
  // offsets.
  Operation *prev = copy->getPrevNode();
  while (prev && !isa<tile::BarrierOp>(prev) && isMemoryEffectFree(prev) &&
         prev->getNumRegions() == 0)
    prev = prev->getPrevNode();
  if (auto barrier = dyn_cast_or_null<tile::BarrierOp>(prev)) {
    OpBuilder fb(barrier);
    ops.fenceAsyncShared(fb, loc);
  } else {
    ops.fenceAsyncShared(b, loc);
    tile::BarrierOp::create(b, loc);
  }
  tile::PartitionAttr partition = partitionOf(copy);
  Value leader =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kernel.threadId(),
                            arith::ConstantIndexOp::create(
                                b, loc, partition ? partition.getBegin() : 0));
  auto ifOp = scf::IfOp::create(b, loc, leader, /*withElseRegion=*/false);
  OpBuilder tb = ifOp.getThenBodyBuilder();
  Value shared = castToWorkgroup(tb, loc, src);
  ValueRange offsets = copy.getDstOffsets();
  for (int64_t atom = 0; atom * width < cols; ++atom) {
    // Atom a of a swizzled buffer holds its columns [a * width, (a + 1) *
    // width) of every row, contiguously (gemm::swizzledIndices).
    int64_t start = atom * rows * width;
    Value from = sharedElementPointer(
        tb, loc, shared,
        ValueRange{arith::ConstantIndexOp::create(tb, loc, start / cols),
                   arith::ConstantIndexOp::create(tb, loc, start % cols)},
        kernel.getOptions().indexBitwidth);
    SmallVector<Value> coords;
    for (int64_t d = rank - 1; d >= 0; --d) {
      Value c = offsets[d];
      if (d == rank - 1 && atom)
        c = arith::AddIOp::create(
            tb, loc, c, arith::ConstantIndexOp::create(tb, loc, atom * width));
      coords.push_back(arith::IndexCastOp::create(tb, loc, tb.getI32Type(), c));
    }
    ops.tmaStore(tb, loc, map, from, coords);
  }
  ops.bulkCommitGroup(tb, loc);
  ops.bulkWaitGroupRead(tb, loc, 0);
  copy.erase();
  return success();
}
