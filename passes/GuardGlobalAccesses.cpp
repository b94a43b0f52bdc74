//===- GuardGlobalAccesses.cpp - tile-guard-global-accesses ---------------===//
//
// TileLang checks the bounds of element accesses to global tensors that it
// cannot prove in bounds (its LegalizeSafeMemoryAccess pass): a store whose
// index may fall outside the tensor's shape is skipped there, a load gets
// the value 0 there, an atomic is skipped. Kernels rely on it: DeepSeek's
// `clean_logits_` walks `block_K` columns per step past `seq_len_kv`, an
// elementwise kernel over T.dynamic sizes stores its partial edge tiles
// unguarded. Without the check such an access is out of bounds, and a store
// past a row's end overwrites the next row.
//
// This pass gives tilec's element accesses the same meaning, on the tile ops
// as written (before layout inference, so that the lowering sees a guarded
// access exactly as it sees one the user guarded by hand; GuardedSteps.cpp
// and LowerParallel.cpp's vector path already handle that shape):
//
//   memref.load / memref.store / memref.atomic_rmw / tile.atomic_add on a
//   kernel's global tensor argument (or a T.make_tensor tensor, against its
//   static shape), for each dimension whose index is not
//   a compile-time constant: `0 <= index` and `index < extent` are proved
//   where they can be, and the ones left become the access's condition
//   (`scf.if`; a load or an atomic that returns a value yields 0 where the
//   condition fails).
//
// What proves a bound (Bounds, below; no proof, a guard):
// - intervals: constants, block indices (below their grid extent), thread
//   indices (below the block size), T.Parallel / T.serial / T.Pipelined
//   induction variables (from their bounds), T.dynamic sizes (at least 1:
//   the launch header rejects less), through + - * / %, shifts, masks,
//   min / max, casts and selects;
// - what the index is symbolically: a block index whose grid extent is the
//   tensor's extent (`T.Kernel(seq_len)` over `Logits[bx, ...]` with shape
//   `[seq_len, ...]`), an induction variable of a loop running to it;
// - the conditions of the `if`s around the access (`if r < M and c < N:` as
//   TileLang binds them): a comparison of the same index (or an expression
//   that computes the same value) against the extent or a constant.
// Indices that are constants are not checked (TileLang does not either; a
// constant out of the tensor is a located error in the frontend).
//
// TileLang's `TL_DISABLE_SAFE_MEMORY_ACCESS` pass config (on the prim_func:
// `tile.disable_safe_memory_access`) turns the pass off for a kernel.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileOps.h"
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Debug.h"

#include <climits>
#include <optional>

#define DEBUG_TYPE "tile-guard-global-accesses"

namespace tilec {
#define GEN_PASS_DEF_TILEGUARDGLOBALACCESSES
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

constexpr llvm::StringLiteral kDisableAttr = "tile.disable_safe_memory_access";

/// An inclusive integer interval; a missing end is unbounded.
struct Interval {
  std::optional<int64_t> lo, hi;
  static Interval point(int64_t v) { return {v, v}; }
};

std::optional<int64_t> checked(__int128 v) {
  if (v < INT64_MIN || v > INT64_MAX)
    return std::nullopt;
  return int64_t(v);
}

std::optional<int64_t> constantInt(Value v) {
  APInt c;
  if (auto cst = v.getDefiningOp<arith::ConstantOp>())
    if (auto i = dyn_cast<IntegerAttr>(cst.getValue()))
      return i.getValue().getSExtValue();
  return std::nullopt;
}

/// A value with the casts that keep its integer value taken off.
Value stripCasts(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (!isa<arith::IndexCastOp, arith::ExtSIOp>(op))
      break;
    v = op->getOperand(0);
  }
  return v;
}

/// Whether `a` and `b` compute the same integer: the same value, equal
/// constants, or the same side-effect-free arith op on operands that do
/// (the index written twice, `if by * 16 + i < M: C[by * 16 + i, ...]`).
bool sameValue(Value a, Value b, int depth = 6) {
  a = stripCasts(a);
  b = stripCasts(b);
  if (a == b)
    return true;
  std::optional<int64_t> ca = constantInt(a), cb = constantInt(b);
  if (ca || cb)
    return ca && cb && *ca == *cb;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || depth == 0 || x->getName() != y->getName() ||
      x->getNumOperands() != y->getNumOperands() ||
      x->getAttrDictionary() != y->getAttrDictionary() ||
      !isa<arith::ArithDialect>(x->getDialect()))
    return false;
  for (auto [p, q] : llvm::zip(x->getOperands(), y->getOperands()))
    if (!sameValue(p, q, depth - 1))
      return false;
  return true;
}

/// `lhs < rhs` (strict) or `lhs <= rhs`, known to hold at the access.
struct Fact {
  Value lhs, rhs;
  bool strict;
};

/// Bound proofs for the indices of one access: intervals and the facts of
/// the conditions around it.
class Bounds {
public:
  explicit Bounds(Operation *access) { collectFacts(access); }

  /// Proves `0 <= v`.
  bool nonNegative(Value v) {
    Interval r = range(v);
    if (r.lo && *r.lo >= 0)
      return true;
    if (llvm::any_of(nonNegFacts, [&](Value n) { return sameValue(n, v); }))
      return true;
    for (const Fact &f : facts)
      if (sameValue(f.rhs, v)) {
        Interval l = range(f.lhs, /*useFacts=*/false);
        if (l.lo && *l.lo >= (f.strict ? -1 : 0))
          return true;
      }
    return false;
  }

  /// Proves `v < extent` (`extentValue` is the extent as a value, null for
  /// a static one).
  bool below(Value v, int64_t staticExtent, Value extentValue) {
    if (!extentValue) {
      Interval r = range(v);
      if (r.hi && *r.hi < staticExtent)
        return true;
    }
    return belowExtent(v, {staticExtent, extentValue}, /*depth=*/4);
  }

private:
  SmallVector<Fact> facts;
  /// Values known to be non-negative (an unsigned comparison held).
  SmallVector<Value> nonNegFacts;

  /// A tensor extent: a constant, or a value (a T.dynamic symbol).
  struct Extent {
    int64_t size;
    Value value;
  };

  /// Whether `bound` is at most the extent.
  bool atMost(Value bound, const Extent &e) {
    if (e.value)
      return sameValue(bound, e.value);
    Interval r = range(bound, /*useFacts=*/false);
    return r.hi && *r.hi <= e.size;
  }

  /// A signed term of a sum.
  struct Term {
    Value value;
    bool negated;
  };

  /// `v` as a sum of signed terms (through + and -).
  static void flatten(Value v, bool negated, SmallVector<Term> &terms,
                      int depth) {
    v = stripCasts(v);
    if (depth > 0) {
      if (auto a = v.getDefiningOp<arith::AddIOp>()) {
        flatten(a.getLhs(), negated, terms, depth - 1);
        flatten(a.getRhs(), negated, terms, depth - 1);
        return;
      }
      if (auto d = v.getDefiningOp<arith::SubIOp>()) {
        flatten(d.getLhs(), negated, terms, depth - 1);
        flatten(d.getRhs(), !negated, terms, depth - 1);
        return;
      }
    }
    terms.push_back({v, negated});
  }

  /// The interval of a sum of terms, or nothing where one is unbounded.
  Interval sumRange(ArrayRef<Term> terms) {
    Interval sum = Interval::point(0);
    for (const Term &t : terms) {
      Interval r = range(t.value);
      if (t.negated)
        r = {r.hi ? std::optional<int64_t>(-*r.hi) : std::nullopt,
             r.lo ? std::optional<int64_t>(-*r.lo) : std::nullopt};
      sum.lo =
          sum.lo && r.lo ? checked(__int128(*sum.lo) + *r.lo) : std::nullopt;
      sum.hi =
          sum.hi && r.hi ? checked(__int128(*sum.hi) + *r.hi) : std::nullopt;
    }
    return sum;
  }

  /// Whether `v < extent` follows from the fact `lhs < extent` (or <=):
  /// the terms the two sums share cancel, and what is left of `v` must be
  /// below what is left of `lhs` (`if base + block <= N:` over
  /// `X[base + tx * vec + j]`; `if r < M:` over `X[r - 1]`).
  bool belowByFact(Value v, const Fact &f) {
    SmallVector<Term> a, b;
    flatten(v, false, a, 6);
    flatten(f.lhs, false, b, 6);
    SmallVector<bool> used(b.size(), false);
    SmallVector<Term> left;
    bool shared = false;
    for (const Term &t : a) {
      bool cancelled = false;
      for (auto [i, u] : llvm::enumerate(b))
        if (!used[i] && u.negated == t.negated && sameValue(t.value, u.value)) {
          used[i] = cancelled = shared = true;
          break;
        }
      if (!cancelled)
        left.push_back(t);
    }
    SmallVector<Term> factLeft;
    for (auto [i, u] : llvm::enumerate(b))
      if (!used[i])
        factLeft.push_back(u);
    if (!shared && !(left.empty() && factLeft.empty()))
      return false;
    Interval mine = sumRange(left), theirs = sumRange(factLeft);
    return mine.hi && theirs.lo && *mine.hi < *theirs.lo + (f.strict ? 1 : 0);
  }

  bool belowExtent(Value v, const Extent &e, int depth) {
    if (depth == 0)
      return false;
    v = stripCasts(v);
    // A condition around the access bounds the same sum with a smaller
    // offset.
    for (const Fact &f : facts)
      if (atMost(f.rhs, e) && belowByFact(v, f))
        return true;
    if (!e.value)
      return false;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (auto kernel = dyn_cast<tile::KernelOp>(owner))
        return sameValue(kernel.getGrid()[arg.getArgNumber()], e.value);
      if (auto loop = dyn_cast<tile::ForOp>(owner))
        return loopBelow(loop.getLb(), loop.getUb(), loop.getStep(), e.value);
      if (auto loop = dyn_cast<tile::PipelinedOp>(owner))
        return loopBelow(loop.getLb(), loop.getUb(), loop.getStep(), e.value);
      if (auto loop = dyn_cast<scf::ForOp>(owner))
        return loopBelow(loop.getLowerBound(), loop.getUpperBound(),
                         loop.getStep(), e.value);
      return false;
    }
    // `a - c` and `a + c` with c <= 0 stay below what `a` is below.
    if (auto d = v.getDefiningOp<arith::SubIOp>())
      if (nonNegative(d.getRhs()))
        return belowExtent(d.getLhs(), e, depth - 1);
    if (auto d = v.getDefiningOp<arith::AddIOp>())
      for (unsigned i = 0; i < 2; ++i) {
        Interval c = range(d->getOperand(1 - i));
        if (c.hi && *c.hi <= 0 && belowExtent(d->getOperand(i), e, depth - 1))
          return true;
      }
    if (auto m = v.getDefiningOp<arith::MinSIOp>())
      return belowExtent(m.getLhs(), e, depth - 1) ||
             belowExtent(m.getRhs(), e, depth - 1);
    if (auto m = v.getDefiningOp<arith::MinUIOp>())
      return nonNegative(v) && (belowExtent(m.getLhs(), e, depth - 1) ||
                                belowExtent(m.getRhs(), e, depth - 1));
    return false;
  }

  bool loopBelow(Value lb, Value ub, Value step, Value extent) {
    std::optional<int64_t> s = constantInt(step);
    return s && *s > 0 && nonNegative(lb) && sameValue(ub, extent);
  }

  //===--------------------------------------------------------------------===//
  // Facts from the conditions around the access
  //===--------------------------------------------------------------------===//

  void collectFacts(Operation *access) {
    for (Operation *op = access; op; op = op->getParentOp()) {
      Region *region = op->getParentRegion();
      if (!region)
        break;
      if (auto ifOp = dyn_cast<scf::IfOp>(region->getParentOp()))
        addFacts(ifOp.getCondition(), &ifOp.getThenRegion() == region, 6);
      if (isa<tile::KernelOp, func::FuncOp>(region->getParentOp()))
        break;
    }
  }

  void addCompare(arith::CmpIPredicate p, Value a, Value b, bool holds) {
    using P = arith::CmpIPredicate;
    if (!holds)
      p = arith::invertPredicate(p);
    switch (p) {
    case P::slt:
      facts.push_back({a, b, true});
      break;
    case P::sle:
      facts.push_back({a, b, false});
      break;
    case P::sgt:
      facts.push_back({b, a, true});
      break;
    case P::sge:
      facts.push_back({b, a, false});
      break;
    // Unsigned: where the bound is non-negative as a signed value, the
    // signed comparison holds too and the other side is non-negative
    // (`a <u -1` says nothing signed about a).
    case P::ult:
    case P::ule:
      if (nonNegative(b)) {
        facts.push_back({a, b, p == P::ult});
        nonNegFacts.push_back(a);
      }
      break;
    case P::ugt:
    case P::uge:
      if (nonNegative(a)) {
        facts.push_back({b, a, p == P::ugt});
        nonNegFacts.push_back(b);
      }
      break;
    default:
      break;
    }
  }

  /// What `cond` (an i1) being `holds` tells.
  void addFacts(Value cond, bool holds, int depth) {
    if (depth == 0)
      return;
    Operation *def = cond.getDefiningOp();
    if (!def)
      return;
    if (auto cmp = dyn_cast<arith::CmpIOp>(def))
      return addCompare(cmp.getPredicate(), cmp.getLhs(), cmp.getRhs(), holds);
    if (isa<arith::AndIOp>(def) && holds) {
      addFacts(def->getOperand(0), true, depth - 1);
      addFacts(def->getOperand(1), true, depth - 1);
      return;
    }
    if (isa<arith::OrIOp>(def) && !holds) {
      addFacts(def->getOperand(0), false, depth - 1);
      addFacts(def->getOperand(1), false, depth - 1);
      return;
    }
    if (auto x = dyn_cast<arith::XOrIOp>(def)) {
      std::optional<int64_t> c = constantInt(x.getRhs());
      if (c && *c != 0)
        addFacts(x.getLhs(), !holds, depth - 1);
      return;
    }
    // Python's short-circuit `a and b` / `a or b`: an scf.if yielding `b`
    // on one side and a constant on the other.
    if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
      unsigned k = cast<OpResult>(cond).getResultNumber();
      if (ifOp.getElseRegion().empty())
        return;
      Value thenV = ifOp.thenYield().getOperand(k);
      Value elseV = ifOp.elseYield().getOperand(k);
      std::optional<int64_t> ct = constantInt(thenV), ce = constantInt(elseV);
      if (holds && ce && *ce == 0) { // a and b
        addFacts(ifOp.getCondition(), true, depth - 1);
        addFacts(thenV, true, depth - 1);
      } else if (!holds && ct && *ct != 0) { // a or b
        addFacts(ifOp.getCondition(), false, depth - 1);
        addFacts(elseV, false, depth - 1);
      }
    }
  }

  //===--------------------------------------------------------------------===//
  // Intervals
  //===--------------------------------------------------------------------===//

  Interval range(Value v, bool useFacts = true, int depth = 12) {
    Interval r = intrinsic(v, depth);
    if (!useFacts)
      return r;
    if (llvm::any_of(nonNegFacts, [&](Value n) { return sameValue(n, v); }))
      r.lo = r.lo ? std::max<int64_t>(*r.lo, 0) : 0;
    // The conditions around the access narrow it: `v < c`, `c <= v`.
    for (const Fact &f : facts) {
      if (sameValue(f.lhs, v)) {
        Interval o = range(f.rhs, false, depth - 1);
        if (o.hi) {
          int64_t h = *o.hi - (f.strict ? 1 : 0);
          r.hi = r.hi ? std::min(*r.hi, h) : h;
        }
      }
      if (sameValue(f.rhs, v)) {
        Interval o = range(f.lhs, false, depth - 1);
        if (o.lo) {
          int64_t l = *o.lo + (f.strict ? 1 : 0);
          r.lo = r.lo ? std::max(*r.lo, l) : l;
        }
      }
    }
    return r;
  }

  Interval loopRange(Value lb, Value ub, Value step, int depth) {
    std::optional<int64_t> s = constantInt(step);
    if (!s || *s <= 0)
      return {};
    Interval l = range(lb, true, depth - 1), u = range(ub, true, depth - 1);
    Interval r{l.lo, std::nullopt};
    if (u.hi)
      r.hi = *u.hi - 1;
    return r;
  }

  Interval intrinsic(Value v, int depth) {
    if (depth <= 0)
      return {};
    if (std::optional<int64_t> c = constantInt(v))
      return Interval::point(*c);
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (!owner)
        return {};
      if (auto kernel = dyn_cast<tile::KernelOp>(owner)) {
        Interval g =
            range(kernel.getGrid()[arg.getArgNumber()], true, depth - 1);
        return {0, g.hi ? std::optional<int64_t>(*g.hi - 1) : std::nullopt};
      }
      if (auto loop = dyn_cast<tile::ParallelOp>(owner))
        return {0, loop.getExtents()[arg.getArgNumber()] - 1};
      if (auto loop = dyn_cast<tile::ForOp>(owner))
        return loopRange(loop.getLb(), loop.getUb(), loop.getStep(), depth);
      if (auto loop = dyn_cast<tile::PipelinedOp>(owner))
        return loopRange(loop.getLb(), loop.getUb(), loop.getStep(), depth);
      if (auto loop = dyn_cast<scf::ForOp>(owner))
        if (arg == loop.getInductionVar())
          return loopRange(loop.getLowerBound(), loop.getUpperBound(),
                           loop.getStep(), depth);
      // A T.dynamic size: the launch header rejects one below 1.
      if (auto func = dyn_cast<func::FuncOp>(owner))
        if (func.getArgAttr(arg.getArgNumber(), "tile.symbol"))
          return {1, std::nullopt};
      return {};
    }
    Operation *op = v.getDefiningOp();
    if (auto tid = dyn_cast<tile::ThreadIdOp>(op)) {
      if (auto kernel = op->getParentOfType<tile::KernelOp>())
        return {0, int64_t(kernel.getThreads()) - 1};
      return {0, std::nullopt};
    }
    auto sub = [&](unsigned i) {
      return range(op->getOperand(i), true, depth - 1);
    };
    if (isa<arith::IndexCastOp, arith::ExtSIOp>(op))
      return sub(0);
    if (isa<arith::IndexCastUIOp, arith::ExtUIOp>(op)) {
      Interval r = sub(0);
      return r.lo && *r.lo >= 0 ? r : Interval{0, std::nullopt};
    }
    // Python's `a % c` as the frontend writes it: a - (a floordiv c) * c,
    // in [0, c - 1] for c > 0 whatever the sign of a.
    if (auto d = dyn_cast<arith::SubIOp>(op))
      if (auto m = d.getRhs().getDefiningOp<arith::MulIOp>())
        for (unsigned i = 0; i < 2; ++i) {
          auto q = m->getOperand(i).getDefiningOp<arith::FloorDivSIOp>();
          std::optional<int64_t> c = constantInt(m->getOperand(1 - i));
          if (q && c && *c > 0 && constantInt(q.getRhs()) == c &&
              sameValue(q.getLhs(), d.getLhs()))
            return {0, *c - 1};
        }
    if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(op)) {
      Interval a = sub(0), b = sub(1);
      if (!a.lo || !a.hi || !b.lo || !b.hi) {
        if (isa<arith::AddIOp>(op))
          return {
              a.lo && b.lo ? checked(__int128(*a.lo) + *b.lo) : std::nullopt,
              a.hi && b.hi ? checked(__int128(*a.hi) + *b.hi) : std::nullopt};
        if (isa<arith::SubIOp>(op))
          return {
              a.lo && b.hi ? checked(__int128(*a.lo) - *b.hi) : std::nullopt,
              a.hi && b.lo ? checked(__int128(*a.hi) - *b.lo) : std::nullopt};
        // A product of non-negative factors is non-negative.
        if (a.lo && b.lo && *a.lo >= 0 && *b.lo >= 0)
          return {checked(__int128(*a.lo) * *b.lo), std::nullopt};
        return {};
      }
      __int128 c[4];
      if (isa<arith::AddIOp>(op))
        return {checked(__int128(*a.lo) + *b.lo),
                checked(__int128(*a.hi) + *b.hi)};
      if (isa<arith::SubIOp>(op))
        return {checked(__int128(*a.lo) - *b.hi),
                checked(__int128(*a.hi) - *b.lo)};
      c[0] = __int128(*a.lo) * *b.lo;
      c[1] = __int128(*a.lo) * *b.hi;
      c[2] = __int128(*a.hi) * *b.lo;
      c[3] = __int128(*a.hi) * *b.hi;
      return {checked(*std::min_element(c, c + 4)),
              checked(*std::max_element(c, c + 4))};
    }
    if (isa<arith::FloorDivSIOp, arith::DivSIOp, arith::DivUIOp,
            arith::CeilDivSIOp, arith::CeilDivUIOp>(op)) {
      std::optional<int64_t> d = constantInt(op->getOperand(1));
      Interval a = sub(0);
      if (!d || *d <= 0)
        return {};
      bool unsignedOp = isa<arith::DivUIOp, arith::CeilDivUIOp>(op);
      if (unsignedOp && !(a.lo && *a.lo >= 0))
        return {0, std::nullopt};
      bool ceil = isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(op);
      auto div = [&](int64_t x) {
        // Floor for floordiv / ceil for ceildiv; divsi truncates, the same
        // as floor for x >= 0, and between floor and ceil for x < 0.
        int64_t q = x / *d, m = x % *d;
        if (ceil)
          return m > 0 ? q + 1 : q;
        if (isa<arith::FloorDivSIOp>(op) && m < 0)
          return q - 1;
        return q;
      };
      return {a.lo ? std::optional<int64_t>(div(*a.lo)) : std::nullopt,
              a.hi ? std::optional<int64_t>(div(*a.hi)) : std::nullopt};
    }
    if (isa<arith::RemSIOp, arith::RemUIOp>(op)) {
      std::optional<int64_t> d = constantInt(op->getOperand(1));
      Interval a = sub(0);
      if (!d || *d <= 0)
        return {};
      if (a.lo && *a.lo >= 0)
        return {0, a.hi ? std::min(*a.hi, *d - 1) : *d - 1};
      if (isa<arith::RemUIOp>(op))
        return {0, *d - 1};
      return {-(*d - 1), *d - 1};
    }
    if (isa<arith::AndIOp>(op)) {
      for (unsigned i = 0; i < 2; ++i)
        if (std::optional<int64_t> m = constantInt(op->getOperand(i)))
          if (*m >= 0)
            return {0, *m};
      Interval a = sub(0), b = sub(1);
      if (a.lo && *a.lo >= 0 && b.lo && *b.lo >= 0)
        return {0, a.hi && b.hi ? std::optional<int64_t>(std::min(*a.hi, *b.hi))
                                : (a.hi ? a.hi : b.hi)};
      return {};
    }
    if (isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(op)) {
      std::optional<int64_t> s = constantInt(op->getOperand(1));
      Interval a = sub(0);
      if (!s || *s < 0 || *s > 62 || !a.lo || *a.lo < 0)
        return {};
      if (isa<arith::ShLIOp>(op))
        return {checked(__int128(*a.lo) << *s),
                a.hi ? checked(__int128(*a.hi) << *s) : std::nullopt};
      return {*a.lo >> *s,
              a.hi ? std::optional<int64_t>(*a.hi >> *s) : std::nullopt};
    }
    if (isa<arith::MinSIOp, arith::MaxSIOp>(op)) {
      Interval a = sub(0), b = sub(1);
      auto pick = [&](std::optional<int64_t> x, std::optional<int64_t> y,
                      bool wantMin, bool bothNeeded) -> std::optional<int64_t> {
        if (x && y)
          return wantMin ? std::min(*x, *y) : std::max(*x, *y);
        return bothNeeded ? std::nullopt : (x ? x : y);
      };
      if (isa<arith::MinSIOp>(op))
        return {pick(a.lo, b.lo, true, true), pick(a.hi, b.hi, true, false)};
      return {pick(a.lo, b.lo, false, false), pick(a.hi, b.hi, false, true)};
    }
    if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      Interval a = sub(1), b = sub(2);
      return {a.lo && b.lo ? std::optional<int64_t>(std::min(*a.lo, *b.lo))
                           : std::nullopt,
              a.hi && b.hi ? std::optional<int64_t>(std::max(*a.hi, *b.hi))
                           : std::nullopt};
    }
    return {};
  }
};

/// The tensor a global access reads or writes, if it is one of the
/// kernel's tensor arguments (its own shape; a view's region is not), a
/// `T.Tensor(shape, dtype, X.data)` view of one (a `tile.view` cast: its
/// shape is the view's), or a T.make_tensor's tensor (its static shape, as
/// TileLang checks it).
Value globalTensor(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || type.getMemorySpace())
    return {};
  if (auto view = memref.getDefiningOp<memref::ReinterpretCastOp>())
    return view->hasAttr("tile.view") && globalTensor(view.getSource())
               ? memref
               : Value();
  if (memref.getDefiningOp<tile::MakeTensorOp>())
    return memref;
  auto arg = dyn_cast<BlockArgument>(memref);
  if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()))
    return {};
  return arg;
}

/// The extent of dimension `d` of global tensor `tensor` as a value, for a
/// dynamic one: the T.dynamic symbol its `tile.shape` names, a view's size
/// operand, or memref.dim.
Value dynamicExtent(OpBuilder &b, Location loc, Value tensor, unsigned d) {
  if (auto view = tensor.getDefiningOp<memref::ReinterpretCastOp>())
    if (auto v = dyn_cast<Value>(view.getMixedSizes()[d]))
      return v;
  auto arg = dyn_cast<BlockArgument>(tensor);
  auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                  : func::FuncOp();
  if (func)
    if (auto shape =
            func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "tile.shape"))
      if (d < shape.size())
        if (auto name = dyn_cast<StringAttr>(shape[d]))
          for (BlockArgument a : func.getArguments())
            if (auto sym = func.getArgAttrOfType<StringAttr>(a.getArgNumber(),
                                                             "tile.symbol"))
              if (sym == name && a.getType().isIndex())
                return a;
  return memref::DimOp::create(b, loc, tensor, int64_t(d));
}

/// The condition under which `access` (indices `indices` into `memref`)
/// stays inside its tensor, or null where it provably does.
Value guardCondition(Operation *access, Value memref, ValueRange indices) {
  Value tensor = globalTensor(memref);
  if (!tensor)
    return {};
  auto type = cast<MemRefType>(memref.getType());
  Bounds bounds(access);
  OpBuilder b(access);
  Location loc = access->getLoc();
  Value cond;
  auto conj = [&](Value c) {
    cond = cond ? arith::AndIOp::create(b, loc, cond, c).getResult() : c;
  };
  for (auto [d, idx] : llvm::enumerate(indices)) {
    if (constantInt(idx))
      continue;
    bool dyn = type.isDynamicDim(d);
    Value extent = dyn ? dynamicExtent(b, loc, tensor, d) : Value();
    bool lower = bounds.nonNegative(idx);
    bool upper = bounds.below(idx, dyn ? 0 : type.getDimSize(d), extent);
    if (!lower) {
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      conj(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, idx, zero));
    }
    if (!upper) {
      if (!extent)
        extent = arith::ConstantIndexOp::create(b, loc, type.getDimSize(d));
      conj(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx,
                                 extent));
    } else if (extent && extent.use_empty() && extent.getDefiningOp()) {
      extent.getDefiningOp()->erase();
    }
  }
  return cond;
}

Value zeroOf(OpBuilder &b, Location loc, Type t) {
  if (auto f = dyn_cast<FloatType>(t))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f, 0.0));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 0));
}

/// Runs `op` under `cond`; its one result (if any) is 0 where `cond` fails.
void guard(Operation *op, Value cond) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  TypeRange results = op->getResultTypes();
  auto ifOp = scf::IfOp::create(b, loc, results, cond,
                                /*withElseRegion=*/!results.empty());
  Block *then = ifOp.thenBlock();
  if (results.empty()) {
    op->moveBefore(then->getTerminator());
    return;
  }
  b.setInsertionPointToStart(then);
  auto yield = scf::YieldOp::create(b, loc, op->getResults());
  op->getResult(0).replaceAllUsesExcept(ifOp.getResult(0), yield);
  op->moveBefore(yield);
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, loc, zeroOf(b, loc, results.front()));
}

struct TileGuardGlobalAccesses
    : tilec::impl::TileGuardGlobalAccessesBase<TileGuardGlobalAccesses> {
  using TileGuardGlobalAccessesBase::TileGuardGlobalAccessesBase;

  void runOnOperation() override {
    SmallVector<Operation *> candidates;
    getOperation()->walk([&](func::FuncOp func) {
      if (func->hasAttr(kDisableAttr) ||
          func->getParentOfType<ModuleOp>()->hasAttr(kDisableAttr))
        return;
      func.walk([&](Operation *op) {
        if (isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp,
                tile::AtomicAddOp>(op) &&
            op->getParentOfType<tile::KernelOp>())
          candidates.push_back(op);
      });
    });
    unsigned guarded = 0;
    for (Operation *op : candidates) {
      Value memref;
      ValueRange indices;
      if (auto l = dyn_cast<memref::LoadOp>(op)) {
        memref = l.getMemRef();
        indices = l.getIndices();
      } else if (auto s = dyn_cast<memref::StoreOp>(op)) {
        memref = s.getMemRef();
        indices = s.getIndices();
      } else if (auto a = dyn_cast<memref::AtomicRMWOp>(op)) {
        memref = a.getMemref();
        indices = a.getIndices();
      } else {
        auto t = cast<tile::AtomicAddOp>(op);
        memref = t.getDst();
        indices = t.getIndices();
      }
      if (Value cond = guardCondition(op, memref, indices)) {
        guard(op, cond);
        ++guarded;
      }
    }
    LLVM_DEBUG(llvm::dbgs()
               << DEBUG_TYPE << ": " << guarded << " accesses guarded\n");
    if (!guarded)
      markAllAnalysesPreserved();
  }
};

} // namespace
