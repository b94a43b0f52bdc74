//===- NVGPUToNVVM.cpp - nvgpu ops to NVVM at the lowering's index width --===//
//
// Upstream's convert-nvgpu-to-nvvm builds its LLVMTypeConverter with the
// default options, so `index` becomes i64, and it also applies the SCF
// structural type conversions with that converter: every scf.if / scf.for /
// scf.while that yields or carries an `index` value is retyped to i64 (with
// casts index <-> i64 around it), whether or not an nvgpu op is in sight.
// tilec lowers with 32-bit indices, so convert-gpu-to-nvvm later turns the
// same values into i32 and leaves chains `i32 -> index -> i64` that no
// reconcile can fold: "LLVM Translation failed for operation:
// builtin.unrealized_conversion_cast" for any kernel whose index-valued
// T.if_then_else (a loop extent depending on the block index, say) became an
// scf.if with a result.
//
// This pass is the same conversion with the converter at the lowering's
// index width, and it does nothing at all when the gpu.module has no nvgpu op
// or type (then there is nothing for it to convert, and retyping the SCF ops
// would only cost time).
//
//===----------------------------------------------------------------------===//

#include "CodegenImpl.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace {

/// Whether anything in `module` belongs to the nvgpu dialect: an op, or a
/// value (result or block argument) of an nvgpu type.
bool usesNVGPU(gpu::GPUModuleOp module) {
  auto isNVGPUType = [](Type type) {
    return isa<nvgpu::NVGPUDialect>(type.getDialect());
  };
  WalkResult found = module.walk([&](Operation *op) {
    if (isa<nvgpu::NVGPUDialect>(op->getDialect()) ||
        llvm::any_of(op->getResultTypes(), isNVGPUType))
      return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (llvm::any_of(block.getArgumentTypes(), isNVGPUType))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// The LLVM types of the nvgpu types, as the nvgpu patterns expect them.
void addNVGPUTypeConversions(LLVMTypeConverter &converter) {
  nvgpu::populateCommonGPUTypeAndAttributeConversions(converter);
  MLIRContext *ctx = &converter.getContext();
  // An async-copy token carries nothing at run time: an i32 the patterns
  // drop.
  converter.addConversion([&converter, ctx](nvgpu::DeviceAsyncTokenType) {
    return converter.convertType(IntegerType::get(ctx, 32));
  });
  // mbarrier tokens and wgmma matrix descriptors are 64-bit values.
  converter.addConversion([&converter, ctx](nvgpu::MBarrierTokenType) {
    return converter.convertType(IntegerType::get(ctx, 64));
  });
  converter.addConversion(
      [&converter, ctx](nvgpu::WarpgroupMatrixDescriptorType) {
        return converter.convertType(IntegerType::get(ctx, 64));
      });
  // A group of mbarriers lives in a shared-memory array of i64.
  converter.addConversion([&converter, ctx](nvgpu::MBarrierGroupType type) {
    return converter.convertType(nvgpu::getMBarrierMemrefType(ctx, type));
  });
  // A TMA descriptor is passed by (generic) address.
  converter.addConversion([ctx](nvgpu::TensorMapDescriptorType) {
    return LLVM::LLVMPointerType::get(ctx);
  });
  // A wgmma accumulator of M x N elements: one struct per 64 rows (one
  // warpgroup's m64 tile), each holding the thread's registers of it, N / 2
  // of a 32-bit type, N / 4 f16x2 pairs counted as f16 elements.
  converter.addConversion([ctx](nvgpu::WarpgroupAccumulatorType type) -> Type {
    VectorType fragmented = type.getFragmented();
    Type element = fragmented.getElementType();
    int64_t rows = fragmented.getDimSize(0);
    int64_t columns = fragmented.getDimSize(1);
    int64_t registers;
    if (element.isF32() || element.isInteger(32))
      registers = columns / 2;
    else if (element.isF16())
      registers = columns / 4;
    else
      return Type();
    auto tile = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(registers, element));
    return LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(rows / 64, tile));
  });
}

struct NVGPUToNVVMPass
    : PassWrapper<NVGPUToNVVMPass, OperationPass<gpu::GPUModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NVGPUToNVVMPass)

  explicit NVGPUToNVVMPass(unsigned indexBitwidth)
      : indexBitwidth(indexBitwidth) {}

  StringRef getArgument() const override { return "tilec-nvgpu-to-nvvm"; }
  StringRef getDescription() const override {
    return "nvgpu ops to NVVM with the lowering's index width";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, LLVM::LLVMDialect,
                    memref::MemRefDialect, NVVM::NVVMDialect>();
  }

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (!usesNVGPU(module))
      return;
    MLIRContext *ctx = &getContext();
    LowerToLLVMOptions options(ctx);
    options.overrideIndexBitwidth(indexBitwidth);
    LLVMTypeConverter converter(ctx, options);
    addNVGPUTypeConversions(converter);

    RewritePatternSet patterns(ctx);
    populateNVGPUToNVVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<arith::ArithDialect, memref::MemRefDialect,
                           NVVM::NVVMDialect>();
    // nvgpu values (accumulators, tokens) flow through loops and branches.
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }

  unsigned indexBitwidth;
};

} // namespace

std::unique_ptr<Pass>
tilec::detail::createNVGPUToNVVMPass(unsigned indexBitwidth) {
  return std::make_unique<NVGPUToNVVMPass>(indexBitwidth);
}
