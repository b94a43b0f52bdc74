//===- LowerReduce.cpp - tile-lower-simt: tile.reduce ---------------------===//
//
// A reduction of fragment S along `dim` into fragment D, in three levels:
//  1. Registers: each D register combines the S registers of this thread
//     that project onto it (resolveProjection gives the mapping; S
//     registers holding the same element twice count once).
//  2. Lanes: the lanes that hold parts of the same output elements are
//     the lane ids l whose S thread basis projects to zero. Those that
//     also map to zero in S itself only hold copies (they must not be
//     combined: a sum would count them twice), so the shuffle masks are a
//     basis of the first set modulo the second; one gpu.shuffle xor per
//     mask and D register (a butterfly: every lane ends with the total).
//  3. Warps: the same analysis on the warp bits; if some warps share
//     outputs, every thread writes its partials to a shared scratch buffer
//     (a `tile.alloc` left for tile-plan-shared: threads x registers
//     elements), a barrier, then each thread adds the partials of the
//     warps in its coset, and a second barrier frees the scratch for the
//     next use (a reduction in a loop, or the next reduction: the
//     reductions of a kernel with one element type share one scratch
//     buffer, as large as the largest needs, since each one's use of it
//     lies between its two barriers).
// tile.finalize_reducer (lowerFinalize) is levels 2 and 3 alone, over the
// copies of a reducer's elements.
// With clear = false the old value of D joins the combination. abssum and
// absmax take absolute values first. Values narrower than 32 bits are
// widened for the shuffle.
//
//===----------------------------------------------------------------------===//

#include "Partitions.h"
#include "SIMTLowering.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

Value combine(OpBuilder &b, Location loc, tile::ReduceKind kind, Value x,
              Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case tile::ReduceKind::sum:
  case tile::ReduceKind::abssum:
    return isFloat ? Value(arith::AddFOp::create(b, loc, x, y))
                   : Value(arith::AddIOp::create(b, loc, x, y));
  case tile::ReduceKind::max:
  case tile::ReduceKind::absmax:
    return isFloat ? Value(arith::MaxNumFOp::create(b, loc, x, y))
                   : Value(arith::MaxSIOp::create(b, loc, x, y));
  case tile::ReduceKind::min:
    return isFloat ? Value(arith::MinNumFOp::create(b, loc, x, y))
                   : Value(arith::MinSIOp::create(b, loc, x, y));
  }
  return x;
}

Value absolute(OpBuilder &b, Location loc, Value v) {
  if (isa<FloatType>(v.getType()))
    return math::AbsFOp::create(b, loc, v);
  return math::AbsIOp::create(b, loc, v);
}

/// gpu.shuffle xor, widening values narrower than 32 bits.
Value shuffleXor(OpBuilder &b, Location loc, Value v, int64_t mask,
                 int64_t width) {
  Type type = v.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  Value wide = v;
  if (bits < 32)
    wide = isa<FloatType>(type) ? castScalar(b, loc, v, b.getF32Type())
                                : castScalar(b, loc, v, b.getI32Type());
  Value offset = arith::ConstantIntOp::create(b, loc, b.getI32Type(), mask);
  Value w = arith::ConstantIntOp::create(b, loc, b.getI32Type(), width);
  Value shuffled =
      gpu::ShuffleOp::create(b, loc, wide, offset, w, gpu::ShuffleMode::XOR)
          .getShuffleResult();
  return bits < 32 ? castScalar(b, loc, shuffled, type) : shuffled;
}

/// Over the thread ids [0, 2^bits.size()) whose bits are `ids`, the xor
/// masks spanning {ids whose projected image is 0} modulo {ids whose image
/// in the source is 0}; masks are in thread-id units (lane or warp ids).
SmallVector<int64_t> sharingMasks(ArrayRef<SmallVector<int64_t>> projected,
                                  ArrayRef<SmallVector<int64_t>> full) {
  auto isZero = [](ArrayRef<SmallVector<int64_t>> bases, int64_t id) {
    SmallVector<int64_t> sum(bases.empty() ? 0 : bases[0].size(), 0);
    for (auto [bit, basis] : llvm::enumerate(bases))
      if (id >> bit & 1)
        for (auto [s, c] : llvm::zip(sum, basis))
          s ^= c;
    return llvm::all_of(sum, [](int64_t c) { return c == 0; });
  };
  // An XOR basis of what is spanned so far, for membership tests.
  SmallVector<int64_t> span;
  auto reduce = [&](int64_t v) {
    for (int64_t s : span)
      v = std::min(v, v ^ s);
    return v;
  };
  auto insert = [&](int64_t v) {
    v = reduce(v);
    if (v == 0)
      return false;
    span.push_back(v);
    llvm::sort(span, std::greater<int64_t>());
    return true;
  };
  int64_t count = int64_t(1) << projected.size();
  for (int64_t id = 1; id < count; ++id)
    if (isZero(full, id))
      insert(id);
  SmallVector<int64_t> masks;
  for (int64_t id = 1; id < count; ++id)
    if (isZero(projected, id) && insert(id))
      masks.push_back(id);
  return masks;
}

/// The kernel's cross-warp reduction scratch buffers, one per element type.
/// (tile-plan-pipeline estimates their size the same way, threads x output
/// registers per type, to keep pipeline rings within shared memory:
/// reductionScratchBytes in PipelineLoops.cpp; change both together.)
/// Keyed by the partition too: the arms of a thread branch run at once, so
/// each partition's reductions get their own buffer.
using ScratchPool = llvm::DenseMap<std::pair<Attribute, Type>, tile::AllocOp>;

/// A shared scratch buffer of at least `elems` elements of `type` for
/// `reduce`: the pool's (grown to `elems` if smaller; its users index it
/// with flat offsets, so a larger buffer serves them unchanged), or a new
/// one, placed before the top-level op holding `reduce` so that it
/// dominates this and every later reduction.
Value scratchFor(KernelLowering &kernel, ScratchPool &pool, Operation *reduce,
                 Type type, int64_t elems) {
  auto scratchType =
      tile::getBufferType({elems}, type, tile::MemorySpace::shared);
  tile::AllocOp &alloc = pool[{partitionOf(reduce), type}];
  if (!alloc) {
    Block &entry = kernel.getFunc().getBody().front();
    Operation *top = entry.findAncestorOpInBlock(*reduce);
    OpBuilder b = top ? OpBuilder(top) : kernel.entryBuilder();
    alloc = tile::AllocOp::create(b, reduce->getLoc(), scratchType,
                                  "reduce_scratch");
  } else if (alloc.getType().getNumElements() < elems) {
    alloc.getResult().setType(scratchType);
  }
  return alloc.getResult();
}

/// Adds to `acc` the partials in `scratch` of the other warps of this
/// thread's coset: tid ^ (every nonzero combination of `warpMasks`, shifted
/// past the lane bits), in order of the combination's number. With few
/// partials the combinations are unrolled. With many (a wide accumulator
/// summed over its rows, as in padded-accumulator.tile: 7 x 48) they form
/// an scf.for carrying `acc`: unrolled, the backend hoists every vector load
/// of the partials above the adds and the code that follows, so that 7 x 48
/// loaded values are live at once with the fragments and ptxas spills
/// kilobytes; one iteration keeps one warp's partials live. The order of the
/// additions is the same either way.
void addWarpPartials(OpBuilder &b, Location loc, tile::ReduceKind kind,
                     Value scratch, Value tid, int64_t outRegs,
                     ArrayRef<int64_t> warpMasks, int64_t laneBits,
                     int64_t threads, MutableArrayRef<Value> acc) {
  constexpr int64_t kMaxUnrolledPartials = 64;
  int64_t combos = int64_t(1) << warpMasks.size();
  auto addPartialsOf = [&](OpBuilder &b, Value warpXor,
                           MutableArrayRef<Value> acc) {
    Value other = arith::XOrIOp::create(b, loc, tid, warpXor);
    // A phantom partner (`threads` > 0: padding only, checked by the
    // caller): read this thread's own slot and keep the accumulator.
    Value real;
    if (threads) {
      real = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, other,
                                   constIndex(b, loc, threads));
      other = arith::SelectOp::create(b, loc, real, other, tid);
    }
    Value otherBase =
        arith::MulIOp::create(b, loc, other, constIndex(b, loc, outRegs));
    for (int64_t k = 0; k < outRegs; ++k) {
      Value partial = memref::LoadOp::create(
          b, loc, scratch,
          ValueRange{arith::AddIOp::create(b, loc, otherBase,
                                           constIndex(b, loc, k))});
      Value combined = combine(b, loc, kind, acc[k], partial);
      acc[k] = real ? arith::SelectOp::create(b, loc, real, combined, acc[k])
                    : Value(combined);
    }
  };
  if (outRegs * (combos - 1) <= kMaxUnrolledPartials) {
    for (int64_t c = 1; c < combos; ++c) {
      int64_t warpXor = 0;
      for (auto [i, mask] : llvm::enumerate(warpMasks))
        if (c >> i & 1)
          warpXor ^= mask;
      addPartialsOf(b, constIndex(b, loc, warpXor << laneBits), acc);
    }
    return;
  }
  auto loop = scf::ForOp::create(b, loc, constIndex(b, loc, 1),
                                 constIndex(b, loc, combos),
                                 constIndex(b, loc, 1), ValueRange(acc));
  OpBuilder body = OpBuilder::atBlockBegin(loop.getBody());
  Value c = loop.getInductionVar();
  Value zero = constIndex(body, loc, 0);
  Value warpXor = zero;
  for (auto [i, mask] : llvm::enumerate(warpMasks)) {
    Value bit = arith::AndIOp::create(
        body, loc,
        arith::ShRUIOp::create(body, loc, c, constIndex(body, loc, i)),
        constIndex(body, loc, 1));
    Value set = arith::CmpIOp::create(body, loc, arith::CmpIPredicate::ne,
                                      bit, zero);
    Value term = arith::SelectOp::create(
        body, loc, set, constIndex(body, loc, mask << laneBits), zero);
    warpXor = arith::XOrIOp::create(body, loc, warpXor, term);
  }
  SmallVector<Value> carried(loop.getRegionIterArgs());
  addPartialsOf(body, warpXor, carried);
  scf::YieldOp::create(body, loc, carried);
  llvm::copy(loop.getResults(), acc.begin());
}

LogicalResult lowerReduce(KernelLowering &kernel, ScratchPool &pool,
                          tile::ReduceOp reduce) {
  const Fragment *src = kernel.fragment(reduce.getSrc());
  const Fragment *dst = kernel.fragment(reduce.getDst());
  if (!src || !dst)
    return reduce.emitError("the SIMT lowering reduces fragments into "
                            "fragments only");
  auto srcType = cast<MemRefType>(reduce.getSrc().getType());
  auto dstType = cast<MemRefType>(reduce.getDst().getType());
  int64_t dim = reduce.getDim();
  SmallVector<int> dims;
  for (int64_t d = 0; d < srcType.getRank(); ++d)
    if (d != dim)
      dims.push_back(int(d));
    else if (dstType.getRank() == srcType.getRank())
      dims.push_back(-1);
  std::string why;
  std::optional<SmallVector<int64_t>> target =
      resolveProjection(src->layout, dims, dst->layout, why);
  if (!target)
    return reduce.emitError() << "the layout of `" << dst->name
                              << "` does not match the reduction of `"
                              << src->name << "`: " << why;

  OpBuilder b(reduce);
  Location loc = reduce.getLoc();
  tile::ReduceKind kind = reduce.getKind();
  bool abs =
      kind == tile::ReduceKind::abssum || kind == tile::ReduceKind::absmax;
  Type type = dst->elementType;
  const Layout &in = src->layout;

  // 1. Registers.
  int64_t outRegs = dst->layout.numRegisters();
  SmallVector<Value> acc(outRegs);
  DenseSet<uint64_t> seen;
  for (int64_t r = 0; r < in.numRegisters(); ++r) {
    if (!seen.insert(in.regFlat(r)).second)
      continue;
    Value v = castScalar(b, loc, kernel.loadRegister(b, loc, *src, r), type);
    if (abs)
      v = absolute(b, loc, v);
    Value &slot = acc[(*target)[r]];
    slot = slot ? combine(b, loc, kind, slot, v) : v;
  }
  for (auto [k, slot] : llvm::enumerate(acc))
    if (!slot)
      return reduce.emitError() << "register " << k << " of `" << dst->name
                                << "` receives no element of `" << src->name
                                << "`; its layout does not match the reduction";

  // Thread bases split into lanes and warps, projected and full.
  int64_t laneBits = log2Exact(in.numLanes());
  SmallVector<SmallVector<int64_t>> laneProj, laneFull, warpProj, warpFull;
  for (auto [bit, basis] : llvm::enumerate(in.threadBases())) {
    SmallVector<int64_t> projected;
    for (int d : dims)
      projected.push_back(d < 0 ? 0 : basis[d]);
    bool isLane = int64_t(bit) < laneBits;
    (isLane ? laneProj : warpProj).push_back(projected);
    (isLane ? laneFull : warpFull).push_back(basis);
  }

  // 2. Lanes.
  for (int64_t mask : sharingMasks(laneProj, laneFull))
    for (Value &slot : acc)
      slot = combine(b, loc, kind, slot,
                     shuffleXor(b, loc, slot, mask, in.numLanes()));

  // 3. Warps, through shared memory.
  SmallVector<int64_t> warpMasks = sharingMasks(warpProj, warpFull);
  // A block of 12 warps has layouts over 16 (placeWarps): a combination
  // across warps may reach a phantom warp past the block, which does not
  // run. Where every element it would hold is padding past the tile (the
  // rows of a 12x1 gemm accumulator summed per column), its part is the
  // identity and is skipped at run time; anything else is an error.
  bool phantomPartners = false;
  int64_t combos = int64_t(1) << warpMasks.size();
  auto xorOf = [&](int64_t c) {
    int64_t warpXor = 0;
    for (auto [i, mask] : llvm::enumerate(warpMasks))
      if (c >> i & 1)
        warpXor ^= mask;
    return warpXor << laneBits;
  };
  if (in.numThreads() < in.spannedThreads())
    for (int64_t c = 1; c < combos; ++c)
      for (int64_t t = 0; t < in.numThreads(); ++t) {
        int64_t other = t ^ xorOf(c);
        if (other < in.numThreads())
          continue;
        phantomPartners = true;
        for (int64_t r = 0; r < in.numRegisters(); ++r)
          if (in.isInside(in.elementAt(r, other)))
            return reduce.emitError()
                   << "cannot reduce `" << src->name << "` across warps: its "
                   << in.numWarps() << " warps are laid out as "
                   << in.spannedThreads() / in.numLanes() << ", and warp "
                   << t / in.numLanes() << " would combine with phantom warp "
                   << other / in.numLanes()
                   << ", which would hold elements of the tile";
      }
  if (!warpMasks.empty()) {
    // In a T.ws region or an arm of a thread branch: the partition's own
    // scratch, its threads numbered from its first, and its named barrier
    // (the other partitions do not reach this one's barriers).
    int64_t threads = in.numThreads();
    Value scratch = scratchFor(kernel, pool, reduce, type, threads * outRegs);
    Value tid = partitionThreadId(b, loc, kernel.threadId(), reduce);
    Value base =
        arith::MulIOp::create(b, loc, tid, constIndex(b, loc, outRegs));
    for (int64_t k = 0; k < outRegs; ++k)
      memref::StoreOp::create(b, loc, acc[k], scratch,
                              ValueRange{arith::AddIOp::create(
                                  b, loc, base, constIndex(b, loc, k))});
    partitionBarrier(b, loc, reduce);
    addWarpPartials(b, loc, kind, scratch, tid, outRegs, warpMasks, laneBits,
                    phantomPartners ? threads : 0, acc);
    partitionBarrier(b, loc, reduce);
  }

  // Into D.
  for (int64_t k = 0; k < outRegs; ++k) {
    Value value = acc[k];
    if (!reduce.getClear())
      value =
          combine(b, loc, kind, kernel.loadRegister(b, loc, *dst, k), value);
    kernel.storeRegister(b, loc, *dst, k, value);
  }
  reduce.erase();
  return success();
}

/// T.finalize_reducer: each element's copies are partials held by the
/// threads that differ in the bits tile-infer-layouts recorded
/// (`tile.partial_threads`: with replication "all", the lanes and warps
/// that the updating loop spread over the reducer's dropped dimensions;
/// threads that ran the same iterations hold duplicates and are left
/// out). A thread's registers holding one element are one copy (the
/// first is read); then the same two levels as a reduction, xor shuffles across
/// the lane bits and shared scratch across the warp bits. Every holder
/// ends with the total, stored back into each register.
LogicalResult lowerFinalize(KernelLowering &kernel, ScratchPool &pool,
                            tile::FinalizeReducerOp finalize) {
  const Fragment *frag = kernel.fragment(finalize.getReducer());
  if (!frag)
    return finalize.emitError("`T.finalize_reducer` needs a laid-out reducer "
                              "fragment");
  tile::ReduceKind kind = finalize.getReducerAttr().getKind();
  const Layout &layout = frag->layout;
  OpBuilder b(finalize);
  Location loc = finalize.getLoc();

  // Distinct elements of this thread: the first register holding each.
  SmallVector<int64_t> slotOf(layout.numRegisters());
  SmallVector<Value> acc;
  llvm::DenseMap<uint64_t, int64_t> slotOfFlat;
  for (int64_t r = 0; r < layout.numRegisters(); ++r) {
    auto [it, fresh] =
        slotOfFlat.try_emplace(layout.regFlat(r), int64_t(acc.size()));
    slotOf[r] = it->second;
    if (fresh)
      acc.push_back(kernel.loadRegister(b, loc, *frag, r));
  }
  int64_t slots = acc.size();

  // The thread bits whose copies are partials, as tile-infer-layouts
  // decided them (InferLayouts.cpp, planFinalizes): one xor mask each, in
  // lane units below the lane bits and warp units above.
  auto partial = finalize->getAttrOfType<IntegerAttr>("tile.partial_threads");
  if (!partial)
    return finalize.emitError("`T.finalize_reducer` before the layout "
                              "inference decided which copies it combines");
  int64_t laneBits = log2Exact(layout.numLanes());
  SmallVector<int64_t> laneMasks, warpMasks;
  for (int64_t bit = 0; bit < int64_t(layout.threadBases().size()); ++bit)
    if (partial.getInt() >> bit & 1)
      (bit < laneBits ? laneMasks : warpMasks)
          .push_back(bit < laneBits ? int64_t(1) << bit
                                    : int64_t(1) << (bit - laneBits));
  for (int64_t mask : laneMasks)
    for (Value &slot : acc)
      slot = combine(b, loc, kind, slot,
                     shuffleXor(b, loc, slot, mask, layout.numLanes()));
  if (!warpMasks.empty()) {
    if (layout.numThreads() < layout.spannedThreads())
      return finalize.emitError()
             << "cannot combine the copies of reducer `" << frag->name
             << "` across warps: its " << layout.numWarps()
             << " warps are laid out as "
             << layout.spannedThreads() / layout.numLanes()
             << "; use a power-of-two number of warps";
    Type type = frag->elementType;
    Value scratch =
        scratchFor(kernel, pool, finalize, type, layout.numThreads() * slots);
    Value tid = kernel.threadId();
    Value base = arith::MulIOp::create(b, loc, tid, constIndex(b, loc, slots));
    for (int64_t k = 0; k < slots; ++k)
      memref::StoreOp::create(b, loc, acc[k], scratch,
                              ValueRange{arith::AddIOp::create(
                                  b, loc, base, constIndex(b, loc, k))});
    gpu::BarrierOp::create(b, loc);
    addWarpPartials(b, loc, kind, scratch, tid, slots, warpMasks, laneBits,
                    /*threads=*/0, acc);
    gpu::BarrierOp::create(b, loc);
  }
  for (int64_t r = 0; r < layout.numRegisters(); ++r)
    kernel.storeRegister(b, loc, *frag, r, acc[slotOf[r]]);
  finalize.erase();
  return success();
}

} // namespace

LogicalResult simt::lowerReductions(KernelLowering &kernel) {
  SmallVector<Operation *> ops;
  kernel.getFunc().walk([&](Operation *op) {
    if (isa<tile::ReduceOp, tile::FinalizeReducerOp>(op))
      ops.push_back(op);
  });
  ScratchPool pool;
  for (Operation *op : ops) {
    LogicalResult done =
        isa<tile::ReduceOp>(op)
            ? lowerReduce(kernel, pool, cast<tile::ReduceOp>(op))
            : lowerFinalize(kernel, pool, cast<tile::FinalizeReducerOp>(op));
    if (failed(done))
      return failure();
  }
  return success();
}
