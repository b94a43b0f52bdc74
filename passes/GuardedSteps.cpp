//===- GuardedSteps.cpp - tile-lower-simt: per-element bounds checks ------===//
//
// A strided T.Parallel loop of one element per thread and step whose body
// is bounds checks (`if r < M and c < N: C[r, c] = A[r, c] + B[r, c]`),
// every step inline: the guarded 2-D elementwise kernel on a tensor whose
// rows are not a multiple of 16 bytes (4099x1001 bf16).
//
// Each guard's body is cut at its first store. The first part (loads and
// arithmetic) runs under the guard for every step first, its results
// yielded out of the `if` (zero where the check fails: they are then
// never stored); the second part (the stores) runs under the same condition
// after every step's first part. A thread therefore has every step's loads
// in flight at once whatever its checks say, and the code is the same on
// every block: no all-steps test, no second copy of the steps.
//
// Why not an all-steps test with an unchecked copy (what LowerParallel.cpp
// does for vectors): with one element per step nothing merges once the
// checks are dropped, and measured on the H200 (bench/RESULTS.md, ncu of
// guarded_1001x1001) the test cost a 32-deep predicate chain, predicate
// spills and 2.3x TileLang's SM cycles, while a block at the tensor's edge
// ran its per-element checked copy one element at a time, each store
// waiting for its loads (its SASS: 32 memory round trips in a row).
//
// Where step s is an earlier step moved down k rows of the loop, its
// accesses whose index is the first induction variable plus other terms go
// through a memref.subview of the tensor starting k rows further, at the
// earlier step's indices: the steps share one address, and each offset
// becomes an immediate of the load or store.
//
// Legal because the iterations of a T.Parallel loop are independent and,
// within one iteration, nothing but stores follows its first write
// (trailingStores, checked by the caller): moving an iteration's stores
// after the other iterations' loads keeps every read before the writes of
// its own iteration.
//
//===----------------------------------------------------------------------===//

#include "GuardedSteps.h"
#include "StepIndices.h"
#include "SIMTLowering.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

bool simt::dependsOn(Value value, Value iv) {
  SmallVector<Value> work{value};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == iv)
      return true;
    if (!seen.insert(v).second)
      continue;
    if (Operation *def = v.getDefiningOp())
      def->walk([&](Operation *inner) {
        llvm::append_range(work, inner->getOperands());
      });
  }
  return false;
}

bool simt::stepsWith(Value value, Value iv) {
  if (value == iv)
    return true;
  auto add = value.getDefiningOp<arith::AddIOp>();
  if (!add)
    return false;
  Value x = add.getLhs(), y = add.getRhs();
  return (stepsWith(x, iv) && !dependsOn(y, iv)) ||
         (stepsWith(y, iv) && !dependsOn(x, iv));
}

namespace {

/// The ops of a guard's body before its first store (`head`: loads and
/// arithmetic) and from it on (`tail`: stores and arithmetic), and the
/// values the head hands to the tail.
struct Cut {
  SmallVector<Operation *> head, tail;
  SmallVector<Value> handed;
};

bool yieldable(Type type) {
  return type.isIntOrIndexOrFloat() ||
         (isa<VectorType>(type) &&
          cast<VectorType>(type).getElementType().isIntOrFloat());
}

std::optional<Cut> cut(scf::IfOp guard) {
  Cut c;
  bool stored = false;
  for (Operation &op : guard.thenBlock()->without_terminator()) {
    if (isa<memref::StoreOp>(op))
      stored = true;
    else if (stored && !isMemoryEffectFree(&op))
      return std::nullopt;
    (stored ? c.tail : c.head).push_back(&op);
  }
  DenseSet<Operation *> head(c.head.begin(), c.head.end());
  SetVector<Value> handed;
  for (Operation *op : c.tail)
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (Operation *def = v.getDefiningOp(); def && head.contains(def))
          handed.insert(v);
    });
  c.handed = handed.takeVector();
  if (!llvm::all_of(c.handed,
                    [](Value v) { return yieldable(v.getType()); }))
    return std::nullopt;
  return c;
}

/// The access `op` (a load or store of a static row-major global tensor)
/// of a step `shift` rows past an earlier one along the loop's first induction
/// variable `iv`, where one index is `iv` + (terms independent of it) and
/// the others do not depend on it: the same indices as the earlier step's
/// into a view of the tensor starting `shift` further along that index. The
/// steps then share the earlier step's address, each step's offset a constant the backend
/// folds into the instruction (`ld.global [%rd + 2002]`), instead of one
/// multiply per step and operand. Null where the access is not so.
struct Shifted {
  Operation *op = nullptr;
  Value buffer;
  SmallVector<Value> indices;
  int64_t dim = -1;
};

Shifted shiftable(Operation *op, Value iv, scf::IfOp guard) {
  Shifted s;
  auto load = dyn_cast<memref::LoadOp>(op);
  auto store = dyn_cast<memref::StoreOp>(op);
  if (!load && !store)
    return {};
  s.buffer = load ? load.getMemRef() : store.getMemRef();
  ValueRange indices = load ? load.getIndices() : store.getIndices();
  auto type = cast<MemRefType>(s.buffer.getType());
  if (!isGlobalBuffer(s.buffer) || !type.hasStaticShape() ||
      !type.getLayout().isIdentity())
    return {};
  for (auto [d, index] : llvm::enumerate(indices)) {
    // An index computed under the check is not the first step's to share.
    Operation *def = index.getDefiningOp();
    if (def && guard->isAncestor(def))
      return {};
    if (!dependsOn(index, iv))
      continue;
    if (s.dim >= 0 || !stepsWith(index, iv))
      return {};
    s.dim = d;
  }
  if (s.dim < 0)
    return {};
  s.op = op;
  s.indices.assign(indices.begin(), indices.end());
  return s;
}

} // namespace

bool simt::guardedStepsFit(Block *body, ArrayRef<scf::IfOp> guards) {
  // Every op outside the guards computes indices or conditions.
  for (Operation &op : body->without_terminator())
    if (!llvm::is_contained(guards, dyn_cast<scf::IfOp>(op)) &&
        !isMemoryEffectFree(&op))
      return false;
  return llvm::all_of(guards,
                      [](scf::IfOp guard) { return cut(guard).has_value(); });
}

void simt::emitGuardedSteps(OpBuilder &b, Location loc, Block *body,
                            ArrayRef<scf::IfOp> guards, ValueRange ivs,
                            ArrayRef<GuardedStep> steps) {
  SmallVector<Cut> cuts;
  for (scf::IfOp guard : guards)
    cuts.push_back(*cut(guard));
  SmallVector<IRMapping> mappings(steps.size());
  // The views of the tensors each step's accesses go through, by tensor
  // and offset.
  DenseMap<std::tuple<Value, int64_t, int64_t>, Value> views;
  // Where step s's access goes through a view: its shiftable accesses,
  // when the view starts inside the tensor.
  auto viewed = [&](Operation *op, scf::IfOp guard, size_t s) -> Shifted {
    Shifted sh = shiftable(op, ivs.front(), guard);
    const GuardedStep &base = steps[steps[s].base];
    if (!sh.op || steps[s].shift <= 0 || steps[s].base >= s ||
        base.shift != 0 || base.base != steps[s].base ||
        steps[s].shift >=
            cast<MemRefType>(sh.buffer.getType()).getDimSize(sh.dim))
      return {};
    return sh;
  };
  // The views, made ahead of every step.
  for (size_t s = 1; s < steps.size(); ++s)
    for (auto [guard, c] : llvm::zip(guards, cuts))
      for (ArrayRef<Operation *> part : {ArrayRef(c.head), ArrayRef(c.tail)})
        for (Operation *op : part) {
          Shifted sh = viewed(op, guard, s);
          if (!sh.op)
            continue;
          Value &v = views[{sh.buffer, sh.dim, steps[s].shift}];
          if (v)
            continue;
          auto type = cast<MemRefType>(sh.buffer.getType());
          SmallVector<int64_t> offsets(type.getRank(), 0),
              sizes(type.getShape()), strides(type.getRank(), 1);
          offsets[sh.dim] = steps[s].shift;
          sizes[sh.dim] -= steps[s].shift;
          v = memref::SubViewOp::create(b, loc, sh.buffer, offsets, sizes,
                                        strides);
        }
  // Clones `op` of step `s` into `tb`: through its view with the first
  // step's indices, or with the step's own.
  auto emit = [&](OpBuilder &tb, Operation *op, scf::IfOp guard, size_t s) {
    Shifted sh = viewed(op, guard, s);
    if (!sh.op) {
      tb.clone(*op, mappings[s]);
      return;
    }
    SmallVector<Value> indices;
    for (Value i : sh.indices)
      indices.push_back(mappings[steps[s].base].lookupOrDefault(i));
    Value v = views.lookup({sh.buffer, sh.dim, steps[s].shift});
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      mappings[s].map(load.getResult(),
                      memref::LoadOp::create(tb, loc, v, indices).getResult());
      return;
    }
    auto store = cast<memref::StoreOp>(op);
    memref::StoreOp::create(
        tb, loc, mappings[s].lookupOrDefault(store.getValueToStore()), v,
        indices);
  };

  // The heads of every step, each guard's condition kept for its tail.
  SmallVector<SmallVector<Value>> conditions(steps.size());
  for (auto [s, step] : llvm::enumerate(steps)) {
    IRMapping &m = mappings[s];
    for (auto [iv, coord] : llvm::zip(ivs, step.coords))
      m.map(iv, coord);
    for (Operation &op : body->without_terminator())
      if (!llvm::is_contained(guards, dyn_cast<scf::IfOp>(op)))
        b.clone(op, m);
    for (auto [g, c] : llvm::enumerate(cuts)) {
      scf::IfOp guard = guards[g];
      Value pass = m.lookupOrDefault(guard.getCondition());
      if (step.inside)
        pass = arith::AndIOp::create(b, loc, step.inside, pass);
      conditions[s].push_back(pass);
      SmallVector<Type> types;
      for (Value v : c.handed)
        types.push_back(v.getType());
      auto ifOp = scf::IfOp::create(b, loc, types, pass,
                                    /*withElseRegion=*/!types.empty());
      OpBuilder tb = OpBuilder::atBlockBegin(ifOp.thenBlock());
      for (Operation *op : c.head)
        emit(tb, op, guard, s);
      if (types.empty())
        continue;
      SmallVector<Value> results, zeros;
      for (Value v : c.handed)
        results.push_back(m.lookupOrDefault(v));
      // A builder-made `if` with results has empty blocks: add the yields.
      scf::YieldOp::create(tb, loc, results);
      // Where the check fails the tail does not run, so any value would do;
      // a zero (not a poison) keeps the `if` a diamond that ptxas
      // predicates, with every step's loads scheduled first (with poison,
      // LLVM merged the diamonds into a chain of branches and each step's
      // arithmetic waited for its loads before the next step's issued).
      OpBuilder eb = OpBuilder::atBlockBegin(ifOp.elseBlock());
      for (Type t : types)
        zeros.push_back(zeroOf(eb, loc, t));
      scf::YieldOp::create(eb, loc, zeros);
      for (auto [v, r] : llvm::zip(c.handed, ifOp.getResults()))
        m.map(v, r);
    }
  }
  // Then the tails, in the steps' order.
  for (size_t s = 0; s < steps.size(); ++s)
    for (auto [g, c] : llvm::enumerate(cuts)) {
      if (c.tail.empty())
        continue;
      auto ifOp = scf::IfOp::create(b, loc, conditions[s][g],
                                    /*withElseRegion=*/false);
      OpBuilder tb = OpBuilder::atBlockTerminator(ifOp.thenBlock());
      for (Operation *op : c.tail)
        emit(tb, op, guards[g], s);
    }
}
