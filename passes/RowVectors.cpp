//===- RowVectors.cpp - tile-lower-simt: vectors of strided iterations ----===//
//
// A strided T.Parallel step clones the body once for each of a thread's
// `vec` consecutive iterations along the last dimension. LLVM's load/store
// vectorizer is meant to merge the clones' accesses, but it splits 8 x 16-bit
// chains into 8-, 4- and 2-byte pieces or leaves them scalar. Here the
// clones of a load or store whose index moves with the last induction
// variable (that variable, plus terms that do not depend on it, in the last
// dimension; the other dimensions independent of it) become one vector
// access when its start is provably a multiple of `vec` elements
// (knownDivisor, static strides; global and shared buffers are 16-byte
// aligned): the loads at the first clone's place, the stores at the last
// one's. Iterations of a T.Parallel loop are independent, so moving an
// access across other iterations is allowed; within an iteration nothing
// moves across a write: only loads that precede every write of the body
// and stores that no other memory access follows are merged.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

bool dependsOn(Value value, Value iv, Block *body) {
  SmallVector<Value> work{value};
  DenseSet<Operation *> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == iv)
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || !body->getParentOp()->isAncestor(def) || !seen.insert(def).second)
      continue;
    def->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        work.push_back(operand);
    });
  }
  return false;
}

/// `value` is iv + (terms independent of iv).
bool stepsWith(Value value, Value iv, Block *body) {
  if (value == iv)
    return true;
  auto add = value.getDefiningOp<arith::AddIOp>();
  if (!add)
    return false;
  Value x = add.getLhs(), y = add.getRhs();
  return (stepsWith(x, iv, body) && !dependsOn(y, iv, body)) ||
         (stepsWith(y, iv, body) && !dependsOn(x, iv, body));
}

/// Whether the access of `buffer` at `indices` starts at a multiple of
/// `vec` elements.
bool alignedStart(Value buffer, ValueRange indices, int64_t vec) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
    return false;
  ArrayRef<int64_t> shape = type.getShape();
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if ((knownDivisor(indices[d]) * stride) % vec != 0)
      return false;
    stride *= shape[d];
  }
  return true;
}

/// Replaces the `vec` consecutive clones `copies` of one load (or store)
/// by one vector access when its start is aligned.
void merge(bool load, ArrayRef<Operation *> copies, int64_t vec) {
    if (llvm::any_of(copies, [&](Operation *c) {
        return c->getBlock() != copies[0]->getBlock();
      }))
    return;
  Value base = load ? cast<memref::LoadOp>(copies[0]).getMemRef()
                    : cast<memref::StoreOp>(copies[0]).getMemRef();
  SmallVector<Value> start(
      load ? cast<memref::LoadOp>(copies[0]).getIndices()
           : cast<memref::StoreOp>(copies[0]).getIndices());
  if (!alignedStart(base, start, vec))
    return;
  Type elem = cast<MemRefType>(base.getType()).getElementType();
  auto vecType = VectorType::get({vec}, elem);
  llvm::MaybeAlign align(vec * std::max<int64_t>(
                                   1, elem.getIntOrFloatBitWidth() / 8));
  Location loc = copies[0]->getLoc();
  // The vector keeps the clones' marks (LowerSIMT.cpp's element accesses
  // of swizzled buffers, indexed through the swizzle at the end).
  DictionaryAttr marks = copies[0]->getDiscardableAttrDictionary();
  if (load) {
    OpBuilder b(copies[0]);
    auto vload =
        vector::LoadOp::create(b, loc, vecType, base, start, false, align);
    vload->setDiscardableAttrs(marks);
    Value loaded = vload;
    SmallVector<Value> elements;
    for (int64_t v = 0; v < vec; ++v)
      elements.push_back(vector::ExtractOp::create(b, loc, loaded, v));
    for (auto [copy, element] : llvm::zip(copies, elements)) {
      copy->getResult(0).replaceAllUsesWith(element);
      copy->erase();
    }
    return;
  }
  OpBuilder b(copies.back());
  SmallVector<Value> values;
  for (Operation *copy : copies)
    values.push_back(cast<memref::StoreOp>(copy).getValueToStore());
  Value packed = vector::FromElementsOp::create(b, loc, vecType, values);
  vector::StoreOp::create(b, loc, packed, base, start, false, align)
      ->setDiscardableAttrs(marks);
  for (Operation *copy : copies)
    copy->erase();
}

/// Whether `op`, or an op nested in it, writes memory or has another
/// effect than reading.
bool writes(Operation *op) {
  WalkResult walk = op->walk([](Operation *inner) {
    if (isMemoryEffectFree(inner) ||
        isa<memref::LoadOp, vector::LoadOp>(inner))
      return WalkResult::advance();
    if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance(); // its nested ops say
    return WalkResult::interrupt();
  });
  return walk.wasInterrupted();
}

/// The ops of `body` (and of `inner`, the block of a bounds check of the
/// body whose checks a fast path dropped) that `value` is computed from,
/// body order first; none when one of them touches memory or has regions,
/// or when `value` depends on a value defined elsewhere in the loop: only
/// those ops, the induction variables and values from outside the loop can
/// be recomputed for another iteration.
std::optional<SmallVector<Operation *>> pureSlice(Block *body, Block *inner,
                                                  Value value) {
  Operation *loop = body->getParentOp();
  DenseSet<Operation *> slice;
  SmallVector<Value> work{value};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def) {
      Block *owner = cast<BlockArgument>(v).getOwner();
      if (owner != body && loop->isAncestor(owner->getParentOp()))
        return std::nullopt;
      continue;
    }
    if (def->getBlock() != body && def->getBlock() != inner) {
      if (loop->isAncestor(def))
        return std::nullopt;
      continue;
    }
    if (!slice.insert(def).second)
      continue;
    if (!isMemoryEffectFree(def) || def->getNumRegions())
      return std::nullopt;
    llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ordered;
  for (Block *block : {body, inner})
    if (block)
      for (Operation &op : *block)
        if (slice.contains(&op))
          ordered.push_back(&op);
  return ordered;
}

/// A guarded load, TileLang's `T.if_then_else(cond, X[i], 0)`: an scf.if
/// with one result whose then-branch loads from global or shared memory
/// (then converts without touching memory) and whose else-branch yields
/// without touching memory. The load's indices come from outside the if.
memref::LoadOp guardedLoad(scf::IfOp ifOp) {
  if (ifOp.getNumResults() != 1 || ifOp.getElseRegion().empty())
    return {};
  memref::LoadOp load;
  for (Operation &op : ifOp.thenBlock()->without_terminator()) {
    if (auto l = dyn_cast<memref::LoadOp>(op); l && !load) {
      load = l;
      continue;
    }
    if (!isMemoryEffectFree(&op) || op.getNumRegions())
      return {};
  }
  if (!load || isSpace(load.getMemRef(), tile::MemorySpace::local) ||
      isSpace(load.getMemRef(), tile::MemorySpace::fragment) ||
      !load.getType().isIntOrFloat())
    return {};
  for (Value index : load.getIndices())
    if (ifOp->isAncestor(index.getParentBlock()->getParentOp()))
      return {};
  for (Operation &op : ifOp.elseBlock()->without_terminator())
    if (!isMemoryEffectFree(&op) || op.getNumRegions())
      return {};
  return load;
}

/// Merges the `copies` (consecutive iterations) of the guarded load
/// `ifOp` (of the original body `body`): where every iteration's condition
/// holds, one vector load; otherwise each element loaded under its own
/// condition. Each copy then takes its element from the vector. The
/// conditions and indices are recomputed ahead of the first copy from the
/// iterations' induction variables, which must be defined there.
void mergeGuardedLoads(scf::IfOp ifOp, memref::LoadOp load, Block *body,
                       ArrayRef<const IRMapping *> clones, int64_t vec,
                       DominanceInfo &dom) {
  auto first = cast_or_null<scf::IfOp>(clones[0]->lookupOrNull(ifOp.getOperation()));
  if (!first)
    return;
  for (const IRMapping *m : clones) {
    Operation *copy = m->lookupOrNull(ifOp.getOperation());
    if (!copy || copy->getBlock() != first->getBlock())
      return;
    for (BlockArgument iv : body->getArguments())
      if (!dom.properlyDominates(m->lookupOrDefault(iv), first))
        return;
  }
  // A guarded load inside a bounds check whose checks the fast path
  // dropped (its ops are inlined): that block's ops are recomputed too.
  Block *inner = ifOp->getBlock() != body ? ifOp->getBlock() : nullptr;
  if (inner && (!isa<scf::IfOp>(inner->getParentOp()) ||
                inner->getParentOp()->getBlock() != body))
    return;
  std::optional<SmallVector<Operation *>> condSlice =
      pureSlice(body, inner, ifOp.getCondition());
  SmallVector<Operation *> slice;
  if (!condSlice)
    return;
  slice = *condSlice;
  for (Value index : load.getIndices()) {
    std::optional<SmallVector<Operation *>> more =
        pureSlice(body, inner, index);
    if (!more)
      return;
    for (Operation *op : *more)
      if (!llvm::is_contained(slice, op))
        slice.push_back(op);
  }
  // Body order, the inner block's ops after the body's.
  llvm::sort(slice, [&](Operation *a, Operation *b) {
    if (a->getBlock() != b->getBlock())
      return a->getBlock() == body;
    return a->isBeforeInBlock(b);
  });
  Value base = load.getMemRef();
  // The alignment is judged on the first copy's own indices.
  auto firstLoad = cast_or_null<memref::LoadOp>(clones[0]->lookupOrNull(load.getOperation()));
  if (!firstLoad ||
      !alignedStart(base, firstLoad.getIndices(), vec))
    return;

  OpBuilder b(first);
  Location loc = ifOp.getLoc();
  SmallVector<Value> conds;
  SmallVector<SmallVector<Value>> indices;
  for (const IRMapping *m : clones) {
    IRMapping fresh;
    for (BlockArgument iv : body->getArguments())
      fresh.map(iv, m->lookupOrDefault(iv));
    for (Operation *op : slice)
      b.clone(*op, fresh);
    conds.push_back(fresh.lookupOrDefault(ifOp.getCondition()));
    indices.emplace_back();
    for (Value index : load.getIndices())
      indices.back().push_back(fresh.lookupOrDefault(index));
  }
  Value all = conds[0];
  for (Value c : ArrayRef<Value>(conds).drop_front())
    all = arith::AndIOp::create(b, loc, all, c);
  Type elem = load.getType();
  auto vecType = VectorType::get({vec}, elem);
  llvm::MaybeAlign align(
      vec * std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8));
  auto vecIf = scf::IfOp::create(b, loc, TypeRange{vecType}, all,
                                 /*withElseRegion=*/true);
  {
    OpBuilder tb = OpBuilder::atBlockEnd(vecIf.thenBlock());
    auto full = vector::LoadOp::create(tb, loc, vecType, base, indices[0],
                                       false, align);
    full->setDiscardableAttrs(load->getDiscardableAttrDictionary());
    scf::YieldOp::create(tb, loc, full.getResult());
  }
  {
    OpBuilder eb = OpBuilder::atBlockEnd(vecIf.elseBlock());
    SmallVector<Value> elements;
    for (auto [c, idx] : llvm::zip(conds, indices)) {
      auto one = scf::IfOp::create(eb, loc, TypeRange{elem}, c,
                                   /*withElseRegion=*/true);
      OpBuilder ob = OpBuilder::atBlockEnd(one.thenBlock());
      auto element = memref::LoadOp::create(ob, loc, base, idx);
      element->setDiscardableAttrs(load->getDiscardableAttrDictionary());
      scf::YieldOp::create(ob, loc, element.getResult());
      ob = OpBuilder::atBlockEnd(one.elseBlock());
      scf::YieldOp::create(ob, loc, zeroOf(ob, loc, elem));
      elements.push_back(one.getResult(0));
    }
    scf::YieldOp::create(
        eb, loc,
        Value(vector::FromElementsOp::create(eb, loc, vecType, elements)));
  }
  for (auto [k, m] : llvm::enumerate(clones)) {
    auto copy = cast<memref::LoadOp>(m->lookup(load.getOperation()));
    OpBuilder cb(copy);
    copy.getResult().replaceAllUsesWith(
        vector::ExtractOp::create(cb, loc, vecIf.getResult(0), int64_t(k)));
    copy->erase();
  }
}

} // namespace

void simt::formRowVectors(ArrayRef<Operation *> body, Block *parallelBody,
                          Value lastIv, ArrayRef<IRMapping> clones) {
  int64_t n = clones.size();
  if (n < 2 || !llvm::isPowerOf2_64(n))
    return;
  // Positions of the first write and of the last access other than a
  // store, in the body's order.
  size_t firstWrite = body.size(), lastNonStore = 0;
  for (auto [i, op] : llvm::enumerate(body)) {
    bool isStore = isa<memref::StoreOp>(op);
    if (writes(op) && firstWrite == body.size())
      firstWrite = i;
    if (!isMemoryEffectFree(op) && !isStore)
      lastNonStore = i + 1;
  }
  std::optional<DominanceInfo> dom;
  for (auto [i, op] : llvm::enumerate(body)) {
    // T.if_then_else(cond, X[i], 0) before the first write.
    if (auto ifOp = dyn_cast<scf::IfOp>(op); ifOp && i <= firstWrite) {
      memref::LoadOp load = guardedLoad(ifOp);
      if (!load || !stepsWith(load.getIndices().back(), lastIv, parallelBody) ||
          llvm::any_of(load.getIndices().drop_back(), [&](Value index) {
            return dependsOn(index, lastIv, parallelBody);
          }))
        continue;
      int64_t bytes =
          std::max<int64_t>(1, load.getType().getIntOrFloatBitWidth() / 8);
      int64_t vec = std::min<int64_t>(n, std::max<int64_t>(1, 16 / bytes));
      if (vec < 2)
        continue;
      if (!dom)
        dom.emplace(parallelBody->getParentOp()->getParentOp());
      for (int64_t k = 0; k < n; k += vec) {
        SmallVector<const IRMapping *> group;
        for (const IRMapping &m : clones.slice(k, vec))
          group.push_back(&m);
        mergeGuardedLoads(ifOp, load, parallelBody, group, vec, *dom);
      }
      continue;
    }
    auto load = dyn_cast<memref::LoadOp>(op);
    auto store = dyn_cast<memref::StoreOp>(op);
    if ((!load || i > firstWrite) && (!store || i < lastNonStore))
      continue;
    Value buffer = load ? load.getMemRef() : store.getMemRef();
    ValueRange indices = load ? load.getIndices() : store.getIndices();
    if (indices.empty() || isSpace(buffer, tile::MemorySpace::local) ||
        isSpace(buffer, tile::MemorySpace::fragment) ||
        !stepsWith(indices.back(), lastIv, parallelBody) ||
        llvm::any_of(indices.drop_back(), [&](Value index) {
          return dependsOn(index, lastIv, parallelBody);
        }))
      continue;
    Type elem = cast<MemRefType>(buffer.getType()).getElementType();
    if (!elem.isIntOrFloat())
      continue;
    int64_t bytes = std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
    int64_t vec = std::min<int64_t>(n, std::max<int64_t>(1, 16 / bytes));
    if (vec < 2)
      continue;
    for (int64_t k = 0; k < n; k += vec) {
      SmallVector<Operation *> copies;
      for (const IRMapping &m : clones.slice(k, vec))
        copies.push_back(m.lookupOrNull(op));
      if (llvm::is_contained(copies, nullptr))
        continue;
      merge(load != nullptr, copies, vec);
    }
  }
}

