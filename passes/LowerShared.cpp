//===- LowerShared.cpp - tile-lower-shared: shared buffers to views
//--------===//
//
// Algorithm: per gpu.func kernel with shared tile.allocs, materialize the
// kernel's dynamic shared memory once at entry (gpu.dynamic_shared_memory,
// bytes in the workgroup address space) and replace each alloc by a
// memref.view at the byte offset tile-plan-shared recorded. The view's
// type is the alloc's with the workgroup address space instead of
// #tile.space<shared>; by now (after tile-lower-simt) only memory-access
// ops use shared buffers, and their result types do not depend on the
// memref's memory space, so the uses are retyped in place.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileOps.h"
#include "tilec/Passes/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-lower-shared"

namespace tilec {
#define GEN_PASS_DEF_TILELOWERSHARED
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

struct TileLowerShared : tilec::impl::TileLowerSharedBase<TileLowerShared> {
  using TileLowerSharedBase::TileLowerSharedBase;

  void runOnOperation() override {
    SmallVector<gpu::GPUFuncOp> kernels;
    getOperation().walk([&](gpu::GPUFuncOp func) { kernels.push_back(func); });
    for (gpu::GPUFuncOp kernel : kernels)
      if (failed(lower(kernel)))
        return signalPassFailure();
  }

  LogicalResult lower(gpu::GPUFuncOp kernel) {
    SmallVector<tile::AllocOp> buffers;
    kernel.walk([&](tile::AllocOp alloc) {
      if (tile::getMemorySpace(alloc.getType()) == tile::MemorySpace::shared)
        buffers.push_back(alloc);
    });
    if (buffers.empty())
      return success();
    MLIRContext *ctx = kernel.getContext();
    auto workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    OpBuilder b(ctx);
    b.setInsertionPointToStart(&kernel.getBody().front());
    Value base = gpu::DynamicSharedMemoryOp::create(
        b, kernel.getLoc(),
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                        workgroup));
    for (tile::AllocOp alloc : buffers) {
      auto offset = alloc->getAttrOfType<IntegerAttr>("tile.shared_offset");
      if (!offset)
        return alloc.emitError() << "shared buffer `" << alloc.getName()
                                 << "` has no offset; run tile-plan-shared";
      for (Operation *user : alloc->getUsers())
        if (!isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp,
                 vector::LoadOp, vector::StoreOp, memref::MemorySpaceCastOp>(
                user))
          return user->emitError()
                 << "'" << user->getName()
                 << "' on a shared buffer is left after the SIMT lowering";
      MemRefType type = alloc.getType();
      auto viewType = MemRefType::get(type.getShape(), type.getElementType(),
                                      AffineMap(), workgroup);
      b.setInsertionPoint(alloc);
      Value byteOffset =
          arith::ConstantIndexOp::create(b, alloc.getLoc(), offset.getInt());
      Value view = memref::ViewOp::create(b, alloc.getLoc(), viewType, base,
                                          byteOffset, ValueRange{});
      alloc.getResult().replaceAllUsesWith(view);
      alloc.erase();
      // Casts to the workgroup space are the view itself now.
      for (Operation *user : llvm::make_early_inc_range(view.getUsers()))
        if (auto cast = dyn_cast<memref::MemorySpaceCastOp>(user);
            cast && cast.getType() == viewType) {
          cast.getResult().replaceAllUsesWith(view);
          cast.erase();
        }
    }
    LLVM_DEBUG(llvm::dbgs() << kernel.getName() << ": " << buffers.size()
                            << " shared buffers\n");
    return success();
  }
};

} // namespace
