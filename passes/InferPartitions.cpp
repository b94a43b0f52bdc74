//===- InferPartitions.cpp - The threads each T.ws region and fragment use
//-===//
//
// `with T.ws(i):` (a tile.ws region) runs on warpgroup i's 128 threads
// only, so what it spreads over threads must be spread over those: a
// T.gemm's warp split, a fragment's layout, a T.Parallel loop's. The
// decision is `tile.partition = #tile.partition<begin, threads>`:
//
// - on each tile.ws: its warpgroups' thread range, or the range of whole
//   warps a thread-branch arm recorded on it (ThreadPartitions.cpp);
// - on each fragment whose users all sit in tile.ws regions of one range
//   (a fragment used inside a region and outside it, or in two regions of
//   different ranges, is a located error: its registers belong to one set
//   of threads).
//
// tile-infer-layouts runs this first and lays out every fragment, loop and
// gemm over the threads of its partition (threadsOf); tile-lower-simt
// follows it (the region becomes a branch on the thread index, and the
// ops in it number their threads from the partition's first: layouts are
// linear in the bits of tid - begin, KernelLowering::layoutThreadId), so a
// partition need not start at a multiple of its size ([32, 96) is two warps
// numbered 0 and 1), only at a whole warp.
//
//===----------------------------------------------------------------------===//

#include "Partitions.h"
#include "SIMTLayout.h"

#include "tilec/Dialect/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tilec;

namespace {
constexpr int64_t kWarpgroup = 128;
constexpr int64_t kWarpThreads = 32;

/// The partition attribute on `op` itself, if any.
tile::PartitionAttr ownPartition(Operation *op) {
  return op->getAttrOfType<tile::PartitionAttr>(
      tile::PartitionAttr::getAttrName());
}

tile::PartitionAttr rangeOf(tile::WsOp ws) {
  ArrayRef<int64_t> ids = ws.getWarpgroups();
  return tile::PartitionAttr::get(ws.getContext(), ids.front() * kWarpgroup,
                                  int64_t(ids.size()) * kWarpgroup);
}
} // namespace

tile::PartitionAttr simt::partitionOf(Operation *op) {
  // A fragment's view holds the fragment's registers: its partition.
  if (auto view = dyn_cast<tile::ReshapeOp>(op))
    if (Operation *source = view.getSource().getDefiningOp())
      op = source;
  for (Operation *p = op; p; p = p->getParentOp()) {
    if (isa<tile::KernelOp, gpu::GPUFuncOp>(p))
      return {};
    if (auto ws = dyn_cast<tile::WsOp>(p))
      return ownPartition(ws) ? ownPartition(ws) : rangeOf(ws);
    if (isa<scf::IfOp, tile::AllocOp>(p))
      if (tile::PartitionAttr attr = ownPartition(p))
        return attr;
  }
  return {};
}

int64_t simt::threadsOf(Operation *op, int64_t kernelThreads) {
  tile::PartitionAttr p = partitionOf(op);
  return p ? p.getThreads() : kernelThreads;
}

Value simt::partitionThreadId(OpBuilder &b, Location loc, Value tid,
                              Operation *op) {
  tile::PartitionAttr p = partitionOf(op);
  if (!p || !p.getBegin())
    return tid;
  return arith::SubIOp::create(
      b, loc, tid, arith::ConstantIndexOp::create(b, loc, p.getBegin()));
}

LogicalResult simt::inferPartitions(Operation *kernel, int64_t threads) {
  threadBranchesToRegions(kernel);
  bool failed = false;
  kernel->walk([&](tile::WsOp ws) {
    // A branch arm of whole warps (ThreadPartitions.cpp) brings its own.
    tile::PartitionAttr range =
        ownPartition(ws) ? ownPartition(ws) : rangeOf(ws);
    if (range.getEnd() > threads) {
      ws.emitError() << "T.ws(" << ws.getWarpgroupsAttr() << ") runs threads ["
                     << range.getBegin() << ", " << range.getEnd()
                     << "), past the kernel's " << threads << " threads";
      failed = true;
    }
    ws->setAttr(tile::PartitionAttr::getAttrName(), range);
  });
  if (failed)
    return failure();
  // Each fragment takes the partition of its users.
  WalkResult walk = kernel->walk([&](tile::AllocOp alloc) {
    if (!fragmentAlloc(alloc.getResult()))
      return WalkResult::advance();
    std::optional<tile::PartitionAttr> common;
    Operation *first = nullptr;
    // The users of its views use it too (the view op itself runs nowhere).
    SmallVector<Operation *> users;
    for (Operation *user : alloc->getUsers()) {
      if (auto view = dyn_cast<tile::ReshapeOp>(user))
        llvm::append_range(users, view->getUsers());
      else
        users.push_back(user);
    }
    for (Operation *user : users) {
      tile::PartitionAttr p = partitionOf(user);
      if (!common) {
        common = p;
        first = user;
        continue;
      }
      if (p == *common)
        continue;
      auto where = [](tile::PartitionAttr a) -> std::string {
        if (!a)
          return "by every thread of the block";
        return "by threads [" + std::to_string(a.getBegin()) + ", " +
               std::to_string(a.getEnd()) +
               ") (a T.ws region or an arm of a thread branch)";
      };
      InFlightDiagnostic diag =
          user->emitError()
          << "fragment `" << alloc.getName() << "` is used here " << where(p)
          << " and at " << formatLoc(first->getLoc()) << " " << where(*common)
          << "; a fragment's registers belong to one set of threads, so "
             "use it in one T.ws partition only (or copy it through shared "
             "memory)";
      diag.attachNote(alloc.getLoc())
          << "`" << alloc.getName() << "` allocated here";
      return WalkResult::interrupt();
    }
    if (!common || !*common)
      return WalkResult::advance();
    tile::PartitionAttr p = *common;
    // Layouts number a partition's threads from its first (the lowering
    // subtracts it), so a partition need not start at a multiple of its
    // size; but lanes are the thread index's low bits, and shuffles and
    // named barriers work in whole warps.
    if (p.getBegin() % kWarpThreads) {
      alloc.emitError() << "fragment `" << alloc.getName()
                        << "` belongs to threads [" << p.getBegin() << ", "
                        << p.getEnd()
                        << "), which do not start at a whole warp; tilec "
                           "lays fragments out over whole warps only";
      return WalkResult::interrupt();
    }
    alloc->setAttr(tile::PartitionAttr::getAttrName(), p);
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
