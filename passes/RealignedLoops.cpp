//===- RealignedLoops.cpp - tile-lower-simt: vectors on odd row strides ---===//
//
// A strided T.Parallel loop over rows whose stride is not a multiple of a
// 16-byte vector (a 4099x1001 bf16 tensor: row r starts at 2002 * r bytes)
// cannot give each thread `vec` consecutive elements of the loop's rows as
// one vector: the row's start moves by 2 bytes from one row to the next.
// tile-infer-layouts then keeps the loop coalesced one element a thread
// (`vec = 1`) and, where every access of the body shares the row's
// misalignment, records `realign = V`, the vector width a thread could use
// if each row's vectors started at a 16-byte boundary in memory.
//
// Here the loop's rows are cut at those boundaries, decided at run time:
// thread t's slot of a step is (row i, columns [8k, 8k + 8)) as for an
// aligned row, shifted by the row's misalignment s = (-offset(i, 0)) mod V
// to columns [8k + s, 8k + s + 8), which start on a 16-byte boundary of
// every buffer. The last slot of a row wraps around: its columns
// [8k + s, E) and [0, s) are not consecutive. Each slot runs one vector
// load per load and one vector store per store where it does not wrap and
// all its iterations pass the body's bounds checks; the others (the
// wrapping slot, the slots at the tensor's edges) run element by element,
// each element under its bounds check. All loads of all of a thread's
// steps come first, then the arithmetic, then the stores, so a thread has
// every load in flight at once on both paths.
//
// Legal because the iterations of a T.Parallel loop are independent and the
// slots cover every (row, column) of the loop exactly once; within an
// iteration the body's loads precede its stores (checked), so doing every
// load first keeps its order.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"
#include "StepIndices.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

/// The parts of a realignable body: its top-level side-effect-free ops (the
/// indices and bounds checks) and its guards, each with its memory
/// accesses and arithmetic in order.
struct Body {
  SmallVector<Operation *> top;
  SmallVector<scf::IfOp> guards;
};

std::optional<Body> analyze(tile::ParallelOp loop, int64_t vec,
                            std::string &why) {
  Body body;
  ArrayRef<int64_t> extents = loop.getExtents();
  auto ivs = loop.getInductionVars();
  if (extents.size() < 2 || extents.back() % vec != 0) {
    why = "not a 2-D loop whose rows hold whole vectors";
    return std::nullopt;
  }
  Value lastIv = ivs.back();
  Operation *first = nullptr;
  bool stored = false;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto ifOp = dyn_cast<scf::IfOp>(op);
    bool guard = ifOp && !ifOp.getNumResults() && ifOp.getElseRegion().empty();
    if (!guard) {
      bool reads = op.walk([](Operation *inner) {
                       return isa<memref::LoadOp>(inner)
                                  ? WalkResult::interrupt()
                                  : WalkResult::advance();
                     }).wasInterrupted();
      if (!isMemoryEffectFree(&op) || reads) {
        why = "an op outside the bounds checks touches memory";
        return std::nullopt;
      }
      body.top.push_back(&op);
      continue;
    }
    body.guards.push_back(ifOp);
    for (Operation &inner : ifOp.thenBlock()->without_terminator()) {
      Value buffer;
      ValueRange indices;
      if (auto load = dyn_cast<memref::LoadOp>(inner)) {
        if (stored) {
          why = "a load follows a store";
          return std::nullopt;
        }
        buffer = load.getMemRef();
        indices = load.getIndices();
      } else if (auto store = dyn_cast<memref::StoreOp>(inner)) {
        stored = true;
        buffer = store.getMemRef();
        indices = store.getIndices();
      } else {
        if (!isPure(&inner) || inner.getNumRegions()) {
          why = "the body does more than load, compute and store";
          return std::nullopt;
        }
        continue;
      }
      auto type = dyn_cast<MemRefType>(buffer.getType());
      if (!isGlobalBuffer(buffer) || !type || !type.hasStaticShape() ||
          !type.getLayout().isIdentity() || indices.empty() ||
          !type.getElementType().isIntOrFloat() ||
          std::max<int64_t>(1, type.getElementTypeBitWidth() / 8) * vec != 16) {
        why = "an access is not to a static global tensor of V-element "
              "16-byte vectors";
        return std::nullopt;
      }
      // The indices come from the top level: a slot's vector access is
      // placed before the guards' arithmetic is cloned.
      if (llvm::any_of(indices, [&](Value i) {
            return ifOp->isAncestor(i.getParentBlock()->getParentOp());
          })) {
        why = "an index is computed under a bounds check";
        return std::nullopt;
      }
      if (!stepsWith(indices.back(), lastIv) ||
          llvm::any_of(indices.drop_back(),
                       [&](Value i) { return dependsOn(i, lastIv); })) {
        why = "an access does not step along the rows";
        return std::nullopt;
      }
      // Every access at the first's indices into a buffer of its row
      // shape: their element offsets, and so their misalignment, agree.
      if (!first) {
        first = &inner;
        continue;
      }
      auto other = cast<MemRefType>(
          isa<memref::LoadOp>(first)
              ? cast<memref::LoadOp>(first).getMemRef().getType()
              : cast<memref::StoreOp>(first).getMemRef().getType());
      ValueRange firstIndices = isa<memref::LoadOp>(first)
                                    ? cast<memref::LoadOp>(first).getIndices()
                                    : cast<memref::StoreOp>(first).getIndices();
      if (!llvm::equal(indices, firstIndices) ||
          type.getShape().drop_front() != other.getShape().drop_front()) {
        why = "the accesses do not share their indices and row shape";
        return std::nullopt;
      }
    }
  }
  if (!first) {
    why = "no memory access";
    return std::nullopt;
  }
  return body;
}

/// The first access of `body`: its buffer and indices define the rows'
/// misalignment.
std::pair<Value, ValueRange> reference(const Body &body) {
  for (scf::IfOp guard : body.guards)
    for (Operation &op : guard.thenBlock()->without_terminator()) {
      if (auto load = dyn_cast<memref::LoadOp>(op))
        return {load.getMemRef(), load.getIndices()};
      if (auto store = dyn_cast<memref::StoreOp>(op))
        return {store.getMemRef(), store.getIndices()};
    }
  return {};
}

/// One thread's slot of one step: the clones of the body for each of its
/// `vec` iterations, whether it runs as vectors, and each guard's
/// condition for each iteration.
struct Slot {
  SmallVector<IRMapping> clones;
  Value fast;
  SmallVector<SmallVector<Value>> pass; // [guard][iteration]
};

} // namespace

bool simt::realignable(tile::ParallelOp loop, int64_t vec) {
  std::string why;
  return analyze(loop, vec, why).has_value();
}

FailureOr<bool> simt::lowerRealigned(KernelLowering &kernel,
                                     tile::ParallelOp loop, int64_t vec) {
  std::string why;
  std::optional<Body> body = analyze(loop, vec, why);
  if (!body)
    return false;
  FailureOr<ThreadSpan> span = threadSpan(kernel, loop);
  if (failed(span))
    return failure();
  ArrayRef<int64_t> extents = loop.getExtents();
  int64_t total = 1;
  for (int64_t e : extents)
    total *= e;
  int64_t chunk = span->count * vec;
  if (total % chunk != 0)
    return false;
  int64_t steps = total / chunk;
  int64_t limit = std::max<int64_t>(1, kernel.getOptions().unrollLimit);
  Location loc = loop.getLoc();
  auto ivs = loop.getInductionVars();
  int64_t rowLength = extents.back();
  auto [refBuffer, refIndices] = reference(*body);
  ArrayRef<int64_t> refShape = cast<MemRefType>(refBuffer.getType()).getShape();

  OpBuilder b(loop);
  Value tid = kernel.threadId();
  if (span->begin)
    tid = arith::SubIOp::create(b, loc, tid, constIndex(b, loc, span->begin));

  // Coordinates, shift and conditions of the slot at flat index `base`.
  auto makeSlot = [&](OpBuilder &sb, Value start) {
    Value base = arith::AddIOp::create(
        sb, loc, start,
        arith::MulIOp::create(sb, loc, tid, constIndex(sb, loc, vec)));
    SmallVector<Value> coords(extents.size());
    Value rest = base;
    for (size_t d = extents.size(); d-- > 0;) {
      coords[d] = d ? Value(arith::RemUIOp::create(
                          sb, loc, rest, constIndex(sb, loc, extents[d])))
                    : rest;
      if (d)
        rest = arith::DivUIOp::create(sb, loc, rest,
                                      constIndex(sb, loc, extents[d]));
    }
    // The reference access's element offset at the unshifted slot start;
    // the shift moves it to the next multiple of `vec`.
    IRMapping at;
    for (auto [iv, c] : llvm::zip(ivs, coords))
      at.map(iv, c);
    for (Operation *op : body->top)
      sb.clone(*op, at);
    Value offset = constIndex(sb, loc, 0);
    int64_t stride = 1;
    for (size_t d = refShape.size(); d-- > 0;) {
      Value term = at.lookupOrDefault(refIndices[d]);
      if (stride % vec != 0)
        offset = arith::AddIOp::create(
            sb, loc, offset,
            arith::MulIOp::create(sb, loc, term,
                                  constIndex(sb, loc, stride % vec)));
      stride *= refShape[d];
    }
    Value mask = constIndex(sb, loc, vec - 1);
    Value shift = arith::AndIOp::create(
        sb, loc,
        arith::SubIOp::create(sb, loc, constIndex(sb, loc, vec),
                              arith::AndIOp::create(sb, loc, offset, mask)),
        mask);
    Value first = arith::AddIOp::create(sb, loc, coords.back(), shift);
    Value wraps = arith::CmpIOp::create(
        sb, loc, arith::CmpIPredicate::ugt,
        arith::AddIOp::create(sb, loc, first, constIndex(sb, loc, vec)),
        constIndex(sb, loc, rowLength));
    Slot slot;
    slot.pass.resize(body->guards.size());
    Value all = arith::XOrIOp::create(
        sb, loc, wraps, arith::ConstantIntOp::create(sb, loc, 1, 1));
    for (int64_t v = 0; v < vec; ++v) {
      Value col = arith::AddIOp::create(sb, loc, first, constIndex(sb, loc, v));
      Value past = arith::CmpIOp::create(sb, loc, arith::CmpIPredicate::uge,
                                         col, constIndex(sb, loc, rowLength));
      col = arith::SelectOp::create(
          sb, loc, past,
          arith::SubIOp::create(sb, loc, col, constIndex(sb, loc, rowLength)),
          col);
      IRMapping &m = slot.clones.emplace_back();
      for (auto [d, iv] : llvm::enumerate(ivs))
        m.map(iv, d + 1 == ivs.size() ? col : coords[d]);
      for (Operation *op : body->top)
        sb.clone(*op, m);
      for (auto [g, guard] : llvm::enumerate(body->guards)) {
        Value p = m.lookupOrDefault(guard.getCondition());
        slot.pass[g].push_back(p);
        all = arith::AndIOp::create(sb, loc, all, p);
      }
    }
    slot.fast = all;
    return slot;
  };

  llvm::MaybeAlign align(16);
  // Every load of every slot (a vector, or each element under its guard),
  // then the arithmetic, then the stores.
  auto emitSlots = [&](OpBuilder &sb, MutableArrayRef<Slot> slots) {
    for (int phase = 0; phase < 3; ++phase)
      for (Slot &slot : slots)
        for (auto [g, guard] : llvm::enumerate(body->guards))
          for (Operation &op : guard.thenBlock()->without_terminator()) {
            auto load = dyn_cast<memref::LoadOp>(op);
            auto store = dyn_cast<memref::StoreOp>(op);
            if (phase == 1) {
              if (!load && !store)
                for (IRMapping &m : slot.clones)
                  sb.clone(op, m);
              continue;
            }
            if (phase == 0 && load) {
              Type elem = load.getType();
              auto vecType = VectorType::get({vec}, elem);
              auto ifOp = scf::IfOp::create(sb, loc, TypeRange{vecType},
                                            slot.fast, true);
              OpBuilder tb = OpBuilder::atBlockEnd(ifOp.thenBlock());
              SmallVector<Value> start;
              for (Value i : load.getIndices())
                start.push_back(slot.clones[0].lookupOrDefault(i));
              scf::YieldOp::create(tb, loc,
                                   Value(vector::LoadOp::create(
                                       tb, loc, vecType, load.getMemRef(),
                                       start, false, align)));
              OpBuilder eb = OpBuilder::atBlockEnd(ifOp.elseBlock());
              SmallVector<Value> elements;
              for (auto [v, m] : llvm::enumerate(slot.clones)) {
                auto one = scf::IfOp::create(eb, loc, TypeRange{elem},
                                             slot.pass[g][v], true);
                OpBuilder ob = OpBuilder::atBlockEnd(one.thenBlock());
                SmallVector<Value> idx;
                for (Value i : load.getIndices())
                  idx.push_back(m.lookupOrDefault(i));
                scf::YieldOp::create(ob, loc,
                                     Value(memref::LoadOp::create(
                                         ob, loc, load.getMemRef(), idx)));
                ob = OpBuilder::atBlockEnd(one.elseBlock());
                scf::YieldOp::create(ob, loc, zeroOf(ob, loc, elem));
                elements.push_back(one.getResult(0));
              }
              scf::YieldOp::create(eb, loc,
                                   Value(vector::FromElementsOp::create(
                                       eb, loc, vecType, elements)));
              for (auto [v, m] : llvm::enumerate(slot.clones))
                m.map(load.getResult(),
                      vector::ExtractOp::create(sb, loc, ifOp.getResult(0),
                                                int64_t(v)));
            }
            if (phase == 2 && store) {
              auto ifOp = scf::IfOp::create(sb, loc, slot.fast, true);
              OpBuilder tb = OpBuilder::atBlockTerminator(ifOp.thenBlock());
              SmallVector<Value> values, start;
              for (IRMapping &m : slot.clones)
                values.push_back(m.lookupOrDefault(store.getValueToStore()));
              for (Value i : store.getIndices())
                start.push_back(slot.clones[0].lookupOrDefault(i));
              auto vecType =
                  VectorType::get({vec}, store.getValueToStore().getType());
              vector::StoreOp::create(
                  tb, loc,
                  vector::FromElementsOp::create(tb, loc, vecType, values),
                  store.getMemRef(), start, false, align);
              OpBuilder eb = OpBuilder::atBlockTerminator(ifOp.elseBlock());
              for (auto [v, m] : llvm::enumerate(slot.clones)) {
                auto one = scf::IfOp::create(eb, loc, slot.pass[g][v], false);
                OpBuilder ob = OpBuilder::atBlockTerminator(one.thenBlock());
                SmallVector<Value> idx;
                for (Value i : store.getIndices())
                  idx.push_back(m.lookupOrDefault(i));
                memref::StoreOp::create(
                    ob, loc, m.lookupOrDefault(store.getValueToStore()),
                    store.getMemRef(), idx);
              }
            }
          }
  };

  if (steps <= limit) {
    SmallVector<Slot> slots;
    for (int64_t s = 0; s < steps; ++s)
      slots.push_back(makeSlot(b, constIndex(b, loc, s * chunk)));
    emitSlots(b, slots);
  } else {
    auto forOp = scf::ForOp::create(b, loc, constIndex(b, loc, 0),
                                    constIndex(b, loc, total),
                                    constIndex(b, loc, chunk));
    OpBuilder inner = OpBuilder::atBlockTerminator(forOp.getBody());
    SmallVector<Slot> slots{makeSlot(inner, forOp.getInductionVar())};
    emitSlots(inner, slots);
  }
  loop.erase();
  return true;
}
