//===- WgmmaGroups.cpp - tile-lower-simt: T.wgmma_gemm groups, waits ------===//
//
// TileLang's asynchronous gemm: each T.wgmma_gemm is one wgmma group
// (fence, wgmmas, commit_group; LowerGemmWgmma.cpp), and T.wait_wgmma(n)
// (`tile.wait_wgmma n`) leaves at most the warpgroup's n most recent groups
// in flight. A group's accumulator holds its product only after a wait
// that completes it.
//
// The accumulator registers an async gemm stores are the values its asm
// returns; the compiler sees no dependence between them and the wait, so
// the wait passes the registers of every accumulator it may complete
// through an empty volatile asm (the ordering the synchronous lowering
// gives its own accumulator): reads after the wait read values defined
// after it, and no read of them moves above it. An accumulator that
// certainly stays in flight (one of the last n async gemms, straight-line
// before the wait) is left alone: touching its registers would make ptxas
// serialize the pipeline. Which groups a wait completes is decided
// conservatively where control flow hides it (a group issued in an `if`,
// or in the previous iteration of a loop, may complete at a wait
// anywhere): such accumulators are passed through too, which costs at
// most a register move, never a wrong value.
//
// Two misuses are located errors where the IR shows them: a wait with no
// async gemm that can come before it, and an op that touches an
// accumulator (reads, writes or views it) after its async gemm and before
// the wait that completes it, in the same block.
//
//===----------------------------------------------------------------------===//

#include "DeviceOps.h"
#include "GemmLowering.h"
#include "Partitions.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

tile::GemmOp asyncGemm(Operation *op) {
  auto gemm = dyn_cast<tile::GemmOp>(op);
  return gemm && gemm.getAsync() ? gemm : tile::GemmOp();
}

/// Whether `op` holds (in its regions) a gemm or a wait, whose groups the
/// straight-line reasoning below cannot count.
bool holdsGroupOps(Operation *op) {
  if (op->getNumRegions() == 0)
    return false;
  return op
      ->walk([](Operation *inner) {
        return isa<tile::GemmOp, tile::WaitWgmmaOp>(inner)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The buffer `v` views (through subviews and casts), or `v` itself.
Value baseBuffer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    v = view.getViewSource();
  }
  return v;
}

/// Whether `op` (or an op in its regions) has `buffer` or a view of it as
/// an operand.
bool touches(Operation *op, Value buffer) {
  return op
      ->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (baseBuffer(v) == buffer)
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether a wait in partition `w` may complete a group issued in `g`
/// (the same warpgroups, or either one the whole block).
bool samePartition(tile::PartitionAttr w, tile::PartitionAttr g) {
  return !w || !g || w == g;
}

/// An op after `gemm` in its block that touches its accumulator before a
/// wait certainly completes the group: a located error.
LogicalResult checkNoEarlyUse(tile::GemmOp gemm) {
  Value acc = gemm.getC();
  int64_t after = 0; // groups issued after `gemm`'s
  for (Operation *op = gemm->getNextNode(); op; op = op->getNextNode()) {
    if (tile::GemmOp next = asyncGemm(op)) {
      // Chained wgmmas on one accumulator are ordered by the hardware.
      ++after;
      if (baseBuffer(next.getC()) == acc || !touches(op, acc))
        continue;
    } else if (auto wait = dyn_cast<tile::WaitWgmmaOp>(op)) {
      if (after >= static_cast<int64_t>(wait.getPending()))
        return success();
      continue;
    } else if (isa<tile::GemmOp>(op) || holdsGroupOps(op)) {
      // A synchronous gemm waits for every group; a region with gemms or
      // waits in it: the block no longer says which groups are in flight.
      return success();
    }
    if (!touches(op, acc))
      continue;
    auto alloc = acc.getDefiningOp<tile::AllocOp>();
    InFlightDiagnostic diag =
        op->emitError() << "the accumulator "
                        << (alloc ? "`" + alloc.getName().str() + "` "
                                  : std::string())
                        << "of a T.wgmma_gemm is used before the "
                           "T.wait_wgmma that completes its group";
    diag.attachNote(gemm.getLoc()) << "the T.wgmma_gemm is here";
    return failure();
  }
  return success();
}

/// Whether some async gemm can run before `wait`: earlier in program order,
/// or anywhere in a loop around it (the previous iteration's).
bool hasGroupBefore(tile::WaitWgmmaOp wait, ArrayRef<Operation *> order,
                    const llvm::DenseMap<Operation *, size_t> &position) {
  size_t at = position.lookup(wait);
  for (Operation *op : order) {
    if (position.lookup(op) >= at)
      break;
    if (asyncGemm(op))
      return true;
  }
  for (Operation *p = wait->getParentOp(); p; p = p->getParentOp()) {
    if (!isa<scf::ForOp, scf::WhileOp>(p))
      continue;
    bool inLoop = p->walk([](tile::GemmOp g) {
                     return g.getAsync() ? WalkResult::interrupt()
                                         : WalkResult::advance();
                   }).wasInterrupted();
    if (inLoop)
      return true;
  }
  return false;
}

/// The accumulators certainly still in flight after `wait`: those of the
/// last `pending` async gemms before it in its block, where nothing
/// between hides other groups.
llvm::SmallPtrSet<Value, 4> stillInFlight(tile::WaitWgmmaOp wait) {
  llvm::SmallPtrSet<Value, 4> inFlight;
  int64_t found = 0, pending = static_cast<int64_t>(wait.getPending());
  for (Operation *op = wait->getPrevNode(); op && found < pending;
       op = op->getPrevNode()) {
    if (tile::GemmOp gemm = asyncGemm(op)) {
      inFlight.insert(baseBuffer(gemm.getC()));
      ++found;
      continue;
    }
    // Earlier waits do not change which groups are the most recent.
    if (isa<tile::WaitWgmmaOp>(op))
      continue;
    if (isa<tile::GemmOp>(op) || holdsGroupOps(op))
      break;
  }
  return inFlight;
}

} // namespace

FailureOr<llvm::DenseSet<Operation *>>
simt::lowerWgmmaWaits(KernelLowering &kernel) {
  SmallVector<Operation *> order;
  llvm::DenseMap<Operation *, size_t> position;
  SmallVector<tile::GemmOp> gemms;
  SmallVector<tile::WaitWgmmaOp> waits;
  kernel.getFunc().walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!isa<tile::GemmOp, tile::WaitWgmmaOp>(op))
      return;
    position[op] = order.size();
    order.push_back(op);
    if (tile::GemmOp gemm = asyncGemm(op))
      gemms.push_back(gemm);
    else if (auto wait = dyn_cast<tile::WaitWgmmaOp>(op))
      waits.push_back(wait);
  });
  llvm::DenseSet<Operation *> fenced;
  if (gemms.empty() && waits.empty())
    return fenced;
  for (tile::WaitWgmmaOp wait : waits)
    if (!hasGroupBefore(wait, order, position))
      return wait.emitError("T.wait_wgmma with no T.wgmma_gemm before it: "
                            "there is no wgmma group to wait for");
  for (tile::GemmOp gemm : gemms) {
    if (failed(checkNoEarlyUse(gemm)))
      return failure();
    if (!kernel.fragment(gemm.getC()))
      return gemm.emitError("T.wgmma_gemm: the accumulator is not a lowered "
                            "fragment");
    // Right after another async gemm nothing has written shared memory
    // since that one's fence and barrier.
    if (Operation *prev = gemm->getPrevNode(); prev && asyncGemm(prev))
      fenced.insert(gemm);
  }
  for (tile::WaitWgmmaOp wait : waits) {
    llvm::SmallPtrSet<Value, 4> inFlight = stillInFlight(wait);
    tile::PartitionAttr at = partitionOf(wait);
    llvm::SetVector<const Fragment *> completed;
    for (tile::GemmOp gemm : gemms) {
      Value acc = baseBuffer(gemm.getC());
      if (!inFlight.contains(acc) &&
          samePartition(at, partitionOf(gemm)))
        completed.insert(kernel.fragment(acc));
    }
    OpBuilder b(wait);
    Location loc = wait.getLoc();
    const DeviceOpBuilder &ops = deviceOps(wait);
    ops.wgmmaWait(b, loc, static_cast<int64_t>(wait.getPending()));
    for (const Fragment *frag : completed) {
      int64_t registers =
          cast<MemRefType>(frag->registers.getType()).getNumElements();
      for (int64_t r = 0; r < registers; ++r)
        kernel.storeRegister(
            b, loc, *frag, r,
            ops.opaqueRegister(b, loc, kernel.loadRegister(b, loc, *frag, r)));
    }
    wait.erase();
  }
  return fenced;
}
