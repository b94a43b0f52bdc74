//===- LowerMisc.cpp - tile-lower-simt: sync, atomics, debug, locals ------===//
//
// The one-to-one lowerings:
// - tile.barrier -> gpu.barrier;
// - tile.atomic_add -> memref.atomic_rmw (addf / addi) on global or shared
//   memory, a plain read-modify-write on a thread's local buffer;
// - tile.print -> gpu.printf: a scalar from every thread, a global or
//   shared buffer from thread 0 (element by element), a local buffer from
//   its thread, a fragment as each thread's registers with the coordinates
//   they hold; every line says the block and thread;
// - tile.device_assert -> cf.assert (NVIDIA's lowering calls
//   __assertfail, which prints the message and traps), or with
//   assert-lowering=printf a gpu.printf of the failure that lets the
//   kernel go on (for targets without a trap);
// - tile.annotate_layout is erased (tile-infer-layouts consumed it);
// - local buffers (T.alloc_local / T.alloc_var) become memref.alloca at
//   the kernel's entry, without memory space.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

/// A printf conversion and the value widened for it.
std::pair<StringRef, Value> printable(OpBuilder &b, Location loc, Value v) {
  Type type = v.getType();
  if (isa<FloatType>(type))
    return {"%f", castScalar(b, loc, v, b.getF64Type())};
  if (type.isInteger(1))
    return {"%d", arith::ExtUIOp::create(b, loc, b.getI32Type(), v)};
  return {"%lld", castScalar(b, loc, v, b.getI64Type())};
}

/// "(block %lld,%lld,%lld thread %lld)" and its arguments.
std::pair<std::string, SmallVector<Value>> who(OpBuilder &b, Location loc,
                                               Value tid) {
  SmallVector<Value> args;
  for (gpu::Dimension d :
       {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z})
    args.push_back(
        castScalar(b, loc, gpu::BlockIdOp::create(b, loc, d), b.getI64Type()));
  args.push_back(castScalar(b, loc, tid, b.getI64Type()));
  return {"(block %lld,%lld,%lld thread %lld)", args};
}

void printf(OpBuilder &b, Location loc, StringRef format, ValueRange args) {
  gpu::PrintfOp::create(b, loc, b.getStringAttr(format), args);
}

/// "[%lld, %lld]" with the indices as arguments.
std::string indexFormat(OpBuilder &b, Location loc, ValueRange indices,
                        SmallVectorImpl<Value> &args) {
  std::string format = "[";
  for (auto [i, index] : llvm::enumerate(indices)) {
    format += i ? ", %lld" : "%lld";
    args.push_back(castScalar(b, loc, index, b.getI64Type()));
  }
  return format + "]";
}

LogicalResult lowerPrint(KernelLowering &kernel, tile::PrintOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  std::string msg = op.getMsg() ? op.getMsg()->str() : std::string();
  std::string prefix = msg.empty() ? std::string() : msg + " ";
  auto [whoFormat, whoArgs] = who(b, loc, kernel.threadId());
  Value value = op.getValue();
  if (!isa<MemRefType>(value.getType())) {
    auto [conv, arg] = printable(b, loc, value);
    SmallVector<Value> args(whoArgs);
    args.push_back(arg);
    printf(b, loc, prefix + whoFormat + ": " + conv.str() + "\n", args);
    op.erase();
    return success();
  }
  auto type = cast<MemRefType>(value.getType());
  if (const Fragment *frag = kernel.fragment(value)) {
    for (int64_t k = 0; k < frag->layout.numRegisters(); ++k) {
      SmallVector<Value> args(whoArgs);
      std::string index =
          indexFormat(b, loc, kernel.coords(b, loc, frag->layout, k), args);
      auto [conv, arg] =
          printable(b, loc, kernel.loadRegister(b, loc, *frag, k));
      args.push_back(arg);
      printf(b, loc,
             prefix + frag->name + index + " " + whoFormat + " = " +
                 conv.str() + "\n",
             args);
    }
    op.erase();
    return success();
  }
  if (!type.hasStaticShape())
    return op.emitError("printing a dynamically shaped tensor is not "
                        "supported");
  // Global and shared buffers: thread 0 prints; local ones: every thread.
  OpBuilder body = b;
  if (!isSpace(value, tile::MemorySpace::local)) {
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              kernel.threadId(), constIndex(b, loc, 0));
    auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
    body = OpBuilder::atBlockTerminator(ifOp.thenBlock());
  }
  SmallVector<Value> indices;
  for (int64_t extent : type.getShape()) {
    auto forOp = scf::ForOp::create(body, loc, constIndex(body, loc, 0),
                                    constIndex(body, loc, extent),
                                    constIndex(body, loc, 1));
    indices.push_back(forOp.getInductionVar());
    body = OpBuilder::atBlockTerminator(forOp.getBody());
  }
  SmallVector<Value> args(whoArgs);
  std::string index = indexFormat(body, loc, indices, args);
  Value element = memref::LoadOp::create(body, loc, value, indices);
  auto [conv, arg] = printable(body, loc, element);
  args.push_back(arg);
  printf(body, loc,
         prefix + index + " " + whoFormat + " = " + conv.str() + "\n", args);
  op.erase();
  return success();
}

LogicalResult lowerAssert(KernelLowering &kernel, tile::DeviceAssertOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  std::string msg = op.getMsg().str();
  if (msg.empty())
    msg = "device assertion";
  if (kernel.getOptions().assertLowering == "assert") {
    cf::AssertOp::create(b, loc, op.getCond(), msg);
    op.erase();
    return success();
  }
  Value failed = arith::XOrIOp::create(
      b, loc, op.getCond(),
      arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
  auto ifOp = scf::IfOp::create(b, loc, failed, /*withElseRegion=*/false);
  OpBuilder inner = OpBuilder::atBlockTerminator(ifOp.thenBlock());
  auto [whoFormat, whoArgs] = who(inner, loc, kernel.threadId());
  printf(inner, loc,
         "assertion failed at " + formatLoc(loc) + " " + whoFormat + ": " +
             msg + "\n",
         whoArgs);
  op.erase();
  return success();
}

LogicalResult lowerAtomicAdd(KernelLowering &kernel, tile::AtomicAddOp op) {
  if (kernel.fragment(op.getDst()))
    return op.emitError("T.atomic_add into a fragment is not supported");
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type element = op.getDst().getType().getElementType();
  Value value = castScalar(b, loc, op.getValue(), element);
  bool isFloat = isa<FloatType>(element);
  if (isSpace(op.getDst(), tile::MemorySpace::local)) {
    Value old = memref::LoadOp::create(b, loc, op.getDst(), op.getIndices());
    Value sum = isFloat ? Value(arith::AddFOp::create(b, loc, old, value))
                        : Value(arith::AddIOp::create(b, loc, old, value));
    memref::StoreOp::create(b, loc, sum, op.getDst(), op.getIndices());
  } else {
    memref::AtomicRMWOp::create(b, loc,
                                isFloat ? arith::AtomicRMWKind::addf
                                        : arith::AtomicRMWKind::addi,
                                value, op.getDst(), op.getIndices());
  }
  op.erase();
  return success();
}

} // namespace

LogicalResult simt::lowerMisc(KernelLowering &kernel) {
  SmallVector<Operation *> ops;
  kernel.getFunc().walk([&](Operation *op) {
    if (isa<tile::BarrierOp, tile::AtomicAddOp, tile::PrintOp,
            tile::DeviceAssertOp, tile::AnnotateLayoutOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    LogicalResult result = success();
    if (auto barrier = dyn_cast<tile::BarrierOp>(op)) {
      OpBuilder b(op);
      createBarrier(b, barrier);
      op->erase();
    } else if (auto atomic = dyn_cast<tile::AtomicAddOp>(op)) {
      result = lowerAtomicAdd(kernel, atomic);
    } else if (auto print = dyn_cast<tile::PrintOp>(op)) {
      result = lowerPrint(kernel, print);
    } else if (auto assertOp = dyn_cast<tile::DeviceAssertOp>(op)) {
      result = lowerAssert(kernel, assertOp);
    } else {
      op->erase();
    }
    if (failed(result))
      return failure();
  }
  return success();
}

LogicalResult simt::lowerLocals(gpu::GPUFuncOp func) {
  SmallVector<tile::AllocOp> locals;
  func.walk([&](tile::AllocOp alloc) {
    if (isSpace(alloc.getResult(), tile::MemorySpace::local))
      locals.push_back(alloc);
  });
  // At the entry, so LLVM's SROA sees static allocas it can promote.
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  for (tile::AllocOp alloc : locals) {
    for (Operation *user : alloc->getUsers())
      if (!isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp,
               vector::LoadOp, vector::StoreOp>(user))
        return user->emitError()
               << "'" << user->getName() << "' on local buffer `"
               << alloc.getName() << "` is not supported";
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape())
      return alloc.emitError("local buffers need a static shape");
    Value regs = memref::AllocaOp::create(
        b, alloc.getLoc(),
        MemRefType::get(type.getShape(), type.getElementType()));
    alloc.getResult().replaceAllUsesWith(regs);
    alloc.erase();
  }
  return success();
}
