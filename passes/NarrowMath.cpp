//===- NarrowMath.cpp - tile-lower-simt: math whose result is rounded -----===//
//
// Epilogues compute in fp32 and round to fp16 / bf16 on the store: GELU's
// x / (1 + exp(-k * (x + c * x^3))) is an IEEE division (div.rn.f32: a
// dozen instructions and a slow-path branch) and libdevice's accurate expf
// (range reduction, about eight instructions) per element, more than the
// GEMM's own instructions per thread at K = 1024. Their exactness is lost
// in the rounding to 11 (fp16) or 8 (bf16) significant bits, so where a
// value reaches memory only through such a rounding this file lets the
// exponential be the hardware's (`afn`: ex2.approx of x * log2 e, relative
// error below 2^-17 for arguments down to -88, results below 2^-126 flushed)
// and the division be an approximate one (`afn`: a * rcp(b), 2 ulp) when its
// denominator is provably at least 1 (1 + exp(...), the sigmoid form: no
// overflowing reciprocal, x / inf stays 0). The fp32 value then differs from
// the IEEE one by less than 2^-17 relative, so its fp16 / bf16 rounding is
// the same, or the neighbouring value (1 ulp) when the fp32 value lies that
// close to a rounding midpoint (docs/language.md, section 8.4).
//
// "Reaches memory only through such a rounding": a float op of a
// T.Parallel body all of whose uses are such ops, `arith.truncf` to a 16-bit
// float, or a store into a buffer F whose later contents are only copied
// into 16-bit float buffers: every use of F after the loop (and, when the
// loop sits in other loops, every other use of F in the outermost one) is a
// T.copy from F into a float16 / bfloat16 buffer, or, before the loop in its
// own block, a T.copy or T.fill that overwrites F; the loop's own loads of
// F read the element it stores (same indices). --fast-math relaxes every
// float op anyway; this is the default.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

bool isNarrowFloat(Type type) { return type.isF16() || type.isBF16(); }

bool narrowDestination(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && isNarrowFloat(type.getElementType());
}

/// Whether `op` is a T.copy out of `buffer` into a 16-bit float buffer.
bool narrowCopyOut(Operation *op, Value buffer) {
  auto copy = dyn_cast<tile::CopyOp>(op);
  return copy && copy.getSrc() == buffer && copy.getDst() != buffer &&
         narrowDestination(copy.getDst());
}

/// Whether `op` overwrites `buffer` without reading it.
bool overwrites(Operation *op, Value buffer) {
  if (auto copy = dyn_cast<tile::CopyOp>(op))
    return copy.getDst() == buffer && copy.getSrc() != buffer;
  if (auto fill = dyn_cast<tile::FillOp>(op))
    return fill.getDst() == buffer;
  return false;
}

/// Whether what `loop` stores into `buffer` is seen only by copies into
/// 16-bit float buffers.
bool onlyRoundedLater(tile::ParallelOp loop, Value buffer,
                      memref::StoreOp store) {
  // The loop's own loads of the buffer read the stored element only.
  bool ownElement = true;
  loop.getBody()->walk([&](memref::LoadOp load) {
    if (load.getMemRef() == buffer &&
        !llvm::equal(load.getIndices(), store.getIndices()))
      ownElement = false;
  });
  if (!ownElement)
    return false;
  auto func = loop->getParentOfType<gpu::GPUFuncOp>();
  Block &entry = func.getBody().front();
  Operation *outer = entry.findAncestorOpInBlock(*loop);
  if (!outer)
    return false;
  for (Operation *user : buffer.getUsers()) {
    if (loop->isAncestor(user) || isa<tile::AllocOp>(user))
      continue;
    if (narrowCopyOut(user, buffer))
      continue;
    Operation *top = entry.findAncestorOpInBlock(*user);
    if (!top)
      return false;
    if (top == outer) {
      // Inside the same outermost loop: an overwrite before `loop` in its
      // own block is fine; anything else may see the stored values.
      if (user->getBlock() == loop->getBlock() &&
          user->isBeforeInBlock(loop) && overwrites(user, buffer))
        continue;
      return false;
    }
    if (outer->isBeforeInBlock(top))
      return false; // a later reader that is not a rounding copy
  }
  return true;
}

/// b >= 1 (or NaN) provably: constants >= 1, and sums of one such term and
/// terms >= 0.
bool atLeast(Value value, double bound) {
  FloatAttr constant;
  if (matchPattern(value, m_Constant(&constant)))
    return constant.getValueAsDouble() >= bound;
  Operation *op = value.getDefiningOp();
  if (!op)
    return false;
  if (bound <= 0 && isa<math::ExpOp, math::Exp2Op>(op))
    return true;
  if (auto add = dyn_cast<arith::AddFOp>(op))
    return (atLeast(add.getLhs(), bound) && atLeast(add.getRhs(), 0)) ||
           (atLeast(add.getRhs(), bound) && atLeast(add.getLhs(), 0));
  return false;
}

void relax(Operation *op) {
  auto fm = cast<arith::ArithFastMathInterface>(op);
  arith::FastMathFlags flags = arith::FastMathFlags::none;
  if (arith::FastMathFlagsAttr attr = fm.getFastMathFlagsAttr())
    flags = attr.getValue();
  op->setAttr(fm.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(op->getContext(),
                                            flags | arith::FastMathFlags::afn));
}

void relaxLoop(tile::ParallelOp loop) {
  // Stores whose value is rounded before anyone reads it.
  DenseSet<Operation *> sinks;
  loop.getBody()->walk([&](memref::StoreOp store) {
    // A buffer of the kernel (a global tensor outlives it).
    Value buffer = store.getMemRef();
    if (buffer.getDefiningOp<tile::AllocOp>() &&
        isa<FloatType>(store.getValueToStore().getType()) &&
        !narrowDestination(buffer) && onlyRoundedLater(loop, buffer, store))
      sinks.insert(store);
  });
  auto isSink = [&](Operation *user) {
    if (sinks.contains(user))
      return true;
    auto trunc = dyn_cast<arith::TruncFOp>(user);
    return trunc && isNarrowFloat(trunc.getType());
  };
  // Float ops all of whose uses end in a rounding, to a fixpoint.
  DenseSet<Operation *> rounded;
  SmallVector<Operation *> ops;
  loop.getBody()->walk([&](Operation *op) {
    if (op->getNumResults() == 1 && isa<FloatType>(op->getResult(0).getType()) &&
        isMemoryEffectFree(op) && op->getNumRegions() == 0)
      ops.push_back(op);
  });
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation *op : llvm::reverse(ops)) {
      if (rounded.contains(op) || op->use_empty())
        continue;
      if (llvm::all_of(op->getUsers(), [&](Operation *user) {
            return isSink(user) || rounded.contains(user);
          })) {
        rounded.insert(op);
        changed = true;
      }
    }
  }
  for (Operation *op : ops) {
    if (!rounded.contains(op) || !op->getResult(0).getType().isF32())
      continue;
    if (isa<math::ExpOp, math::Exp2Op>(op))
      relax(op);
    else if (auto div = dyn_cast<arith::DivFOp>(op);
             div && atLeast(div.getRhs(), 1.0))
      relax(op);
  }
}

} // namespace

void simt::relaxRoundedMath(gpu::GPUFuncOp func) {
  func.walk([](tile::ParallelOp loop) { relaxLoop(loop); });
}
