//===- PlanPipeline.cpp - tile-plan-pipeline: schedule T.Pipelined loops --===//
//
// The pass wrapper of gemm::planPipelines (PipelineLoops.cpp): records, per
// T.Pipelined loop whose body it can pipeline, the stage and order of each
// op and the stage count of each shared buffer that becomes a ring.
// tile-lower-simt applies the plan. Runs after tile-infer-layouts, which
// decides which shared buffers are T.gemm operands.
//
// When not even two stages of every operand buffer fit in the block's
// shared memory (FlashAttention's 128x128 K and V tiles next to Q and O on
// sm_80), planPipelines leaves the loop unpipelined. This pass then keeps a
// pipeline over fewer operands: the largest operand buffers, one by one,
// lose their ring (one stage: their copies run synchronously in the body,
// before the ops that read them) until the others fit in two stages or
// more; the located warning says which buffers stay rings, in how many
// stages, and which are copied without one. In a wgmma loop the copies
// left in the body write through the generic proxy after the schedule's
// once-per-iteration fence, so the lowering (PipelineLoops.cpp) fences
// before each wgmma of such a loop.
//
//===----------------------------------------------------------------------===//

#include "GemmLayouts.h"
#include "SIMTLayout.h"

#include "tilec/Passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tilec {
#define GEN_PASS_DEF_TILEPLANPIPELINE
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

constexpr llvm::StringLiteral kStage = "tile.stage";
constexpr llvm::StringLiteral kOrder = "tile.order";
constexpr llvm::StringLiteral kNumStages = "tile.num_stages";

bool planned(tile::PipelinedOp loop) {
  return llvm::any_of(loop.getBody()->without_terminator(),
                      [](Operation &op) { return op.hasAttr(kStage); });
}

/// Warnings raised while planning, held back until it is known whether the
/// loop keeps a pipeline after all; errors go through.
struct HeldWarnings {
  SmallVector<std::pair<Location, std::string>> held;
  ScopedDiagnosticHandler handler;
  explicit HeldWarnings(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) -> LogicalResult {
          if (diag.getSeverity() != DiagnosticSeverity::Warning)
            return failure();
          held.push_back({diag.getLocation(), diag.str()});
          return success();
        }) {}
};

void replay(ArrayRef<std::pair<Location, std::string>> warnings) {
  for (const auto &[loc, message] : warnings)
    emitWarning(loc) << message;
}

/// Removes the plan planPipelines recorded on `loop`, restoring the stage
/// counts its rings had before.
void strip(tile::PipelinedOp loop,
           const llvm::DenseMap<Operation *, Attribute> &before,
           ArrayRef<tile::AllocOp> rings) {
  for (Operation &op : loop.getBody()->without_terminator()) {
    op.removeAttr(kStage);
    op.removeAttr(kOrder);
  }
  for (tile::AllocOp ring : rings) {
    if (Attribute old = before.lookup(ring))
      ring->setAttr(kNumStages, old);
    else
      ring->removeAttr(kNumStages);
  }
}

std::string names(ArrayRef<tile::AllocOp> buffers) {
  std::string out;
  for (tile::AllocOp alloc : buffers)
    out += (out.empty() ? "`" : ", `") + alloc.getName().str() + "`";
  return out;
}

/// `loop` is unplanned because its rings do not fit in `maxShared` bytes
/// at two stages. Plans it without the limit, then takes rings away, the
/// largest first, until the others fit. Returns whether it kept a
/// pipeline (with its warning emitted); the loop is left unplanned if not.
FailureOr<bool> degrade(tile::PipelinedOp loop, int64_t maxShared) {
  auto kernel = loop->getParentOfType<tile::KernelOp>();
  if (!kernel)
    return false;
  llvm::DenseMap<Operation *, Attribute> before;
  kernel.walk([&](tile::AllocOp alloc) {
    if (Attribute a = alloc->getAttr(kNumStages))
      before[alloc] = a;
  });
  {
    HeldWarnings quiet(loop.getContext());
    if (failed(gemm::planPipelines(loop, /*maxSharedBytes=*/0)))
      return failure();
  }
  if (!planned(loop))
    return false;
  int64_t stages = loop.getNumStages();
  // The rings of this loop: the destinations of its stage-0 copies.
  SmallVector<tile::CopyOp> producers;
  SmallVector<tile::AllocOp> rings;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto copy = dyn_cast<tile::CopyOp>(op);
    auto stage = op.getAttrOfType<IntegerAttr>(kStage);
    if (!copy || !stage || stage.getInt() != 0)
      continue;
    producers.push_back(copy);
    auto alloc = copy.getDst().getDefiningOp<tile::AllocOp>();
    if (alloc && !llvm::is_contained(rings, alloc))
      rings.push_back(alloc);
  }
  // Every shared buffer once (the rings' extra stages apart), and the
  // reductions' scratch.
  int64_t base =
      gemm::reductionScratchBytes(kernel) +
      gemm::sharedFootprint(kernel, [&](tile::AllocOp alloc) -> int64_t {
        if (!llvm::is_contained(rings, alloc))
          if (auto n = alloc->getAttrOfType<IntegerAttr>(kNumStages))
            return n.getInt();
        return 1;
      });
  // Largest first; of equal ones, the later in the body first (the first
  // operand a loop reads keeps its ring).
  SmallVector<tile::AllocOp> kept(rings), dropped;
  llvm::DenseMap<Operation *, size_t> position;
  for (auto [i, alloc] : llvm::enumerate(rings))
    position[alloc] = i;
  llvm::sort(kept, [&](tile::AllocOp a, tile::AllocOp b) {
    if (gemm::sharedBytes(a) != gemm::sharedBytes(b))
      return gemm::sharedBytes(a) > gemm::sharedBytes(b);
    return position[a] > position[b];
  });
  auto keptBytes = [&] {
    int64_t sum = 0;
    for (tile::AllocOp alloc : kept)
      sum += gemm::sharedBytes(alloc);
    return sum;
  };
  while (!kept.empty() && base + keptBytes() > maxShared) {
    dropped.push_back(kept.front());
    kept.erase(kept.begin());
  }
  if (kept.empty() || dropped.empty()) {
    strip(loop, before, rings);
    return false;
  }
  int64_t fits = stages;
  while (fits > 2 && base + (fits - 1) * keptBytes() > maxShared)
    --fits;

  // The copies into the dropped buffers become consumers: they run at the
  // consumers' stage, in program order, ahead of every op that reads
  // their buffer (a written order must already put them there).
  auto droppedCopy = [&](Operation *op) {
    auto copy = dyn_cast<tile::CopyOp>(op);
    auto dst =
        copy ? copy.getDst().getDefiningOp<tile::AllocOp>() : tile::AllocOp();
    return dst && llvm::is_contained(dropped, dst);
  };
  SmallVector<Operation *> staged;
  for (Operation &op : loop.getBody()->without_terminator())
    if (op.hasAttr(kStage))
      staged.push_back(&op);
  auto orderOf = [](Operation *op) {
    return op->getAttrOfType<IntegerAttr>(kOrder).getInt();
  };
  bool written = loop.getOrder().has_value();
  Builder b(loop.getContext());
  if (!written) {
    int64_t next = 0;
    for (bool producersFirst : {true, false})
      for (Operation *op : staged) {
        bool producer = op->getAttrOfType<IntegerAttr>(kStage).getInt() == 0 &&
                        !droppedCopy(op);
        if (producer == producersFirst)
          op->setAttr(kOrder, b.getI64IntegerAttr(next++));
      }
  }
  for (Operation *copy : staged) {
    if (!droppedCopy(copy))
      continue;
    Value dst = cast<tile::CopyOp>(copy).getDst();
    for (Operation *op : staged) {
      bool reads =
          op != copy && op->walk([&](Operation *inner) {
                            return llvm::is_contained(inner->getOperands(), dst)
                                       ? WalkResult::interrupt()
                                       : WalkResult::advance();
                          }).wasInterrupted();
      if (reads && orderOf(op) < orderOf(copy)) {
        strip(loop, before, rings);
        return false;
      }
    }
  }
  for (Operation *op : staged) {
    bool producer = op->getAttrOfType<IntegerAttr>(kStage).getInt() == 0 &&
                    !droppedCopy(op);
    op->setAttr(kStage, b.getI64IntegerAttr(producer ? 0 : fits - 1));
  }
  for (tile::AllocOp alloc : kept)
    alloc->setAttr(kNumStages, b.getI64IntegerAttr(fits));
  for (tile::AllocOp alloc : dropped) {
    if (Attribute old = before.lookup(alloc))
      alloc->setAttr(kNumStages, old);
    else
      alloc->removeAttr(kNumStages);
  }
  if (fits != stages)
    loop.setNumStages(fits);
  int64_t all = keptBytes();
  for (tile::AllocOp alloc : dropped)
    all += gemm::sharedBytes(alloc);
  InFlightDiagnostic diag =
      loop.emitWarning()
      << "T.Pipelined: 2 stages of the operand buffers (" << all
      << " bytes a stage) do not fit in the " << maxShared
      << " bytes of shared memory a block may use; pipelining fewer "
         "operands: "
      << names(kept) << " in " << fits << " stages, " << names(dropped)
      << " copied in each iteration without a ring";
  if (fits != stages)
    diag << " (" << stages << " stages asked)";
  return true;
}

struct TilePlanPipeline : tilec::impl::TilePlanPipelineBase<TilePlanPipeline> {
  using TilePlanPipelineBase::TilePlanPipelineBase;
  void runOnOperation() override {
    SmallVector<tile::PipelinedOp> loops;
    bool nested = false;
    getOperation()->walk([&](tile::PipelinedOp loop) {
      // A body with T.ws regions synchronizes itself (mbarriers written by
      // hand, as TileLang's warp-specialized examples do): it runs as
      // written, one iteration after the other, its buffers single.
      bool explicitRoles = false;
      loop.getBody()->walk([&](tile::WsOp) { explicitRoles = true; });
      if (explicitRoles)
        return;
      loops.push_back(loop);
      nested |= loop->getParentOfType<tile::PipelinedOp>() != nullptr;
    });
    if (loops.empty())
      return;
    const TargetInfo *target = tile::requireTarget(getOperation());
    if (!target)
      return signalPassFailure();
    int64_t maxShared = target->maxSharedMemoryPerBlock();
    // Nested pipelined loops are planned together, as planPipelines does.
    if (nested || maxShared <= 0) {
      if (failed(gemm::planPipelines(getOperation(), maxShared)))
        signalPassFailure();
      return;
    }
    for (tile::PipelinedOp loop : loops) {
      SmallVector<std::pair<Location, std::string>> warnings;
      {
        HeldWarnings held(loop.getContext());
        LogicalResult result = gemm::planPipelines(loop, maxShared);
        warnings = std::move(held.held);
        if (failed(result))
          return signalPassFailure();
      }
      if (!planned(loop) && loop.getNumStages() >= 2) {
        FailureOr<bool> kept = degrade(loop, maxShared);
        if (failed(kept))
          return signalPassFailure();
        if (*kept)
          continue;
      }
      replay(warnings);
    }
  }
};
} // namespace
