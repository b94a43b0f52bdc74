//===- PipelineLoops.cpp - Planning and applying cp.async pipelines -------===//
//
// T.Pipelined(n, num_stages = S) over global -> shared copies feeding
// T.gemm becomes the classic multistage loop of sm_80: every operand
// buffer becomes a ring of S buffers, the copies of iteration j + S - 1
// are issued as cp.async while iteration j multiplies, one commit group
// per iteration.
//
// Planning (tile-plan-pipeline, on the tile dialect) records the schedule
// as attributes: `tile.stage` (0: issued S - 1 iterations ahead, S - 1:
// consumed) and `tile.order` (position in the body) on every op of the
// loop body, `tile.num_stages = S` on each ring buffer. The producers are
// the operand copies (GemmLayouts' isOperandCopy) into shared buffers used
// only inside the loop, with source offsets that side-effect-free ops
// compute; every other op is a consumer and keeps its place. A loop is
// planned when it has producers and a tile.gemm and only gemms read the
// rings; others keep the synchronous lowering, correct at any stage count.
//
// Applying (inside tile-lower-simt, which owns the operand registers),
// with n = ceildiv(ub - lb, step). A loop with one gemm gets the main loop
// of steadyWithCarriedFragments (below): one barrier per tile, before its
// last k-step, with the next tile's first fragments carried into the next
// iteration. A loop with several gemms gets the plain schedule:
//
//   for s in [0, S-1): copies(s) -> ring[s];  commit
//   for j in [0, n):
//     cp.async.wait_group S-2      // this thread's copies of j landed
//     barrier                      // everyone's did; everyone finished j-1
//     copies(j+S-1) -> ring[(j+S-1) % S]; commit   // the slot of j-1
//     gemms(ring[j % S])
//   cp.async.wait_group 0
//
// Copies of iterations past the end (j >= n) read 0 bytes from the last
// live iteration's address (a valid one) and still commit their group, so
// every iteration commits one group and wait_group S-2 always means
// "iteration j landed".
//
// In the plain schedule the single barrier per iteration covers both
// hazards: reads of slot j % S see every thread's writes, and the slot
// refilled in iteration j was last read by the gemm of iteration j - 1,
// which every thread has finished. The body's own tile.barriers (from
// tile-insert-barriers) are dropped. The copies' offsets are recomputed for the
// iteration they load by cloning their side-effect-free def chains.
//
//===----------------------------------------------------------------------===//

#include "DeviceOps.h"
#include "GemmLayouts.h"
#include "GemmLowering.h"
#include "SIMTLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

using namespace mlir;
using namespace tilec;

namespace {

constexpr llvm::StringLiteral kStage = "tile.stage";
constexpr llvm::StringLiteral kOrder = "tile.order";
constexpr llvm::StringLiteral kNumStages = "tile.num_stages";

bool isPureOp(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

/// Whether every use of `alloc` lies inside `body`.
bool usedOnlyIn(Operation *alloc, Region &body) {
  for (Operation *user : alloc->getUsers())
    if (!body.isAncestor(user->getParentRegion()))
      return false;
  return true;
}

/// Whether `value` is computed inside `body` by side-effect-free ops only
/// (from the induction variable and values from outside): it can then be
/// recomputed for another iteration.
bool recomputable(Value value, Region &body) {
  Operation *def = value.getDefiningOp();
  if (!def || !body.isAncestor(def->getParentRegion()))
    return true;
  if (!isPureOp(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return recomputable(operand, body);
  });
}

/// Whether `op` or an op nested in it uses one of `buffers`.
bool touches(Operation *op, const llvm::SetVector<Operation *> &buffers) {
  WalkResult walk = op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (Operation *def = tile::viewSource(operand).getDefiningOp();
          def && buffers.count(def))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

constexpr int64_t kWarpgroupThreads = 128;

/// The consumer warpgroups' turns at issuing a loop's first gemm
/// (kPingpongAttr), FlashAttention-3's scheduler barriers: warpgroup g
/// waits on named barrier id(g) before it issues and arrives on
/// id(g + 1 mod W) after; each barrier counts the 128 threads that wait
/// and the 128 that arrive. Warpgroup W - 1 arrives on id(0) before the
/// loop so that warpgroup 0 goes first, and warpgroup 0 takes that
/// barrier's last arrival after the loop, which leaves every barrier as it
/// was. The ids count down from 15; ThreadGuards.cpp's count up from 1.
struct Pingpong {
  Location loc;
  const DeviceOpBuilder *ops;
  int64_t groups;
  Value group; // this thread's warpgroup, i32

  static constexpr int64_t kTopId = 15;

  static Pingpong begin(OpBuilder &b, Location loc,
                        simt::KernelLowering &kernel, int64_t groups) {
    Type i32 = b.getI32Type();
    Value tid = arith::IndexCastUIOp::create(b, loc, i32, kernel.threadId());
    Value group = arith::DivUIOp::create(
        b, loc, tid,
        arith::ConstantIntOp::create(b, loc, i32, kWarpgroupThreads));
    Pingpong turns{loc, &simt::deviceOps(kernel.getFunc()), groups, group};
    Value last = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, group,
        arith::ConstantIntOp::create(b, loc, i32, groups - 1));
    auto first = scf::IfOp::create(b, loc, last, false);
    OpBuilder tb = first.getThenBodyBuilder();
    turns.ops->namedBarrierArrive(tb, loc, turns.idOf(tb, 0), turns.count(tb));
    return turns;
  }
  Value count(OpBuilder &b) const {
    return arith::ConstantIntOp::create(b, loc, 2 * kWarpgroupThreads, 32);
  }
  /// kTopId - g, for a constant or run-time g.
  Value idOf(OpBuilder &b, int64_t g) const {
    return arith::ConstantIntOp::create(b, loc, kTopId - g, 32);
  }
  Value idOf(OpBuilder &b, Value g) const {
    return arith::SubIOp::create(
        b, loc, arith::ConstantIntOp::create(b, loc, kTopId, 32), g);
  }
  void await(OpBuilder &b) const {
    ops->namedBarrier(b, loc, idOf(b, group), count(b));
  }
  void handOn(OpBuilder &b) const {
    Type i32 = b.getI32Type();
    Value next = arith::RemUIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, group,
                              arith::ConstantIntOp::create(b, loc, i32, 1)),
        arith::ConstantIntOp::create(b, loc, i32, groups));
    ops->namedBarrierArrive(b, loc, idOf(b, next), count(b));
  }
  void end(OpBuilder &b) const {
    Value zero = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, group,
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
    auto last = scf::IfOp::create(b, loc, zero, false);
    OpBuilder tb = last.getThenBodyBuilder();
    ops->namedBarrier(tb, loc, idOf(tb, 0), count(tb));
  }
};

} // namespace

int64_t gemm::reductionScratchBytes(tile::KernelOp kernel) {
  std::optional<int64_t> threads =
      kernel ? simt::kernelThreads(kernel) : std::nullopt;
  if (!threads)
    return 0;
  llvm::DenseMap<Type, int64_t> largest;
  kernel.walk([&](tile::ReduceOp reduce) {
    auto dst = reduce.getDst().getDefiningOp<tile::AllocOp>();
    tile::FragmentAttr layout = dst ? dst.getLayoutAttr() : nullptr;
    if (!layout)
      return;
    // Warps that span no part of the reduced dimension hold whole rows of
    // their own: the reduction stays inside them (FlashAttention's FullRow
    // row max and sum).
    auto src = reduce.getSrc().getDefiningOp<tile::AllocOp>();
    if (tile::FragmentAttr in = src ? src.getLayoutAttr() : nullptr) {
      bool crosses = false;
      for (unsigned i = 0; i < in.getNumWarpBits(); ++i)
        if (ArrayRef<int32_t> b = in.getWarpBasis(i);
            int64_t(reduce.getDim()) >= int64_t(b.size()) ||
            b[reduce.getDim()] != 0)
          crosses = true;
      if (!crosses)
        return;
    }
    Type element = cast<MemRefType>(dst.getType()).getElementType();
    int64_t bytes = *threads * (int64_t(1) << layout.getNumRegisterBits()) *
                    element.getIntOrFloatBitWidth() / 8;
    largest[element] = std::max(largest[element], bytes);
  });
  // T.finalize_reducer: the same scratch when a reducer's copies sit in
  // several warps (a zero warp basis); it shares the reductions' pool.
  kernel.walk([&](tile::FinalizeReducerOp finalize) {
    auto alloc = finalize.getReducer().getDefiningOp<tile::AllocOp>();
    tile::FragmentAttr layout = alloc ? alloc.getLayoutAttr() : nullptr;
    if (!layout)
      return;
    bool crosses = false;
    for (unsigned i = 0; i < layout.getNumWarpBits(); ++i)
      crosses |= llvm::all_of(layout.getWarpBasis(i),
                              [](int32_t c) { return c == 0; });
    if (!crosses)
      return;
    Type element = cast<MemRefType>(alloc.getType()).getElementType();
    int64_t bytes = *threads * (int64_t(1) << layout.getNumRegisterBits()) *
                    element.getIntOrFloatBitWidth() / 8;
    largest[element] = std::max(largest[element], bytes);
  });
  int64_t total = 0;
  for (auto &[type, bytes] : largest)
    total += bytes;
  return total;
}

namespace {

/// The consumers' copy of a warp-specialized body that keeps its block
/// barriers (it touches shared buffers other than the rings). The
/// producer's copies are dropped, so the barriers that stood around them
/// meet: a run of barriers with no consumer op between them is one barrier
/// (MLA decode's KV and K_pe copies left four in a row). And only the
/// shared buffers the consumers themselves write in the body need the
/// async-proxy fence before a gemm reads them (S_shared in MLA, not Q or
/// the TMA rings): such a buffer's writers fence before the next kept
/// barrier, and a gemm reading nothing written since then goes unfenced.
class KeptBarriers {
public:
  /// `gemms`: the consumers' gemms of the body.
  explicit KeptBarriers(ArrayRef<tile::GemmOp> gemms) {
    for (tile::GemmOp g : gemms)
      for (Value operand : {g.getA(), g.getB()})
        if (tile::getMemorySpace(cast<MemRefType>(operand.getType())) ==
            tile::MemorySpace::shared)
          gemmOperands.insert(operand);
  }

  /// Emits the body's barrier `op` unless the one before is still in
  /// effect, fencing the gemm operands written since that one.
  void barrier(OpBuilder &b, Operation &op, IRMapping &map) {
    if (afterBarrier)
      return;
    if (!unfenced.empty())
      simt::fenceAsyncProxy(b, op.getLoc());
    unfenced.clear();
    afterBarrier = true;
    b.clone(op, map);
  }

  /// Records the consumer op `op` (not a barrier) before it is emitted.
  void note(Operation &op) {
    if (!isPureOp(&op))
      afterBarrier = false;
    if (isa<tile::GemmOp>(op))
      return;
    op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (gemmOperands.contains(operand))
          unfenced.insert(operand);
    });
  }

  /// Whether nothing `gemm` reads was written since the last barrier.
  bool fenced(tile::GemmOp gemm) const {
    return !unfenced.contains(gemm.getA()) && !unfenced.contains(gemm.getB());
  }

private:
  DenseSet<Value> gemmOperands;
  DenseSet<Value> unfenced; // written since the last kept barrier
  bool afterBarrier = false;
};

/// The schedule written in the source (`order` / `stage`, per statement or
/// per `group`; MLIRGen tags each statement's ops with `tile.stmt`).
struct WrittenSchedule {
  std::optional<ArrayRef<int64_t>> order, stage;
  /// Statement index -> group index (identity without `group`).
  SmallVector<int64_t> unitOf;

  explicit WrittenSchedule(tile::PipelinedOp loop)
      : order(loop.getOrder()), stage(loop.getStage()) {
    if (ArrayAttr groups = loop.getGroupAttr())
      for (auto [g, attr] : llvm::enumerate(groups))
        for (int64_t stmt : cast<DenseI64ArrayAttr>(attr).asArrayRef()) {
          if (int64_t(unitOf.size()) <= stmt)
            unitOf.resize(stmt + 1, -1);
          unitOf[stmt] = int64_t(g);
        }
  }
  bool any() const { return order || stage; }
  /// The unit (statement or group) `op` belongs to, or -1 if untagged.
  int64_t unit(Operation *op) const {
    auto stmt = op->getAttrOfType<IntegerAttr>("tile.stmt");
    if (!stmt)
      return -1;
    int64_t i = stmt.getInt();
    if (unitOf.empty())
      return i;
    return i < int64_t(unitOf.size()) ? unitOf[i] : -1;
  }
};

/// Plans `loop`; returns why it stays unplanned ("" when planned, or when
/// there is nothing to overlap), and fails with a located error for a
/// written schedule tilec cannot follow.
FailureOr<std::string> planLoop(tile::PipelinedOp loop,
                                int64_t maxSharedBytes) {
  WrittenSchedule written(loop);
  int64_t stages = loop.getNumStages();
  if (!written.stage && stages < 2)
    return std::string();
  Region &body = *loop.getBody()->getParent();
  if (!body.hasOneBlock())
    return std::string("its body has more than one block");
  SmallVector<Operation *> ops;
  SmallVector<tile::CopyOp> copies;
  llvm::SetVector<Operation *> rings;
  bool anyGemm = false;
  // Producers: operand copies into shared buffers that only the loop uses,
  // with source offsets recomputable for a later iteration. Everything
  // else with effects is a consumer and runs in order (FlashAttention's
  // softmax between its two gemms, say).
  for (Operation &op : body.front()) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    ops.push_back(&op);
    if (auto copy = dyn_cast<tile::CopyOp>(op)) {
      Operation *dst = copy.getDst().getDefiningOp();
      bool producer = dst && dst->hasAttr(gemm::kSharedLayoutAttr) &&
                      gemm::isOperandCopy(copy) && usedOnlyIn(dst, body) &&
                      !body.isAncestor(dst->getParentRegion()) &&
                      llvm::all_of(copy.getSrcOffsets(), [&](Value v) {
                        return recomputable(v, body);
                      });
      if (producer) {
        if (auto old = dst->getAttrOfType<IntegerAttr>(kNumStages);
            old && old.getInt() != stages && !written.stage)
          return std::string("its operand buffers are rings of another "
                             "loop with a different stage count");
        copies.push_back(copy);
        rings.insert(dst);
        continue;
      }
    }
    if (auto gemmOp = dyn_cast<tile::GemmOp>(op)) {
      // The pipeline reads its gemms' operands as whole tiles of rings.
      if (gemmOp.isRegion(0) || gemmOp.isRegion(1) || gemmOp.isRegion(2))
        return std::string("a T.gemm in it reads a region of a buffer");
      anyGemm = true;
    }
  }
  if (!anyGemm || copies.empty())
    return std::string("it has no T.gemm fed by copies from global memory "
                       "into shared buffers used only in the loop");
  // A ring is written by its copies and read by gemms only: any other use
  // would see the slot of another iteration.
  for (Operation *op : ops)
    if (!isa<tile::GemmOp>(op) &&
        !llvm::is_contained(copies, dyn_cast<tile::CopyOp>(op)) &&
        touches(op, rings))
      return std::string("an operand buffer is read by something other "
                         "than a T.gemm");
  // Stages go on the ops with effects; pure ones are recomputed wherever
  // their values are needed.
  llvm::erase_if(ops, [](Operation *op) { return isPureOp(op); });
  auto isProducer = [&](Operation *op) {
    return llvm::is_contained(copies, dyn_cast<tile::CopyOp>(op));
  };

  // A written schedule, followed as written where tilec's pipeline can run
  // it: the operand copies at one stage, everything else at one later
  // stage (the distance is how far ahead the copies run, plus one ring
  // slot); the statements that are not operand copies in program order,
  // the copies anywhere among them.
  // Without a written order the copies of a later iteration are issued
  // first, then the rest of the body in program order.
  SmallVector<int64_t> orderOf(ops.size());
  int64_t next = 0;
  for (bool producers : {true, false})
    for (auto [index, op] : llvm::enumerate(ops))
      if (isProducer(op) == producers)
        orderOf[index] = next++;
  if (written.any()) {
    for (Operation *op : ops)
      if (written.unit(op) < 0)
        return op->emitError("this op of a T.Pipelined loop with a written "
                             "`order`/`stage` belongs to no statement");
    if (written.stage) {
      std::optional<int64_t> copyStage, restStage;
      Operation *copyAt = nullptr, *restAt = nullptr;
      for (Operation *op : ops) {
        int64_t st = (*written.stage)[written.unit(op)];
        std::optional<int64_t> &seen = isProducer(op) ? copyStage : restStage;
        Operation *&where = isProducer(op) ? copyAt : restAt;
        if (seen && *seen != st) {
          InFlightDiagnostic diag =
              loop.emitError()
              << "T.Pipelined `stage`: tilec's pipeline runs the loop's "
              << (isProducer(op) ? "operand copies" : "other statements")
              << " at one stage, but this loop gives them " << *seen << " and "
              << st;
          diag.attachNote(where->getLoc()) << "stage " << *seen;
          diag.attachNote(op->getLoc()) << "stage " << st;
          return diag;
        }
        seen = st;
        where = op;
      }
      if (*restStage < *copyStage) {
        InFlightDiagnostic diag =
            loop.emitError()
            << "T.Pipelined `stage`: the operand copies (stage " << *copyStage
            << ") must not run after the statements that read them (stage "
            << *restStage << ")";
        diag.attachNote(copyAt->getLoc()) << "this copy";
        return diag;
      }
      stages = *restStage - *copyStage + 1;
      if (stages < 2)
        return std::string();
      loop.setNumStages(stages);
    }
    if (written.order) {
      Operation *prev = nullptr;
      int64_t prevOrder = -1;
      for (auto [index, op] : llvm::enumerate(ops)) {
        orderOf[index] = (*written.order)[written.unit(op)];
        if (isProducer(op))
          continue;
        if (prev && orderOf[index] < prevOrder &&
            written.unit(op) != written.unit(prev)) {
          InFlightDiagnostic diag =
              loop.emitError()
              << "T.Pipelined `order`: tilec keeps the statements that are "
                 "not operand copies in program order, but this order puts "
                 "one before an earlier one";
          diag.attachNote(op->getLoc()) << "ordered " << orderOf[index];
          diag.attachNote(prev->getLoc()) << "ordered " << prevOrder;
          return diag;
        }
        prev = op;
        prevOrder = orderOf[index];
      }
    }
  }

  // The extra slots must fit next to every other shared buffer of the
  // kernel: fewer stages (down to 2) rather than a kernel that cannot
  // launch.
  if (maxSharedBytes > 0) {
    int64_t base = 0, ringBytes = 0;
    if (auto kernel = loop->getParentOfType<tile::KernelOp>()) {
      base = gemm::sharedFootprint(kernel, [](tile::AllocOp alloc) {
        auto n = alloc->getAttrOfType<IntegerAttr>(kNumStages);
        return n ? n.getInt() : int64_t(1);
      });
      kernel.walk([&](tile::AllocOp alloc) {
        auto type = cast<MemRefType>(alloc.getType());
        if (rings.contains(alloc.getOperation()) && type.hasStaticShape())
          ringBytes +=
              type.getNumElements() * type.getElementTypeBitWidth() / 8;
      });
    }
    base +=
        gemm::reductionScratchBytes(loop->getParentOfType<tile::KernelOp>());
    int64_t fits = stages;
    while (fits >= 2 && base + (fits - 1) * ringBytes > maxSharedBytes)
      --fits;
    if (fits != stages) {
      InFlightDiagnostic diag =
          loop.emitWarning()
          << "T.Pipelined: " << stages << " stages of the operand buffers ("
          << ringBytes << " bytes a stage) do not fit in the " << maxSharedBytes
          << " bytes of shared memory a block may use";
      if (fits < 2) {
        diag << "; the loop runs without a pipeline";
        return std::string();
      }
      diag << "; using " << fits;
      stages = fits;
      // The loop's own count is what the lowering reads.
      loop.setNumStages(stages);
    }
  }
  Builder b(loop.getContext());
  for (auto [index, op] : llvm::enumerate(ops)) {
    op->setAttr(kStage, b.getI64IntegerAttr(isProducer(op) ? 0 : stages - 1));
    op->setAttr(kOrder, b.getI64IntegerAttr(orderOf[index]));
  }
  for (Operation *ring : rings)
    ring->setAttr(kNumStages, b.getI64IntegerAttr(stages));
  return std::string();
}

/// Recomputes `value` (defined in `loop`'s body from its induction variable
/// and outer values through side-effect-free ops) at `b`, with `map`
/// holding the induction variable's replacement.
Value remap(Value value, scf::ForOp loop, IRMapping &map, OpBuilder &b) {
  if (Value known = map.lookupOrNull(value))
    return known;
  Operation *def = value.getDefiningOp();
  if (!def || !loop.getBody()->getParentOp()->isAncestor(def))
    return value;
  for (Value operand : def->getOperands())
    remap(operand, loop, map, b);
  Operation *clone = b.clone(*def, map);
  return clone->getResult(cast<OpResult>(value).getResultNumber());
}

class LoopPipeliner {
public:
  LoopPipeliner(simt::KernelLowering &kernel, scf::ForOp loop, int64_t stages)
      : kernel(kernel), loop(loop), stages(stages), loc(loop.getLoc()) {}

  LogicalResult run() {
    for (Operation &op : loop.getBody()->without_terminator()) {
      // Barriers (tile-insert-barriers runs after the plan) are replaced by
      // the schedule's; side-effect-free ops are recomputed where needed.
      if (isa<tile::BarrierOp>(op) || isPureOp(&op))
        continue;
      if (!op.hasAttr(kStage))
        return op.emitError("this op of a pipelined loop has no stage; run "
                            "tile-plan-pipeline on the whole loop");
      if (auto copy = dyn_cast<tile::CopyOp>(op);
          copy && op.getAttrOfType<IntegerAttr>(kStage).getInt() == 0)
        copies.push_back(copy);
    }
    if (loop.getNumResults())
      return loop.emitError("a pipelined loop cannot carry values");
    makeRings();
    OpBuilder b(loop);
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
          step = loop.getStep();
    Value n = arith::CeilDivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, ub, lb), step);
    // Issues the copies of iteration j (0 bytes each when j >= n) and
    // commits them as one group; false when every copy was synchronous
    // (unaligned sources), with no group.
    auto issueGroup = [&](OpBuilder &ob, Value j, Value stage) -> bool {
      Value live =
          arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::slt, j, n);
      Value last = arith::MaxSIOp::create(
          ob, loc, arith::SubIOp::create(ob, loc, n, cst(ob, 1)), cst(ob, 0));
      Value at = arith::MinSIOp::create(ob, loc, j, last);
      if (!issue(ob, ivOf(ob, at), stage, live))
        return false;
      device().asyncCopyCommit(ob, loc);
      return true;
    };

    // Inside an outer loop the rings are reused: every thread must be done
    // with the previous run's last gemm before the prologue refills them.
    if (loop->getParentOfType<scf::ForOp>() ||
        loop->getParentOfType<scf::WhileOp>())
      gpu::BarrierOp::create(b, loc);

    if (auto roles = loop->getAttrOfType<tile::WarpSpecializeAttr>(
            tile::WarpSpecializeAttr::getAttrName())) {
      if (failed(runWarpSpecialized(b, roles, n)))
        return failure();
      loop.erase();
      for (auto &[old, ring] : ringOf)
        if (old->use_empty())
          old->erase();
      return success();
    }

    // The carried-fragment main loop issues the copies first; a written
    // `order` that puts them after the gemm gets the plain schedule.
    tile::GemmOp single = singleGemm();
    // wgmma reads the rings through the async proxy: every thread fences
    // its own copies' writes (cp.async and st.shared are generic-proxy
    // writes) before the barrier that publishes them.
    bool wgmma = false;
    loop.walk([&](tile::GemmOp g) {
      tile::MmaAttr mma = gemm::readMma(g);
      wgmma |= mma && mma.getKind() == tile::MmaKind::wgmma;
    });
    // A one-gemm wgmma loop keeps one tile's wgmmas in flight across
    // iterations (steadyWgmma). With cp.async the block barrier frees a
    // slot one iteration later, so the copies run S - 2 tiles ahead; with
    // TMA the slots have empty barriers (steadyWgmmaTma) and run S - 1.
    // Not when the body writes a gemm operand itself (conv's im2col into
    // data_shared by a T.Parallel loop): that buffer is no ring, and the
    // next iteration would rewrite it under the wgmmas still reading it.
    bool touched = bodyTouchesOperands();
    bool overlap = wgmma && single && stages >= 3 && !touched;

    // TMA for the copies of an overlapped wgmma loop where the chip has it,
    // the loop is not nested (its barriers' phases count this loop's
    // iterations only) and every copy qualifies (PipelineTma.cpp).
    bool nested = loop->getParentOfType<scf::ForOp>() ||
                  loop->getParentOfType<scf::WhileOp>();
    SmallVector<simt::TmaCopy> tma;
    if (overlap && !nested && hasTma())
      tma = planTma();
    int64_t prefetch = overlap && tma.empty() ? stages - 2 : stages - 1;
    Value full; // the mbarriers of the ring slots, with TMA
    // Thread 0 issues the loads of iteration j into `stage` (none when
    // j >= n) and arms the slot's barrier with their bytes.
    auto issueTma = [&](OpBuilder &ob, Value j, Value stage) {
      Value live =
          arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::slt, j, n);
      Value leader = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::eq,
                                           kernel.threadId(), cst(ob, 0));
      auto ifOp = scf::IfOp::create(
          ob, loc, arith::AndIOp::create(ob, loc, live, leader), false);
      OpBuilder tb = ifOp.getThenBodyBuilder();
      int64_t bytes = 0;
      for (const simt::TmaCopy &c : tma)
        bytes += c.bytes();
      Value mbar = barrierAt(tb, full, stage);
      device().mbarrierArriveExpectTx(
          tb, loc, mbar,
          arith::ConstantIntOp::create(tb, loc, tb.getI32Type(), bytes));
      IRMapping map;
      map.map(loop.getInductionVar(), ivOf(tb, j));
      for (const simt::TmaCopy &c : tma) {
        tile::CopyOp copy = c.copy;
        SmallVector<Value, 4> offsets;
        for (Value offset : copy.getSrcOffsets())
          offsets.push_back(remap(offset, loop, map, tb));
        simt::issueTmaCopy(tb, loc, c,
                           simt::tensorMapArgument(kernel.getFunc(), c),
                           slot(copy.getDst(), stage), offsets, mbar,
                           kernel.getOptions().indexBitwidth);
      }
    };
    // One barrier per slot, one arrival (thread 0's expect_tx) per phase.
    if (!tma.empty())
      full = makeBarrierRing(b, "tma_full_barriers", 1);

    // Prologue: stages 0 .. prefetch - 1.
    bool async = false;
    for (int64_t s = 0; s < prefetch; ++s) {
      if (!tma.empty())
        issueTma(b, cst(b, s), cst(b, s));
      else
        async |= issueGroup(b, cst(b, s), cst(b, s));
    }

    if (overlap && !tma.empty()) {
      if (failed(steadyWgmmaTma(b, single, n, full, issueTma)))
        return failure();
    } else if (overlap) {
      if (failed(steadyWgmma(b, single, n, issueGroup, async)))
        return failure();
    } else if (single && async && !wgmma &&
               orderOf(single) > firstCopyOrder()) {
      if (failed(steadyWithCarriedFragments(b, single, n, issueGroup)))
        return failure();
    } else {
      auto steady = scf::ForOp::create(b, loc, cst(b, 0), n, cst(b, 1));
      OpBuilder lb2 = OpBuilder::atBlockTerminator(steady.getBody());
      Value j = steady.getInductionVar();
      // With only synchronous copies (unaligned sources) there are no
      // groups; the barrier alone orders them.
      if (async)
        device().asyncCopyWait(lb2, loc, stages - 2);
      if (wgmma)
        simt::fenceAsyncProxy(lb2, loc);
      gpu::BarrierOp::create(lb2, loc);
      // The copies of iteration j + S - 1 go where `tile.order` puts the
      // first of them among the other ops (first, unless an order was
      // written): they fill the slot of iteration j - 1, which no op of
      // iteration j reads, so any position is safe.
      bool issued = false;
      auto issueAhead = [&] {
        Value ahead = arith::AddIOp::create(lb2, loc, j, cst(lb2, stages - 1));
        issueGroup(lb2, ahead,
                   arith::RemUIOp::create(lb2, loc, ahead, cst(lb2, stages)));
        issued = true;
      };
      int64_t firstCopy = firstCopyOrder();
      Value stage = arith::RemUIOp::create(lb2, loc, j, cst(lb2, stages));
      IRMapping map;
      map.map(loop.getInductionVar(), ivOf(lb2, j));
      // The body's own barriers are kept when it holds more than copies
      // and gemms (they may order other shared memory); in a plain GEMM
      // loop the schedule's barrier covers everything.
      bool keepBarriers = llvm::any_of(
          loop.getBody()->without_terminator(), [&](Operation &op) {
            return !isProducer(op) && !isPureOp(&op) &&
                   !isa<tile::GemmOp, tile::BarrierOp>(op);
          });
      // Issued before the first op whose next ordered op (itself, or the
      // one a barrier precedes) comes after the copies.
      auto nextOrderAfterCopies = [&](Operation *op) {
        for (; op && !op->hasTrait<OpTrait::IsTerminator>();
             op = op->getNextNode())
          if (op->hasAttr(kOrder) && !isProducer(*op))
            return orderOf(op) > firstCopy;
        return true;
      };
      // A copy left in the body (a buffer tile-plan-pipeline took the ring
      // from), or a T.Parallel loop writing an operand, writes through the
      // generic proxy after the fence above: each wgmma then fences and
      // publishes for itself.
      bool copiedInBody =
          touched ||
          llvm::any_of(loop.getBody()->without_terminator(),
                       [&](Operation &op) {
                         return isa<tile::CopyOp>(op) && !isProducer(op);
                       });
      for (Operation &op : loop.getBody()->without_terminator()) {
        if (isProducer(op) || (!keepBarriers && isa<tile::BarrierOp>(op)))
          continue;
        if (!issued && nextOrderAfterCopies(&op))
          issueAhead();
        if (auto gemmOp = dyn_cast<tile::GemmOp>(op)) {
          if (failed(simt::emitGemm(kernel, lb2, gemmOp,
                                    slot(gemmOp.getA(), stage),
                                    slot(gemmOp.getB(), stage),
                                    /*asyncFenced=*/wgmma && !copiedInBody)))
            return failure();
          continue;
        }
        lb2.clone(op, map);
      }
      if (!issued)
        issueAhead();
    }
    if (async)
      device().asyncCopyWait(b, loc, 0);
    loop.erase();
    for (auto &[old, ring] : ringOf)
      if (old->use_empty())
        old->erase();
    return success();
  }

private:
  /// Whether an op of the body other than the gemms and the producers'
  /// copies touches a shared buffer a gemm of the body reads (a T.Parallel
  /// loop writing it element by element).
  bool bodyTouchesOperands() {
    DenseSet<Value> operands;
    loop.walk([&](tile::GemmOp g) {
      for (Value operand : {g.getA(), g.getB()})
        if (tile::getMemorySpace(cast<MemRefType>(operand.getType())) ==
            tile::MemorySpace::shared)
          operands.insert(operand);
    });
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (isProducer(op) || isPureOp(&op) ||
          isa<tile::GemmOp, tile::BarrierOp>(op))
        continue;
      WalkResult walk = op.walk([&](Operation *nested) {
        return llvm::any_of(nested->getOperands(),
                            [&](Value v) { return operands.contains(v); })
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return true;
    }
    return false;
  }

  static int64_t orderOf(Operation *op) {
    return op->getAttrOfType<IntegerAttr>(kOrder).getInt();
  }
  /// The earliest `tile.order` among the operand copies.
  int64_t firstCopyOrder() {
    int64_t first = std::numeric_limits<int64_t>::max();
    for (tile::CopyOp copy : copies)
      first = std::min(first, orderOf(copy));
    return first;
  }

  bool isProducer(Operation &op) {
    auto copy = dyn_cast<tile::CopyOp>(op);
    return copy && llvm::is_contained(copies, copy);
  }

  /// The consumers' gemms of the loop's body, in order.
  SmallVector<tile::GemmOp> consumerGemms() {
    SmallVector<tile::GemmOp> gemms;
    for (Operation &op : loop.getBody()->without_terminator())
      if (auto g = dyn_cast<tile::GemmOp>(op); g && !isProducer(op))
        gemms.push_back(g);
    return gemms;
  }

  /// The loop's only T.gemm, if its body holds nothing else with effects
  /// besides the operand copies (the shape of every GEMM main loop).
  tile::GemmOp singleGemm() {
    tile::GemmOp found;
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (isProducer(op) || isa<tile::BarrierOp>(op) || isPureOp(&op))
        continue;
      auto gemmOp = dyn_cast<tile::GemmOp>(op);
      if (!gemmOp || found)
        return {};
      found = gemmOp;
    }
    return found;
  }

  /// The chip has TMA and the prim_func (or the file) does not ask to do
  /// without it (TileLang's TL_DISABLE_TMA_LOWER pass config).
  /// `s` at ring stage `stage` (a buffer outside the rings has none).
  static simt::SharedSlot atStage(simt::SharedSlot s, Value stage) {
    return simt::SharedSlot{s.buffer, s.stage ? stage : Value()};
  }

  /// A ring of `stages` mbarriers in shared memory, initialized by thread
  /// 0 to `arrivals` arrivals per phase before every thread goes on.
  Value makeBarrierRing(OpBuilder &b, StringRef name, int64_t arrivals,
                        bool publish = true) {
    Value ring =
        tile::AllocOp::create(b, loc,
                              tile::getBufferType({stages}, b.getI64Type(),
                                                  tile::MemorySpace::shared),
                              name);
    Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         kernel.threadId(), cst(b, 0));
    auto ifOp = scf::IfOp::create(b, loc, leader, false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    for (int64_t s = 0; s < stages; ++s)
      device().mbarrierInit(
          tb, loc, barrierAt(tb, ring, cst(tb, s)),
          arith::ConstantIntOp::create(tb, loc, tb.getI32Type(), arrivals));
    if (publish)
      gpu::BarrierOp::create(b, loc);
    return ring;
  }

  /// The shared pointer to slot `stage`'s barrier of `ring`.
  Value barrierAt(OpBuilder &b, Value ring, Value stage) {
    Value shared = simt::castToWorkgroup(b, loc, ring);
    return simt::sharedElementPointer(b, loc, shared, ValueRange{stage},
                                      kernel.getOptions().indexBitwidth);
  }

  /// Ring use of iteration `j` (phaseBase + j).
  Value useOf(OpBuilder &b, Value j) {
    return phaseBase ? arith::AddIOp::create(b, loc, phaseBase, j).getResult()
                     : j;
  }

  /// The ring slot of the use before iteration j's, (use(j) + S - 1) % S.
  Value slotBefore(OpBuilder &b, Value j) {
    return arith::RemUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, useOf(b, j), cst(b, stages - 1)),
        cst(b, stages));
  }

  /// The phase parity of a slot's barrier at use `k` of the ring (each
  /// slot completes one phase per pass over the ring).
  Value parityOf(OpBuilder &b, Value k) {
    Value round = arith::DivUIOp::create(b, loc, k, cst(b, stages));
    return arith::IndexCastOp::create(
        b, loc, b.getI32Type(),
        arith::AndIOp::create(b, loc, round, cst(b, 1)));
  }

  bool hasTma() {
    tile::TargetAttr target = tile::lookupTarget(loop);
    if (!target || !target.getInfo().hasTMA())
      return false;
    constexpr llvm::StringLiteral kDisable = "tile.disable_tma_lower";
    auto top = kernel.getFunc()
                   ->getParentOfType<gpu::GPUModuleOp>()
                   ->getParentOfType<ModuleOp>();
    if (!top || top->hasAttr(kDisable))
      return !top;
    auto name = kernel.getFunc()->getAttrOfType<StringAttr>("tile.func");
    auto fn = name ? top.lookupSymbol<func::FuncOp>(name) : func::FuncOp();
    return !(fn && fn->hasAttr(kDisable));
  }

  /// A ring of `stages` mbarriers declared and initialized at the entry,
  /// before a warp-specialized kernel splits into its roles.
  /// The caller publishes them with one barrier (publishEntryRings).
  Value makeEntryBarrierRing(StringRef name, int64_t arrivals) {
    Value ring;
    kernel.buildAtEntry([&](OpBuilder &b) {
      ring = makeBarrierRing(b, name, arrivals, /*publish=*/false);
    });
    return ring;
  }
  void publishEntryRings() {
    kernel.buildAtEntry([&](OpBuilder &b) { gpu::BarrierOp::create(b, loc); });
  }

  /// The warp-specialized schedule (tile-plan-warp-specialize's roles):
  ///
  ///   producer (thread C, built here, moved by splitWarpRoles):
  ///     for j in [0, n):
  ///       s = j % S
  ///       mbarrier.try_wait.parity empty[s], phase(j) ^ 1  // slot released
  ///       for each group g: expect_tx(full[g][s], bytes); TMA loads of j
  ///   consumers (threads 0 .. C - 1, in place):
  ///     for j in [0, n):
  ///       s = j % S
  ///       the body, each group's first reader preceded by
  ///         mbarrier.try_wait.parity full[g][s], phase(j)
  ///       release(s): every warp's lane 0 arrives on empty[s]
  ///
  /// Copies whose buffers the same op reads first form one group, with
  /// one full barrier per slot: FlashAttention's S = Q K^T waits for K
  /// only, V still landing. The empty barrier counts one arrival per
  /// consumer warp; a warp arrives after its own reads (bar.warp.sync
  /// orders its lanes' reads before lane 0's release). A phase(j) ^ 1
  /// wait on a barrier that has not completed a phase yet returns at once,
  /// so the first pass over the ring does not wait.
  ///
  /// A loop of one gemm keeps that gemm's wgmmas in flight for one
  /// iteration (wait_group 1) and releases slot j - 1 in iteration j.
  LogicalResult runWarpSpecialized(OpBuilder &b, tile::WarpSpecializeAttr roles,
                                   Value n) {
    SmallVector<simt::TmaCopy> tma = planTma();
    if (tma.empty())
      return loop.emitError() << "internal: the loop was given warp roles, "
                                 "but its copies cannot be TMA loads";
    int64_t consumers = roles.getConsumers();
    // A persistent kernel's tiles share the rings: the uses of tile t start
    // where tile t - 1's ended, at t * n (every tile runs n iterations,
    // which tile-plan-warp-specialize checked).
    auto outer = dyn_cast<scf::ForOp>(loop->getParentOp());
    bool persistent = outer && outer->hasAttr(simt::kPersistentAttr);
    if (persistent) {
      Value tile = arith::DivUIOp::create(
          b, loc,
          arith::SubIOp::create(b, loc, outer.getInductionVar(),
                                outer.getLowerBound()),
          outer.getStep());
      phaseBase = arith::MulIOp::create(b, loc, tile, n);
    }
    // The groups, by first reader.
    SmallVector<Operation *> readers;
    SmallVector<int64_t> groupOf;
    for (simt::TmaCopy &c : tma) {
      Operation *reader = nullptr;
      for (Operation &op : loop.getBody()->without_terminator()) {
        if (isProducer(op) || isa<tile::BarrierOp>(op))
          continue;
        llvm::SetVector<Operation *> buffers;
        buffers.insert(c.copy.getDst().getDefiningOp());
        if (touches(&op, buffers)) {
          reader = &op;
          break;
        }
      }
      if (!reader)
        return c.copy.emitError()
               << "internal: a pipelined operand copy nothing reads";
      auto it = llvm::find(readers, reader);
      groupOf.push_back(it - readers.begin());
      if (it == readers.end())
        readers.push_back(reader);
    }
    SmallVector<Value> full;
    for (size_t g = 0; g < readers.size(); ++g)
      full.push_back(makeEntryBarrierRing("tma_full_barriers", 1));
    Value empty = makeEntryBarrierRing("tma_empty_barriers", consumers / 32);
    publishEntryRings();
    Type i32 = b.getI32Type();
    Value ticks = arith::ConstantIntOp::create(b, loc, i32, 0x989680);
    Value tid = kernel.threadId();

    // The producer.
    {
      Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           tid, cst(b, consumers));
      auto producer = scf::IfOp::create(b, loc, leader, false);
      OpBuilder pb = producer.getThenBodyBuilder();
      auto ploop = scf::ForOp::create(pb, loc, cst(pb, 0), n, cst(pb, 1));
      OpBuilder ib = OpBuilder::atBlockBegin(ploop.getBody());
      Value j = ploop.getInductionVar();
      Value use = useOf(ib, j);
      Value stage = arith::RemUIOp::create(ib, loc, use, cst(ib, stages));
      Value released =
          arith::XOrIOp::create(ib, loc, parityOf(ib, use),
                                arith::ConstantIntOp::create(ib, loc, i32, 1));
      device().mbarrierWaitParity(ib, loc, barrierAt(ib, empty, stage),
                                  released, ticks);
      IRMapping map;
      map.map(loop.getInductionVar(), ivOf(ib, j));
      for (size_t g = 0; g < readers.size(); ++g) {
        int64_t bytes = 0;
        for (auto [c, group] : llvm::zip(tma, groupOf))
          if (group == int64_t(g))
            bytes += c.bytes();
        Value mbar = barrierAt(ib, full[g], stage);
        device().mbarrierArriveExpectTx(
            ib, loc, mbar, arith::ConstantIntOp::create(ib, loc, i32, bytes));
        for (auto [c, group] : llvm::zip(tma, groupOf)) {
          if (group != int64_t(g))
            continue;
          SmallVector<Value, 4> offsets;
          tile::CopyOp copy = c.copy;
          for (Value offset : copy.getSrcOffsets())
            offsets.push_back(remap(offset, loop, map, ib));
          simt::issueTmaCopy(ib, loc, c,
                             simt::tensorMapArgument(kernel.getFunc(), c),
                             slot(c.copy.getDst(), stage), offsets, mbar,
                             kernel.getOptions().indexBitwidth);
        }
      }
      kernel.setProducer(producer);
    }

    // The consumers. Shared operands written before the loop by ordinary
    // stores (FlashAttention's Q tile) reach wgmma's async proxy through a
    // fence by each writer before a barrier; the rings are TMA's, already
    // in that proxy.
    simt::fenceAsyncProxy(b, loc);
    gpu::BarrierOp::create(b, loc);
    Value lane = arith::RemUIOp::create(b, loc, tid, cst(b, 32));
    Value laneZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           lane, cst(b, 0));
    auto release = [&](OpBuilder &ob, Value stage, Value when, bool syncWarp) {
      if (syncWarp)
        device().warpSync(ob, loc);
      Value cond =
          when ? arith::AndIOp::create(ob, loc, when, laneZero) : laneZero;
      // A predicated arrive, not a branch around one: a divergent path
      // between wgmma and the reads of its accumulators makes ptxas
      // serialize every wgmma of the kernel (C7520).
      Value flag = arith::ExtUIOp::create(ob, loc, i32, cond);
      device().mbarrierArriveIf(ob, loc, flag, barrierAt(ob, empty, stage));
    };
    auto waitFull = [&](OpBuilder &ob, size_t g, Value j, Value stage) {
      device().mbarrierWaitParity(ob, loc, barrierAt(ob, full[g], stage),
                                  parityOf(ob, useOf(ob, j)), ticks);
    };

    if (tile::GemmOp single = singleGemm(); single && readers.size() == 1) {
      if (failed(inFlightWgmmaLoop(
              b, single, n,
              [&](OpBuilder &ib, Value j, Value stage) {
                waitFull(ib, 0, j, stage);
              },
              // j - 1's wgmmas are done: its slot, (j + S - 1) % S, is free.
              [&](OpBuilder &ib, Value j, Value) {
                Value notFirst = arith::CmpIOp::create(
                    ib, loc, arith::CmpIPredicate::uge, j, cst(ib, 1));
                release(ib, slotBefore(ib, j), notFirst, /*syncWarp=*/false);
              })))
        return failure();
      // The next tile's loads wait for the last slot, which no iteration
      // released (its wgmmas finished at the loop's final wait).
      if (persistent)
        release(b, slotBefore(b, n),
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, n,
                                      cst(b, 1)),
                /*syncWarp=*/false);
      return success();
    }

    // The body's own barriers (tile-insert-barriers') are kept only when
    // it touches shared buffers other than the rings, which the mbarriers
    // order: a consumers-wide barrier per iteration would hold the
    // warpgroups in lockstep.
    bool keepBarriers =
        llvm::any_of(loop.getBody()->without_terminator(), [&](Operation &op) {
          return !isProducer(op) && !isa<tile::GemmOp>(op) &&
                 touchesOtherShared(&op);
        });
    std::optional<Pingpong> turns;
    if (loop->hasAttr(simt::kPingpongAttr)) {
      if (keepBarriers)
        return loop.emitError() << "internal: tile-plan-warp-specialize gave "
                                   "the consumers turns, but the body keeps "
                                   "block barriers";
      turns = Pingpong::begin(b, loc, kernel, consumers / kWarpgroupThreads);
    }
    if (loop->hasAttr(simt::kLastGemmInFlightAttr)) {
      auto [first, last] = lastGemmInFlight(keepBarriers);
      // tile-insert-barriers, after the decision, places the barriers that
      // make it safe where the body keeps them; a body where it did not
      // runs with every gemm waited for in its iteration.
      if (!last && !keepBarriers)
        return loop.emitError()
               << "internal: tile-plan-warp-specialize kept the last gemm in "
                  "flight, but the body does not allow it";
      if (last) {
        if (failed(runLastGemmInFlight(b, first, last, n, readers, waitFull,
                                       release, turns, keepBarriers)))
          return failure();
        if (turns)
          turns->end(b);
        return success();
      }
    }
    auto steady = scf::ForOp::create(b, loc, cst(b, 0), n, cst(b, 1));
    OpBuilder ib = OpBuilder::atBlockTerminator(steady.getBody());
    Value j = steady.getInductionVar();
    // (Every iteration releases its own slot: nothing is left to release
    // after the loop, in a persistent kernel either.)
    Value stage =
        arith::RemUIOp::create(ib, loc, useOf(ib, j), cst(ib, stages));
    IRMapping map;
    map.map(loop.getInductionVar(), ivOf(ib, j));
    bool firstGemm = true;
    KeptBarriers kept(consumerGemms());
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (isProducer(op) || (!keepBarriers && isa<tile::BarrierOp>(op)))
        continue;
      if (isa<tile::BarrierOp>(op)) {
        kept.barrier(ib, op, map);
        continue;
      }
      kept.note(op);
      if (auto it = llvm::find(readers, &op); it != readers.end())
        waitFull(ib, it - readers.begin(), j, stage);
      auto gemmOp = dyn_cast<tile::GemmOp>(op);
      // The first gemm in turns: wait for this warpgroup's turn, issue,
      // hand the turn on, then wait for the results.
      if (gemmOp && turns && firstGemm) {
        firstGemm = false;
        if (failed(emitInTurns(ib, gemmOp, stage, *turns)))
          return failure();
        continue;
      }
      // A body that writes other shared buffers (kept barriers) may write
      // what a gemm reads: each gemm then fences for itself.
      if (gemmOp) {
        if (failed(simt::emitGemm(kernel, ib, gemmOp,
                                  slot(gemmOp.getA(), stage),
                                  slot(gemmOp.getB(), stage),
                                  /*asyncFenced=*/kept.fenced(gemmOp))))
          return failure();
        continue;
      }
      ib.clone(op, map);
    }
    release(ib, stage, Value(), /*syncWarp=*/true);
    if (turns)
      turns->end(b);
    return success();
  }

  /// The first and last gemm of the warp-specialized body that
  /// tile-plan-warp-specialize gave the last gemm in flight
  /// (lastGemmMayStayInFlight there checked what makes it safe); null
  /// where the body is not of that shape after all: two wgmma gemms or
  /// more, the last ending the body. With its block barriers kept (MLA
  /// decode's P in S_shared), every consumer write of a shared buffer the
  /// last gemm reads must follow a barrier that follows the first gemm:
  /// the last gemm of iteration j - 1 is complete in every warpgroup only
  /// once each has waited for its first gemm of j and met the others at a
  /// barrier.
  std::pair<tile::GemmOp, tile::GemmOp> lastGemmInFlight(bool keepBarriers) {
    SmallVector<Operation *> body;
    for (Operation &op : loop.getBody()->without_terminator())
      if (!isProducer(op) && !isa<tile::BarrierOp>(op) && !isPureOp(&op))
        body.push_back(&op);
    SmallVector<tile::GemmOp> gemms;
    for (Operation *op : body)
      if (auto g = dyn_cast<tile::GemmOp>(op)) {
        tile::MmaAttr mma = gemm::readMma(g);
        if (!mma || mma.getKind() != tile::MmaKind::wgmma)
          return {};
        gemms.push_back(g);
      }
    if (gemms.size() < 2 || body.back() != gemms.back().getOperation())
      return {};
    tile::GemmOp first = gemms.front(), last = gemms.back();
    if (keepBarriers) {
      llvm::SetVector<Operation *> lastReads;
      for (Value operand : {last.getA(), last.getB()})
        if (Operation *def = operand.getDefiningOp();
            def && !ringOf.count(def) &&
            tile::getMemorySpace(cast<MemRefType>(operand.getType())) ==
                tile::MemorySpace::shared)
          lastReads.insert(def);
      bool seenFirst = false, barrierAfterFirst = false;
      for (Operation &op : loop.getBody()->without_terminator()) {
        if (isProducer(op) || &op == last.getOperation())
          continue;
        if (&op == first.getOperation())
          seenFirst = true;
        else if (isa<tile::BarrierOp>(op))
          barrierAfterFirst |= seenFirst;
        else if (!isa<tile::GemmOp>(op) && touches(&op, lastReads) &&
                 !barrierAfterFirst)
          return {};
      }
    }
    return {first, last};
  }

  /// The warp-specialized consumers' loop with the last gemm in flight
  /// (lastGemmInFlight), FlashAttention-3's intra-warpgroup overlap of the
  /// second GEMM with the next first:
  ///
  ///   accs = O
  ///   for j in [0, n):                          // carries accs (in flight)
  ///     the body up to the first gemm; S = Q K_j^T; wait_group 0
  ///     O = accs                                // P V_{j-1} landed too
  ///     if j >= 1: release slot (j - 1) % S     // K_{j-1}, V_{j-1} read
  ///     the rest of the body; accs = wgmma(P, V_j, O); commit
  ///   wait_group 0; O = accs; release slot (n - 1) % S
  ///
  /// The tensor cores run P V_{j-1} and Q K_j^T back to back instead of
  /// idling through the release, the barrier wait and the issue between
  /// them.
  /// `op` issued in this warpgroup's turn (Pingpong): fence, wait for the
  /// turn, issue, hand the turn on, then wait for the results.
  LogicalResult emitInTurns(OpBuilder &ib, tile::GemmOp op, Value stage,
                            const Pingpong &turns) {
    FailureOr<simt::WgmmaGemm> gemm = simt::WgmmaGemm::create(kernel, op);
    if (failed(gemm))
      return failure();
    simt::SharedSlot a = slot(op.getA(), stage), bs = slot(op.getB(), stage);
    gemm->markOperands(ib, a, bs);
    gemm->setUp(ib);
    SmallVector<Value> accs = gemm->loadAccumulators(ib);
    turns.await(ib);
    gemm->issue(ib, a, bs, accs);
    turns.handOn(ib);
    gemm->wait(ib, 0);
    gemm->storeAccumulators(ib, accs);
    return success();
  }

  /// The consumers' loop with the last gemm rotated into the next
  /// iteration, FlashAttention-3's intra-warpgroup overlap: iteration j
  /// issues its first gemm (S_j = Q K_j^T), then the last gemm of j - 1
  /// (O += P_{j-1} V_{j-1}), waits for the first alone (wait_group 1), and
  /// runs the ops that touch none of the last gemm's operands (the softmax
  /// of S_j) while that gemm runs; after wait_group 0 it releases j - 1's
  /// slot and runs the rest (P_j's conversion, O's rescale):
  ///
  ///   iteration 0 as written (no gemm in flight)
  ///   for j in [1, n):
  ///     early ops; wait K_j; issue first(j)
  ///     wait V_{j-1}; issue last(j - 1); wait_group 1; first's results
  ///     during ops                           // overlap last(j - 1)
  ///     wait_group 0; last's results; release slot(j - 1)
  ///     after ops                            // touch last's operands
  ///   wait V_{n-1}; last(n - 1); wait_group 0; release slot(n - 1)
  ///
  /// A middle op is an "after" op when it touches one of the last gemm's
  /// operands (its accumulator, its register A), a buffer an earlier
  /// "after" op touches, or a value one defines; the others keep their
  /// order ahead of it. Needs a trip count known to be at least 1 (the
  /// peeled iteration 0); failure() without emitting anything otherwise.
  FailureOr<bool> runRotatedLastGemm(
      OpBuilder &b, tile::GemmOp first, tile::GemmOp last, Value n,
      ArrayRef<Operation *> readers,
      llvm::function_ref<void(OpBuilder &, size_t, Value, Value)> waitFull,
      llvm::function_ref<void(OpBuilder &, Value, Value, bool)> release) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                           ub = getConstantIntValue(loop.getUpperBound()),
                           step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *step < 1 || *ub - *lb < 1)
      return false;
    SmallVector<Operation *> early, middle, during, after;
    SmallVector<size_t> earlyGroups, lateGroups;
    DenseSet<Value> lateBuffers;
    for (Value operand : last->getOperands())
      if (isa<MemRefType>(operand.getType()))
        lateBuffers.insert(operand);
    DenseSet<Operation *> afterOps;
    bool seenFirst = false;
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (isProducer(op) || isa<tile::BarrierOp>(op))
        continue;
      // A group's tiles are waited for before their first reader.
      if (auto it = llvm::find(readers, &op); it != readers.end())
        (seenFirst ? lateGroups : earlyGroups).push_back(it - readers.begin());
      if (&op == last.getOperation())
        continue;
      if (&op == first.getOperation()) {
        seenFirst = true;
        continue;
      }
      if (!seenFirst) {
        early.push_back(&op);
        continue;
      }
      if (isa<tile::GemmOp>(op) || llvm::is_contained(readers, &op))
        return false; // a third gemm, a ring read outside the gemms
      middle.push_back(&op);
      bool isLate = false;
      SmallVector<Value> buffers;
      op.walk([&](Operation *nested) {
        for (Value operand : nested->getOperands()) {
          if (Operation *def = operand.getDefiningOp();
              def && afterOps.contains(def))
            isLate = true;
          if (isa<MemRefType>(operand.getType())) {
            buffers.push_back(operand);
            isLate |= lateBuffers.contains(operand);
          }
        }
      });
      if (!isLate) {
        during.push_back(&op);
        continue;
      }
      after.push_back(&op);
      afterOps.insert(&op);
      lateBuffers.insert_range(buffers);
    }

    FailureOr<simt::WgmmaGemm> qk = simt::WgmmaGemm::create(kernel, first);
    FailureOr<simt::WgmmaGemm> pv = simt::WgmmaGemm::create(kernel, last);
    if (failed(qk) || failed(pv))
      return failure();
    qk->markOperands(b, slot(first.getA(), cst(b, 0)),
                     slot(first.getB(), cst(b, 0)));
    pv->markOperands(b, slot(last.getA(), cst(b, 0)),
                     slot(last.getB(), cst(b, 0)));
    qk->setUp(b);
    pv->setUp(b);
    auto stageOf = [&](OpBuilder &ob, Value j) -> Value {
      return arith::RemUIOp::create(ob, loc, useOf(ob, j), cst(ob, stages));
    };
    auto issueLast = [&](OpBuilder &ob, Value j, Value stage) {
      for (size_t g : lateGroups)
        waitFull(ob, g, j, stage);
      SmallVector<Value> accs = pv->loadAccumulators(ob);
      pv->issue(ob, slot(last.getA(), stage), slot(last.getB(), stage), accs);
      return accs;
    };

    // Iteration j's ops before its first gemm, and the waits for the tiles
    // that gemm reads.
    auto begin = [&](OpBuilder &ob, Value j, Value stage, IRMapping &map) {
      map.map(loop.getInductionVar(), ivOf(ob, j));
      for (Operation *op : early)
        ob.clone(*op, map);
      for (size_t g : earlyGroups)
        waitFull(ob, g, j, stage);
    };

    // Iteration 0, as written but for the last gemm.
    {
      Value zero = cst(b, 0), stage = stageOf(b, zero);
      IRMapping map;
      begin(b, zero, stage, map);
      if (failed(simt::emitGemm(kernel, b, first, slot(first.getA(), stage),
                                slot(first.getB(), stage),
                                /*asyncFenced=*/true)))
        return failure();
      for (Operation *op : middle)
        b.clone(*op, map);
    }

    auto steady = scf::ForOp::create(b, loc, cst(b, 1), n, cst(b, 1));
    OpBuilder ib = OpBuilder::atBlockTerminator(steady.getBody());
    Value j = steady.getInductionVar();
    Value stage = stageOf(ib, j);
    Value prev = arith::SubIOp::create(ib, loc, j, cst(ib, 1));
    Value prevStage = slotBefore(ib, j);
    IRMapping map;
    begin(ib, j, stage, map);
    SmallVector<Value> sAccs = qk->loadAccumulators(ib);
    qk->issue(ib, slot(first.getA(), stage), slot(first.getB(), stage), sAccs);
    SmallVector<Value> oAccs = issueLast(ib, prev, prevStage);
    qk->wait(ib, 1);
    qk->storeAccumulators(ib, sAccs);
    for (Operation *op : during)
      ib.clone(*op, map);
    pv->wait(ib, 0);
    pv->storeAccumulators(ib, oAccs);
    release(ib, prevStage, Value(), /*syncWarp=*/true);
    for (Operation *op : after)
      ib.clone(*op, map);

    b.setInsertionPointAfter(steady);
    Value lastTrip = arith::SubIOp::create(b, loc, n, cst(b, 1));
    Value lastStage = slotBefore(b, n);
    SmallVector<Value> accs = issueLast(b, lastTrip, lastStage);
    pv->wait(b, 0);
    pv->storeAccumulators(b, accs);
    release(b, lastStage, Value(), /*syncWarp=*/true);
    return true;
  }

  LogicalResult runLastGemmInFlight(
      OpBuilder &b, tile::GemmOp first, tile::GemmOp last, Value n,
      ArrayRef<Operation *> readers,
      llvm::function_ref<void(OpBuilder &, size_t, Value, Value)> waitFull,
      llvm::function_ref<void(OpBuilder &, Value, Value, bool)> release,
      const std::optional<Pingpong> &turns, bool keepBarriers) {
    // The rotated schedule reorders the body, which its barriers forbid.
    if (!turns && !keepBarriers) {
      FailureOr<bool> rotated =
          runRotatedLastGemm(b, first, last, n, readers, waitFull, release);
      if (failed(rotated) || *rotated)
        return failure(failed(rotated));
    }
    FailureOr<simt::WgmmaGemm> gemm = simt::WgmmaGemm::create(kernel, last);
    if (failed(gemm))
      return failure();
    gemm->markOperands(b, slot(last.getA(), cst(b, 0)),
                       slot(last.getB(), cst(b, 0)));
    gemm->setUp(b);
    SmallVector<Value> init = gemm->loadAccumulators(b);
    auto steady = scf::ForOp::create(b, loc, cst(b, 0), n, cst(b, 1), init);
    OpBuilder ib = OpBuilder::atBlockBegin(steady.getBody());
    Value j = steady.getInductionVar();
    Value stage =
        arith::RemUIOp::create(ib, loc, useOf(ib, j), cst(ib, stages));
    auto atLeastOne = [&](OpBuilder &ob, Value k) -> Value {
      return arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::uge, k,
                                   cst(ob, 1));
    };
    IRMapping map;
    map.map(loop.getInductionVar(), ivOf(ib, j));
    SmallVector<Value> accs;
    KeptBarriers kept(consumerGemms());
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (isProducer(op) || (!keepBarriers && isa<tile::BarrierOp>(op)))
        continue;
      if (isa<tile::BarrierOp>(op)) {
        kept.barrier(ib, op, map);
        continue;
      }
      kept.note(op);
      if (auto it = llvm::find(readers, &op); it != readers.end())
        waitFull(ib, it - readers.begin(), j, stage);
      auto gemmOp = dyn_cast<tile::GemmOp>(op);
      if (gemmOp == last) {
        if (!kept.fenced(last))
          simt::fenceAsyncProxy(ib, loc);
        accs = gemm->loadAccumulators(ib);
        gemm->issue(ib, slot(last.getA(), stage), slot(last.getB(), stage),
                    accs);
        continue;
      }
      if (!gemmOp) {
        ib.clone(op, map);
        continue;
      }
      if (gemmOp == first && turns) {
        if (failed(emitInTurns(ib, gemmOp, stage, *turns)))
          return failure();
      } else if (failed(simt::emitGemm(kernel, ib, gemmOp,
                                       slot(gemmOp.getA(), stage),
                                       slot(gemmOp.getB(), stage),
                                       /*asyncFenced=*/kept.fenced(gemmOp)))) {
        return failure();
      }
      if (gemmOp == first) {
        // Its wait_group 0 completed the last iteration's wgmmas too.
        gemm->storeAccumulators(ib, steady.getRegionIterArgs());
        release(ib, slotBefore(ib, j), atLeastOne(ib, j), /*syncWarp=*/true);
      }
    }
    scf::YieldOp::create(ib, loc, accs);
    b.setInsertionPointAfter(steady);
    gemm->wait(b, 0);
    gemm->storeAccumulators(b, steady.getResults());
    release(b, slotBefore(b, n), atLeastOne(b, n), /*syncWarp=*/true);
    return success();
  }

  /// Whether `op` or an op nested in it uses a shared buffer that is not
  /// one of the rings.
  bool touchesOtherShared(Operation *op) {
    WalkResult walk = op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        auto type = dyn_cast<MemRefType>(operand.getType());
        if (type && tile::getMemorySpace(type) == tile::MemorySpace::shared &&
            !ringOf.count(operand.getDefiningOp()))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return walk.wasInterrupted();
  }

  /// Every producer copy as a TMA load, or none (a copy that cannot be
  /// keeps the loop on cp.async).
  SmallVector<simt::TmaCopy> planTma() {
    SmallVector<simt::TmaCopy> plans;
    for (tile::CopyOp copy : copies) {
      std::string why;
      std::optional<simt::TmaCopy> plan =
          simt::planTmaCopy(copy, slot(copy.getDst(), Value()).buffer, why);
      if (!plan)
        return {};
      plans.push_back(*plan);
    }
    return plans;
  }

  /// The steady state of a one-gemm wgmma loop whose copies are TMA: no
  /// block barrier, a full and an empty mbarrier per slot (the empty one
  /// counts one arrival per warpgroup), the loads S - 1 tiles ahead:
  ///
  ///   for j in [0, n):                            // carries accs
  ///     try_wait.parity(full[j % S], (j / S) & 1)  // tile j landed
  ///     accs = wgmma(ring[j % S], accs); commit; wgmma.wait_group 1
  ///     if j >= 1: one thread per warpgroup arrives on empty[(j-1) % S]
  ///                                             // its wgmmas of j-1 are done
  ///     thread 0, if j+S-1 < n:
  ///       if j >= 1: try_wait.parity(empty[(j-1) % S], ((j-1) / S) & 1)
  ///       expect_tx(full[(j-1) % S]); TMA tile j+S-1 -> ring[(j-1) % S]
  ///   wgmma.wait_group 0; C = accs
  ///
  /// Slot (j - 1) % S is refilled only after every warpgroup's wait for the
  /// wgmmas that read it; tile S - 1 goes to the never-used slot S - 1.
  LogicalResult
  steadyWgmmaTma(OpBuilder &b, tile::GemmOp gemmOp, Value n, Value full,
                 llvm::function_ref<void(OpBuilder &, Value, Value)> issueTma) {
    // The empty barriers: one arrival per warpgroup per phase.
    Value empty =
        makeBarrierRing(b, "tma_empty_barriers", kernel.getThreads() / 128);
    Value tid = kernel.threadId();
    Value ticks =
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0x989680);
    auto waitFull = [&](OpBuilder &ib, Value j, Value stage) {
      device().mbarrierWaitParity(ib, loc, barrierAt(ib, full, stage),
                                  parityOf(ib, j), ticks);
    };
    auto releaseAndRefill = [&](OpBuilder &ib, Value j, Value) {
      // Slot (j - 1) % S = (j + S - 1) % S.
      Value prev = arith::AddIOp::create(ib, loc, j, cst(ib, stages - 1));
      Value prevStage = arith::RemUIOp::create(ib, loc, prev, cst(ib, stages));
      Value notFirst = arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::uge,
                                             j, cst(ib, 1));
      {
        Value groupLeader = arith::CmpIOp::create(
            ib, loc, arith::CmpIPredicate::eq,
            arith::RemUIOp::create(ib, loc, tid, cst(ib, 128)), cst(ib, 0));
        auto ifOp = scf::IfOp::create(
            ib, loc, arith::AndIOp::create(ib, loc, notFirst, groupLeader),
            false);
        OpBuilder tb = ifOp.getThenBodyBuilder();
        device().mbarrierArrive(tb, loc, barrierAt(tb, empty, prevStage));
      }
      {
        Value leader = arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::eq,
                                             tid, cst(ib, 0));
        auto ifOp = scf::IfOp::create(
            ib, loc, arith::AndIOp::create(ib, loc, leader, notFirst), false);
        OpBuilder tb = ifOp.getThenBodyBuilder();
        Value k = arith::SubIOp::create(tb, loc, j, cst(tb, 1));
        device().mbarrierWaitParity(tb, loc, barrierAt(tb, empty, prevStage),
                                    parityOf(tb, k), ticks);
      }
      issueTma(ib, prev, prevStage);
    };
    return inFlightWgmmaLoop(b, gemmOp, n, waitFull, releaseAndRefill);
  }

  /// The steady state of a one-gemm wgmma loop (S >= 3 stages), one
  /// tile's wgmmas left in flight across iterations:
  ///
  ///   accs = C
  ///   for j in [0, n):                       // carries accs (in flight)
  ///     cp.async.wait_group S-3              // tile j landed (this thread)
  ///     fence.proxy.async; barrier           // ... for everyone, and every
  ///                                          // warpgroup waited on j - 2
  ///     copies(j+S-2) -> ring[(j+S-2) % S]; commit   // the slot of j - 2
  ///     accs = wgmma(ring[j % S], accs); commit
  ///     wgmma.wait_group 1                   // j - 1's wgmmas are done
  ///   wgmma.wait_group 0; C = accs
  ///
  /// Safety: the slot refilled in iteration j was last read by the wgmmas
  /// of j - 2, which every warpgroup's wait_group 1 of iteration j - 1
  /// completed before it reached iteration j's barrier.
  LogicalResult
  steadyWgmma(OpBuilder &b, tile::GemmOp gemmOp, Value n,
              llvm::function_ref<bool(OpBuilder &, Value, Value)> issueGroup,
              bool async) {
    return inFlightWgmmaLoop(
        b, gemmOp, n,
        [&](OpBuilder &ib, Value j, Value) {
          if (async)
            device().asyncCopyWait(ib, loc, stages - 3);
          simt::fenceAsyncProxy(ib, loc);
          gpu::BarrierOp::create(ib, loc);
          Value aheadJ = arith::AddIOp::create(ib, loc, j, cst(ib, stages - 2));
          issueGroup(ib, aheadJ,
                     arith::RemUIOp::create(ib, loc, aheadJ, cst(ib, stages)));
        },
        [](OpBuilder &, Value, Value) {});
  }

  /// The loop the one-gemm wgmma schedules share: the accumulators carried
  /// as in-flight structs, iteration j running `before` (waits for tile j,
  /// refills), the gemm on slot j % S, wait_group 1 (j - 1's wgmmas are
  /// done), then `after` (releases or refills j - 1's slot); wait_group 0
  /// after the loop.
  LogicalResult
  inFlightWgmmaLoop(OpBuilder &b, tile::GemmOp gemmOp, Value n,
                    llvm::function_ref<void(OpBuilder &, Value, Value)> before,
                    llvm::function_ref<void(OpBuilder &, Value, Value)> after) {
    FailureOr<simt::WgmmaGemm> gemm = simt::WgmmaGemm::create(kernel, gemmOp);
    if (failed(gemm))
      return failure();
    simt::SharedSlot a0 = slot(gemmOp.getA(), cst(b, 0));
    simt::SharedSlot b0 = slot(gemmOp.getB(), cst(b, 0));
    gemm->markOperands(b, a0, b0);
    gemm->setUp(b);
    SmallVector<Value> accs = gemm->loadAccumulators(b);
    auto steady = scf::ForOp::create(b, loc, cst(b, 0), n, cst(b, 1), accs);
    OpBuilder ib = OpBuilder::atBlockBegin(steady.getBody());
    Value j = steady.getInductionVar();
    Value stage =
        arith::RemUIOp::create(ib, loc, useOf(ib, j), cst(ib, stages));
    before(ib, j, stage);
    SmallVector<Value> cur(steady.getRegionIterArgs());
    gemm->issue(ib, atStage(a0, stage), atStage(b0, stage), cur);
    gemm->wait(ib, 1);
    after(ib, j, stage);
    scf::YieldOp::create(ib, loc, cur);
    b.setInsertionPointAfter(steady);
    gemm->wait(b, 0);
    gemm->storeAccumulators(b, steady.getResults());
    return success();
  }

  /// The steady state of a one-gemm loop, with the first k-step's
  /// fragments of the next tile carried across iterations (the shape of
  /// CUTLASS's multistage main loop):
  ///
  ///   wait_group S-2; barrier; frags = ldmatrix(tile 0, step 0)
  ///   for j in [0, n):              // carries frags
  ///     copies(j+S-1) -> ring[(j+S-1) % S]; commit
  ///     for s in [0, steps-1): next = ldmatrix(j, s+1); mma(frags); frags =
  ///     next wait_group S-2; barrier    // tile j+1 landed; tile j fully read
  ///     next = ldmatrix(j+1, 0); mma(frags); yield next
  ///
  /// One barrier per tile, and it sits where its wait is hidden: the last
  /// step's mmas are issued after it, behind the next tile's first
  /// ldmatrix. Safety: ring[(j+S-1) % S] = ring[(j-1) % S] was last read
  /// by ldmatrix(j-1, *), all issued before iteration j-1's barrier (the
  /// last step's fragments are loaded one step early), which every thread
  /// has passed; ldmatrix(j+1, 0) reads a tile that iteration j's wait and
  /// barrier made visible.
  LogicalResult steadyWithCarriedFragments(
      OpBuilder &b, tile::GemmOp gemmOp, Value n,
      llvm::function_ref<bool(OpBuilder &, Value, Value)> issueGroup) {
    FailureOr<simt::MmaSyncGemm> gemm =
        simt::MmaSyncGemm::create(kernel, gemmOp);
    if (failed(gemm))
      return failure();
    simt::SharedSlot a0 = slot(gemmOp.getA(), cst(b, 0));
    simt::SharedSlot b0 = slot(gemmOp.getB(), cst(b, 0));
    // Operands outside the rings (loaded before the loop) have no stage.
    auto stageOf = [&](simt::SharedSlot s, Value stage) {
      return s.stage ? stage : Value();
    };
    gemm->setUp(b, a0, b0);
    device().asyncCopyWait(b, loc, stages - 2);
    gpu::BarrierOp::create(b, loc);
    SmallVector<Value> first = gemm->loadFragments(b, stageOf(a0, cst(b, 0)),
                                                   stageOf(b0, cst(b, 0)), 0);

    // The ring slot j % S rides along as the last loop-carried value:
    // stepping it with a compare and select avoids a division per
    // iteration when S is not a power of two.
    // (Carried as an i32: an index-typed block argument next to the
    // fragments does not survive the 32-bit index lowering's casts.)
    Type i32 = b.getI32Type();
    first.push_back(arith::ConstantIntOp::create(b, loc, i32, 0));
    auto steady = scf::ForOp::create(b, loc, cst(b, 0), n, cst(b, 1), first);
    OpBuilder ib = OpBuilder::atBlockBegin(steady.getBody());
    Value j = steady.getInductionVar();
    Value stage = arith::IndexCastUIOp::create(
        ib, loc, ib.getIndexType(), steady.getRegionIterArgs().back());
    auto wrapped = [&](Value cond, int64_t then, Value otherwise) -> Value {
      return arith::SelectOp::create(ib, loc, cond, cst(ib, then), otherwise);
    };
    // Slot (j + S - 1) % S is slot (j - 1) % S.
    Value aheadStage =
        wrapped(arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::eq, stage,
                                      cst(ib, 0)),
                stages - 1, arith::SubIOp::create(ib, loc, stage, cst(ib, 1)));
    Value stagePlus = arith::AddIOp::create(ib, loc, stage, cst(ib, 1));
    Value nextStage =
        wrapped(arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::eq,
                                      stagePlus, cst(ib, stages)),
                0, stagePlus);
    issueGroup(ib, arith::AddIOp::create(ib, loc, j, cst(ib, stages - 1)),
               aheadStage);
    SmallVector<Value> accs = gemm->loadAccumulators(ib);
    SmallVector<Value> frags(steady.getRegionIterArgs().drop_back());
    int64_t steps = gemm->numSteps();
    for (int64_t s = 0; s + 1 < steps; ++s) {
      SmallVector<Value> next = gemm->loadFragments(ib, stageOf(a0, stage),
                                                    stageOf(b0, stage), s + 1);
      gemm->mmaStep(ib, frags, accs);
      frags = std::move(next);
    }
    device().asyncCopyWait(ib, loc, stages - 2);
    gpu::BarrierOp::create(ib, loc);
    SmallVector<Value> next = gemm->loadFragments(ib, stageOf(a0, nextStage),
                                                  stageOf(b0, nextStage), 0);
    gemm->mmaStep(ib, frags, accs);
    gemm->storeAccumulators(ib, accs);
    next.push_back(arith::IndexCastUIOp::create(ib, loc, i32, nextStage));
    scf::YieldOp::create(ib, loc, next);
    return success();
  }

  Value cst(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }

  /// The vendor ops of the rings (cp.async groups, mbarriers).
  const DeviceOpBuilder &device() { return simt::deviceOps(kernel.getFunc()); }

  /// The induction variable of iteration j.
  Value ivOf(OpBuilder &b, Value j) {
    return arith::AddIOp::create(
        b, loc, loop.getLowerBound(),
        arith::MulIOp::create(b, loc, j, loop.getStep()));
  }

  void makeRings() {
    for (tile::CopyOp copy : copies) {
      Operation *old = copy.getDst().getDefiningOp();
      if (ringOf.count(old))
        continue;
      auto type = cast<MemRefType>(old->getResult(0).getType());
      SmallVector<int64_t> shape{stages};
      llvm::append_range(shape, type.getShape());
      auto ringType = MemRefType::get(shape, type.getElementType(), AffineMap(),
                                      type.getMemorySpace());
      // A warp-specialized loop's rings are declared at the entry, before
      // the roles split: the producer fills them.
      Operation *ring = nullptr;
      if (loop->hasAttr(tile::WarpSpecializeAttr::getAttrName())) {
        kernel.buildAtEntry([&](OpBuilder &b) { ring = b.clone(*old); });
      } else {
        OpBuilder b(old);
        ring = b.clone(*old);
      }
      ring->getResult(0).setType(ringType);
      ringOf[old] = ring->getResult(0);
    }
  }

  simt::SharedSlot slot(Value buffer, Value stage) {
    auto it = ringOf.find(buffer.getDefiningOp());
    if (it == ringOf.end())
      return {buffer, Value()};
    return {it->second, stage};
  }

  /// The copies of the iteration at `iv`; true if any is asynchronous.
  bool issue(OpBuilder &b, Value iv, Value stage, Value live) {
    IRMapping map;
    map.map(loop.getInductionVar(), iv);
    bool async = false;
    for (tile::CopyOp copy : copies) {
      SmallVector<Value, 4> offsets;
      for (Value offset : copy.getSrcOffsets())
        offsets.push_back(remap(offset, loop, map, b));
      async |= simt::emitOperandCopy(kernel, b, copy.getLoc(), copy.getSrc(),
                                     offsets, gemm::operandRowDim(copy),
                                     slot(copy.getDst(), stage),
                                     /*async=*/true, live);
    }
    return async;
  }

  simt::KernelLowering &kernel;
  scf::ForOp loop;
  int64_t stages;
  Location loc;
  /// In a persistent kernel, the ring uses of the tiles this block computed
  /// before the current one (null: none): iteration j is use base + j.
  Value phaseBase;
  SmallVector<tile::CopyOp> copies;
  llvm::MapVector<Operation *, Value> ringOf;
};

} // namespace

LogicalResult gemm::planPipelines(Operation *root, int64_t maxSharedBytes) {
  WalkResult walk = root->walk([&](tile::PipelinedOp loop) {
    FailureOr<std::string> why = planLoop(loop, maxSharedBytes);
    if (failed(why))
      return WalkResult::interrupt();
    // A written schedule that cannot be run is never dropped silently.
    if (!why->empty() && WrittenSchedule(loop).any())
      loop.emitWarning() << "T.Pipelined: the written `order`/`stage` "
                            "cannot be applied because "
                         << *why << "; the loop runs without a pipeline";
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult simt::pipelineGemmLoops(KernelLowering &kernel) {
  SmallVector<std::pair<scf::ForOp, int64_t>> loops;
  kernel.getFunc().walk([&](scf::ForOp loop) {
    auto stages = loop->getAttrOfType<IntegerAttr>(kNumStages);
    if (!stages || stages.getInt() < 2)
      return;
    bool planned =
        llvm::any_of(loop.getBody()->without_terminator(),
                     [](Operation &op) { return op.hasAttr(kStage); });
    if (planned)
      loops.push_back({loop, stages.getInt()});
  });
  for (auto [loop, stages] : loops)
    if (failed(LoopPipeliner(kernel, loop, stages).run()))
      return failure();
  return success();
}
