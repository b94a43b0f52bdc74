//===- LowerParallel.cpp - tile-lower-simt: T.Parallel loops --------------===//
//
// Two shapes of loop, chosen by the `loop_layout` tile-infer-layouts wrote:
//
// - A layout (register, lane, warp) -> iteration: each thread runs the
//   iterations of its registers. The body is cloned once per register,
//   the induction variables rebuilt as this thread's coordinates of that
//   register (thread part computed at the kernel entry + a constant), and
//   every fragment load/store in the body redirected to the fragment's
//   register that holds the element, a constant found by evaluating the
//   access's indices for every (register, thread) pair (resolveRegisters).
//
// - `{vec = N}`: a strided loop over the flattened iteration space; thread
//   t handles flat indices [s + t*N, s + t*N + N) for s = 0, T*N, 2*T*N...,
//   the N consecutive iterations cloned inline (so accesses to consecutive
//   elements sit side by side for LLVM's load/store vectorizer); steps
//   beyond `unroll-limit` stay an scf.for. A partial last step is guarded.
//
//===----------------------------------------------------------------------===//

#include "GuardedSteps.h"
#include "Partitions.h"
#include "SIMTLowering.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

struct RegisterAccess {
  Operation *op;
  const Fragment *frag;
  /// The fragment register for each loop register (plus a run-time part).
  ResolvedAccess registers;
};

/// Replaces a cloned fragment load/store by a register access: register
/// `k`, plus `stride * runtime` (the clone's value of it) if it has one.
void redirect(KernelLowering &kernel, Operation *clone, const Fragment &frag,
              int64_t k, const ResolvedAccess &access,
              const IRMapping &mapping) {
  OpBuilder b(clone);
  Location loc = clone->getLoc();
  if (access.runtime) {
    Value index = mapping.lookupOrDefault(access.runtime);
    if (!index.getType().isIndex())
      index = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
    Value reg = arith::AddIOp::create(
        b, loc, constIndex(b, loc, k),
        arith::MulIOp::create(b, loc, index,
                              constIndex(b, loc, access.stride)));
    if (auto load = dyn_cast<memref::LoadOp>(clone)) {
      load.getResult().replaceAllUsesWith(
          memref::LoadOp::create(b, loc, frag.registers, ValueRange{reg}));
    } else {
      auto store = cast<memref::StoreOp>(clone);
      memref::StoreOp::create(
          b, loc, castScalar(b, loc, store.getValueToStore(), frag.elementType),
          frag.registers, ValueRange{reg});
    }
    clone->erase();
    return;
  }
  if (auto load = dyn_cast<memref::LoadOp>(clone)) {
    load.getResult().replaceAllUsesWith(
        kernel.loadRegister(b, loc, frag, k));
  } else {
    auto store = cast<memref::StoreOp>(clone);
    kernel.storeRegister(b, loc, frag, k, store.getValueToStore());
  }
  clone->erase();
}

/// Whether `op` has an effect outside the thread that replicas of an
/// iteration must not repeat: a store or atomic on global or shared
/// memory, a print.
bool sharedEffect(KernelLowering &kernel, Operation *op) {
  auto visible = [&](Value buffer) {
    return !kernel.fragment(buffer) &&
           !isSpace(buffer, tile::MemorySpace::local);
  };
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return visible(store.getMemRef());
  if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op))
    return visible(rmw.getMemref()) && rmw.getResult().use_empty();
  if (auto atomic = dyn_cast<tile::AtomicAddOp>(op))
    return visible(atomic.getDst());
  return isa<tile::PrintOp>(op);
}

LogicalResult lowerDistributed(KernelLowering &kernel, tile::ParallelOp loop,
                               const Layout &layout) {
  auto ivs = loop.getInductionVars();
  SmallVector<RegisterAccess> accesses;
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    Value memref;
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      memref = load.getMemRef();
      indices = load.getIndices();
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      memref = store.getMemRef();
      indices = store.getIndices();
    }
    const Fragment *frag = memref ? kernel.fragment(memref) : nullptr;
    if (!frag)
      return WalkResult::advance();
    std::string why;
    std::optional<ResolvedAccess> registers =
        resolveAccess(layout, loop, indices, frag->layout, why);
    if (!registers) {
      op->emitError() << "fragment `" << frag->name
                      << "` is not laid out like this T.Parallel loop: " << why;
      return WalkResult::interrupt();
    }
    accesses.push_back({op, frag, std::move(*registers)});
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  // Threads holding replicas of an iteration all run it (each updates its
  // own registers), but only the first replica may write memory others
  // see: a sum of atomics would count every replica.
  SmallVector<Operation *> effects;
  int64_t replicas = layout.replicaThreadMask();
  if (replicas)
    loop.getBody()->walk([&](Operation *op) {
      if (sharedEffect(kernel, op))
        effects.push_back(op);
    });
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value firstReplica;
  if (!effects.empty())
    firstReplica = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::AndIOp::create(b, loc, kernel.layoutThreadId(layout),
                              constIndex(b, loc, replicas)),
        constIndex(b, loc, 0));
  // Every register's coordinates first: RowVectors recomputes guarded
  // loads of later registers ahead of the first one's.
  SmallVector<SmallVector<Value>> coordsOf;
  for (int64_t r = 0; r < layout.numRegisters(); ++r)
    coordsOf.push_back(kernel.coords(b, loc, layout, r));
  SmallVector<IRMapping> clones;
  for (int64_t r = 0; r < layout.numRegisters(); ++r) {
    clones.emplace_back();
    IRMapping &mapping = clones.back();
    for (auto [iv, coord] : llvm::zip(ivs, coordsOf[r]))
      mapping.map(iv, coord);
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, mapping);
    for (const RegisterAccess &access : accesses)
      redirect(kernel, mapping.lookup(access.op), *access.frag,
               access.registers.base[r], access.registers, mapping);
    for (Operation *effect : effects) {
      Operation *clone = mapping.lookup(effect);
      OpBuilder gb(clone);
      auto ifOp = scf::IfOp::create(gb, clone->getLoc(), firstReplica,
                                    /*withElseRegion=*/false);
      clone->moveBefore(ifOp.thenBlock()->getTerminator());
    }
  }
  // Runs of registers holding consecutive elements along the last
  // dimension: their global and shared accesses become vectors.
  int64_t run = 1, numRegs = layout.numRegisters();
  auto coordOf = [&](int64_t r) { return layout.unflatten(layout.regFlat(r)); };
  while (run * 2 <= numRegs && run * 2 <= 16) {
    bool consecutive = true;
    for (int64_t r0 = 0; r0 < numRegs && consecutive; r0 += run * 2)
      for (int64_t v = 0; v < run * 2 && consecutive; ++v) {
        SmallVector<int64_t> expect = coordOf(r0);
        expect.back() += v;
        consecutive = coordOf(r0 + v) == expect;
      }
    if (!consecutive)
      break;
    run *= 2;
  }
  // Thread bits among the run's would permute its elements.
  size_t lastDim = layout.rank() - 1;
  if (run > 1 && !ivs.empty() &&
      (layout.threadMask(lastDim) & (run - 1)) == 0) {
    SmallVector<Operation *> body;
    for (Operation &op : loop.getBody()->without_terminator())
      body.push_back(&op);
    for (int64_t r0 = 0; r0 < numRegs; r0 += run)
      formRowVectors(body, loop.getBody(), ivs.back(),
                     ArrayRef<IRMapping>(clones).slice(r0, run));
  }
  loop.erase();
  return success();
}

/// Row-major coordinates of `flat` in `extents`.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value flat,
                               ArrayRef<int64_t> extents) {
  SmallVector<Value> coords(extents.size());
  int64_t stride = 1;
  for (size_t d = extents.size(); d-- > 0;) {
    Value c = stride == 1 ? flat
                          : Value(arith::DivUIOp::create(
                                b, loc, flat, constIndex(b, loc, stride)));
    if (d > 0)
      c = arith::RemUIOp::create(b, loc, c, constIndex(b, loc, extents[d]));
    coords[d] = c;
    stride *= extents[d];
  }
  return coords;
}

/// The ops of `body` (and of the regions nested in them) that `value`
/// depends on; false when one of them touches memory.
bool pureSlice(Block *body, Value value, DenseSet<Operation *> &slice) {
  SmallVector<Value> work{value};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def)
      continue; // an induction variable or a value from outside
    Operation *top = body->findAncestorOpInBlock(*def);
    if (!top || !slice.insert(top).second)
      continue;
    if (!isMemoryEffectFree(top))
      return false;
    top->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        work.push_back(operand);
    });
  }
  return true;
}

/// The top-level `if` statements of a T.Parallel body that guard its work
/// with a condition computed without touching memory (bounds checks such
/// as `if r < M and c < N:`): no results, no else branch. Their conditions
/// may be evaluated for a whole vector of iterations up front.
SmallVector<scf::IfOp> hoistableGuards(Block *body,
                                       DenseSet<Operation *> &slice) {
  SmallVector<scf::IfOp> guards;
  for (Operation &op : body->without_terminator()) {
    auto ifOp = dyn_cast<scf::IfOp>(op);
    if (!ifOp || ifOp.getNumResults() || !ifOp.getElseRegion().empty())
      continue;
    DenseSet<Operation *> mine;
    if (pureSlice(body, ifOp.getCondition(), mine) && !mine.contains(ifOp)) {
      guards.push_back(ifOp);
      slice.insert(mine.begin(), mine.end());
    }
  }
  return guards;
}

/// Whether, in one iteration's ops, nothing but stores to global or shared
/// memory follows the first op that writes memory.
bool trailingStores(ArrayRef<Operation *> ops) {
  bool writing = false;
  for (Operation *op : ops) {
    auto store = dyn_cast<memref::StoreOp>(op);
    if (store && !isSpace(store.getMemRef(), tile::MemorySpace::local)) {
      writing = true;
      continue;
    }
    // Reads only: loads, and ops whose nested ops only load (a
    // T.if_then_else load).
    bool reads = !op->walk([](Operation *inner) {
                       return isMemoryEffectFree(inner) ||
                                      isa<memref::LoadOp>(inner) ||
                                      inner->hasTrait<
                                          OpTrait::HasRecursiveMemoryEffects>()
                                  ? WalkResult::advance()
                                  : WalkResult::interrupt();
                     }).wasInterrupted();
    if (writing && !isMemoryEffectFree(op))
      return false;
    if (!reads)
      return false; // a write other than a plain store (an atomic, a print)
  }
  return true;
}

/// Moves the global and shared stores among the top-level ops in
/// [begin, end) to the end of the range, in their order.
void sinkStores(Block::iterator begin, Operation *end) {
  SmallVector<Operation *> stores;
  for (Block::iterator it = begin; &*it != end; ++it)
    if (isa<memref::StoreOp, vector::StoreOp>(&*it))
      stores.push_back(&*it);
  for (Operation *store : stores)
    store->moveBefore(end);
}

/// The kernel attribute recording the most 32-bit registers one thread's
/// loads fill while in flight together, over the kernel's unrolled loops
/// (read by askLoadRegisters).
constexpr llvm::StringLiteral kLoadRegistersKey = "tile.load_registers";

/// The 32-bit registers one step of a strided loop fills with its loads of
/// memory: each load of one iteration, `vec` times (as one vector of `vec`
/// elements where `vectors`, else as `vec` scalars of a register each).
int64_t stepLoadRegisters(ArrayRef<Operation *> ops, int64_t vec,
                          bool vectors) {
  int64_t registers = 0;
  for (Operation *op : ops) {
    auto load = dyn_cast<memref::LoadOp>(op);
    if (!load || isSpace(load.getMemRef(), tile::MemorySpace::local))
      continue;
    int64_t bits = load.getType().getIntOrFloatBitWidth();
    registers += vectors ? (vec * bits + 31) / 32 : vec * ((bits + 31) / 32);
  }
  return registers;
}

/// Records that `registers` registers of this thread's loads are in
/// flight together somewhere in the kernel.
void noteLoadRegisters(KernelLowering &kernel, int64_t registers) {
  gpu::GPUFuncOp func = kernel.getFunc();
  auto old = func->getAttrOfType<IntegerAttr>(kLoadRegistersKey);
  if (registers <= 0 || (old && old.getInt() >= registers))
    return;
  func->setAttr(kLoadRegistersKey,
                IntegerAttr::get(IntegerType::get(func.getContext(), 64),
                                 registers));
}

LogicalResult lowerStrided(KernelLowering &kernel, tile::ParallelOp loop,
                           int64_t vec) {
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (kernel.fragment(operand)) {
        op->emitError("a strided T.Parallel loop cannot access fragments");
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  ArrayRef<int64_t> extents = loop.getExtents();
  int64_t total = 1;
  for (int64_t extent : extents)
    total *= extent;
  // Under `if tx < 128:` the loop is spread over those threads only.
  FailureOr<ThreadSpan> span = threadSpan(kernel, loop);
  if (failed(span))
    return failure();
  int64_t chunk = span->count * vec;
  int64_t steps = (total + chunk - 1) / chunk;
  if (steps * chunk > INT32_MAX)
    return loop.emitError() << "T.Parallel loop of " << total
                            << " iterations: its last step would count past "
                            << INT32_MAX << ", the largest 32-bit loop index";
  bool partial = total % chunk != 0;
  Location loc = loop.getLoc();
  auto ivs = loop.getInductionVars();

  // Bounds checks in the body: a vector whose iterations all pass them
  // runs with the checks dropped (its accesses side by side, which LLVM's
  // load/store vectorizer merges into one 16-byte access per operand);
  // the others, at the edges of the tensor, check every element.
  DenseSet<Operation *> conditionOps;
  SmallVector<scf::IfOp> guards;
  guards = hoistableGuards(loop.getBody(), conditionOps);
  // One iteration; with `inlineGuards` the guards' bodies run unchecked.
  auto emitIteration = [&](OpBuilder &b, ArrayRef<Value> coords,
                           bool inlineGuards = false) -> IRMapping {
    IRMapping mapping;
    for (auto [iv, coord] : llvm::zip(ivs, coords))
      mapping.map(iv, coord);
    for (Operation &op : loop.getBody()->without_terminator()) {
      auto ifOp = dyn_cast<scf::IfOp>(op);
      if (inlineGuards && ifOp && llvm::is_contained(guards, ifOp)) {
        for (Operation &inner : ifOp.thenBlock()->without_terminator())
          b.clone(inner, mapping);
        continue;
      }
      b.clone(op, mapping);
    }
    return mapping;
  };
  // The ops of one iteration in order, with the guards' bodies inlined.
  auto iterationOps = [&](bool inlineGuards) {
    SmallVector<Operation *> ops;
    for (Operation &op : loop.getBody()->without_terminator()) {
      auto ifOp = dyn_cast<scf::IfOp>(op);
      if (inlineGuards && ifOp && llvm::is_contained(guards, ifOp)) {
        for (Operation &inner : ifOp.thenBlock()->without_terminator())
          ops.push_back(&inner);
        continue;
      }
      ops.push_back(&op);
    }
    return ops;
  };
  // Whether every guard passes for each of `coords`' iterations.
  auto allPass = [&](OpBuilder &b, ArrayRef<SmallVector<Value>> coords) {
    Value all;
    for (const SmallVector<Value> &c : coords) {
      IRMapping mapping;
      for (auto [iv, coord] : llvm::zip(ivs, c))
        mapping.map(iv, coord);
      for (Operation &op : loop.getBody()->without_terminator())
        if (conditionOps.contains(&op))
          b.clone(op, mapping);
      for (scf::IfOp guard : guards) {
        Value pass = mapping.lookupOrDefault(guard.getCondition());
        all = all ? Value(arith::AndIOp::create(b, loc, all, pass)) : pass;
      }
    }
    return all;
  };
  // A vector never crosses a row when vec divides the last extent: its
  // elements then differ in the last coordinate only, which keeps their
  // addresses visibly consecutive for LLVM's load/store vectorizer.
  bool rowVectors = extents.back() % vec == 0;
  auto guarded = [&](OpBuilder &b, Value flat, auto fill) {
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         flat, constIndex(b, loc, total));
    auto ifOp = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    OpBuilder inner = OpBuilder::atBlockTerminator(ifOp.thenBlock());
    fill(inner);
  };
  OpBuilder b(loop);
  Value tid = kernel.threadId();
  if (span->begin)
    tid = arith::SubIOp::create(b, loc, tid, constIndex(b, loc, span->begin));
  // One step: this thread's `vec` iterations from `start` + tid * vec.
  auto emitStep = [&](OpBuilder &b, Value start) {
    Value base = arith::AddIOp::create(
        b, loc, start,
        arith::MulIOp::create(b, loc, tid, constIndex(b, loc, vec)));
    auto vector = [&](OpBuilder &vb) {
      SmallVector<Value> start;
      if (rowVectors)
        start = delinearize(vb, loc, base, extents);
      bool elementGuards = partial && total % vec != 0;
      if (rowVectors && !elementGuards && !guards.empty() && vec > 1) {
        SmallVector<SmallVector<Value>> coords;
        for (int64_t v = 0; v < vec; ++v) {
          coords.push_back(start);
          if (v > 0)
            coords.back().back() = arith::AddIOp::create(
                vb, loc, start.back(), constIndex(vb, loc, v));
        }
        auto ifOp = scf::IfOp::create(vb, loc, allPass(vb, coords),
                                      /*withElseRegion=*/true);
        OpBuilder fast = OpBuilder::atBlockTerminator(ifOp.thenBlock());
        OpBuilder slow = OpBuilder::atBlockTerminator(ifOp.elseBlock());
        SmallVector<IRMapping> clones;
        for (const SmallVector<Value> &c : coords) {
          clones.push_back(emitIteration(fast, c, /*inlineGuards=*/true));
          emitIteration(slow, c);
        }
        formRowVectors(iterationOps(true), loop.getBody(), ivs.back(), clones);
        return;
      }
      SmallVector<IRMapping> clones;
      for (int64_t v = 0; v < vec; ++v) {
        Value flat = base;
        if (v > 0 && (elementGuards || !rowVectors))
          flat = arith::AddIOp::create(vb, loc, base, constIndex(vb, loc, v));
        auto iteration = [&](OpBuilder &eb) {
          if (!rowVectors) {
            emitIteration(eb, delinearize(eb, loc, flat, extents));
            return;
          }
          SmallVector<Value> coords(start);
          if (v > 0)
            coords.back() = arith::AddIOp::create(eb, loc, coords.back(),
                                                  constIndex(eb, loc, v));
          clones.push_back(emitIteration(eb, coords));
        };
        if (elementGuards)
          guarded(vb, flat, iteration);
        else
          iteration(vb);
      }
      if (rowVectors && !elementGuards)
        formRowVectors(iterationOps(false), loop.getBody(), ivs.back(), clones);
    };
    // When vec divides the total, a vector is wholly inside or outside.
    if (partial && total % vec == 0)
      guarded(b, base, vector);
    else
      vector(b);
  };

  // Few elements per thread: every step inline. Counted in elements too,
  // so that a loop whose vectors shrank to keep its accesses coalesced (an
  // odd row stride) is unrolled as far as its 16-byte twin.
  int64_t limit = std::max<int64_t>(1, kernel.getOptions().unrollLimit);
  if (steps <= limit || steps * vec <= 4 * limit) {
    // Where every access of an iteration that writes comes after all of
    // its reads, the stores of all steps can wait until the end: the
    // thread then has every step's loads in flight at once instead of one
    // step's (iterations are independent, so moving a store past another
    // iteration's accesses is allowed).
    SmallVector<Operation *> ops = iterationOps(/*inlineGuards=*/true);
    bool stepwise = loop->hasAttr(kStepwiseKey);
    bool sinkable = !stepwise && trailingStores(ops);
    // One element a step under bounds checks: no vectors to gain from an
    // all-steps test; each step's loads under its checks, then the stores
    // (GuardedSteps.cpp).
    if (vec == 1 && sinkable && !guards.empty() &&
        guardedStepsFit(loop.getBody(), guards)) {
      // Where a step spans whole rows of the loop, step s is the first
      // moved down s * chunk / rowSize rows; where a row spans q whole
      // steps, step s is step s % q moved down s / q rows.
      int64_t rowSize = 1;
      for (int64_t e : extents.drop_front())
        rowSize *= e;
      int64_t q = rowSize % chunk == 0 ? rowSize / chunk : 0;
      bool rows = chunk % rowSize == 0 || q;
      SmallVector<GuardedStep> elements(steps);
      for (auto [s, element] : llvm::enumerate(elements)) {
        Value flat = arith::AddIOp::create(
            b, loc, constIndex(b, loc, int64_t(s) * chunk), tid);
        element.base = q ? s % q : 0;
        if (rows && element.base != s) {
          element.shift =
              q ? int64_t(s) / q : int64_t(s) * chunk / rowSize;
          element.coords = elements[element.base].coords;
          element.coords[0] = arith::AddIOp::create(
              b, loc, element.coords[0], constIndex(b, loc, element.shift));
        } else {
          element.base = s;
          element.shift = rows ? 0 : -1;
          element.coords = delinearize(b, loc, flat, extents);
        }
        if (partial && int64_t(s) == steps - 1)
          element.inside =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, flat,
                                    constIndex(b, loc, total));
      }
      emitGuardedSteps(b, loc, loop.getBody(), guards, ivs, elements);
      noteLoadRegisters(kernel, steps * stepLoadRegisters(ops, 1, false));
      loop.erase();
      return success();
    }
    // A block whose every step passes its guards (all but the blocks at the
    // tensor's edges) runs the steps with the guards dropped, in one piece.
    if (!stepwise && steps > 1 && (partial || !guards.empty())) {
      Value all;
      auto both = [&](Value x, Value y) {
        return x ? Value(arith::AndIOp::create(b, loc, x, y)) : y;
      };
      SmallVector<SmallVector<SmallVector<Value>>> coords(steps);
      for (int64_t s = 0; s < steps; ++s) {
        Value base = arith::AddIOp::create(
            b, loc, constIndex(b, loc, s * chunk),
            arith::MulIOp::create(b, loc, tid, constIndex(b, loc, vec)));
        SmallVector<Value> start;
        if (rowVectors)
          start = delinearize(b, loc, base, extents);
        for (int64_t v = 0; v < vec; ++v) {
          if (rowVectors) {
            coords[s].push_back(start);
            if (v > 0)
              coords[s].back().back() = arith::AddIOp::create(
                  b, loc, start.back(), constIndex(b, loc, v));
          } else {
            coords[s].push_back(delinearize(
                b, loc,
                v ? Value(arith::AddIOp::create(b, loc, base,
                                                constIndex(b, loc, v)))
                  : base,
                extents));
          }
        }
        if (partial && s == steps - 1)
          all = both(all, arith::CmpIOp::create(
                              b, loc, arith::CmpIPredicate::ule,
                              arith::AddIOp::create(b, loc, base,
                                                    constIndex(b, loc, vec)),
                              constIndex(b, loc, total)));
        if (!guards.empty())
          all = both(all, allPass(b, coords[s]));
      }
      auto ifOp = scf::IfOp::create(b, loc, all, /*withElseRegion=*/true);
      OpBuilder fast = OpBuilder::atBlockTerminator(ifOp.thenBlock());
      for (int64_t s = 0; s < steps; ++s) {
        SmallVector<IRMapping> clones;
        for (const SmallVector<Value> &c : coords[s])
          clones.push_back(emitIteration(fast, c, /*inlineGuards=*/true));
        if (rowVectors)
          formRowVectors(ops, loop.getBody(), ivs.back(), clones);
      }
      if (sinkable) {
        sinkStores(ifOp.thenBlock()->begin(),
                   ifOp.thenBlock()->getTerminator());
        noteLoadRegisters(kernel,
                          steps * stepLoadRegisters(ops, vec, rowVectors));
      }
      OpBuilder slow = OpBuilder::atBlockTerminator(ifOp.elseBlock());
      for (int64_t s = 0; s < steps; ++s)
        emitStep(slow, constIndex(slow, loc, s * chunk));
    } else {
      Operation *before = loop->getPrevNode();
      for (int64_t s = 0; s < steps; ++s)
        emitStep(b, constIndex(b, loc, s * chunk));
      // Without guards the steps are straight-line code.
      if (sinkable && !partial && steps > 1) {
        sinkStores(before ? std::next(before->getIterator())
                          : loop->getBlock()->begin(),
                   loop);
        noteLoadRegisters(kernel,
                          steps * stepLoadRegisters(ops, vec, rowVectors));
      }
    }
  } else {
    auto forOp = scf::ForOp::create(b, loc, constIndex(b, loc, 0),
                                    constIndex(b, loc, steps * chunk),
                                    constIndex(b, loc, chunk));
    OpBuilder inner = OpBuilder::atBlockTerminator(forOp.getBody());
    emitStep(inner, forOp.getInductionVar());
  }
  loop.erase();
  return success();
}

} // namespace

namespace {

/// The store ending `block` (before its terminator), if every other op of
/// the block writes no memory.
memref::StoreOp soleTrailingStore(Block &block) {
  Operation *term = block.getTerminator();
  auto store = dyn_cast_or_null<memref::StoreOp>(term->getPrevNode());
  if (!store)
    return {};
  for (Operation &op : block.without_terminator()) {
    if (&op == store)
      continue;
    // Reads (a nested guard's load too) are fine; anything else that may
    // write is not.
    WalkResult walk = op.walk([](Operation *inner) {
      return isMemoryEffectFree(inner) ||
                     isa<memref::LoadOp, vector::LoadOp>(inner) ||
                     inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return {};
  }
  return store;
}

/// `if c: X[i] = a else: X[i] = b` (a guarded copy into a tile, zero
/// outside the source: FlashAttention varlen's Q, K and V tiles) as
/// `X[i] = (c ? a : b)`: one store after the branch, which the strided
/// lowering's row vectors then merge with its neighbours' (RowVectors.cpp)
/// where two stores in two arms stayed scalar. Only the stores move:
/// the arms' loads stay under the branch.
void sinkCommonStores(Block *body) {
  SmallVector<scf::IfOp> ifs;
  body->walk([&](scf::IfOp ifOp) {
    if (ifOp.getNumResults() == 0 && !ifOp.getElseRegion().empty())
      ifs.push_back(ifOp);
  });
  for (scf::IfOp ifOp : ifs) {
    memref::StoreOp a = soleTrailingStore(*ifOp.thenBlock());
    memref::StoreOp b = soleTrailingStore(*ifOp.elseBlock());
    if (!a || !b || a.getMemRef() != b.getMemRef() ||
        a.getIndices() != b.getIndices() ||
        a.getValueToStore().getType() != b.getValueToStore().getType())
      continue;
    // The indices are defined outside the branch (the same values in both
    // arms).
    if (llvm::any_of(a.getIndices(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return def && ifOp->isAncestor(def);
        }))
      continue;
    OpBuilder builder(ifOp);
    auto merged = scf::IfOp::create(builder, ifOp.getLoc(),
                                    TypeRange{a.getValueToStore().getType()},
                                    ifOp.getCondition(),
                                    /*withElseRegion=*/true);
    for (auto [from, to] : {std::pair{ifOp.thenBlock(), merged.thenBlock()},
                            std::pair{ifOp.elseBlock(), merged.elseBlock()}}) {
      memref::StoreOp store = from == ifOp.thenBlock() ? a : b;
      Value stored = store.getValueToStore();
      // (scf.if with results is built without terminators.)
      if (!to->empty() && to->back().hasTrait<OpTrait::IsTerminator>())
        to->back().erase();
      to->getOperations().splice(to->end(), from->getOperations(),
                                 from->begin(), Block::iterator(store));
      OpBuilder yb = OpBuilder::atBlockEnd(to);
      scf::YieldOp::create(yb, ifOp.getLoc(), stored);
    }
    builder.setInsertionPointAfter(merged);
    auto store = memref::StoreOp::create(builder, a.getLoc(),
                                         merged.getResult(0), a.getMemRef(),
                                         a.getIndices());
    // (LowerSIMT's mark of an access of a swizzled buffer.)
    store->setDiscardableAttrs(a->getDiscardableAttrDictionary());
    ifOp.erase();
  }
}

} // namespace

LogicalResult simt::lowerParallel(KernelLowering &kernel,
                                  tile::ParallelOp loop) {
  sinkCommonStores(loop.getBody());
  if (!loop.getLoopLayoutAttr())
    return loop.emitError(
        "T.Parallel loop has no loop_layout; run tile-infer-layouts first");
  if (tile::StridedAttr strided = loop.getStridedLayout()) {
    if (int64_t realign = strided.getRealign()) {
      FailureOr<bool> done = lowerRealigned(kernel, loop, realign);
      if (failed(done))
        return failure();
      if (*done)
        return success();
    }
    return lowerStrided(kernel, loop, strided.getVec());
  }
  tile::FragmentAttr attr = loop.getFragmentLayout();
  std::string error;
  std::optional<LinearLayout> linear =
      layoutFromAttr(attr, loop.getExtents(), error);
  // In a T.ws region: over the region's threads (InferPartitions.cpp).
  int64_t threads = threadsOf(loop, kernel.getThreads());
  std::optional<Layout> layout;
  if (linear)
    layout = Layout::get(*linear, loop.getExtents(), error, threads);
  if (layout)
    if (tile::PartitionAttr p = partitionOf(loop))
      layout->setThreadBegin(p.getBegin());
  if (layout && layout->numThreads() != threads)
    error = "it spreads over " + std::to_string(layout->numThreads()) +
            " threads but " +
            (threads == kernel.getThreads() ? "the kernel" : "its T.ws region") +
            " has " + std::to_string(threads);
  if (!error.empty())
    return loop.emitError() << "invalid loop_layout: " << error;
  return lowerDistributed(kernel, loop, *layout);
}

// Told only the block size (`.maxntid`), ptxas keeps few registers and
// interleaves the unrolled steps' loads with their uses: the guarded
// 1001x1001 bf16 kernel (32 steps of two 2-byte loads a thread) got 46
// registers and its loads in five waves, each waiting for the previous
// one's data (its SASS, bench/RESULTS.md), while TileLang's, compiled with
// `__launch_bounds__(256, 1)`, had all its loads issued in two. A minimum
// number of resident blocks (`.minnctapersm`, the target-neutral
// tile.min_blocks_per_multiprocessor that targets/nvptx translates) lets ptxas
// use the registers that number of blocks leaves each thread: asked for
// as many blocks as leave each thread the registers of its loads in flight
// plus `kReserve` for addresses, indices and predicates, ptxas issued all
// 64 loads before the first use (72 registers). Not where a full
// multiprocessor of blocks leaves them anyway (ptxas then needs no hint),
// nor in kernels with fragments, whose registers the loads do not bound.
void simt::askLoadRegisters(KernelLowering &kernel, const TargetInfo &target) {
  constexpr int64_t kReserve = 16;
  // Threads one multiprocessor holds on sm_80 and sm_90a.
  constexpr int64_t kThreadsPerMultiprocessor = 2048;
  gpu::GPUFuncOp func = kernel.getFunc();
  auto loads = func->getAttrOfType<IntegerAttr>(kLoadRegistersKey);
  if (!loads)
    return;
  func->removeAttr(kLoadRegistersKey);
  if (!target.hasOccupancyHint() ||
      func->hasAttr(tile::kMinBlocksPerMultiprocessorAttrName) ||
      !kernel.fragments().empty())
    return;
  int64_t threads = kernel.getThreads();
  int64_t blocks = int64_t(target.registersPerBlock()) /
                   (threads * (loads.getInt() + kReserve));
  if (blocks * threads >= kThreadsPerMultiprocessor)
    return;
  func->setAttr(tile::kMinBlocksPerMultiprocessorAttrName,
                IntegerAttr::get(IntegerType::get(func.getContext(), 32),
                                 std::max<int64_t>(blocks, 1)));
}
