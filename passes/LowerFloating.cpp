//===- LowerFloating.cpp - tile-lower-simt: fragment elements in serial code //
//
// What is left of a fragment once every family has run are element reads
// and writes outside T.Parallel loops (`if block_mask[k] != 0:`,
// `acc = m_cur[0]`, `last[0] = A[i]`): serial code, which every thread of
// the block runs. TileLang lays such a fragment out fully replicated
// (tile-infer-layouts does the same), so each thread reads and writes its
// own copy:
// - an access with constant indices becomes a register access when every
//   thread holds the element in the same register (a replicated fragment,
//   or the output of a whole-tile reduction, whatever decided its layout);
// - an access with an index computed at run time needs the replicated
//   layout tile-infer-layouts builds (element e in register e), and reads
//   the register array at that index;
// - a write must be made by every thread: one under a condition on the
//   thread index would leave the other threads' copies stale.
// Anything else is the located error of tile-lower-simt.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

/// The register every thread holds flat element `e` in, or -1.
int64_t commonRegister(const Layout &layout, uint64_t e) {
  int64_t k = layout.findRegister(0, e);
  for (int64_t t = 1; k >= 0 && t < layout.numThreads(); ++t)
    if (layout.findRegister(t, e) != k)
      return -1;
  return k;
}

LogicalResult lowerAccess(KernelLowering &kernel, const Fragment &frag,
                          Operation *op, ValueRange indices) {
  const Layout &layout = frag.layout;
  bool isStore = isa<memref::StoreOp>(op);
  if (isStore) {
    FailureOr<ThreadSpan> span = threadSpan(kernel, op);
    if (failed(span))
      return failure();
    if (span->count != kernel.getThreads())
      return op->emitError()
             << "fragment `" << frag.name
             << "` is written outside a T.Parallel loop under a condition "
                "on the thread index: every thread holds its own copy of "
                "the element, and the threads that skip the write would "
                "keep a stale one (write it from every thread, or use a "
                "shared buffer)";
  }
  SmallVector<int64_t> coord;
  for (Value index : indices) {
    APInt value;
    if (!matchPattern(index, m_ConstantInt(&value)))
      break;
    coord.push_back(value.getSExtValue());
  }
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value reg;
  if (coord.size() == indices.size()) {
    for (auto [d, c] : llvm::enumerate(coord))
      if (c < 0 || c >= layout.shape()[d])
        return op->emitError()
               << "index " << formatCoord(coord) << " is out of fragment `"
               << frag.name << "` of shape " << formatCoord(layout.shape());
    int64_t k = commonRegister(layout, layout.flatten(coord));
    if (k < 0)
      return op->emitError()
             << "fragment `" << frag.name << "` is "
             << (isStore ? "written" : "read") << " at "
             << formatCoord(coord)
             << " outside a T.Parallel loop, but its layout (decided by the "
                "ops that compute it) puts that element in some threads "
                "only; read it inside a T.Parallel loop, or copy it to a "
                "shared buffer first";
    reg = constIndex(b, loc, k);
  } else {
    if (!layout.isReplicatedInOrder())
      return op->emitError()
             << "fragment `" << frag.name
             << "` is indexed outside a T.Parallel loop by a value known "
                "only at run time, but its layout (decided by the ops that "
                "compute it, e.g. a T.gemm) spreads it over the threads; "
                "only a fragment that nothing else lays out is replicated "
                "for such accesses";
    // Row-major flat index = register index.
    for (auto [d, index] : llvm::enumerate(indices)) {
      Value term = index;
      if (reg) {
        Value extent = constIndex(b, loc, layout.shape()[d]);
        reg = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, reg, extent), term);
      } else {
        reg = term;
      }
    }
  }
  if (auto store = dyn_cast<memref::StoreOp>(op)) {
    memref::StoreOp::create(
        b, loc, castScalar(b, loc, store.getValueToStore(), frag.elementType),
        frag.registers, ValueRange{reg});
  } else {
    auto load = cast<memref::LoadOp>(op);
    Value value =
        memref::LoadOp::create(b, loc, frag.registers, ValueRange{reg});
    load.getResult().replaceAllUsesWith(value);
  }
  op->erase();
  return success();
}

} // namespace

LogicalResult simt::lowerFloatingAccesses(KernelLowering &kernel) {
  for (auto &[allocOp, frag] : kernel.fragments()) {
    SmallVector<Operation *> users;
    for (Operation *user : allocOp->getResult(0).getUsers())
      users.push_back(user);
    for (Operation *user : users) {
      if (auto load = dyn_cast<memref::LoadOp>(user)) {
        if (failed(lowerAccess(kernel, frag, user, load.getIndices())))
          return failure();
      } else if (auto store = dyn_cast<memref::StoreOp>(user)) {
        if (store.getMemRef() == allocOp->getResult(0) &&
            failed(lowerAccess(kernel, frag, user, store.getIndices())))
          return failure();
      }
    }
  }
  return success();
}
