//===- LowerScan.cpp - tile-lower-simt: T.cumsum / T.cummax ---------------===//
//
// A prefix scan of a shared buffer along `dim` (tile-decompose-scan stages
// fragments through shared memory), read once and written once:
//
// - Along the last dimension (lines are contiguous): a group of g lanes of
//   one warp owns a line; chunk by chunk each lane loads V consecutive
//   elements (one 16-byte vector), scans them in registers, and the group
//   scans the lanes' totals with g-1 shuffles up (Hillis-Steele, log2 g
//   steps); the chunk's total, read from the group's last lane, carries into
//   the next chunk. g is the number of vectors of a line up to the warp
//   size, so short lines put several groups in a warp.
// - Along another dimension (elements of a line are `inner` apart): each
//   thread owns V consecutive columns (a 16-byte vector, so a warp reads
//   consecutive vectors: no bank conflicts) and walks down the line
//   accumulating in registers, a batch of rows loaded before it is scanned.
//
// When there are fewer lines than groups (threads), each line is split into
// P segments, P a power of two: every segment first reduces its part (or,
// when it fits in registers, scans it and keeps it), writes its total to a
// shared scratch buffer, a barrier, then adds the totals of the segments
// before it as the carry while it scans (or fixes up its registers). The
// barrier is among all threads of the block, so a scan under a condition on
// the thread index keeps P = 1.
//
// Combination order differs from a serial scan (the lanes' totals are
// combined as a tree), so float sums round differently, as any parallel
// scan's do. Identities: -0.0 for float sums (exact: -0.0 + x == x), NaN for
// the float maximum (maxnum(NaN, x) == x), 0 and the smallest integer for
// integers.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

int64_t pow2Floor(int64_t v) { return v < 1 ? 1 : int64_t(1) << llvm::Log2_64(v); }
int64_t pow2Ceil(int64_t v) { return v <= 1 ? 1 : int64_t(1) << llvm::Log2_64_Ceil(v); }
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct ScanLowering {
  KernelLowering &kernel;
  tile::ScanOp scan;
  OpBuilder &b;
  Location loc;
  Type type; // the source element type: the scan accumulates in it
  int64_t warp;

  Value c(int64_t v) { return constIndex(b, loc, v); }

  Value identity() {
    if (auto ft = dyn_cast<FloatType>(type)) {
      const llvm::fltSemantics &sem = ft.getFloatSemantics();
      APFloat value = scan.getKind() == tile::ScanKind::sum
                          ? APFloat::getZero(sem, /*Negative=*/true)
                          : APFloat::getQNaN(sem);
      return arith::ConstantOp::create(b, loc, type,
                                       b.getFloatAttr(type, value));
    }
    unsigned bits = type.getIntOrFloatBitWidth();
    APInt value = scan.getKind() == tile::ScanKind::sum
                      ? APInt::getZero(bits)
                      : APInt::getSignedMinValue(bits);
    return arith::ConstantOp::create(b, loc, type,
                                     b.getIntegerAttr(type, value));
  }

  Value combine(Value acc, Value x) {
    bool isFloat = isa<FloatType>(type);
    if (scan.getKind() == tile::ScanKind::sum)
      return isFloat ? Value(arith::AddFOp::create(b, loc, acc, x))
                     : Value(arith::AddIOp::create(b, loc, acc, x));
    return isFloat ? Value(arith::MaxNumFOp::create(b, loc, acc, x))
                   : Value(arith::MaxSIOp::create(b, loc, acc, x));
  }

  /// gpu.shuffle over the whole warp, widening values narrower than 32 bits.
  Value shuffle(Value v, Value offset, gpu::ShuffleMode mode) {
    unsigned bits = type.getIntOrFloatBitWidth();
    Value wide = v;
    if (bits < 32)
      wide = castScalar(b, loc, v,
                        isa<FloatType>(type) ? Type(b.getF32Type())
                                             : Type(b.getI32Type()));
    Value off =
        arith::IndexCastOp::create(b, loc, b.getI32Type(), offset);
    Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), warp);
    Value result =
        gpu::ShuffleOp::create(b, loc, wide, off, width, mode)
            .getShuffleResult();
    return bits < 32 ? castScalar(b, loc, result, type) : result;
  }

  /// Row-major coordinates of `flat` in `extents` (none for no extents).
  SmallVector<Value> unflatten(Value flat, ArrayRef<int64_t> extents) {
    SmallVector<Value> coords(extents.size());
    int64_t stride = 1;
    for (size_t d = extents.size(); d-- > 0;) {
      Value x = stride == 1 ? flat
                            : Value(arith::DivUIOp::create(b, loc, flat,
                                                           c(stride)));
      if (d > 0)
        x = arith::RemUIOp::create(b, loc, x, c(extents[d]));
      coords[d] = x;
      stride *= extents[d];
    }
    return coords;
  }

  /// `vec` elements from `index` (along the last dimension); the identity
  /// where `valid` is false.
  SmallVector<Value> load(Value buffer, ValueRange index, int64_t vec,
                          Value valid) {
    auto emit = [&]() -> SmallVector<Value> {
      auto elem = cast<MemRefType>(buffer.getType()).getElementType();
      SmallVector<Value> out;
      if (vec == 1) {
        out.push_back(memref::LoadOp::create(b, loc, buffer, index));
      } else {
        auto vt = VectorType::get({vec}, elem);
        Value v = vector::LoadOp::create(
            b, loc, vt, buffer, index, false,
            llvm::MaybeAlign(vec * elem.getIntOrFloatBitWidth() / 8));
        for (int64_t k = 0; k < vec; ++k)
          out.push_back(vector::ExtractOp::create(b, loc, v, k));
      }
      for (Value &x : out)
        x = castScalar(b, loc, x, type);
      return out;
    };
    if (!valid)
      return emit();
    SmallVector<Type> types(vec, type);
    auto ifOp = scf::IfOp::create(b, loc, types, valid, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      SmallVector<Value> values = emit();
      scf::YieldOp::create(b, loc, values);
      b.setInsertionPointToStart(ifOp.elseBlock());
      SmallVector<Value> ids(vec, identity());
      scf::YieldOp::create(b, loc, ids);
    }
    return SmallVector<Value>(ifOp.getResults());
  }

  void store(Value buffer, ValueRange index, ArrayRef<Value> values,
             Value valid) {
    auto elem = cast<MemRefType>(buffer.getType()).getElementType();
    OpBuilder::InsertionGuard g(b);
    if (valid) {
      auto ifOp = scf::IfOp::create(b, loc, valid, /*withElse=*/false);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    SmallVector<Value> cast;
    for (Value v : values)
      cast.push_back(castScalar(b, loc, v, elem));
    if (cast.size() == 1) {
      memref::StoreOp::create(b, loc, cast[0], buffer, index);
      return;
    }
    int64_t vec = cast.size();
    auto vt = VectorType::get({vec}, elem);
    Value packed = vector::FromElementsOp::create(b, loc, vt, cast);
    vector::StoreOp::create(
        b, loc, packed, buffer, index, false,
        llvm::MaybeAlign(vec * elem.getIntOrFloatBitWidth() / 8));
  }

  Value andOf(Value x, Value y) {
    if (!x)
      return y;
    if (!y)
      return x;
    return arith::AndIOp::create(b, loc, x, y);
  }
  Value ult(Value x, int64_t bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 c(bound));
  }

  /// A loop over [0, count) (unrolled when at most `unroll`) carrying
  /// `acc`: `body` gets the index and the values and returns the next ones.
  SmallVector<Value>
  loop(int64_t count, int64_t unroll, SmallVector<Value> acc,
       function_ref<SmallVector<Value>(Value, SmallVector<Value>)> body) {
    if (count <= unroll) {
      for (int64_t k = 0; k < count; ++k)
        acc = body(c(k), acc);
      return acc;
    }
    auto forOp = scf::ForOp::create(
        b, loc, c(0), c(count), c(1), acc,
        [&](OpBuilder &nb, Location, Value iv, ValueRange args) {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToEnd(nb.getInsertionBlock());
          SmallVector<Value> next = body(iv, SmallVector<Value>(args));
          scf::YieldOp::create(b, loc, next);
        });
    return SmallVector<Value>(forOp.getResults());
  }

  LogicalResult lowerContiguous(Value tid, int64_t threads, bool guarded);
  LogicalResult lowerStrided(Value tid, int64_t threads, bool guarded);
};

//===----------------------------------------------------------------------===//
// Along the last dimension: warp shuffles
//===----------------------------------------------------------------------===//

LogicalResult ScanLowering::lowerContiguous(Value tid, int64_t threads,
                                            bool guarded) {
  Value src = scan.getSrc(), dst = scan.getDst();
  ArrayRef<int64_t> shape = cast<MemRefType>(src.getType()).getShape();
  SmallVector<int64_t> outerShape(shape.drop_back());
  int64_t n = shape.back();
  int64_t outer = 1;
  for (int64_t e : outerShape)
    outer *= e;
  int64_t bytes = std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  int64_t dstBytes = std::max<int64_t>(
      1, cast<MemRefType>(dst.getType()).getElementTypeBitWidth() / 8);
  int64_t vec = std::max<int64_t>(1, 16 / std::max(bytes, dstBytes));
  while (vec > 1 && n % vec != 0)
    vec /= 2;
  int64_t nv = n / vec;
  int64_t g = std::min(warp, pow2Ceil(nv));
  int64_t groupsPerWarp = warp / g;
  int64_t units = threads / warp * groupsPerWarp;
  int64_t chunks = ceilDiv(nv, g);
  int64_t segs = 1;
  if (!guarded && outer < units)
    segs = std::min(pow2Floor(units / outer), pow2Floor(chunks));
  int64_t perSeg = ceilDiv(chunks, segs);
  int64_t slots = units / segs;
  int64_t linesPerSlot = ceilDiv(outer, slots);
  bool reverse = scan.getReverse();

  Value lane = arith::RemUIOp::create(b, loc, tid, c(warp));
  Value sub = g == warp ? lane : Value(arith::RemUIOp::create(b, loc, lane, c(g)));
  Value unit = arith::DivUIOp::create(b, loc, tid, c(g));
  Value seg = segs == 1 ? c(0)
                        : Value(arith::RemUIOp::create(b, loc, unit, c(segs)));
  Value slot = segs == 1 ? unit
                         : Value(arith::DivUIOp::create(b, loc, unit, c(segs)));
  // The group's last lane, whose inclusive total is the chunk's.
  Value last = arith::OrIOp::create(b, loc, lane, c(g - 1));

  // Shared scratch for the segments' totals: [slot line][segment].
  Value scratch;
  if (segs > 1) {
    Block &entry = kernel.getFunc().getBody().front();
    Operation *top = entry.findAncestorOpInBlock(*scan);
    OpBuilder ab(top);
    scratch = tile::AllocOp::create(
                  ab, loc,
                  tile::getBufferType({slots * segs}, type,
                                      tile::MemorySpace::shared),
                  "scan_carries")
                  .getResult();
  }

  auto lineOf = [&](Value k) {
    return linesPerSlot == 1
               ? slot
               : Value(arith::AddIOp::create(
                     b, loc, slot, arith::MulIOp::create(b, loc, k, c(slots))));
  };
  auto lineValid = [&](Value line) -> Value {
    return linesPerSlot * slots != outer ? ult(line, outer) : Value();
  };
  // Element index of logical vector `lv` of `line` and whether it exists.
  auto position = [&](Value line, Value chunk)
      -> std::pair<SmallVector<Value>, Value> {
    Value lv = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, chunk, c(g)), sub);
    Value valid = lineValid(line);
    if (nv % g != 0 || segs * perSeg != chunks)
      valid = andOf(valid, ult(lv, nv));
    Value pv = reverse ? Value(arith::SubIOp::create(b, loc, c(nv - 1), lv))
                       : lv;
    SmallVector<Value> index = unflatten(line, outerShape);
    index.push_back(arith::MulIOp::create(b, loc, pv, c(vec)));
    return {index, valid};
  };
  // This lane's elements in scan order.
  auto ordered = [&](SmallVector<Value> xs) {
    if (reverse)
      std::reverse(xs.begin(), xs.end());
    return xs;
  };
  auto chunkOf = [&](Value k) {
    return segs == 1 ? k
                     : Value(arith::AddIOp::create(
                           b, loc, arith::MulIOp::create(b, loc, seg, c(perSeg)),
                           k));
  };

  loop(linesPerSlot, 4, {}, [&](Value k, SmallVector<Value>) {
    Value line = lineOf(k);
    Value carry = identity();
    if (segs > 1) {
      // Phase 1: this segment's total (lane partials, then a butterfly).
      Value part = loop(perSeg, 2, {identity()},
                        [&](Value j, SmallVector<Value> acc) {
                          auto [index, valid] = position(line, chunkOf(j));
                          for (Value x : load(src, index, vec, valid))
                            acc[0] = combine(acc[0], x);
                          return acc;
                        })[0];
      for (int64_t mask = 1; mask < g; mask *= 2)
        part = combine(part, shuffle(part, c(mask), gpu::ShuffleMode::XOR));
      Value base = arith::MulIOp::create(b, loc, slot, c(segs));
      Value writer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           sub, c(0));
      store(scratch, ValueRange{arith::AddIOp::create(b, loc, base, seg)},
            {part}, writer);
      gpu::BarrierOp::create(b, loc);
      for (int64_t s = 0; s + 1 < segs; ++s) {
        Value other = memref::LoadOp::create(
            b, loc, scratch,
            ValueRange{arith::AddIOp::create(b, loc, base, c(s))});
        Value before =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c(s), seg);
        carry = arith::SelectOp::create(b, loc, before, combine(carry, other),
                                        carry);
      }
    }
    // Phase 2 (the only one with one segment): scan chunk by chunk.
    loop(perSeg, 2, {carry}, [&](Value j, SmallVector<Value> acc) {
      Value carryIn = acc[0];
      auto [index, valid] = position(line, chunkOf(j));
      SmallVector<Value> xs = ordered(load(src, index, vec, valid));
      for (size_t e = 1; e < xs.size(); ++e)
        xs[e] = combine(xs[e - 1], xs[e]);
      Value incl = xs.back();
      for (int64_t off = 1; off < g; off *= 2) {
        Value up = shuffle(incl, c(off), gpu::ShuffleMode::UP);
        Value take = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                           sub, c(off));
        incl = arith::SelectOp::create(b, loc, take, combine(up, incl), incl);
      }
      Value prefix = carryIn;
      if (g > 1) {
        Value up = shuffle(incl, c(1), gpu::ShuffleMode::UP);
        Value first =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, sub, c(0));
        prefix = arith::SelectOp::create(b, loc, first, carryIn,
                                         combine(carryIn, up));
      }
      SmallVector<Value> out;
      for (Value x : xs)
        out.push_back(combine(prefix, x));
      store(dst, index, ordered(out), valid);
      Value total = g > 1 ? shuffle(incl, last, gpu::ShuffleMode::IDX) : incl;
      return SmallVector<Value>{combine(carryIn, total)};
    });
    return SmallVector<Value>{};
  });
  return success();
}

//===----------------------------------------------------------------------===//
// Along another dimension: a thread per column vector
//===----------------------------------------------------------------------===//

LogicalResult ScanLowering::lowerStrided(Value tid, int64_t threads,
                                         bool guarded) {
  Value src = scan.getSrc(), dst = scan.getDst();
  ArrayRef<int64_t> shape = cast<MemRefType>(src.getType()).getShape();
  int64_t dim = scan.getDim();
  SmallVector<int64_t> outerShape(shape.begin(), shape.begin() + dim);
  SmallVector<int64_t> innerShape(shape.begin() + dim + 1, shape.end());
  int64_t n = shape[dim], outer = 1, inner = 1;
  for (int64_t e : outerShape)
    outer *= e;
  for (int64_t e : innerShape)
    inner *= e;
  int64_t bytes = std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  int64_t dstBytes = std::max<int64_t>(
      1, cast<MemRefType>(dst.getType()).getElementTypeBitWidth() / 8);
  int64_t vec = std::max<int64_t>(1, 16 / std::max(bytes, dstBytes));
  while (vec > 1 && shape.back() % vec != 0)
    vec /= 2;
  int64_t groups = inner / vec;
  int64_t lines = outer * groups;
  int64_t segs = 1;
  if (!guarded && lines < threads)
    segs = std::min(pow2Floor(threads / lines), pow2Floor(n));
  int64_t rows = ceilDiv(n, segs);
  int64_t slots = segs == 1 ? threads : lines;
  int64_t linesPerSlot = ceilDiv(lines, slots);
  bool reverse = scan.getReverse();
  // Segments short enough stay in registers between the two phases.
  bool keep = segs > 1 && rows * vec <= 64;
  constexpr int64_t kBatch = 8;
  // With several segments every line has a slot of its own (slots = lines),
  // so no scratch is reused between the lines of one thread.

  Value slot = segs == 1 ? tid
                         : Value(arith::RemUIOp::create(b, loc, tid, c(lines)));
  Value seg = segs == 1 ? c(0)
                        : Value(arith::DivUIOp::create(b, loc, tid, c(lines)));
  Value scratch;
  if (segs > 1) {
    Block &entry = kernel.getFunc().getBody().front();
    Operation *top = entry.findAncestorOpInBlock(*scan);
    OpBuilder ab(top);
    scratch = tile::AllocOp::create(
                  ab, loc,
                  tile::getBufferType({segs * lines * vec}, type,
                                      tile::MemorySpace::shared),
                  "scan_carries")
                  .getResult();
  }
  // Threads past the segments' lines (threads not a multiple of lines).
  Value active = segs > 1 && segs * lines != threads ? ult(tid, segs * lines)
                                                     : Value();

  auto indexOf = [&](Value line, Value row) {
    Value o = outer == 1 ? c(0)
                         : Value(arith::DivUIOp::create(b, loc, line, c(groups)));
    Value grp = outer == 1 ? line
                           : Value(arith::RemUIOp::create(b, loc, line, c(groups)));
    SmallVector<Value> index = unflatten(o, outerShape);
    Value physical =
        reverse ? Value(arith::SubIOp::create(b, loc, c(n - 1), row)) : row;
    index.push_back(physical);
    SmallVector<Value> in = unflatten(
        arith::MulIOp::create(b, loc, grp, c(vec)), innerShape);
    index.append(in.begin(), in.end());
    return index;
  };
  auto rowOf = [&](Value r) {
    return segs == 1 ? r
                     : Value(arith::AddIOp::create(
                           b, loc, arith::MulIOp::create(b, loc, seg, c(rows)), r));
  };
  auto rowValid = [&](Value row) -> Value {
    return segs * rows != n ? ult(row, n) : Value();
  };

  loop(linesPerSlot, 4, {}, [&](Value k, SmallVector<Value>) {
    Value line = linesPerSlot == 1
                     ? slot
                     : Value(arith::AddIOp::create(
                           b, loc, slot, arith::MulIOp::create(b, loc, k, c(slots))));
    Value valid = andOf(active, linesPerSlot * slots != lines
                                    ? ult(line, lines)
                                    : Value());
    SmallVector<Value> carry(vec, identity());
    SmallVector<SmallVector<Value>> kept;
    if (segs > 1) {
      // Phase 1: the segment's totals, per column (its scan, when kept).
      SmallVector<Value> part(vec, identity());
      if (keep) {
        for (int64_t r = 0; r < rows; ++r) {
          Value row = rowOf(c(r));
          kept.push_back(load(src, indexOf(line, row), vec,
                              andOf(valid, rowValid(row))));
        }
        for (auto &xs : kept)
          for (int64_t v = 0; v < vec; ++v)
            part[v] = xs[v] = combine(part[v], xs[v]);
      } else {
        part = loop(rows, 0, part, [&](Value r, SmallVector<Value> acc) {
          Value row = rowOf(r);
          SmallVector<Value> xs =
              load(src, indexOf(line, row), vec, andOf(valid, rowValid(row)));
          for (int64_t v = 0; v < vec; ++v)
            acc[v] = combine(acc[v], xs[v]);
          return acc;
        });
      }
      Value at = arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc,
                                arith::MulIOp::create(b, loc, seg, c(lines)),
                                slot),
          c(vec));
      store(scratch, ValueRange{at}, part, active);
      gpu::BarrierOp::create(b, loc);
      for (int64_t s = 0; s + 1 < segs; ++s) {
        Value other = arith::MulIOp::create(
            b, loc, arith::AddIOp::create(b, loc, c(s * lines), slot), c(vec));
        SmallVector<Value> totals =
            load(scratch, ValueRange{other}, vec, active);
        Value before =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c(s), seg);
        for (int64_t v = 0; v < vec; ++v)
          carry[v] = arith::SelectOp::create(
              b, loc, before, combine(carry[v], totals[v]), carry[v]);
      }
      if (keep) {
        for (int64_t r = 0; r < rows; ++r) {
          Value row = rowOf(c(r));
          SmallVector<Value> out;
          for (int64_t v = 0; v < vec; ++v)
            out.push_back(combine(carry[v], kept[r][v]));
          store(dst, indexOf(line, row), out, andOf(valid, rowValid(row)));
        }
        return SmallVector<Value>{};
      }
    }
    // Scan down the segment in batches of rows: loads first, then the
    // running combination and the stores.
    int64_t batch = std::min(rows, kBatch);
    int64_t batches = rows / batch, rest = rows % batch;
    auto runBatch = [&](Value first, int64_t count, SmallVector<Value> acc) {
      SmallVector<SmallVector<Value>> xs;
      SmallVector<Value> rowsIn;
      for (int64_t r = 0; r < count; ++r) {
        Value row = rowOf(arith::AddIOp::create(b, loc, first, c(r)));
        rowsIn.push_back(row);
        xs.push_back(load(src, indexOf(line, row), vec,
                          andOf(valid, rowValid(row))));
      }
      for (int64_t r = 0; r < count; ++r) {
        for (int64_t v = 0; v < vec; ++v)
          acc[v] = xs[r][v] = combine(acc[v], xs[r][v]);
        store(dst, indexOf(line, rowsIn[r]), xs[r],
              andOf(valid, rowValid(rowsIn[r])));
      }
      return acc;
    };
    carry = loop(batches, 1, carry, [&](Value i, SmallVector<Value> acc) {
      return runBatch(arith::MulIOp::create(b, loc, i, c(batch)), batch, acc);
    });
    if (rest)
      runBatch(c(batches * batch), rest, carry);
    return SmallVector<Value>{};
  });
  return success();
}

LogicalResult lowerScan(KernelLowering &kernel, const TargetInfo &target,
                        tile::ScanOp scan) {
  for (Value buffer : {scan.getSrc(), scan.getDst()})
    if (!isSpace(buffer, tile::MemorySpace::shared))
      return scan.emitError("the SIMT lowering scans shared buffers only; "
                            "run tile-decompose-scan first");
  auto srcType = cast<MemRefType>(scan.getSrc().getType());
  if (!srcType.hasStaticShape())
    return scan.emitError("needs a statically shaped source");
  if (!srcType.getElementType().isIntOrFloat())
    return scan.emitError("scans integers and floats only");
  FailureOr<ThreadSpan> span = threadSpan(kernel, scan);
  if (failed(span))
    return failure();
  int64_t warp = target.warpSize();
  bool guarded = span->count != kernel.getThreads();
  if (!guarded && span->count % warp)
    return scan.emitError() << "a scan needs whole warps: the block's "
                            << span->count << " threads are not a multiple of "
                            << warp;
  if (span->begin % warp || span->count % warp)
    return scan.emitError()
           << "this scan runs on threads [" << span->begin << ", "
           << span->begin + span->count
           << ") only; under a condition on the thread index it needs whole "
              "warps (multiples of "
           << warp << " threads)";
  OpBuilder b(scan);
  Location loc = scan.getLoc();
  Value tid = kernel.threadId();
  if (span->begin)
    tid = arith::SubIOp::create(b, loc, tid, constIndex(b, loc, span->begin));
  // Threads outside the span skip the scan: its shuffles and segment
  // barriers (none under a guard) stay among the span's warps.
  ScanLowering lowering{kernel, scan, b, loc, srcType.getElementType(),
                        int64_t(warp)};
  bool last = int64_t(scan.getDim()) == srcType.getRank() - 1;
  LogicalResult result =
      last ? lowering.lowerContiguous(tid, span->count, guarded)
           : lowering.lowerStrided(tid, span->count, guarded);
  if (succeeded(result))
    scan.erase();
  return result;
}

} // namespace

LogicalResult simt::lowerScans(KernelLowering &kernel,
                               const TargetInfo &target) {
  SmallVector<tile::ScanOp> scans;
  kernel.getFunc().walk([&](tile::ScanOp op) { scans.push_back(op); });
  for (tile::ScanOp scan : scans)
    if (failed(lowerScan(kernel, target, scan)))
      return failure();
  return success();
}
