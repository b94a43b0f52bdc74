//===- LowerHopper.cpp - T.ws regions, mbarriers, T.tma_copy, setmaxnreg --===//
//
// The hand-written warp specialization of TileLang (HopperPrimitives.cpp
// in MLIRGen), lowered by tile-lower-simt:
//
// - tile.ws with `#tile.partition<begin, threads>` (InferPartitions.cpp):
//   `scf.if begin <= tid < begin + threads`, the branch keeping the
//   partition, so that ThreadGuards.cpp spreads the copies, fills and loops
//   in it over those threads, turns its barriers into named ones, and the
//   fragments, gemms and loops laid out over the partition are allowed in
//   it;
// - tile.alloc_barrier: a shared i64 array, initialized at its place by
//   thread 0 (mbarrier.init with each arrive count), then a block barrier
//   so that no thread uses a barrier before it is initialized;
// - arrive / wait / expect_tx: `mbarrier.arrive`, `mbarrier.try_wait.parity`
//   (the same DeviceOpBuilder ops the automatic rings use,
//   PipelineLoops.cpp),
//   `mbarrier.expect_tx`;
// - tile.tma_copy: the automatic path's TMA load (PipelineTma.cpp: the
//   tensor map a kernel parameter the launch header encodes, one box per
//   swizzle atom), issued by the partition's first thread after it adds
//   the box's bytes to the barrier (`mbarrier.expect_tx`, no arrival: the
//   user's T.barrier_arrive counts the arrivals);
// - tile.set_max_nreg: `setmaxnreg.inc/dec`; tile.fence_proxy_async:
//   `fence.proxy.async.shared::cta`.
//
// The mbarrier forms need sm_90a (try_wait.parity, TMA): elsewhere they
// are a located error.
//
//===----------------------------------------------------------------------===//

#include "DeviceOps.h"
#include "GemmLayouts.h"
#include "GemmLowering.h"
#include "Partitions.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

Value cIdx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value cI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

/// `tid == first thread of op's partition`.
Value isLeader(KernelLowering &kernel, OpBuilder &b, Location loc,
               Operation *op) {
  tile::PartitionAttr p = partitionOf(op);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                               kernel.threadId(),
                               cIdx(b, loc, p ? p.getBegin() : 0));
}

LogicalResult lowerAllocBarrier(KernelLowering &kernel,
                                tile::AllocBarrierOp op) {
  // Initialized where allocated, behind a block barrier: every thread must
  // get there once.
  if (!isa<gpu::GPUFuncOp>(op->getParentOp()))
    return op.emitError() << "T.alloc_barrier inside a loop, a branch or a "
                             "T.ws region; allocate barriers in the "
                             "T.Kernel body, where every thread runs";
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto alloc = tile::AllocOp::create(b, loc, op.getType(), "mbarriers");
  op.getResult().replaceAllUsesWith(alloc.getResult());
  auto leader = scf::IfOp::create(b, loc, isLeader(kernel, b, loc, op),
                                  /*withElseRegion=*/false);
  OpBuilder tb = leader.getThenBodyBuilder();
  const DeviceOpBuilder &ops = deviceOps(op);
  for (auto [i, count] : llvm::enumerate(op.getArriveCounts()))
    ops.mbarrierInit(
        tb, loc, barrierPointer(kernel, tb, loc, alloc, cIdx(tb, loc, i)),
        cI32(tb, loc, count));
  gpu::BarrierOp::create(b, loc);
  op.erase();
  return success();
}

LogicalResult lowerTmaCopy(KernelLowering &kernel, tile::TmaCopyOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value dst = op.getDst();
  auto fail = [&](const Twine &why) {
    return op.emitError() << "T.tma_copy cannot be a TMA load here: " << why;
  };
  if (!dst.getDefiningOp<tile::AllocOp>())
    return fail("the destination is not a T.alloc_shared buffer");
  // TMA writes the canonical swizzle at the address bits wgmma's
  // descriptors read (the buffer on the 1024-byte period wgmma aligns it
  // to); another reader would see another layout.
  bool wgmmaReads = false, otherReads = false;
  for (Operation *user : dst.getUsers()) {
    if (auto gemm = dyn_cast<tile::GemmOp>(user)) {
      tile::MmaAttr mma = gemm::readMma(gemm);
      (mma && mma.getKind() == tile::MmaKind::wgmma ? wgmmaReads : otherReads) =
          true;
    } else if (!isa<tile::TmaCopyOp, memref::MemorySpaceCastOp, tile::CopyOp,
                    tile::FillOp, memref::LoadOp, memref::StoreOp>(user)) {
      // (The workgroup-space casts are the lowered T.tma_copy ops' own,
      // when several fill one buffer. Tile copies, fills and element
      // accesses of a wgmma operand are the ones tile-infer-layouts let
      // it have, all through its swizzle: GemmLayoutsWgmma.cpp,
      // wgmmaOperandUses; LowerSIMT.cpp, swizzleElementAccesses.)
      otherReads = true;
    }
  }
  if (!wgmmaReads || otherReads)
    return fail("its destination is not read by wgmma T.gemms only (TMA "
                "writes the swizzled layout wgmma reads)");
  auto dstType = cast<MemRefType>(dst.getType());
  ValueRange dstOffsets = op.getDstOffsets();
  SharedSlot slot{dst, Value()};
  if (dstType.getRank() == 3)
    slot.stage = dstOffsets[0];
  else if (dstType.getRank() != 2)
    return fail("the destination is not a 2-D tile or a ring of them");
  // Part of a tile: planTmaCopy takes whole rows and whole swizzle atoms
  // (FlashMLA's `KV_s[:, 64 j : 64 (j + 1)]`), and says why not.
  // PipelineTma.cpp plans tile copies: the same box as a tile.copy, made
  // for the planner only.
  auto copy = tile::CopyOp::create(b, loc, op.getSrc(), op.getSrcOffsets(),
                                   op.getSrcExtents(), dst, dstOffsets,
                                   op.getDstExtents());
  std::string why;
  std::optional<TmaCopy> plan =
      planTmaCopy(copy, dst, why, /*rowsCheckedAtLaunch=*/true);
  Value map = plan ? tensorMapArgument(kernel.getFunc(), *plan) : Value();
  copy.erase();
  if (!plan)
    return fail(why + " (a TMA load needs a T.gemm operand's swizzled "
                      "buffer on the wgmma path, filled whole)");
  if (!map)
    return fail("the kernel's tensor-map parameter could not be added");
  auto leader = scf::IfOp::create(b, loc, isLeader(kernel, b, loc, op),
                                  /*withElseRegion=*/false);
  OpBuilder tb = leader.getThenBodyBuilder();
  Value mbar = barrierPointer(kernel, tb, loc, op.getBarriers(), op.getIndex());
  deviceOps(op).mbarrierExpectTx(tb, loc, mbar, cI32(tb, loc, plan->bytes()));
  issueTmaCopy(tb, loc, *plan, map, slot, op.getSrcOffsets(), mbar,
               kernel.getOptions().indexBitwidth);
  op.erase();
  return success();
}

Value toI32(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
}

} // namespace

Value simt::barrierPointer(KernelLowering &kernel, OpBuilder &b,
                           Location loc, Value barriers, Value index) {
  Value shared = castToWorkgroup(b, loc, barriers);
  return sharedElementPointer(b, loc, shared, ValueRange{index},
                              kernel.getOptions().indexBitwidth);
}

LogicalResult simt::lowerWarpPartitions(KernelLowering &kernel) {
  SmallVector<tile::WsOp> regions;
  kernel.getFunc().walk([&](tile::WsOp ws) { regions.push_back(ws); });
  for (tile::WsOp ws : regions) {
    tile::PartitionAttr p = partitionOf(ws);
    OpBuilder b(ws);
    Location loc = ws.getLoc();
    Value tid = kernel.threadId();
    Value cond = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                                       cIdx(b, loc, p.getEnd()));
    if (p.getBegin())
      cond = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, tid,
                                cIdx(b, loc, p.getBegin())),
          cond);
    auto branch = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    branch->setAttr(tile::PartitionAttr::getAttrName(), p);
    Block *then = branch.thenBlock();
    then->getOperations().splice(then->getTerminator()->getIterator(),
                                 ws.getBody().front().getOperations());
    ws.erase();
  }
  return success();
}

LogicalResult simt::lowerHopperOps(KernelLowering &kernel,
                                   const TargetInfo &target) {
  SmallVector<Operation *> ops;
  kernel.getFunc().walk([&](Operation *op) {
    if (isa<tile::AllocBarrierOp, tile::MBarrierArriveOp, tile::MBarrierWaitOp,
            tile::MBarrierExpectTxOp, tile::TmaCopyOp, tile::SetMaxNRegOp,
            tile::FenceProxyAsyncOp>(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return success();
  if (!target.hasTMA() || !target.hasSetMaxNReg())
    return ops.front()->emitError()
           << "'" << ops.front()->getName() << "' (TileLang's explicit "
           << "Hopper forms) needs mbarrier waits, TMA and setmaxnreg, which "
           << target.chip() << " does not have (sm_90a does)";
  const DeviceOpBuilder &device = deviceOps(kernel.getFunc());
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto alloc = dyn_cast<tile::AllocBarrierOp>(op)) {
      if (failed(lowerAllocBarrier(kernel, alloc)))
        return failure();
    } else if (auto arrive = dyn_cast<tile::MBarrierArriveOp>(op)) {
      device.mbarrierArrive(b, loc,
                            barrierPointer(kernel, b, loc, arrive.getBarriers(),
                                           arrive.getIndex()));
      op->erase();
    } else if (auto wait = dyn_cast<tile::MBarrierWaitOp>(op)) {
      Value parity = arith::AndIOp::create(
          b, loc, toI32(b, loc, wait.getParity()), cI32(b, loc, 1));
      device.mbarrierWaitParity(
          b, loc,
          barrierPointer(kernel, b, loc, wait.getBarriers(), wait.getIndex()),
          parity, cI32(b, loc, 0x989680));
      op->erase();
    } else if (auto expect = dyn_cast<tile::MBarrierExpectTxOp>(op)) {
      device.mbarrierExpectTx(b, loc,
                              barrierPointer(kernel, b, loc,
                                             expect.getBarriers(),
                                             expect.getIndex()),
                              toI32(b, loc, expect.getBytes()));
      op->erase();
    } else if (auto tma = dyn_cast<tile::TmaCopyOp>(op)) {
      if (failed(lowerTmaCopy(kernel, tma)))
        return failure();
    } else if (auto nreg = dyn_cast<tile::SetMaxNRegOp>(op)) {
      // setmaxnreg applies to a whole warpgroup: every warp of it must run
      // it with one count, which an arm of some of its warps does not.
      if (tile::PartitionAttr p = partitionOf(op);
          p && (p.getBegin() % 128 || p.getThreads() % 128))
        return op->emitError()
               << "T.set_max_nreg runs on threads [" << p.getBegin() << ", "
               << p.getEnd()
               << ") (a branch on the thread index), which are not whole "
                  "warpgroups; setmaxnreg sets the registers of aligned "
                  "groups of 128 threads, so branch at multiples of 128";
      device.setMaxRegisters(b, loc, nreg.getCount(), nreg.getIncrease());
      op->erase();
    } else {
      fenceAsyncProxy(b, loc);
      op->erase();
    }
  }
  return success();
}
