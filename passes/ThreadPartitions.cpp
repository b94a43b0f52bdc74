//===- ThreadPartitions.cpp - `if tx < 128:` warp roles as T.ws regions --===//
//
// TileLang kernels written with warp roles by hand branch on the thread
// index (`if tx < 128: <consumer> else: <producer>`, or an if/elif chain over
// warpgroups) and put fragments, reductions and T.gemm in the branches:
// TileLang lays those out over the threads the branch admits. tilec's
// `with T.ws(i)` regions mean exactly that, and the partition machinery
// (tile-infer-layouts' InferPartitions, tile-lower-simt) already spreads a
// region's fragments and gemms over its warpgroups; a plain scf.if does not
// (tile-lower-simt's ThreadGuards spreads copies, fills and T.Parallel loops
// over a guarded range, and rejects fragments under one).
//
// The decision (tile-infer-layouts makes it first, before the partitions
// of the regions are recorded, InferPartitions.cpp): an scf.if directly in
// a kernel's body whose condition depends on the thread index only, whose
// arms each admit one range of whole warps (the else arm the rest of its
// parent's range), and one of whose arms touches a fragment or runs a gemm,
// becomes one tile.ws region per arm, in the arms' order. An arm of whole
// warpgroups is the plain `T.ws(i, ...)` of them; an arm of whole warps
// that are not whole warpgroups (DeepSeek's mHC pre: threads [0, 32) and
// [32, 96) of 96) names the warpgroups it lies in and records its own
// thread range as its `tile.partition`, which InferPartitions keeps: its
// fragments are laid out over its threads, numbered from its first (what
// TileLang's thread bounds from the condition give). Anything else (a
// condition that also reads a block index or a loaded value, ranges that
// are not whole warps, no fragment work) is left to the guard lowering,
// which handles it or says why not. Whole warps because lanes are the low
// bits of the thread index (shuffles, mma.sync fragments) and named
// barriers count warps.
//
// Algorithm: the condition is evaluated for every thread of the kernel by
// folding its arith ops over the thread index (tile.thread_id x in a 1-D
// block); the admitted threads must form one interval. An else block that
// holds only pure ops and a nested scf.if (an `elif`) continues the chain
// over the threads left; its pure ops move above the regions. The arms'
// blocks are spliced into the new regions unchanged, so nothing inside is
// re-elaborated.
//
//===----------------------------------------------------------------------===//

#include "Partitions.h"

#include "tilec/Dialect/TileOps.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-infer-layouts"

using namespace mlir;
using namespace tilec;

namespace {
constexpr int64_t kWarpgroup = 128;

/// `v` for thread `tid`, folding the integer arith ops it is made of, or
/// nullopt where it depends on anything but the thread index and constants.
std::optional<int64_t> evaluate(Value v, int64_t tid, unsigned depth = 0) {
  if (depth > 64)
    return std::nullopt;
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  auto width = [](Type t) -> unsigned {
    return t.isIndex() ? 64 : t.getIntOrFloatBitWidth();
  };
  if (!v.getType().isIntOrIndex())
    return std::nullopt;
  unsigned bits = width(v.getType());
  auto wrap = [&](int64_t x) -> int64_t {
    if (bits >= 64)
      return x;
    if (bits == 1)
      return x & 1;
    return llvm::SignExtend64(uint64_t(x), bits);
  };
  if (auto id = dyn_cast<tile::ThreadIdOp>(op))
    return id.getDim() == 0 ? std::optional<int64_t>(tid) : std::nullopt;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return wrap(bits == 1 ? int64_t(c.getZExtValue()) : c.getSExtValue());
  auto arg = [&](unsigned i) {
    return evaluate(op->getOperand(i), tid, depth + 1);
  };
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(op)) {
    std::optional<int64_t> x = arg(0);
    if (!x)
      return std::nullopt;
    if (isa<arith::ExtUIOp>(op) && width(op->getOperand(0).getType()) < 64)
      return int64_t(uint64_t(*x) &
                     ((uint64_t(1) << width(op->getOperand(0).getType())) - 1));
    return wrap(*x);
  }
  // Python's short-circuit `a and b` / `a or b`: an scf.if yielding the
  // second operand or a constant.
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    std::optional<int64_t> p = evaluate(ifOp.getCondition(), tid, depth + 1);
    Block *arm = p ? (*p ? ifOp.thenBlock() : ifOp.elseBlock()) : nullptr;
    if (!arm)
      return std::nullopt;
    auto yield = cast<scf::YieldOp>(arm->getTerminator());
    return evaluate(yield.getOperand(cast<OpResult>(v).getResultNumber()), tid,
                    depth + 1);
  }
  if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    std::optional<int64_t> p = arg(0), a = arg(1), b = arg(2);
    if (!p || !a || !b)
      return std::nullopt;
    return *p ? a : b;
  }
  if (op->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> a = arg(0), b = arg(1);
  if (!a || !b)
    return std::nullopt;
  int64_t x = *a, y = *b;
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    uint64_t ux = uint64_t(x), uy = uint64_t(y);
    switch (cmp.getPredicate()) {
    case P::eq:
      return x == y;
    case P::ne:
      return x != y;
    case P::slt:
      return x < y;
    case P::sle:
      return x <= y;
    case P::sgt:
      return x > y;
    case P::sge:
      return x >= y;
    case P::ult:
      return ux < uy;
    case P::ule:
      return ux <= uy;
    case P::ugt:
      return ux > uy;
    case P::uge:
      return ux >= uy;
    }
    return std::nullopt;
  }
  bool divides = isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp,
                     arith::RemUIOp, arith::FloorDivSIOp, arith::CeilDivSIOp>(op);
  if (divides && y == 0)
    return std::nullopt;
  if (isa<arith::AddIOp>(op))
    return wrap(x + y);
  if (isa<arith::SubIOp>(op))
    return wrap(x - y);
  if (isa<arith::MulIOp>(op))
    return wrap(x * y);
  if (isa<arith::AndIOp>(op))
    return wrap(x & y);
  if (isa<arith::OrIOp>(op))
    return wrap(x | y);
  if (isa<arith::XOrIOp>(op))
    return wrap(x ^ y);
  if (isa<arith::MinSIOp>(op))
    return std::min(x, y);
  if (isa<arith::MaxSIOp>(op))
    return std::max(x, y);
  if (isa<arith::DivSIOp>(op))
    return wrap(x / y);
  if (isa<arith::RemSIOp>(op))
    return wrap(x % y);
  if (isa<arith::FloorDivSIOp>(op))
    return wrap(x / y - ((x % y != 0) && ((x < 0) != (y < 0))));
  if (isa<arith::CeilDivSIOp>(op))
    return wrap(x / y + ((x % y != 0) && ((x < 0) == (y < 0))));
  if (isa<arith::DivUIOp>(op))
    return wrap(int64_t(uint64_t(x) / uint64_t(y)));
  if (isa<arith::RemUIOp>(op))
    return wrap(int64_t(uint64_t(x) % uint64_t(y)));
  return std::nullopt;
}

/// One arm of a chain: the threads [begin, end) that run `block`.
struct Arm {
  int64_t begin, end;
  Block *block;
};

/// The threads of [begin, end) for which `cond` holds, if one interval
/// (possibly empty) of them.
std::optional<std::pair<int64_t, int64_t>> admitted(Value cond, int64_t begin,
                                                    int64_t end) {
  int64_t lo = -1, hi = -1;
  for (int64_t t = begin; t < end; ++t) {
    std::optional<int64_t> v = evaluate(cond, t);
    if (!v)
      return std::nullopt;
    if (!*v)
      continue;
    if (lo < 0)
      lo = t;
    else if (hi != t)
      return std::nullopt; // a hole
    hi = t + 1;
  }
  if (lo < 0)
    return std::pair<int64_t, int64_t>{begin, begin};
  return std::pair<int64_t, int64_t>{lo, hi};
}

/// Whether thread `t` starts a warp of `warp` threads (the target's): arms
/// split the block at whole warps, so that a warp's lanes run one arm, and
/// the layouts, shuffles and named barriers of an arm's ops work in warps.
bool whole(int64_t t, int64_t warp) { return t % warp == 0; }

/// The arms of the chain `ifOp` heads over threads [begin, end), and the pure
/// ops of its `elif` blocks that compute the later conditions (`hoist`).
LogicalResult collectArms(scf::IfOp ifOp, int64_t begin, int64_t end,
                          int64_t warp, SmallVectorImpl<Arm> &arms,
                          SmallVectorImpl<Operation *> &hoist) {
  if (ifOp.getNumResults())
    return failure();
  auto range = admitted(ifOp.getCondition(), begin, end);
  if (!range)
    return failure();
  auto [lo, hi] = *range;
  // The threads left for the else arm must be one interval too.
  int64_t restBegin, restEnd;
  if (lo == hi || lo == begin) {
    restBegin = lo == hi ? begin : hi;
    restEnd = end;
  } else if (hi == end) {
    restBegin = begin;
    restEnd = lo;
  } else {
    return failure();
  }
  if (!whole(lo, warp) || !whole(hi, warp) || !whole(restBegin, warp) ||
      !whole(restEnd, warp))
    return failure();
  arms.push_back({lo, hi, ifOp.thenBlock()});
  Block *elseBlock = ifOp.elseBlock();
  if (!elseBlock || elseBlock->without_terminator().empty())
    return success();
  // An `elif`: pure ops, then one scf.if, then the yield.
  auto ops = elseBlock->without_terminator();
  auto nested = dyn_cast<scf::IfOp>(&*std::prev(ops.end()));
  // (A short-circuit condition is an scf.if of pure ops yielding an i1.)
  auto hoistable = [](Operation &op) {
    if (isPure(&op))
      return true;
    auto cond = dyn_cast<scf::IfOp>(op);
    if (!cond || !cond.getNumResults())
      return false;
    bool pure = true;
    cond->walk([&](Operation *inner) {
      if (inner != cond.getOperation() && !isa<scf::YieldOp>(inner))
        pure &= isPure(inner);
    });
    return pure;
  };
  bool pureBefore =
      nested && llvm::all_of(llvm::make_range(ops.begin(), nested->getIterator()),
                             hoistable);
  if (pureBefore) {
    size_t armCount = arms.size(), hoistCount = hoist.size();
    // Outer ops first: the elif's own may use them.
    for (Operation &op : llvm::make_range(ops.begin(), nested->getIterator()))
      hoist.push_back(&op);
    if (succeeded(collectArms(nested, restBegin, restEnd, warp, arms, hoist)))
      return success();
    arms.resize(armCount);
    hoist.resize(hoistCount);
  }
  arms.push_back({restBegin, restEnd, elseBlock});
  return success();
}

/// Whether `block` holds work that needs a partition: a fragment it touches
/// or a gemm (ThreadGuards handles the rest under a plain branch).
bool needsPartition(Block *block) {
  bool found = false;
  block->walk([&](Operation *op) {
    if (op->getName().getStringRef().contains("gemm")) {
      found = true;
      return WalkResult::interrupt();
    }
    auto isFragment = [](Type t) {
      auto type = dyn_cast<MemRefType>(t);
      return type && tile::getMemorySpace(type) == tile::MemorySpace::fragment;
    };
    if (llvm::any_of(op->getOperandTypes(), isFragment) ||
        llvm::any_of(op->getResultTypes(), isFragment)) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

} // namespace

void simt::threadBranchesToRegions(Operation *op) {
  auto kernel = dyn_cast<tile::KernelOp>(op);
  if (!kernel)
    return; // outlined: its branches are the guard lowering's
  int64_t threads = kernel.getThreads();
  // (tile-infer-layouts has required the target before calling this.)
  const TargetInfo *target = tile::requireTarget(kernel);
  int64_t warp = target ? target->warpSize() : 32;
  if (!whole(threads, warp) || threads == warp)
    return;
  SmallVector<scf::IfOp> ifs;
  for (Operation &op : *kernel.getBody())
    if (auto i = dyn_cast<scf::IfOp>(op))
      ifs.push_back(i);
  for (scf::IfOp ifOp : ifs) {
    bool hasWs = false;
    ifOp->walk([&](tile::WsOp) { hasWs = true; });
    SmallVector<Arm> arms;
    SmallVector<Operation *> hoist;
    if (hasWs || failed(collectArms(ifOp, 0, threads, warp, arms, hoist)) ||
        llvm::none_of(arms, [](const Arm &a) {
          return a.begin < a.end && needsPartition(a.block);
        }))
      continue;
    LLVM_DEBUG(llvm::dbgs()
               << "thread branch with " << arms.size() << " arms at "
               << ifOp.getLoc() << ": T.ws regions\n");
    for (Operation *h : hoist)
      h->moveBefore(ifOp);
    OpBuilder b(ifOp);
    for (const Arm &arm : arms) {
      if (arm.begin == arm.end)
        continue; // no thread runs it
      // The warpgroups the arm's threads lie in; an arm of whole warps
      // that are not whole warpgroups records its own thread range, which
      // inferPartitions keeps.
      SmallVector<int64_t> ids;
      for (int64_t w = arm.begin / kWarpgroup;
           w < int64_t(llvm::divideCeil(arm.end, kWarpgroup)); ++w)
        ids.push_back(w);
      auto ws =
          tile::WsOp::create(b, ifOp.getLoc(), b.getDenseI64ArrayAttr(ids));
      if (arm.begin % kWarpgroup || arm.end % kWarpgroup)
        ws->setAttr(tile::PartitionAttr::getAttrName(),
                    tile::PartitionAttr::get(b.getContext(), arm.begin,
                                             arm.end - arm.begin));
      Block *body = new Block();
      ws.getBody().push_back(body);
      body->getOperations().splice(body->end(), arm.block->getOperations(),
                                   arm.block->begin(),
                                   arm.block->without_terminator().end());
    }
    // The elif heads left in else blocks go with it; their arms moved.
    ifOp.erase();
  }
}
