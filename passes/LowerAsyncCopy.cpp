//===- LowerAsyncCopy.cpp - T.ptx_cp_async and its completion -------------===//
//
// TileLang's raw asynchronous copies (AsyncCopyPrimitives.cpp in MLIRGen),
// lowered by tile-lower-simt before the mbarriers are (LowerHopper.cpp):
//
// - tile.cp_async: one `cp.async` (.cg for 16 bytes, .ca for 4 and 8) by
//   every thread that runs it, from the source element's address to the
//   destination element's. A shared buffer a T.gemm reads carries its
//   `tile.swizzle`, and the element's place is the one the swizzle gives
//   it (slotIndices, the address computation of the operand copies and of
//   the gemms). The swizzles permute 2^base-element units (16 bytes) and
//   keep the order inside one, so the copied run stays contiguous exactly
//   when it lies inside one unit: its column must be known to be a
//   multiple of its length (then it is aligned too), else a located error.
//   A predicate false reads nothing and zero-fills (src-size 0).
// - tile.cp_async_arrive: `cp.async.mbarrier.arrive.noinc`. The mbarrier
//   tracks the copies (TileLang's contract), so nothing waits on their
//   groups: the lowering adds no cp.async wait of its own. The copies are
//   generic-proxy writes; a wgmma reading them is preceded by the
//   `fence.proxy.async` the wgmma lowering puts before every gemm
//   (emitWgmmaGemm), in the reading thread, after its wait.
// - tile.cp_async_commit / tile.cp_async_wait: cp.async.commit_group /
//   wait_group, in a kernel with tile.cp_async; elsewhere they are erased
//   (TileLang's `prefer_async` stores they follow are synchronous here).
//
//===----------------------------------------------------------------------===//

#include "DeviceOps.h"
#include "GemmLayouts.h"
#include "GemmLowering.h"

#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

/// The element offset of `indices` in `type` (static strides) as a known
/// power-of-two divisor: the smallest over the dimensions of the index's
/// divisor times the stride's; 0 when the strides are not known.
int64_t offsetDivisor(MemRefType type, ValueRange indices) {
  constexpr int64_t kMax = int64_t(1) << 20;
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) || offset != 0 ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return 0;
  int64_t d = kMax;
  for (auto [index, stride] : llvm::zip(indices, strides)) {
    int64_t s = stride ? (stride & -stride) : kMax;
    d = std::min(d, std::min(kMax, knownDivisor(index) * s));
  }
  return d;
}

/// Whether constant `indices` put a `bytes`-byte access off its alignment
/// (elements of `elemBytes`); false where that is not known.
bool misaligned(MemRefType type, ValueRange indices, int64_t elemBytes,
                int64_t bytes) {
  bool constant = llvm::all_of(
      indices, [](Value v) { return matchPattern(v, m_Constant()); });
  int64_t d = offsetDivisor(type, indices);
  return constant && d && d * elemBytes % bytes;
}

std::string bufferName(Value buffer) {
  if (auto alloc = buffer.getDefiningOp<tile::AllocOp>())
    return alloc.getName().str();
  return "the tensor";
}

LogicalResult lowerCopy(KernelLowering &kernel, tile::CpAsyncOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value dst = op.getDst(), src = op.getSrc();
  auto dstType = cast<MemRefType>(dst.getType());
  auto srcType = cast<MemRefType>(src.getType());
  int64_t n = op.getElements(), bytes = op.getBytes();
  int64_t elemBytes = bytes / n;
  SmallVector<Value> at(op.getDstIndices());
  std::string name = bufferName(dst);
  Operation *alloc = dst.getDefiningOp();
  XorSwizzle swizzle = alloc ? gemm::readSwizzle(alloc) : XorSwizzle();
  int64_t atom = alloc ? gemm::readSwizzleAtom(alloc) : 0;
  if (swizzle.bits || atom) {
    int64_t rank = dstType.getRank();
    if (rank != 2 && rank != 3)
      return op.emitError() << "T.ptx_cp_async into `" << name
                            << "`, a swizzled buffer of rank " << rank
                            << ": only 2-D tiles and rings of them are";
    // Units of 2^base elements move as a whole; without an XOR the atoms
    // (columns of `atom` elements) do.
    int64_t unit = swizzle.bits ? (int64_t(1) << swizzle.base) : atom;
    Value col = at[rank - 1];
    int64_t divisor = knownDivisor(col);
    if (n > std::min(divisor, unit)) {
      InFlightDiagnostic diag = op.emitError();
      diag << "T.ptx_cp_async writes " << n << " elements (" << bytes
           << " bytes) into `" << name << "`, whose layout is "
           << alloc->getAttr(gemm::kSharedLayoutAttr)
           << " (a T.gemm operand's swizzle): ";
      if (n > unit)
        diag << "it keeps runs of " << unit << " elements (" << unit * elemBytes
             << " bytes) together, not " << n;
      else
        diag << "the column index is not known to be a multiple of " << n
             << " (only of " << divisor << "), so the run may cross a "
             << unit * elemBytes
             << "-byte unit the swizzle moves apart (write the column as a "
                "multiple of "
             << n << ", e.g. `c * " << n << "`)";
      return diag;
    }
    SharedSlot slot{dst, rank == 3 ? at[0] : Value()};
    at = slotIndices(b, loc, slot, at[rank - 2], at[rank - 1]);
  } else if (misaligned(dstType, op.getDstIndices(), elemBytes, bytes)) {
    return op.emitError() << "T.ptx_cp_async writes " << bytes
                          << " bytes at an element of `" << name
                          << "` that is not " << bytes
                          << "-byte aligned (cp.async needs its size's "
                             "alignment)";
  }
  if (misaligned(srcType, op.getSrcIndices(), elemBytes, bytes))
    return op.emitError() << "T.ptx_cp_async reads " << bytes
                          << " bytes at an element of the source tensor "
                             "that is not "
                          << bytes
                          << "-byte aligned (cp.async needs its size's "
                             "alignment)";
  unsigned indexBits = kernel.getOptions().indexBitwidth;
  Value to =
      sharedElementPointer(b, loc, castToWorkgroup(b, loc, dst), at, indexBits);
  Value from = sharedElementPointer(b, loc, src, op.getSrcIndices(), indexBits);
  from = LLVM::AddrSpaceCastOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1), from);
  Value srcBytes;
  if (Value pred = op.getPredicate()) {
    Type i32 = b.getI32Type();
    srcBytes = arith::SelectOp::create(
        b, loc, pred, arith::ConstantIntOp::create(b, loc, i32, bytes),
        arith::ConstantIntOp::create(b, loc, i32, 0));
  }
  deviceOps(kernel.getFunc()).asyncCopy(b, loc, to, from, bytes, srcBytes);
  op.erase();
  return success();
}

} // namespace

LogicalResult simt::lowerRawAsyncCopies(KernelLowering &kernel,
                                        const TargetInfo &target) {
  SmallVector<tile::CpAsyncOp> copies;
  SmallVector<Operation *> others;
  kernel.getFunc().walk([&](Operation *op) {
    if (auto copy = dyn_cast<tile::CpAsyncOp>(op))
      copies.push_back(copy);
    else if (isa<tile::CpAsyncCommitOp, tile::CpAsyncWaitOp,
                 tile::CpAsyncArriveOp>(op))
      others.push_back(op);
  });
  if (copies.empty() && others.empty())
    return success();
  if (!copies.empty() && !target.hasAsyncCopy())
    return copies.front().emitError() << "T.ptx_cp_async needs cp.async, which "
                                      << target.chip() << " does not have";
  for (tile::CpAsyncOp copy : copies)
    if (failed(lowerCopy(kernel, copy)))
      return failure();
  const DeviceOpBuilder &device = deviceOps(kernel.getFunc());
  for (Operation *op : others) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto arrive = dyn_cast<tile::CpAsyncArriveOp>(op)) {
      device.mbarrierArriveOnAsyncCopies(
          b, loc,
          barrierPointer(kernel, b, loc, arrive.getBarriers(),
                         arrive.getIndex()));
    } else if (!copies.empty()) {
      if (auto wait = dyn_cast<tile::CpAsyncWaitOp>(op))
        device.asyncCopyWait(b, loc, wait.getPending());
      else
        device.asyncCopyCommit(b, loc);
    }
    op->erase();
  }
  return success();
}
