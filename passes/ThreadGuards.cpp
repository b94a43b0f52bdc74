//===- ThreadGuards.cpp - Block-wide ops under conditions on the thread ---===//
//
// A T.copy, T.fill or T.Parallel loop spreads its work over the threads of
// the block. Inside `if tx < 128:` only those 128 threads run it, so the
// work must be spread over them, as TileLang does from the thread bounds of
// the condition; spreading it over all threads leaves part of the tile
// untouched.
//
// Algorithm: the path from the kernel's entry to an op is a conjunction of
// branch conditions (the `then` region of an scf.if adds its condition, the
// `else` region its negation; `and`, `or`, `not` and Python's short-circuit
// forms are split into their parts). Parts that do not depend on the thread
// index are uniform over the block and ignored: the whole set runs or none
// of it. Each part that does is evaluated for every thread index of the
// block, folding the arith ops of its definition; the threads for which
// every part holds must be one range [begin, begin + count). Anything else
// (a part that also depends on a block index or a loaded value, a range
// with holes, a loop whose trip count depends on the thread) is a located
// error rather than code that computes something else.
//
// The strided lowering of copies, fills and loops then distributes over
// `count` threads numbered from `begin`; barriers under a guard synchronize
// only those threads (a named barrier, NVIDIA), and the guard itself is
// fenced by block-wide barriers so that the threads outside it see what it
// wrote. Fragments, reductions and T.gemm spread over every thread of the
// block (or of their partition: a T.ws region, or a top-level branch arm of
// whole warps, ThreadPartitions.cpp) by their layouts and are rejected
// under any other guard.
//
//===----------------------------------------------------------------------===//

#include "DeviceOps.h"
#include "GemmLayouts.h"
#include "Partitions.h"
#include "SIMTLowering.h"

#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/BitVector.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

bool isThreadId(Value v) {
  auto id = v.getDefiningOp<gpu::ThreadIdOp>();
  return id && id.getDimension() == gpu::Dimension::x;
}

/// Whether `v` may differ between the threads of a block.
class Dependence {
public:
  bool onThread(Value v) {
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    memo[v] = true; // cycles (loop-carried values) count as dependent
    bool result = compute(v);
    memo[v] = result;
    return result;
  }

private:
  bool compute(Value v) {
    if (isThreadId(v))
      return true;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (isa<gpu::GPUFuncOp>(owner))
        return false;
      if (auto loop = dyn_cast<scf::ForOp>(owner))
        return arg != loop.getInductionVar() || onThread(loop.getLowerBound()) ||
               onThread(loop.getUpperBound()) || onThread(loop.getStep());
      return true; // T.Parallel indices and the like
    }
    Operation *op = v.getDefiningOp();
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      return onThread(ifOp.getCondition()) ||
             onThread(ifOp.thenYield().getOperand(i)) ||
             (ifOp.elseBlock() && onThread(ifOp.elseYield().getOperand(i)));
    }
    if (op->getNumRegions())
      return true;
    return llvm::any_of(op->getOperands(),
                        [&](Value operand) { return onThread(operand); });
  }

  DenseMap<Value, bool> memo;
};

/// Folds `v` for one thread index; a null attribute when some op on the
/// way does not fold (a load, a block index, a call).
class Evaluator {
public:
  explicit Evaluator(int64_t tid) : tid(tid) {}

  Attribute eval(Value v) {
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    Attribute result = compute(v);
    memo[v] = result;
    return result;
  }

private:
  Attribute compute(Value v) {
    if (isThreadId(v))
      return IntegerAttr::get(v.getType(), tid);
    Operation *op = v.getDefiningOp();
    if (!op)
      return {};
    Attribute constant;
    if (matchPattern(v, m_Constant(&constant)))
      return constant;
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      auto cond = dyn_cast_or_null<IntegerAttr>(eval(ifOp.getCondition()));
      if (!cond)
        return {};
      unsigned i = cast<OpResult>(v).getResultNumber();
      if (cond.getValue().getBoolValue())
        return eval(ifOp.thenYield().getOperand(i));
      return ifOp.elseBlock() ? eval(ifOp.elseYield().getOperand(i))
                              : Attribute();
    }
    if (op->getNumRegions() || !isPure(op))
      return {};
    SmallVector<Attribute> operands;
    for (Value operand : op->getOperands()) {
      operands.push_back(eval(operand));
      if (!operands.back())
        return {};
    }
    SmallVector<OpFoldResult> results;
    if (failed(op->fold(operands, results)) ||
        results.size() != op->getNumResults())
      return {};
    OpFoldResult r = results[cast<OpResult>(v).getResultNumber()];
    if (auto attr = dyn_cast<Attribute>(r))
      return attr;
    return eval(cast<Value>(r));
  }

  int64_t tid;
  DenseMap<Value, Attribute> memo;
};

/// A part of a path condition: `value` must equal `expected`.
struct Literal {
  Value value;
  bool expected;
};

bool isConstantBool(Value v, bool which) {
  APInt c;
  return matchPattern(v, m_ConstantInt(&c)) && c.getBitWidth() == 1 &&
         c.getBoolValue() == which;
}

/// Splits `value == expected` into literals that must all hold.
void split(Value value, bool expected, SmallVectorImpl<Literal> &out) {
  Operation *op = value.getDefiningOp();
  if (auto x = dyn_cast_or_null<arith::XOrIOp>(op)) {
    for (int side = 0; side < 2; ++side)
      if (isConstantBool(x->getOperand(1 - side), true))
        return split(x->getOperand(side), !expected, out);
  }
  if (expected && isa_and_nonnull<arith::AndIOp>(op)) {
    split(op->getOperand(0), true, out);
    return split(op->getOperand(1), true, out);
  }
  if (!expected && isa_and_nonnull<arith::OrIOp>(op)) {
    split(op->getOperand(0), false, out);
    return split(op->getOperand(1), false, out);
  }
  // Python's `a and b` (`a or b`) on runtime values: an scf.if on `a`
  // yielding `b` on one side and the constant false (true) on the other.
  if (auto ifOp = dyn_cast_or_null<scf::IfOp>(op);
      ifOp && ifOp.elseBlock() && ifOp->getNumResults() == 1) {
    Value thenValue = ifOp.thenYield().getOperand(0);
    Value elseValue = ifOp.elseYield().getOperand(0);
    if (expected && isConstantBool(elseValue, false)) {
      split(ifOp.getCondition(), true, out);
      return split(thenValue, true, out);
    }
    if (!expected && isConstantBool(thenValue, true)) {
      split(ifOp.getCondition(), false, out);
      return split(elseValue, false, out);
    }
  }
  out.push_back({value, expected});
}

std::string describe(Operation *op) {
  if (isa<tile::CopyOp>(op))
    return "T.copy";
  if (isa<tile::FillOp>(op))
    return "T.fill";
  if (isa<tile::ParallelOp>(op))
    return "T.Parallel loop";
  if (isa<tile::ReduceOp>(op))
    return "reduction";
  if (isa<tile::FinalizeReducerOp>(op))
    return "T.finalize_reducer";
  if (isa<tile::GemmOp>(op))
    return "T.gemm";
  if (isa<tile::ScanOp>(op))
    return "scan";
  return "barrier";
}

std::string rangeText(const ThreadSpan &span) {
  return "[" + std::to_string(span.begin) + ", " +
         std::to_string(span.begin + span.count) + ")";
}

/// The ops whose work is spread over the threads of the block.
bool isBlockWide(Operation *op) {
  return isa<tile::CopyOp, tile::FillOp, tile::ParallelOp, tile::ReduceOp,
             tile::FinalizeReducerOp, tile::GemmOp, tile::ScanOp,
             tile::BarrierOp>(op);
}

/// Whether `op` touches a fragment, which is laid out over the whole block.
bool touchesFragment(KernelLowering &kernel, Operation *op) {
  bool found = false;
  op->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands())
      found |= kernel.fragment(operand) != nullptr;
  });
  return found;
}

/// Whether every fragment `op` touches belongs to `partition`.
bool fragmentsIn(KernelLowering &kernel, Operation *op,
                 tile::PartitionAttr partition) {
  bool all = true;
  op->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands())
      if (kernel.fragment(operand))
        all &= operand.getDefiningOp() &&
               partitionOf(operand.getDefiningOp()) == partition;
  });
  return all;
}

constexpr StringLiteral kSpanAttr = "tile.thread_span";
constexpr StringLiteral kPartitionBarrierAttr = "tile.partition_barrier";

} // namespace

FailureOr<ThreadSpan> simt::threadSpan(KernelLowering &kernel, Operation *op) {
  int64_t threads = kernel.getThreads();
  ThreadSpan all{0, threads};
  Dependence dependence;
  llvm::BitVector active(threads, true);
  Operation *guard = nullptr; // the innermost condition on the thread
  auto cannotTell = [&](Operation *at, const Twine &why) {
    InFlightDiagnostic diag = op->emitError()
                              << "cannot tell which threads run this "
                              << describe(op) << ": " << why;
    diag.attachNote(at->getLoc()) << "the condition is here";
    return diag;
  };
  for (Operation *child = op, *parent = op->getParentOp();
       parent && !isa<gpu::GPUFuncOp>(parent);
       child = parent, parent = parent->getParentOp()) {
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      if (dependence.onThread(loop.getLowerBound()) ||
          dependence.onThread(loop.getUpperBound()) ||
          dependence.onThread(loop.getStep()))
        return cannotTell(loop, "the loop around it runs a number of times "
                                "that depends on the thread index");
      continue;
    }
    auto ifOp = dyn_cast<scf::IfOp>(parent);
    if (!ifOp)
      continue;
    bool inThen = child->getParentRegion() == &ifOp.getThenRegion();
    SmallVector<Literal> literals;
    split(ifOp.getCondition(), inThen, literals);
    for (const Literal &literal : literals) {
      if (!dependence.onThread(literal.value))
        continue; // uniform over the block
      if (!guard)
        guard = ifOp;
      for (int64_t t = 0; t < threads; ++t) {
        Evaluator evaluator(t);
        auto value =
            dyn_cast_or_null<IntegerAttr>(evaluator.eval(literal.value));
        if (!value)
          return cannotTell(ifOp,
                            "its condition depends on the thread index and on "
                            "values known only at run time; compare the "
                            "thread index with constants, as in `if tx < 128:`");
        if (value.getValue().getBoolValue() != literal.expected)
          active.reset(t);
      }
    }
  }
  if (!guard || active.all() || active.none())
    return all; // never running counts as running everywhere: nothing to do
  int64_t begin = active.find_first();
  int64_t end = active.find_last() + 1;
  ThreadSpan span{begin, end - begin};
  if (int64_t(active.count()) != span.count) {
    InFlightDiagnostic diag = op->emitError()
           << "this " << describe(op) << " runs on " << active.count()
           << " of the " << threads
           << " threads, which are not one range (between thread " << begin
           << " and thread " << end - 1
           << "); tilec spreads it over one range of threads, as `if a <= tx "
              "< b:` gives";
    diag.attachNote(guard->getLoc()) << "the condition is here";
    return diag;
  }
  return span;
}

LogicalResult simt::checkThreadGuards(KernelLowering &kernel,
                                      const TargetInfo &target) {
  SmallVector<Operation *> ops, barriers;
  kernel.getFunc().walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!isBlockWide(op))
      return WalkResult::advance();
    (isa<tile::BarrierOp>(op) ? barriers : ops).push_back(op);
    return WalkResult::skip(); // ops inside a loop body run per thread
  });
  // Barriers last: an error names the op the user wrote first.
  ops.append(barriers);
  std::map<std::pair<int64_t, int64_t>, int64_t> barrierIds;
  // Each T.ws partition's barrier id first (partitionBarrier reads it):
  // the ops lowered in a region synchronize its threads only.
  SmallVector<scf::IfOp> partitions;
  kernel.getFunc().walk([&](scf::IfOp ifOp) {
    if (ifOp->hasAttr(tile::PartitionAttr::getAttrName()))
      partitions.push_back(ifOp);
  });
  for (scf::IfOp ifOp : partitions) {
    tile::PartitionAttr p = partitionOf(ifOp);
    auto key = std::make_pair(p.getBegin(), p.getThreads());
    if (!barrierIds.count(key)) {
      if (barrierIds.size() == 15)
        return ifOp.emitError() << "more than 15 thread ranges need their "
                                   "own barrier in this kernel";
      barrierIds[key] = int64_t(barrierIds.size()) + 1;
    }
    ifOp->setAttr(kPartitionBarrierAttr,
                  IntegerAttr::get(IntegerType::get(ifOp.getContext(), 64),
                                   barrierIds[key]));
  }
  SmallVector<scf::IfOp> fenced;
  for (Operation *op : ops) {
    FailureOr<ThreadSpan> span = threadSpan(kernel, op);
    if (failed(span))
      return failure();
    // `T.sync_threads(id, count)`: the threads that reach it are its count.
    if (auto count = op->getAttrOfType<IntegerAttr>("tile.arrive_count");
        count && count.getInt() != span->count)
      return op->emitError()
             << "`T.sync_threads` waits for " << count.getInt()
             << " threads, but threads " << rangeText(*span) << " ("
             << span->count << ") reach it";
    if (span->count == kernel.getThreads())
      continue;
    std::string who = describe(op) + " runs on threads " + rangeText(*span) +
                      " of " + std::to_string(kernel.getThreads()) + " only";
    // In a T.ws region (or a thread-branch arm made one), gemms, fragments,
    // operand copies and reductions are laid out over the region's threads
    // (InferPartitions.cpp): allowed where the threads that run the op are
    // exactly those. A reduction across warps uses the partition's own
    // scratch and named barrier (LowerReduce.cpp); scans and reducer
    // finalizes keep block-wide scratch and barriers.
    tile::PartitionAttr partition = partitionOf(op);
    bool inPartition = partition && partition.getBegin() == span->begin &&
                       partition.getThreads() == span->count &&
                       !isa<tile::FinalizeReducerOp, tile::ScanOp>(op) &&
                       fragmentsIn(kernel, op, partition);
    if (partition && isa<tile::FinalizeReducerOp, tile::ScanOp>(op))
      return op->emitError()
             << "this " << describe(op) << " runs in a T.ws region (threads "
             << rangeText(*span)
             << "); scans and T.finalize_reducer in T.ws regions are not "
                "supported yet (their scratch and barriers span the block)";
    if (!inPartition &&
        (isa<tile::ReduceOp, tile::FinalizeReducerOp, tile::GemmOp>(op) ||
         touchesFragment(kernel, op)))
      return op->emitError()
             << "this " << who
             << " (a condition on the thread index), but fragments, "
                "reductions and T.gemm spread over every thread of the block; "
                "move it out of the condition";
    if (auto copy = dyn_cast<tile::CopyOp>(op); copy && !inPartition) {
      Operation *dst = copy.getDst().getDefiningOp();
      if (dst && dst->hasAttr(gemm::kSharedLayoutAttr))
        return op->emitError() << "this " << who
                               << ", but it fills a T.gemm operand, which is "
                                  "copied by every thread of the block; move "
                                  "it out of the condition";
    }
    if (!isa<tile::BarrierOp>(op))
      continue;
    // Threads outside the range do not take part: they must neither read
    // what the range writes before it is written, nor overwrite what it
    // still reads. Fence the outermost guard with block-wide barriers.
    if (!target.hasNamedBarriers())
      return op->emitError()
             << "shared memory written under a condition on the thread index "
                "needs a barrier among threads "
             << rangeText(*span) << " only, which " << target.chip()
             << " does not have; move the write out of the condition";
    int64_t warp = target.warpSize();
    if (span->begin % warp || span->count % warp)
      return op->emitError()
             << "shared memory written under a condition on the thread index "
                "needs a barrier among threads "
             << rangeText(*span) << ", which must be whole warps (multiples of "
             << warp << " threads)";
    auto key = std::make_pair(span->begin, span->count);
    if (!barrierIds.count(key)) {
      if (barrierIds.size() == 15)
        return op->emitError() << "more than 15 thread ranges need their own "
                                  "barrier in this kernel";
      barrierIds[key] = int64_t(barrierIds.size()) + 1;
    }
    op->setAttr(kSpanAttr, DenseI64ArrayAttr::get(
                               op->getContext(),
                               {span->begin, span->count, barrierIds[key]}));
    Operation *guard = nullptr;
    Dependence dependence;
    for (Operation *p = op->getParentOp(); !isa<gpu::GPUFuncOp>(p);
         p = p->getParentOp())
      if (auto ifOp = dyn_cast<scf::IfOp>(p);
          ifOp && dependence.onThread(ifOp.getCondition()))
        guard = ifOp;
    if (guard && !llvm::is_contained(fenced, cast<scf::IfOp>(guard)))
      fenced.push_back(cast<scf::IfOp>(guard));
  }
  // The regions of one T.ws chain (the arms of `if tx < 128: ... elif
  // ...`, consecutive partitions) run at the same time on their own
  // threads and may wait for each other through mbarriers (FlashMLA's
  // consumers, a producer and its consumers): a block barrier between two
  // of them would make the second partition's threads wait for the first
  // to finish, which waits for them. Only the chain's ends are fenced.
  auto isPartition = [](Operation *op) {
    return isa_and_nonnull<scf::IfOp>(op) &&
           op->hasAttr(tile::PartitionAttr::getAttrName());
  };
  // The first (or last) region of the chain `op` is in: the partitions
  // before (after) it with only pure arithmetic between them (a later
  // region's condition sits between two ifs).
  auto chainEnd = [&](Operation *op, bool after) {
    Operation *end = op;
    for (Operation *n = after ? op->getNextNode() : op->getPrevNode(); n;
         n = after ? n->getNextNode() : n->getPrevNode()) {
      if (isPartition(n))
        end = n;
      else if (!isPure(n))
        break;
    }
    return end;
  };
  for (scf::IfOp guard : fenced) {
    bool partition = isPartition(guard);
    Operation *first = partition ? chainEnd(guard, false) : guard.getOperation();
    Operation *last = partition ? chainEnd(guard, true) : guard.getOperation();
    OpBuilder b(first);
    if (!isa_and_nonnull<tile::BarrierOp>(first->getPrevNode()))
      tile::BarrierOp::create(b, guard.getLoc());
    b.setInsertionPointAfter(last);
    if (!isa_and_nonnull<tile::BarrierOp>(last->getNextNode()))
      tile::BarrierOp::create(b, guard.getLoc());
  }
  return success();
}

void simt::createBarrier(OpBuilder &b, tile::BarrierOp op) {
  Location loc = op.getLoc();
  if (op->hasAttr("tile.grid_sync")) {
    deviceOps(op).gridSync(b, loc);
    return;
  }
  auto span = op->getAttrOfType<DenseI64ArrayAttr>(kSpanAttr);
  if (!span) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  Value id = arith::ConstantIntOp::create(b, loc, span[2], 32);
  Value count = arith::ConstantIntOp::create(b, loc, span[1], 32);
  deviceOps(op).namedBarrier(b, loc, id, count);
}

void simt::partitionBarrier(OpBuilder &b, Location loc, Operation *at) {
  for (Operation *p = at; p && !isa<gpu::GPUFuncOp>(p); p = p->getParentOp())
    if (auto id = p->getAttrOfType<IntegerAttr>(kPartitionBarrierAttr)) {
      tile::PartitionAttr range = partitionOf(p);
      Value idValue = arith::ConstantIntOp::create(b, loc, id.getInt(), 32);
      Value threads =
          arith::ConstantIntOp::create(b, loc, range.getThreads(), 32);
      deviceOps(at).namedBarrier(b, loc, idValue, threads);
      return;
    }
  gpu::BarrierOp::create(b, loc);
}
