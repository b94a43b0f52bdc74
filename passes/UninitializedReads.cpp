//===- UninitializedReads.cpp - Shared buffers read before any write ------===//
//
// A shared buffer (T.alloc_shared) starts with whatever the block's shared
// memory held. A kernel that reads one before anything writes it computes
// from that garbage, silently and differently under every compiler:
// TileLang's gdn example_chunk_delta_h with use_initial_state=False stores
// b_h_shared to h and multiplies it into V_new before its first write (the
// differential test's "h: NaN 0 vs 16744960", tilec's shared memory happening
// to hold finite values where TileLang's held NaN). This pass warns at the
// first such read of each buffer; the kernel still compiles.
//
// Order: the kernel body in pre-order, which for structured control flow is
// the order of the source. A write anywhere before the read counts, under a
// condition too: the warning is for reads that nothing can have initialized.
// A read in a loop body before the body's write is the first iteration's read
// of garbage, as in the gdn kernel. Left alone (no warning), where the text
// does not give the order the threads run in: kernels synchronized by hand
// (T.ws regions, mbarriers, TMA), T.Pipelined loops whose `order` / `stage`
// the user wrote (their writes count as before the body's reads). A buffer
// that reaches an op whose effects on it are unknown (T.address_of, inline
// PTX, a view other than memref's) counts as written there.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileDialect.h"
#include "tilec/Dialect/TileOps.h"
#include "tilec/Passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseSet.h"

namespace tilec {
#define GEN_PASS_DEF_TILEUNINITIALIZEDREADS
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

bool handSynchronized(Operation *op) {
  return isa<tile::WsOp, tile::MBarrierWaitOp, tile::MBarrierArriveOp,
             tile::MBarrierExpectTxOp, tile::TmaCopyOp, tile::AllocBarrierOp,
             tile::CpAsyncOp, tile::CpAsyncArriveOp>(op);
}

/// Reads and writes of one kernel's shared buffers in program order.
class KernelReads {
public:
  void run(tile::KernelOp kernel) {
    bool skip = false;
    kernel.walk([&](Operation *op) {
      if (handSynchronized(op))
        skip = true;
      if (auto alloc = dyn_cast<tile::AllocOp>(op))
        if (tile::getMemorySpace(alloc.getType()) == tile::MemorySpace::shared)
          root[alloc.getResult()] = alloc;
    });
    if (skip || root.empty())
      return;
    kernel.getRegion().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto loop = dyn_cast<tile::PipelinedOp>(op))
        if (loop.getOrder() || loop.getStage())
          loop.getRegion().walk([&](Operation *inner) { visit(inner, true); });
      visit(op, false);
    });
  }

private:
  /// `writesOnly`: count the op's writes, not its reads (a written
  /// software-pipeline schedule, whose stages reorder the body).
  void visit(Operation *op, bool writesOnly) {
    for (Value operand : op->getOperands()) {
      auto it = root.find(operand);
      if (it == root.end())
        continue;
      tile::AllocOp alloc = it->second;
      if (isa<tile::AnnotateLayoutOp>(op))
        continue;
      if (auto view = dyn_cast<ViewLikeOpInterface>(op)) {
        if (view.getViewSource() == operand)
          for (Value r : op->getResults())
            root[r] = alloc;
        continue;
      }
      bool reads = false, writes = false;
      effects(op, operand, reads, writes);
      if (reads && !writesOnly && !written.contains(alloc) &&
          warned.insert(alloc).second)
        op->emitWarning() << "shared buffer `" << alloc.getName()
                          << "` is read here before anything writes it: it "
                             "holds whatever the block's shared memory held";
      if (writes)
        written.insert(alloc);
    }
  }

  /// What `op` does to `buffer`; an op that declares no effects on it is
  /// taken to write it (and not to read it).
  static void effects(Operation *op, Value buffer, bool &reads, bool &writes) {
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface) {
      writes = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> list;
    iface.getEffectsOnValue(buffer, list);
    for (auto &e : list) {
      reads |= isa<MemoryEffects::Read>(e.getEffect());
      writes |= isa<MemoryEffects::Write>(e.getEffect());
    }
    // Declared read-and-write, read only without clearing.
    if (auto gemm = dyn_cast<tile::GemmOp>(op))
      if (gemm.getClearAccum() && gemm.getC() == buffer)
        reads = false;
    if (auto reduce = dyn_cast<tile::ReduceOp>(op))
      if (reduce.getClear() && reduce.getDst() == buffer)
        reads = false;
  }

  DenseMap<Value, tile::AllocOp> root;
  llvm::DenseSet<Operation *> written, warned;
};

struct TileUninitializedReads
    : tilec::impl::TileUninitializedReadsBase<TileUninitializedReads> {
  void runOnOperation() override {
    getOperation()->walk(
        [](tile::KernelOp kernel) { KernelReads().run(kernel); });
  }
};

} // namespace
