//===- InsertBarriers.cpp - tile-insert-barriers: shared-memory sync
//-------===//
//
// Algorithm: walk every kernel (tile.kernel or gpu.func) and collect the
// tile-level ops that write shared memory: copies, fills and scans into a
// shared buffer, T.Parallel loops whose body stores (or atomically adds) to
// one, atomic adds on one. Put a tile.barrier right before each (write after
// read: earlier readers are done; in a loop, the previous iteration's
// readers too) and right after (read after write: later readers see the
// data), skipping a barrier whose neighbour already is one, and the one
// before a top-level op that no shared-memory access precedes. This is the
// conservative form of TileLang's thread-sync planning; redundant barriers
// between two writers of different buffers remain.
//
// An atomic add is one thread's work, often under a condition on the thread
// or on loaded data (a histogram), where no block barrier can go. Atomic
// adds do not race with each other, so its barriers move out of every
// enclosing if or loop that touches the same buffer only by atomic adds:
// the hazards they fence are with readers outside it.
//
// A thread's own stores into a shared buffer outside those ops (an element
// assignment in a serial, unrolled or vectorized loop, or under a
// condition: TileLang's Hadamard example exchanges rows through shared
// memory that way) are writers too. Their barriers move out of every
// enclosing if or loop that touches the buffer only by such stores, so
// they fence the whole write, and out of every if on the thread index,
// where some threads would not reach them (what such a branch reads of
// its own writes is the kernel's to synchronize, as in CUDA).
//
// T.ptx_cp_async copies land asynchronously: their writes are complete
// where the kernel waits for them, so in a kernel with such copies a
// `tile.cp_async_wait` (T.ptx_wait_group) counts as the writer, for the
// readers after it (a barrier after it, none before). Copies tracked by mbarriers
// (T.cp_async_barrier_noinc) are synchronized by the barriers.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileOps.h"
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-insert-barriers"

namespace tilec {
#define GEN_PASS_DEF_TILEINSERTBARRIERS
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

bool isShared(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && tile::getMemorySpace(type) == tile::MemorySpace::shared;
}

bool writesShared(Operation *op) {
  if (auto copy = dyn_cast<tile::CopyOp>(op))
    return isShared(copy.getDst());
  if (auto fill = dyn_cast<tile::FillOp>(op))
    return isShared(fill.getDst());
  if (auto atomic = dyn_cast<tile::AtomicAddOp>(op))
    return isShared(atomic.getDst());
  if (auto scan = dyn_cast<tile::ScanOp>(op))
    return isShared(scan.getDst());
  if (auto loop = dyn_cast<tile::ParallelOp>(op)) {
    bool writes = false;
    loop.getBody()->walk([&](Operation *inner) {
      if (auto store = dyn_cast<memref::StoreOp>(inner))
        writes |= isShared(store.getMemRef());
      else if (auto rmw = dyn_cast<memref::AtomicRMWOp>(inner))
        writes |= isShared(rmw.getMemref());
      else if (auto atomic = dyn_cast<tile::AtomicAddOp>(inner))
        writes |= isShared(atomic.getDst());
    });
    return writes;
  }
  return false;
}

/// Whether `op` (or anything nested in it) reads or writes shared memory.
bool touchesShared(Operation *op) {
  bool touches = false;
  op->walk([&](Operation *inner) {
    if (!isa<tile::AllocOp>(inner))
      touches |= llvm::any_of(inner->getOperands(), isShared);
  });
  return touches;
}

/// A barrier before `op` protects nothing when `op` sits at the top level
/// of the kernel and nothing before it touches shared memory.
bool nothingBefore(Operation *op) {
  if (!isa<tile::KernelOp, gpu::GPUFuncOp>(op->getParentOp()))
    return false;
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode())
    if (touchesShared(prev))
      return false;
  return true;
}

/// The buffer `v` views (through subviews and casts), or `v` itself.
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// Whether the ops nested in `op` touch `buffer` only by ops `by` accepts
/// (atomic adds; plain stores).
bool onlyTouchesBy(Operation *op, Value buffer,
                   llvm::function_ref<bool(Operation *)> by) {
  bool other = false;
  op->walk([&](Operation *inner) {
    if (by(inner) || isa<tile::AllocOp>(inner) ||
        isa<ViewLikeOpInterface>(inner))
      return;
    for (Value operand : inner->getOperands())
      if (isShared(operand)) {
        Value root = rootBuffer(operand);
        // Buffers of unknown origin may alias `buffer`.
        other |= root == buffer || !root.getDefiningOp<tile::AllocOp>() ||
                 !buffer.getDefiningOp<tile::AllocOp>();
      }
  });
  return !other;
}

bool isAtomic(Operation *op) {
  return isa<tile::AtomicAddOp, memref::AtomicRMWOp>(op);
}
bool isStore(Operation *op) { return isa<memref::StoreOp>(op); }

/// A thread's own store into shared memory, outside a tile op (which is
/// the writer then).
bool isPlainSharedStore(Operation *op) {
  auto store = dyn_cast<memref::StoreOp>(op);
  return store && isShared(store.getMemRef());
}

/// Whether `v` is computed from the thread index (its def chain reaches a
/// tile.thread_id): a branch on it is one some threads of a warp or block
/// skip, where no block barrier can go.
bool dependsOnThread(Value v, unsigned depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 32)
    return false;
  if (isa<tile::ThreadIdOp, gpu::ThreadIdOp>(def))
    return true;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return dependsOnThread(operand, depth + 1);
  });
}

/// Where the barriers of writer `op` go: the op itself, or for an atomic
/// add (a plain store) the outermost enclosing op below the kernel that
/// touches its buffer only atomically (only by stores) (control flow only:
/// a partition's barriers stay in it).
Operation *barrierAnchor(Operation *op) {
  auto atomic = dyn_cast<tile::AtomicAddOp>(op);
  if (!atomic && !isPlainSharedStore(op))
    return op;
  Value buffer = rootBuffer(atomic ? atomic.getDst()
                                   : cast<memref::StoreOp>(op).getMemRef());
  Operation *anchor = op;
  for (Operation *parent = op->getParentOp();
       isa_and_nonnull<scf::IfOp, scf::ForOp, scf::WhileOp, tile::ForOp>(
           parent) &&
       onlyTouchesBy(parent, buffer, atomic ? isAtomic : isStore);
       parent = parent->getParentOp())
    anchor = parent;
  // Never inside a branch on the thread index, however deep: out to the
  // outermost one below the kernel or T.ws region.
  if (!atomic)
    for (Operation *parent = anchor->getParentOp();
         parent && !isa<tile::KernelOp, gpu::GPUFuncOp, tile::WsOp>(parent);
         parent = parent->getParentOp())
      if (auto ifOp = dyn_cast<scf::IfOp>(parent);
          ifOp && dependsOnThread(ifOp.getCondition()))
        anchor = parent;
  return anchor;
}

struct TileInsertBarriers
    : tilec::impl::TileInsertBarriersBase<TileInsertBarriers> {
  using TileInsertBarriersBase::TileInsertBarriersBase;

  void runOnOperation() override {
    SmallVector<Operation *> writers;
    bool rawCopies = false;
    getOperation()->walk([&](tile::CpAsyncOp) { rawCopies = true; });
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (writesShared(op) || isPlainSharedStore(op) ||
          (rawCopies && isa<tile::CpAsyncWaitOp>(op))) {
        writers.push_back(op);
        // Nothing inside a T.Parallel loop gets a barrier of its own.
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    llvm::SmallPtrSet<Operation *, 8> anchored;
    for (Operation *writer : writers) {
      Operation *op = barrierAnchor(writer);
      if (!anchored.insert(op).second)
        continue; // several atomic adds hoisted to the same op
      Operation *prev = op->getPrevNode();
      // A wait writes nothing itself: it only needs the barrier after it.
      if (!isa<tile::CpAsyncWaitOp>(op) && !nothingBefore(op) &&
          !isa_and_nonnull<tile::BarrierOp>(prev)) {
        OpBuilder b(op);
        tile::BarrierOp::create(b, op->getLoc());
      }
      Operation *next = op->getNextNode();
      if (!isa_and_nonnull<tile::BarrierOp>(next)) {
        OpBuilder b(op->getContext());
        b.setInsertionPointAfter(op);
        tile::BarrierOp::create(b, op->getLoc());
      }
    }
    LLVM_DEBUG(llvm::dbgs() << writers.size() << " shared-memory writers\n");
    if (writers.empty())
      markAllAnalysesPreserved();
  }
};

} // namespace
