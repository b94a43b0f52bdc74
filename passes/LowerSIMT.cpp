//===- LowerSIMT.cpp - tile-lower-simt: tile ops in kernels to SIMT code --===//
//
// Algorithm, per gpu.func kernel:
//  1. T.ws regions become branches on the thread index (LowerHopper.cpp).
//  2. tile.for / tile.pipelined -> scf.for, unrolling `unroll` and
//     `vectorized` loops with static bounds (so their induction variables
//     are constants wherever they index registers).
//  3. Give each fragment a register array (memref.alloca of its layout's
//     register count) at the kernel's entry and compute, once per layout
//     and dimension, this thread's part of the coordinates from the thread
//     id (the layout is linear: coordinate = register part XOR thread part).
//  4. Lower tile.parallel loops, then copies and fills, reductions, and
//     the remaining ops (LowerParallel.cpp, LowerCopy.cpp, LowerReduce.cpp,
//     LowerMisc.cpp), each reading the layouts recorded by
//     tile-infer-layouts; erase the fragment allocs (an access left outside
//     those ops is an error); lower local buffers to memref.alloca.
// Every register index emitted is a compile-time constant, so LLVM's SROA
// turns each register array into SSA values (no local memory).
//
//===----------------------------------------------------------------------===//

#include "GemmLayouts.h"
#include "GemmLowering.h"
#include "Partitions.h"
#include "SIMTLowering.h"

#include "tilec/Passes/Passes.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-lower-simt"

namespace tilec {
#define GEN_PASS_DEF_TILELOWERSIMT
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

//===----------------------------------------------------------------------===//
// KernelLowering
//===----------------------------------------------------------------------===//

namespace {
/// Keeps KernelLowering's entry insertion point after the newest entry op.
struct EntryListener : OpBuilder::Listener {
  explicit EntryListener(Operation *&last) : last(last) {}
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    if (op->getBlock() == last->getBlock())
      last = op;
  }
  Operation *&last;
};
} // namespace

KernelLowering::KernelLowering(gpu::GPUFuncOp func, int64_t threads,
                               const LowerOptions &options)
    : func(func), threads(threads), options(options) {
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  tid = gpu::ThreadIdOp::create(b, func.getLoc(), gpu::Dimension::x);
  lastEntryOp = tid.getDefiningOp();
}

OpBuilder KernelLowering::entryBuilder() {
  OpBuilder b(func.getContext());
  b.setInsertionPointAfter(lastEntryOp);
  return b;
}

void KernelLowering::buildAtEntry(
    llvm::function_ref<void(OpBuilder &)> build) {
  Operation *last = lastEntryOp;
  EntryListener listener(last);
  OpBuilder b = entryBuilder();
  b.setListener(&listener);
  build(b);
  lastEntryOp = last;
}

LogicalResult KernelLowering::addFragment(tile::AllocOp alloc) {
  tile::FragmentAttr attr = alloc.getLayoutAttr();
  if (!attr)
    return alloc.emitError() << "fragment `" << alloc.getName()
                             << "` has no layout; run tile-infer-layouts first";
  MemRefType type = alloc.getType();
  std::string error;
  std::optional<LinearLayout> linear =
      layoutFromAttr(attr, type.getShape(), error);
  // A fragment of a T.ws partition spreads over its threads only.
  int64_t owners = threadsOf(alloc, threads);
  std::optional<Layout> layout;
  if (linear)
    layout = Layout::get(*linear, type.getShape(), error, owners);
  if (layout)
    if (tile::PartitionAttr p = partitionOf(alloc))
      layout->setThreadBegin(p.getBegin());
  if (layout && layout->numThreads() != owners)
    error = "its layout spreads over " + std::to_string(layout->numThreads()) +
            " threads but " +
            (owners == threads ? "the kernel has " : "its T.ws partition has ") +
            std::to_string(owners);
  if (!error.empty())
    return alloc.emitError() << "invalid layout for fragment `"
                             << alloc.getName() << "`: " << error;
  Operation *last = lastEntryOp;
  EntryListener listener(last);
  OpBuilder b = entryBuilder();
  b.setListener(&listener);
  auto regsType =
      MemRefType::get({layout->numRegisters()}, type.getElementType());
  Value regs = memref::AllocaOp::create(b, alloc.getLoc(), regsType);
  lastEntryOp = last;
  frags.push_back(
      {alloc, Fragment{std::move(*layout), regs, alloc.getName().str(),
                       type.getElementType()}});
  return success();
}

LogicalResult KernelLowering::addView(tile::ReshapeOp view) {
  const Fragment *source = fragment(view.getSource());
  if (!source)
    return view.emitError() << "`" << view.getName()
                            << "` views no fragment tile-lower-simt knows";
  MemRefType type = cast<MemRefType>(view.getType());
  std::string error;
  std::optional<LinearLayout> linear =
      layoutFromAttr(view.getLayoutAttr(), type.getShape(), error);
  // The recorded layout must be the source's reshaped, so that the view
  // can share its registers; anything else is a decision this lowering
  // cannot follow.
  std::optional<LinearLayout> expected;
  if (linear)
    expected = reshapeDims(source->layout.linear(),
                           source->layout.shape(), type.getShape(), error);
  if (expected && !(*expected == *linear))
    error = "it is not the layout of `" + source->name +
            "` seen through the reshape";
  std::optional<Layout> layout;
  if (error.empty())
    layout = Layout::get(*linear, type.getShape(), error,
                         threadsOf(view, threads));
  if (layout)
    layout->setThreadBegin(source->layout.threadBegin());
  if (layout && layout->numRegisters() != source->layout.numRegisters())
    error = "it holds " + std::to_string(layout->numRegisters()) +
            " registers a thread, `" + source->name + "` " +
            std::to_string(source->layout.numRegisters());
  if (!error.empty())
    return view.emitError() << "invalid layout for the fragment view `"
                            << view.getName() << "`: " << error;
  frags.push_back({view, Fragment{std::move(*layout), source->registers,
                                  view.getName().str(),
                                  type.getElementType()}});
  return success();
}

const Fragment *KernelLowering::fragment(Value buffer) const {
  for (const auto &entry : frags)
    if (entry.first->getResult(0) == buffer)
      return &entry.second;
  return nullptr;
}

Value KernelLowering::layoutThreadId(const Layout &layout) {
  int64_t begin = layout.threadBegin();
  if (!begin)
    return tid;
  auto it = threadIdFrom.find(begin);
  if (it != threadIdFrom.end())
    return it->second;
  Value result;
  buildAtEntry([&](OpBuilder &b) {
    Location loc = func.getLoc();
    result = arith::SubIOp::create(b, loc, tid, constIndex(b, loc, begin));
  });
  threadIdFrom[begin] = result;
  return result;
}

Value KernelLowering::threadCoord(const Layout &layout, size_t dim) {
  std::vector<int64_t> bases;
  for (const auto &basis : layout.threadBases())
    bases.push_back(basis[dim]);
  auto key = std::make_pair(layout.threadBegin(), bases);
  auto it = threadCoordCache.find(key);
  if (it != threadCoordCache.end())
    return it->second;
  // Outside the partition this is garbage, which no one there reads.
  Value tid = layoutThreadId(layout);

  Operation *last = lastEntryOp;
  EntryListener listener(last);
  OpBuilder b = entryBuilder();
  b.setListener(&listener);
  Location loc = func.getLoc();
  // Runs of thread bits that land on consecutive coordinate bits become
  // one shift-mask-shift; anything else (zero bases aside) one term per
  // bit. Terms on disjoint bits are ORed, others XORed.
  Value result;
  int64_t mask = 0;
  auto add = [&](Value term, int64_t termMask) {
    if (!result)
      result = term;
    else if ((mask & termMask) == 0)
      result = arith::OrIOp::create(b, loc, result, term);
    else
      result = arith::XOrIOp::create(b, loc, result, term);
    mask |= termMask;
  };
  for (size_t bit = 0; bit < bases.size();) {
    int64_t c = bases[bit];
    if (c == 0) {
      ++bit;
      continue;
    }
    size_t run = 1;
    if (isPowerOfTwo(c))
      while (bit + run < bases.size() && bases[bit + run] == (c << run))
        ++run;
    Value shifted =
        arith::ShRUIOp::create(b, loc, tid, constIndex(b, loc, int64_t(bit)));
    Value field = arith::AndIOp::create(
        b, loc, shifted, constIndex(b, loc, (int64_t(1) << run) - 1));
    Value term = isPowerOfTwo(c)
                     ? Value(arith::ShLIOp::create(
                           b, loc, field, constIndex(b, loc, log2Exact(c))))
                     : Value(arith::MulIOp::create(b, loc, field,
                                                   constIndex(b, loc, c)));
    add(term, isPowerOfTwo(c) ? c * ((int64_t(1) << run) - 1) : c);
    bit += run;
  }
  if (!result)
    result = constIndex(b, loc, 0);
  lastEntryOp = last;
  threadCoordCache[key] = result;
  return result;
}

SmallVector<Value> KernelLowering::coords(OpBuilder &b, Location loc,
                                          const Layout &layout, int64_t r) {
  SmallVector<int64_t> regCoord = layout.unflatten(layout.regFlat(r));
  SmallVector<Value> result;
  for (size_t d = 0; d < layout.rank(); ++d) {
    if (layout.threadMask(d) == 0) {
      result.push_back(constIndex(b, loc, regCoord[d]));
      continue;
    }
    Value thread = threadCoord(layout, d);
    if (regCoord[d] == 0)
      result.push_back(thread);
    else if ((layout.registerMask(d) & layout.threadMask(d)) == 0)
      result.push_back(arith::AddIOp::create(b, loc, thread,
                                             constIndex(b, loc, regCoord[d])));
    else
      result.push_back(arith::XOrIOp::create(b, loc, thread,
                                             constIndex(b, loc, regCoord[d])));
  }
  return result;
}

Value KernelLowering::loadRegister(OpBuilder &b, Location loc,
                                   const Fragment &frag, int64_t k) {
  return memref::LoadOp::create(b, loc, frag.registers,
                                ValueRange{constIndex(b, loc, k)});
}

void KernelLowering::storeRegister(OpBuilder &b, Location loc,
                                   const Fragment &frag, int64_t k,
                                   Value value) {
  memref::StoreOp::create(b, loc, castScalar(b, loc, value, frag.elementType),
                          frag.registers, ValueRange{constIndex(b, loc, k)});
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Value simt::constIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value simt::castScalar(OpBuilder &b, Location loc, Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat)
    return fromFloat.getWidth() < toFloat.getWidth()
               ? Value(arith::ExtFOp::create(b, loc, to, value))
               : Value(arith::TruncFOp::create(b, loc, to, value));
  if (from.isIndex() || to.isIndex()) {
    if (toFloat) {
      Value wide = arith::IndexCastOp::create(b, loc, b.getI64Type(), value);
      return arith::SIToFPOp::create(b, loc, to, wide);
    }
    if (fromFloat) {
      Value wide = arith::FPToSIOp::create(b, loc, b.getI64Type(), value);
      return arith::IndexCastOp::create(b, loc, to, wide);
    }
    return arith::IndexCastOp::create(b, loc, to, value);
  }
  if (toFloat)
    return arith::SIToFPOp::create(b, loc, to, value);
  if (fromFloat)
    return arith::FPToSIOp::create(b, loc, to, value);
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth < toWidth)
    return fromWidth == 1 ? Value(arith::ExtUIOp::create(b, loc, to, value))
                          : Value(arith::ExtSIOp::create(b, loc, to, value));
  return arith::TruncIOp::create(b, loc, to, value);
}

Value simt::zeroOf(OpBuilder &b, Location loc, Type type) {
  return arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
}

int64_t simt::knownDivisor(Value value) {
  constexpr int64_t kMax = int64_t(1) << 20;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    int64_t c = constant.getSExtValue();
    if (c == 0)
      return kMax;
    return std::min(kMax, c & -c);
  }
  Operation *op = value.getDefiningOp();
  if (!op) {
    // An scf.for induction variable: lower bound + k * step.
    auto arg = dyn_cast<BlockArgument>(value);
    auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp())
                    : scf::ForOp();
    if (loop && loop.getInductionVar() == value)
      return std::min(knownDivisor(loop.getLowerBound()),
                      knownDivisor(loop.getStep()));
    return 1;
  }
  if (isa<arith::MulIOp>(op))
    return std::min(kMax, knownDivisor(op->getOperand(0)) *
                              knownDivisor(op->getOperand(1)));
  if (isa<arith::AddIOp, arith::SubIOp, arith::OrIOp>(op))
    return std::min(knownDivisor(op->getOperand(0)),
                    knownDivisor(op->getOperand(1)));
  if (isa<arith::ShLIOp>(op)) {
    APInt shift;
    if (matchPattern(op->getOperand(1), m_ConstantInt(&shift)) &&
        shift.getZExtValue() < 20)
      return std::min(kMax, knownDivisor(op->getOperand(0))
                                << shift.getZExtValue());
    return 1;
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp>(op))
    return knownDivisor(op->getOperand(0));
  // a mod b = a - b * (a / b): divisible by what divides both.
  if (isa<arith::RemUIOp>(op))
    return std::min(knownDivisor(op->getOperand(0)),
                    knownDivisor(op->getOperand(1)));
  return 1;
}

bool simt::isGlobalBuffer(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && tile::isGlobal(type);
}

bool simt::isSpace(Value buffer, tile::MemorySpace space) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && tile::getMemorySpace(type) == space;
}

LogicalResult simt::buildStridedLoop(
    KernelLowering &kernel, OpBuilder &b, Location loc,
    ArrayRef<int64_t> extents, int64_t vec,
    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  auto loop = tile::ParallelOp::create(b, loc, extents);
  MLIRContext *ctx = b.getContext();
  loop.setLoopLayoutAttr(tile::StridedAttr::get(ctx, vec, /*realign=*/0));
  // Copies' loops run step by step: with every step's loads ahead of the
  // stores, copies across odd strides (scalar accesses, an address each)
  // outgrow the register budget.
  loop->setAttr(kStepwiseKey, UnitAttr::get(ctx));
  OpBuilder inner = OpBuilder::atBlockTerminator(loop.getBody());
  body(inner, loc, loop.getInductionVars());
  return lowerParallel(kernel, loop);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {


/// Adds `contract` to the fast-math flags of every float arith op: the
/// backend may then fuse a multiply and an add into one FMA, as nvcc does
/// by default.
void allowContraction(gpu::GPUFuncOp func) {
  func.walk([](arith::ArithFastMathInterface op) {
    arith::FastMathFlagsAttr flags = op.getFastMathFlagsAttr();
    arith::FastMathFlags value =
        flags ? flags.getValue() : arith::FastMathFlags::none;
    StringRef name = op.getFastMathAttrName();
    op->setAttr(name,
                arith::FastMathFlagsAttr::get(
                    op->getContext(), value | arith::FastMathFlags::contract));
  });
}

/// Erases a block barrier that follows another one with nothing but
/// memory-effect-free ops and accesses of thread-local arrays between them: the second synchronizes the same
/// threads over no memory access. Such pairs arise where two lowerings each
/// end or start with a barrier (a reduction through shared memory followed
/// by the body's own barrier before a shared store; the copies of a
/// prologue); LLVM keeps both, since a barrier is a convergent call.
/// A load or store of a thread's own registers (a memref.alloca, promoted
/// to registers later): no other thread sees it, so no barrier orders it.
bool accessesThreadLocal(Operation *op) {
  Value memref;
  if (auto load = dyn_cast<memref::LoadOp>(op))
    memref = load.getMemRef();
  else if (auto store = dyn_cast<memref::StoreOp>(op))
    memref = store.getMemRef();
  return memref && isa_and_nonnull<memref::AllocaOp>(memref.getDefiningOp());
}

void mergeAdjacentBarriers(gpu::GPUFuncOp func) {
  SmallVector<gpu::BarrierOp> redundant;
  func.walk([&](gpu::BarrierOp barrier) {
    for (Operation *prev = barrier->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      if (isa<gpu::BarrierOp>(prev)) {
        redundant.push_back(barrier);
        return;
      }
      if (prev->getNumRegions() ||
          !(isMemoryEffectFree(prev) || accessesThreadLocal(prev)))
        return;
    }
  });
  for (gpu::BarrierOp barrier : redundant)
    barrier.erase();
}

/// arith.maxnumf / minnumf as LLVM's maxnum / minnum intrinsics: the code
/// emitter's arith-expand would otherwise turn each into a compare, a NaN
/// test and two selects, where NVIDIA has max.f32 / max.f16 (the same
/// semantics: a NaN operand yields the other one) and AMD v_max.
void nativeMinMax(gpu::GPUFuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isa<arith::MaxNumFOp, arith::MinNumFOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    // arith's fast-math bits are LLVM's.
    auto arithFlags = cast<arith::ArithFastMathInterface>(op).getFastMathFlagsAttr();
    auto flags = LLVM::FastmathFlagsAttr::get(
        op->getContext(),
        LLVM::FastmathFlags(arithFlags ? uint32_t(arithFlags.getValue()) : 0));
    Value result =
        isa<arith::MaxNumFOp>(op)
            ? Value(LLVM::MaxNumOp::create(b, op->getLoc(), lhs, rhs, flags))
            : Value(LLVM::MinNumOp::create(b, op->getLoc(), lhs, rhs, flags));
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
}

/// Without asynchronous copies the planned rings are not built: their
/// buffers stay single tiles, and say so to tile-plan-shared (whose
/// diagnostics count `tile.num_stages` copies).
void dropRingPlans(gpu::GPUFuncOp func) {
  func.walk([](tile::AllocOp alloc) { alloc->removeAttr("tile.num_stages"); });
}

/// A block barrier that the lowering of an op in a partition made (a
/// pipelined gemm loop's, between its ring slots) would wait for threads
/// that never reach it: the partition's named barrier (bar.sync id, count)
/// instead, which orders shared memory among its threads alike.
void partitionBlockBarriers(gpu::GPUFuncOp func) {
  SmallVector<gpu::BarrierOp> inside;
  func.walk([&](gpu::BarrierOp barrier) {
    if (partitionOf(barrier))
      inside.push_back(barrier);
  });
  for (gpu::BarrierOp barrier : inside) {
    OpBuilder b(barrier);
    partitionBarrier(b, barrier.getLoc(), barrier);
    barrier.erase();
  }
}

/// The element loads and stores of a shared buffer that carries a
/// wgmma operand's canonical swizzle (`tile.swizzle`, with its atoms): a
/// T.Parallel loop that fills it element by element (MLA's fp8 KV
/// converted to f16, KDA's products written into the operand) or reads
/// it back. They are marked before anything is lowered, so that the
/// accesses the copies and gemms add, which already go through the
/// swizzle, stay apart; the T.Parallel lowering keeps the mark on its
/// clones and on the vectors it merges them into (RowVectors.cpp), and
/// swizzleElementAccesses indexes every marked access through the
/// swizzle at the end. A vector (at most 16 bytes, aligned to its size)
/// lies within one 16-byte unit, which the swizzle moves whole.
constexpr llvm::StringLiteral kUnswizzled = "tile.unswizzled";

/// A 2-D shared tile, or a ring of them (a pipelined operand), with a
/// swizzle or atoms.
bool swizzled(Operation *alloc) {
  if (!alloc || !isa<tile::AllocOp>(alloc) ||
      !alloc->hasAttr(gemm::kSharedLayoutAttr))
    return false;
  int64_t rank = cast<MemRefType>(alloc->getResult(0).getType()).getRank();
  if (rank != 2 && rank != 3)
    return false;
  return gemm::readSwizzle(alloc).bits || gemm::readSwizzleAtom(alloc);
}

void markElementAccesses(gpu::GPUFuncOp func) {
  func.walk([](tile::AllocOp alloc) {
    if (!swizzled(alloc))
      return;
    for (Operation *user : alloc->getUsers())
      if (isa<memref::LoadOp>(user) ||
          (isa<memref::StoreOp>(user) &&
           cast<memref::StoreOp>(user).getMemRef() == alloc.getResult()))
        user->setAttr(kUnswizzled, UnitAttr::get(user->getContext()));
  });
}

LogicalResult swizzleElementAccesses(gpu::GPUFuncOp func) {
  SmallVector<Operation *> marked;
  func.walk([&](Operation *op) {
    if (op->hasAttr(kUnswizzled))
      marked.push_back(op);
  });
  for (Operation *op : marked) {
    op->removeAttr(kUnswizzled);
    Value memref;
    std::optional<MutableOperandRange> indices;
    int64_t elements = 1;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      memref = load.getMemRef();
      indices = load.getIndicesMutable();
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      memref = store.getMemRef();
      indices = store.getIndicesMutable();
    } else if (auto load = dyn_cast<vector::LoadOp>(op)) {
      memref = load.getBase();
      indices = load.getIndicesMutable();
      elements = load.getVectorType().getNumElements();
    } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
      memref = store.getBase();
      indices = store.getIndicesMutable();
      elements = store.getVectorType().getNumElements();
    }
    // A mark on anything else is a lowering that moved the access off
    // its buffer: an error, never an unswizzled access.
    Operation *alloc = memref ? memref.getDefiningOp() : nullptr;
    if (!swizzled(alloc))
      return op->emitError("internal: an element access of a swizzled wgmma "
                           "operand no longer addresses its buffer");
    auto type = cast<MemRefType>(memref.getType());
    if (elements * type.getElementTypeBitWidth() > 128)
      return op->emitError("an access of ")
             << elements << " elements of the swizzled shared buffer `"
             << cast<tile::AllocOp>(alloc).getName()
             << "` is wider than the 16 bytes its swizzle keeps together";
    OpBuilder b(op);
    unsigned rank = indices->size();
    SmallVector<Value, 3> at;
    if (rank == 3)
      at.push_back((*indices)[0].get());
    llvm::append_range(
        at, gemm::swizzledIndices(
                b, op->getLoc(), type.getShape().take_back(2),
                gemm::readSwizzle(alloc), gemm::readSwizzleAtom(alloc),
                (*indices)[rank - 2].get(), (*indices)[rank - 1].get()));
    indices->assign(at);
  }
  return success();
}

LogicalResult lowerKernel(gpu::GPUFuncOp func, const LowerOptions &options,
                          const TargetInfo &target) {
  std::optional<int64_t> threads = kernelThreads(func);
  if (!threads)
    return func.emitError()
           << "kernel '" << func.getName() << "' has no known block size";
  relaxRoundedMath(func);
  if (failed(lowerLoops(func)))
    return failure();
  markElementAccesses(func);
  KernelLowering kernel(func, *threads, options);
  if (failed(lowerWarpPartitions(kernel)))
    return failure();
  SmallVector<tile::AllocOp> allocs;
  func.walk([&](tile::AllocOp alloc) {
    if (fragmentAlloc(alloc.getResult()))
      allocs.push_back(alloc);
  });
  for (tile::AllocOp alloc : allocs)
    if (failed(kernel.addFragment(alloc)))
      return failure();
  SmallVector<tile::ReshapeOp> views;
  func.walk([&](tile::ReshapeOp view) { views.push_back(view); });
  for (tile::ReshapeOp view : views)
    if (failed(kernel.addView(view)))
      return failure();
  // Before anything is spread over the threads (ThreadGuards.cpp).
  if (failed(checkThreadGuards(kernel, target)))
    return failure();
  // Tensor-core family first (GemmLowering.h): pipelined loops, operand
  // copies into swizzled buffers, T.gemm on the accumulator registers.
  // The cp.async pipelines need asynchronous copies; without them (AMD)
  // planned loops stay synchronous: plain scf.for loops whose copies and
  // barriers (tile-insert-barriers') are lowered like any other.
  if (target.hasAsyncCopy()) {
    if (failed(pipelineGemmLoops(kernel)) || failed(splitWarpRoles(kernel)))
      return failure();
  }
  // TileLang's raw cp.async copies, then its explicit Hopper forms
  // (mbarriers, T.tma_copy, setmaxnreg).
  if (failed(lowerRawAsyncCopies(kernel, target)) ||
      failed(lowerHopperOps(kernel, target)))
    return failure();
  if (!target.hasAsyncCopy()) {
    dropRingPlans(func);
  }
  if (failed(lowerOperandCopies(kernel)) ||
      failed(lowerGemms(kernel, target)))
    return failure();
  SmallVector<tile::ParallelOp> loops;
  func.walk([&](tile::ParallelOp loop) { loops.push_back(loop); });
  for (tile::ParallelOp loop : loops)
    if (failed(lowerParallel(kernel, loop)))
      return failure();
  askLoadRegisters(kernel, target);
  if (failed(lowerCopiesAndFills(kernel)) || failed(lowerReductions(kernel)) ||
      failed(lowerScans(kernel, target)) || failed(lowerMisc(kernel)) ||
      failed(lowerFloatingAccesses(kernel)))
    return failure();
  // Views first: they use their fragments' allocs.
  for (auto &[alloc, frag] : llvm::reverse(kernel.fragments())) {
    if (!alloc->use_empty()) {
      Operation *user = *alloc->user_begin();
      return user->emitError()
             << "fragment `" << frag.name << "` is used by '" << user->getName()
             << "' outside a T.Parallel loop, copy, fill or reduction; the "
                "SIMT lowering cannot tell which thread holds the element";
    }
    alloc->erase();
  }
  if (failed(lowerLocals(func)) || failed(swizzleElementAccesses(func)))
    return failure();
  mergeAdjacentBarriers(func);
  partitionBlockBarriers(func);
  nameConsumerBarriers(kernel);
  if (options.fpContract)
    allowContraction(func);
  nativeMinMax(func);
  return success();
}

struct TileLowerSIMT : tilec::impl::TileLowerSIMTBase<TileLowerSIMT> {
  using TileLowerSIMTBase::TileLowerSIMTBase;

  void runOnOperation() override {
    if (!assertLowering.empty() && assertLowering != "assert" &&
        assertLowering != "printf") {
      getOperation().emitError()
          << "assert-lowering must be `assert` or `printf`, not `"
          << std::string(assertLowering) << "`";
      return signalPassFailure();
    }
    bool anyKernel = false;
    getOperation().walk(
        [&](gpu::GPUFuncOp func) { anyKernel |= func.isKernel(); });
    if (!anyKernel)
      return;
    const TargetInfo *target = tile::requireTarget(getOperation());
    if (!target)
      return signalPassFailure();
    LowerOptions options;
    // AMD has no __assertfail: asserts print and the kernel goes on.
    options.assertLowering =
        !assertLowering.empty()
            ? std::string(assertLowering)
            : (target->hasDeviceAssert() ? "assert" : "printf");
    options.unrollLimit = unrollLimit;
    options.fpContract = fpContract;
    options.indexBitwidth = unsigned(indexBitwidth);
    SmallVector<gpu::GPUFuncOp> kernels;
    getOperation().walk([&](gpu::GPUFuncOp func) {
      if (func.isKernel())
        kernels.push_back(func);
    });
    for (gpu::GPUFuncOp func : kernels) {
      LLVM_DEBUG(llvm::dbgs() << "lowering " << func.getName() << "\n");
      // A kernel decided 64-bit (`tile.index_bits`, MLIRGen) is lowered to
      // LLVM with 64-bit indices: its memref descriptors hold i64.
      LowerOptions kernelOptions = options;
      if (auto bits = func->getAttrOfType<IntegerAttr>("tile.index_bits"))
        kernelOptions.indexBitwidth = unsigned(bits.getInt());
      if (failed(lowerKernel(func, kernelOptions, *target)))
        return signalPassFailure();
    }
  }
};

} // namespace
