//===- Partitions.h - The threads a T.ws region runs on ---------*- C++ -*-===//
//
// `#tile.partition<begin, threads>` (TileAttrs.td), decided by
// InferPartitions.cpp for tile.ws regions and the fragments they use, read
// by layout inference and the SIMT lowering.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PASSES_PARTITIONS_H
#define TILEC_PASSES_PARTITIONS_H

#include "tilec/Dialect/TileOps.h"

#include "mlir/IR/Builders.h"

namespace tilec {
class TargetInfo;
}

namespace tilec::simt {

class KernelLowering;

/// Rewrites each if/elif/else chain on the thread index in `kernel`'s body
/// whose arms admit whole warps and do fragment work (TileLang's
/// hand-written warp roles) as one tile.ws region per arm, an arm that is
/// not whole warpgroups recording its own `tile.partition`
/// (ThreadPartitions.cpp); inferPartitions calls it first.
void threadBranchesToRegions(mlir::Operation *kernel);

/// Records `tile.partition` on every tile.ws of `kernel` (a kernel of
/// `threads` threads) and on the fragments used in one partition only; a
/// located error for a region past the threads or a fragment used by
/// several partitions.
mlir::LogicalResult inferPartitions(mlir::Operation *kernel, int64_t threads);

/// The partition `op` runs in (its own, for a fragment alloc; the
/// innermost tile.ws, or the branch it was lowered to, around it); null
/// for the whole block.
tile::PartitionAttr partitionOf(mlir::Operation *op);

/// The threads `op`'s work spreads over: its partition's, else
/// `kernelThreads`.
int64_t threadsOf(mlir::Operation *op, int64_t kernelThreads);

/// `tid` numbered from the first thread of `op`'s partition.
mlir::Value partitionThreadId(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value tid, mlir::Operation *op);

/// A barrier among the threads that run `at`: its T.ws partition's named
/// barrier (ThreadGuards.cpp numbers them), else the block's.
void partitionBarrier(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Operation *at);

/// tile-lower-simt (LowerHopper.cpp): each tile.ws to a branch on the
/// thread index that keeps its partition; before the thread guards are
/// checked.
mlir::LogicalResult lowerWarpPartitions(KernelLowering &kernel);
/// The mbarrier, TMA, setmaxnreg and fence ops of TileLang's explicit
/// Hopper forms; a located error on chips without them.
mlir::LogicalResult lowerHopperOps(KernelLowering &kernel,
                                   const TargetInfo &target);

} // namespace tilec::simt

#endif // TILEC_PASSES_PARTITIONS_H
