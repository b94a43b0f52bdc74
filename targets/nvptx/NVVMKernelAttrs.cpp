//===- NVVMKernelAttrs.cpp - NVVM spellings of kernel properties ----------===//
//
// The tile-level passes record what they know about a kernel in
// vendor-neutral attributes; NVVM spells them as its own attributes on the
// LLVM-dialect kernel, which the NVVM translation turns into PTX
// directives. Run by translateToLLVMIR after the GPU-to-NVVM conversion,
// on NVIDIA modules only:
// - `tile.min_blocks_per_multiprocessor = N` (WarpSpecialize.cpp: one
//   block per multiprocessor) -> `nvvm.minctasm = N` (`.minnctapersm N`):
//   told it, ptxas knows the registers each thread holds at entry, which
//   setmaxnreg moves between warp roles; without it ptxas ignores
//   setmaxnreg (C7508);
// - the arguments `tile.tensor_map_args` lists (PipelineTma.cpp) are TMA
//   descriptors: `__grid_constant__` by-value parameters, since the kernel
//   takes their address for cp.async.bulk.tensor, which only a grid
//   constant allows without a copy to local memory. NVVM accepts the mark
//   on an LLVM kernel only, hence after the conversion (argument
//   attributes other than LLVM's own do not survive it; function ones do).
//
//===----------------------------------------------------------------------===//

#include "../common/CodegenImpl.h"

#include "tilec/Dialect/TileDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

void tilec::detail::markNVVMKernels(gpu::GPUModuleOp gpuModule) {
  gpuModule.walk([](LLVM::LLVMFuncOp func) {
    MLIRContext *ctx = func.getContext();
    if (Attribute blocks =
            func->removeAttr(tile::kMinBlocksPerMultiprocessorAttrName))
      func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), blocks);
    auto positions =
        func->getAttrOfType<DenseI64ArrayAttr>("tile.tensor_map_args");
    if (!positions)
      return;
    for (int64_t i : positions.asArrayRef()) {
      // A CUtensorMap: 128 bytes, 64-byte aligned, passed by value.
      func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(LLVM::LLVMArrayType::get(
                          IntegerType::get(ctx, 8), 128)));
      func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                      IntegerAttr::get(IntegerType::get(ctx, 64), 64));
      func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                      UnitAttr::get(ctx));
    }
  });
}
