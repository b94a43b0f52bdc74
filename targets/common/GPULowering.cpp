//===- GPULowering.cpp - gpu.modules to one llvm::Module
//-------------------===//
//
// The MLIR half of code emission, shared by both vendors: validate the input
// (a chip is known, kernels exist, kernel memrefs can be bare pointers, the
// ops are available on the chip), lower a clone of the module to the LLVM
// dialect with upstream conversions, and translate every gpu.module into one
// llvm::Module.
//
// This is the only MLIR-heavy file of the TilecTarget library: the pass and
// translation headers cost most of its compile time, so nothing else that is
// MLIR-heavy lives here.
//
//===----------------------------------------------------------------------===//

#include "CodegenImpl.h"

#include "mlir/Conversion/AMDGPUToROCDL/AMDGPUToROCDL.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ComplexToLLVM/ComplexToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/AMDGPU/Utils/Chipset.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

/// Everything the conversions and the translation need to find through
/// interfaces.
static void registerCodegenInterfaces(DialectRegistry &registry) {
  // convert-gpu-to-{nvvm,rocdl} collect the patterns of every loaded dialect
  // that implements ConvertToLLVMPatternInterface.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertComplexToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  // LLVM dialect (+ NVVM/ROCDL intrinsics) -> llvm::Module.
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
}

void tilec::registerCodegenDialects(DialectRegistry &registry) {
  registry
      .insert<affine::AffineDialect, amdgpu::AMDGPUDialect, arith::ArithDialect,
              cf::ControlFlowDialect, complex::ComplexDialect,
              func::FuncDialect, gpu::GPUDialect, index::IndexDialect,
              LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
              NVVM::NVVMDialect, nvgpu::NVGPUDialect, ROCDL::ROCDLDialect,
              scf::SCFDialect, ub::UBDialect, vector::VectorDialect>();
  registerCodegenInterfaces(registry);
}

/// Bare-pointer kernel arguments drop the memref descriptor, so the shape and
/// strides must be known statically. Upstream reports a violation as "failed
/// to legalize gpu.func"; say what is wrong and where instead.
static LogicalResult checkKernelSignatures(gpu::GPUModuleOp gpuModule) {
  bool ok = true;
  gpuModule.walk([&](gpu::GPUFuncOp func) {
    for (auto [index, type] : llvm::enumerate(func.getArgumentTypes())) {
      auto memref = dyn_cast<MemRefType>(type);
      if (!memref)
        continue;
      SmallVector<int64_t> strides;
      int64_t offset;
      bool staticLayout =
          succeeded(memref.getStridesAndOffset(strides, offset)) &&
          !ShapedType::isDynamic(offset) &&
          llvm::none_of(strides, ShapedType::isDynamic);
      if (memref.hasStaticShape() && staticLayout)
        continue;
      InFlightDiagnostic diag = emitError(func.getLoc())
                                << "argument #" << index << " of '"
                                << func.getName() << "' has type " << type
                                << ", which cannot be passed as a bare pointer";
      diag.attachNote() << "kernel memref arguments need a static shape and "
                           "static strides; pass dynamic sizes as scalar "
                           "arguments";
      ok = false;
    }
  });
  return success(ok);
}

/// convert-gpu-to-{nvvm,rocdl} lower gpu.subgroup_reduce only in the form
/// redux.sync covers (uniform, i32, NVIDIA). Expand every other one first:
/// into butterfly shuffles on NVIDIA, DPP/permlane sequences on AMD.
static LogicalResult expandSubgroupReductions(gpu::GPUModuleOp gpuModule,
                                              const TargetInfo &target) {
  SmallVector<Operation *> reductions;
  gpuModule.walk([&](gpu::SubgroupReduceOp op) {
    bool redux = target.isNVIDIA() && op.getUniform() && !op.getClusterSize() &&
                 op.getType().isInteger(32);
    if (!redux)
      reductions.push_back(op);
  });
  if (reductions.empty())
    return success();
  MLIRContext *ctx = gpuModule.getContext();
  // The expansions create ops of these dialects, which the input may not
  // have loaded.
  ctx->loadDialect<arith::ArithDialect, vector::VectorDialect,
                   amdgpu::AMDGPUDialect, ROCDL::ROCDLDialect>();
  RewritePatternSet patterns(ctx);
  populateGpuBreakDownSubgroupReducePatterns(patterns,
                                             /*maxShuffleBitwidth=*/32);
  if (target.isNVIDIA()) {
    populateGpuLowerSubgroupReduceToShufflePatterns(patterns,
                                                    target.warpSize());
    populateGpuLowerClusteredSubgroupReduceToShufflePatterns(patterns,
                                                             target.warpSize());
  } else {
    FailureOr<amdgpu::Chipset> chipset = amdgpu::Chipset::parse(target.chip());
    if (failed(chipset))
      return emitError(gpuModule.getLoc())
             << "unknown AMD chipset " << target.chip();
    populateGpuLowerSubgroupReduceToDPPPatterns(patterns, target.warpSize(),
                                                *chipset);
    populateGpuLowerClusteredSubgroupReduceToDPPPatterns(
        patterns, target.warpSize(), *chipset);
    // Whatever DPP does not cover (e.g. wide types) goes through shuffles.
    populateGpuLowerSubgroupReduceToShufflePatterns(patterns, target.warpSize(),
                                                    32, /*benefit=*/0);
    populateGpuLowerClusteredSubgroupReduceToShufflePatterns(
        patterns, target.warpSize(), 32, /*benefit=*/0);
  }
  if (failed(applyOpPatternsGreedily(reductions, std::move(patterns))))
    return emitError(gpuModule.getLoc()) << "cannot expand gpu.subgroup_reduce";
  return success();
}

/// The lowering to the LLVM dialect, run on every gpu.module.
static void buildLoweringPipeline(OpPassManager &pm, const TargetInfo &target,
                                  const CodegenOptions &options) {
  OpPassManager &gpm = pm.nest<gpu::GPUModuleOp>();
  if (target.isNVIDIA()) {
    gpm.addPass(createNVGPUToNVVMPass(options.indexBitwidth));
  } else {
    ConvertAMDGPUToROCDLPassOptions amdgpuOptions;
    amdgpuOptions.chipset = target.chip().str();
    gpm.addPass(createConvertAMDGPUToROCDLPass(amdgpuOptions));
  }
  gpm.addPass(createConvertVectorToSCFPass());
  // Subviews and casts become reinterpret_casts whose index math is affine.
  gpm.addPass(memref::createExpandStridedMetadataPass());
  gpm.addPass(createLowerAffinePass());
  gpm.addPass(createSCFToControlFlowPass());
  // ceildivsi, floordivsi, maximumf... have no direct LLVM lowering.
  gpm.addPass(arith::createArithExpandOpsPass());
  if (target.isNVIDIA()) {
    ConvertGpuOpsToNVVMOpsOptions nvvmOptions;
    nvvmOptions.indexBitwidth = options.indexBitwidth;
    nvvmOptions.useBarePtrCallConv = true;
    // redux.sync exists from sm_80, the oldest chip tilec supports.
    nvvmOptions.hasRedux = true;
    gpm.addPass(createConvertGpuOpsToNVVMOps(nvvmOptions));
    // NVVM ops implemented as inline PTX (wgmma, mbarrier, TMA...).
    gpm.addPass(createConvertNVVMToLLVMPass());
  } else {
    ConvertGpuOpsToROCDLOpsOptions rocdlOptions;
    rocdlOptions.chipset = target.chip().str();
    rocdlOptions.indexBitwidth = options.indexBitwidth;
    rocdlOptions.useBarePtrCallConv = true;
    rocdlOptions.runtime = gpu::amd::Runtime::HIP;
    gpm.addPass(createConvertGpuOpsToROCDLOps(rocdlOptions));
  }
  gpm.addPass(createReconcileUnrealizedCastsPass());
}

/// Works around LLVM 22's translation of rocdl.workgroup.dim.* and
/// rocdl.grid.dim.*: it emits the device-library call (which returns i64)
/// and uses its result as is, so with 32-bit indices the IR gets
/// `mul i32 %x, i64 %dim` and fails verification. Rebuild those ops with an
/// i64 result (and a 64-bit range) followed by an explicit truncation.
static void widenROCDLDimGetters(gpu::GPUModuleOp gpuModule) {
  SmallVector<Operation *> narrow;
  gpuModule.walk([&](Operation *op) {
    llvm::StringRef name = op->getName().getStringRef();
    if ((name.starts_with("rocdl.workgroup.dim.") ||
         name.starts_with("rocdl.grid.dim.")) &&
        op->getNumResults() == 1 && !op->getResult(0).getType().isInteger(64))
      narrow.push_back(op);
  });
  for (Operation *op : narrow) {
    OpBuilder builder(op);
    Type i64 = builder.getI64Type();
    OperationState state(op->getLoc(), op->getName());
    state.addTypes(i64);
    for (NamedAttribute attr : op->getAttrs()) {
      if (auto range = dyn_cast<LLVM::ConstantRangeAttr>(attr.getValue())) {
        state.addAttribute(attr.getName(),
                           LLVM::ConstantRangeAttr::get(
                               op->getContext(), range.getLower().zext(64),
                               range.getUpper().zext(64)));
        continue;
      }
      state.addAttribute(attr.getName(), attr.getValue());
    }
    Operation *wide = builder.create(state);
    Value narrowed = LLVM::TruncOp::create(
        builder, op->getLoc(), op->getResult(0).getType(), wide->getResult(0));
    op->getResult(0).replaceAllUsesWith(narrowed);
    op->erase();
  }
}

/// Without a work-group size bound, LLVM 22's ROCDL translation gives kernels
/// "amdgpu-flat-work-group-size"="1,256", and launching one with more than
/// 256 threads fails. Allow the chip's maximum unless the kernel states a
/// bound (gpu.func known_block_size becomes rocdl.reqd_work_group_size and
/// rocdl.flat_work_group_size).
static void setDefaultWorkGroupSizeBound(gpu::GPUModuleOp gpuModule,
                                         const TargetInfo &target) {
  for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>()) {
    if (!func->hasAttr(ROCDL::ROCDLDialect::getKernelFuncAttrName()) ||
        func->hasAttr(ROCDL::ROCDLDialect::getFlatWorkGroupSizeAttrName()) ||
        func->hasAttr(ROCDL::ROCDLDialect::getReqdWorkGroupSizeAttrName()) ||
        func->hasAttr("rocdl.max_flat_work_group_size"))
      continue;
    func->setAttr(
        ROCDL::ROCDLDialect::getFlatWorkGroupSizeAttrName(),
        StringAttr::get(func->getContext(),
                        "1," + std::to_string(target.maxThreadsPerBlock())));
  }
}

/// MLIR lowers gpu.dynamic_shared_memory to an *internal* zero-length
/// array, `@__dynamic_shmem__0 = internal addrspace(3) global [0 x i8]
/// undef`. Its size is then known to be 0, and LLVM's alias analysis
/// concludes that any two 4-byte accesses of a 0-byte object cannot alias
/// (such an access would be undefined): a store to shared memory followed,
/// without a barrier, by a load of the same address gets the value loaded
/// before the store (T.cumsum along dim 0 summed stale rows). Declare it
/// external instead, as clang does for `extern __shared__`: a declaration
/// has no known size, and both backends take an external zero-length
/// shared array as the dynamic shared memory.
static void declareDynamicSharedExternal(llvm::Module &module) {
  for (llvm::GlobalVariable &global : module.globals()) {
    auto *array = llvm::dyn_cast<llvm::ArrayType>(global.getValueType());
    if (global.getAddressSpace() != 3 || !array ||
        array->getNumElements() != 0 || !global.hasInitializer())
      continue;
    global.setInitializer(nullptr);
    global.setLinkage(llvm::GlobalValue::ExternalLinkage);
    // The base of every buffer tile-plan-shared placed: offsets aligned
    // up to 1024 bytes (wgmma's and TMA's swizzle period) are aligned
    // addresses only if the base is.
    global.setAlignment(llvm::Align(1024));
    global.setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::None);
  }
}

/// The index width of a kernel: its `tile.index_bits`, else `fallback`.
static unsigned kernelIndexBits(gpu::GPUFuncOp func, unsigned fallback) {
  if (auto bits = func->getAttrOfType<IntegerAttr>("tile.index_bits"))
    return unsigned(bits.getInt());
  return fallback;
}

/// Clones every gpu.module into `narrow` (its 32-bit kernels) and `wide`
/// (its 64-bit ones). A module with kernels of both widths is cloned into
/// both, each clone without the other width's kernels; the wide clone is
/// renamed so that the two translations link.
static void splitByIndexWidth(ArrayRef<gpu::GPUModuleOp> gpuModules,
                              unsigned fallback, ModuleOp narrow,
                              ModuleOp wide) {
  for (gpu::GPUModuleOp gpuModule : gpuModules) {
    bool has[2] = {false, false};
    for (auto func : gpuModule.getOps<gpu::GPUFuncOp>())
      if (func.isKernel())
        has[kernelIndexBits(func, fallback) == 64] = true;
    if (!has[0] && !has[1])
      has[fallback == 64] = true;
    for (unsigned w = 0; w < 2; ++w) {
      if (!has[w])
        continue;
      auto clone = cast<gpu::GPUModuleOp>(gpuModule->clone());
      if (has[0] && has[1]) {
        SmallVector<gpu::GPUFuncOp> other;
        for (auto func : clone.getOps<gpu::GPUFuncOp>())
          if (func.isKernel() &&
              (kernelIndexBits(func, fallback) == 64) != bool(w))
            other.push_back(func);
        for (gpu::GPUFuncOp func : other)
          func.erase();
        if (w)
          clone.setName((gpuModule.getName() + "_i64").str());
      }
      (w ? wide : narrow).getBody()->push_back(clone);
    }
  }
}

/// Marks every inline-asm call convergent, as clang does for device code
/// (CUDA, HIP, OpenCL): the asm may hold a block barrier, a warp- or
/// warpgroup-collective instruction (`bar.sync`, `wgmma.mma_async.sync.aligned`)
/// or a wait others depend on, and MLIR's llvm.inline_asm cannot say so.
/// Without the attribute LLVM may duplicate the call into control flow
/// that diverges between threads: jump threading copied T.sync_grid's asm
/// (two `bar.sync 0`) into both arms of the guard `if bx * 128 + i < n`,
/// so the threads of a partial last block waited at different barriers and
/// the grid hung.
static void markInlineAsmConvergent(llvm::Module &module) {
  for (llvm::Function &f : module)
    for (llvm::BasicBlock &block : f)
      for (llvm::Instruction &inst : block)
        if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst))
          if (call->isInlineAsm())
            call->addFnAttr(llvm::Attribute::Convergent);
}

/// Translates a lowered gpu.module, verifying the result here so that a
/// verifier complaint becomes a diagnostic instead of text on stderr.
static std::unique_ptr<llvm::Module>
translateGPUModule(gpu::GPUModuleOp gpuModule, llvm::LLVMContext &llvmCtx) {
  std::unique_ptr<llvm::Module> translated = translateModuleToLLVMIR(
      gpuModule, llvmCtx, gpuModule.getName(), /*disableVerification=*/true);
  if (!translated) {
    emitError(gpuModule.getLoc()) << "cannot translate gpu.module '"
                                  << gpuModule.getName() << "' to LLVM IR";
    return nullptr;
  }
  declareDynamicSharedExternal(*translated);
  markInlineAsmConvergent(*translated);
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*translated, &os)) {
    emitError(gpuModule.getLoc())
        << "internal error: the LLVM IR of gpu.module '" << gpuModule.getName()
        << "' does not verify:\n"
        << problems;
    return nullptr;
  }
  return translated;
}

Location tilec::backendLocation(ModuleOp module, llvm::StringRef message) {
  llvm::SmallVector<gpu::GPUFuncOp> kernels;
  module.walk([&](gpu::GPUFuncOp func) {
    if (func.isKernel())
      kernels.push_back(func);
  });
  for (gpu::GPUFuncOp func : kernels)
    if (!message.empty() &&
        message.contains(("'" + func.getName() + "'").str()))
      return func.getLoc();
  return kernels.size() == 1 ? kernels.front().getLoc() : module.getLoc();
}

FailureOr<std::unique_ptr<llvm::Module>>
tilec::detail::translateToLLVMIR(ModuleOp module, const TargetInfo &target,
                                 const CodegenOptions &options,
                                 llvm::LLVMContext &llvmCtx) {
  MLIRContext &ctx = *module.getContext();
  if (options.indexBitwidth != 32 && options.indexBitwidth != 64)
    return emitError(module.getLoc())
           << "index bitwidth must be 32 or 64, not " << options.indexBitwidth;

  SmallVector<gpu::GPUModuleOp> gpuModules(
      module.getBody()->getOps<gpu::GPUModuleOp>());
  bool hasKernel = llvm::any_of(gpuModules, [](gpu::GPUModuleOp m) {
    return llvm::any_of(m.getOps<gpu::GPUFuncOp>(),
                        [](gpu::GPUFuncOp f) { return f.isKernel(); });
  });
  if (!hasKernel)
    return emitError(module.getLoc())
           << "nothing to compile: no gpu.module holds a gpu.func kernel";
  bool signaturesOk = true;
  for (gpu::GPUModuleOp gpuModule : gpuModules)
    signaturesOk &= succeeded(checkKernelSignatures(gpuModule));
  if (!signaturesOk)
    return failure();
  if (failed(target.isNVIDIA() ? checkNVVMOps(module, target)
                               : checkAMDGPUOps(module, target)))
    return failure();

  // Appending is idempotent: extensions are keyed by TypeID.
  DialectRegistry registry;
  registerCodegenInterfaces(registry);
  ctx.appendDialectRegistry(registry);
  // Lower a copy holding the gpu.modules only: the input stays untouched and
  // host code (if any) is not our business. The index width is one per
  // conversion, and each kernel has its own (`tile.index_bits`, MLIRGen's
  // decision; options.indexBitwidth for kernels without one): kernels of
  // each width are lowered in their own copy.
  OwningOpRef<ModuleOp> work[2] = {ModuleOp::create(module.getLoc()),
                                   ModuleOp::create(module.getLoc())};
  splitByIndexWidth(gpuModules, options.indexBitwidth, *work[0], *work[1]);

  for (OwningOpRef<ModuleOp> &half : work)
    for (auto gpuModule : half->getBody()->getOps<gpu::GPUModuleOp>())
      if (failed(expandSubgroupReductions(gpuModule, target)))
        return failure();

  for (unsigned w = 0; w < 2; ++w) {
    if (work[w]->getBody()->empty())
      continue;
    CodegenOptions widthOptions = options;
    widthOptions.indexBitwidth = w ? 64 : 32;
    for (auto gpuModule : work[w]->getBody()->getOps<gpu::GPUModuleOp>())
      lowerMakeTensors(gpuModule, widthOptions.indexBitwidth);
    PassManager pm(&ctx, ModuleOp::getOperationName());
    buildLoweringPipeline(pm, target, widthOptions);
    // Verifying the module after each of the nine conversions was 5% of
    // tilec's instructions for gemm_relu (45 M of 890 M, most of it the
    // LLVM dialect's symbol uses); once, after the last, still stops
    // invalid IR before the translation.
    pm.enableVerifier(false);
    mlir::TimingScope passTiming =
        nestTiming(options, "convert to the LLVM dialect");
    if (options.timing)
      pm.enableTiming(passTiming);
    if (failed(pm.run(*work[w])) || failed(mlir::verify(*work[w])))
      return failure();
  }
  mlir::TimingScope exportTiming = nestTiming(options, "export to LLVM IR");

  SmallVector<gpu::GPUModuleOp> lowered;
  for (OwningOpRef<ModuleOp> &half : work)
    llvm::append_range(lowered, half->getBody()->getOps<gpu::GPUModuleOp>());
  std::unique_ptr<llvm::Module> linked;
  LLVMDiagnosticScope diagnostics(llvmCtx, module.getLoc());
  for (gpu::GPUModuleOp gpuModule : lowered) {
    if (!target.isNVIDIA()) {
      widenROCDLDimGetters(gpuModule);
      setDefaultWorkGroupSizeBound(gpuModule, target);
    } else {
      markNVVMKernels(gpuModule);
    }
    std::unique_ptr<llvm::Module> translated =
        translateGPUModule(gpuModule, llvmCtx);
    if (!translated)
      return failure();
    if (!linked) {
      linked = std::move(translated);
      continue;
    }
    // Kernels of different gpu.modules end up in one image; a clash of
    // non-internal names is an error the linker reports.
    if (llvm::Linker::linkModules(*linked, std::move(translated))) {
      (void)diagnostics.flush();
      return emitError(module.getLoc())
             << "cannot link gpu.module '" << gpuModule.getName()
             << "' with the others into one device image";
    }
  }
  if (failed(diagnostics.flush()))
    return failure();
  linked->setTargetTriple(llvm::Triple(target.llvmTriple()));
  // The source file name ends up in object files: keep it input-independent.
  linked->setSourceFileName("tilec");
  return linked;
}
