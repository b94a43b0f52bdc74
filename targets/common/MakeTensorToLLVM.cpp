//===- MakeTensorToLLVM.cpp - tile.make_tensor as a memref descriptor -----===//
//
// `tile.make_tensor %addr : memref<...>` (T.make_tensor) is a global tensor
// at an address read on the device. Upstream has no op that makes a memref
// from an integer, but the memref conversions take any value whose
// descriptor is behind an unrealized cast: build that descriptor here, just
// before the conversions run (the index width is one per conversion),
// from `inttoptr %addr` as the allocated and aligned pointer, offset 0 and
// the static row-major sizes and strides. Every memref op on the result
// (loads, stores, subviews, cp.async sources) then lowers as it does on a
// kernel argument's memref; reconcile-unrealized-casts removes the cast.
//
//===----------------------------------------------------------------------===//

#include "CodegenImpl.h"

#include "tilec/Dialect/TileOps.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

void tilec::detail::lowerMakeTensors(gpu::GPUModuleOp gpuModule,
                                     unsigned indexBitwidth) {
  SmallVector<tile::MakeTensorOp> ops;
  gpuModule.walk([&](tile::MakeTensorOp op) { ops.push_back(op); });
  if (ops.empty())
    return;
  MLIRContext *ctx = gpuModule.getContext();
  LowerToLLVMOptions options(ctx);
  options.overrideIndexBitwidth(indexBitwidth);
  LLVMTypeConverter converter(ctx, options);
  for (tile::MakeTensorOp op : ops) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    MemRefType type = op.getType();
    // A global memref (no memory space) is a generic pointer, as the bare
    // kernel arguments are.
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    Value ptr = LLVM::IntToPtrOp::create(b, loc, ptrType, op.getAddress());
    Value descriptor =
        MemRefDescriptor::fromStaticShape(b, loc, converter, type, ptr);
    auto cast =
        UnrealizedConversionCastOp::create(b, loc, TypeRange{type}, descriptor);
    op.getResult().replaceAllUsesWith(cast.getResult(0));
    op.erase();
  }
}
