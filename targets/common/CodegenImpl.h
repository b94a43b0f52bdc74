//===- CodegenImpl.h - Internals shared by the tilec backends ---*- C++ -*-===//
//
// The pieces of code emission the vendor backends (targets/nvptx,
// targets/amdgpu) share, private to the TilecTarget library:
// - the MLIR half (GPULowering.cpp): checks, lowering of a clone of the
//   input to the LLVM dialect, translation of every gpu.module to one
//   llvm::Module;
// - the LLVM half (LLVMBackend.cpp): target machines, bitcode linking,
//   internalization, the optimization pipeline, running the backend with
//   its errors turned into diagnostics, and running the two external tools.
// The vendor files add the op checks and the device-library, assembler and
// linker steps.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGETS_COMMON_CODEGENIMPL_H
#define TILEC_TARGETS_COMMON_CODEGENIMPL_H

#include "tilec/Target/Codegen.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CodeGen.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir {
class Pass;
namespace gpu {
class GPUModuleOp;
} // namespace gpu
} // namespace mlir

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace tilec::detail {

enum class Vendor { NVIDIA, AMD };

/// The TargetInfo of options.chip, or an error at `module`'s location when the
/// chip is unknown or (if `vendor` is given) of another vendor than the output
/// `what` needs ("PTX", "an HSACO").
std::unique_ptr<TargetInfo> getTargetInfo(mlir::ModuleOp module,
                                          const CodegenOptions &options,
                                          std::optional<Vendor> vendor,
                                          llvm::StringRef what);

//===--- MLIR half (GPULowering.cpp) --------------------------------------===//

/// Checks the input, lowers a clone of it to the LLVM dialect and translates
/// every gpu.module into `ctx`, linked into one module whose triple is set
/// (data layout: see prepareModule). Diagnostics go to `module`'s context.
mlir::FailureOr<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp module, const TargetInfo &target,
                  const CodegenOptions &options, llvm::LLVMContext &ctx);

/// Vendor checks of the ops in the gpu.modules against the chip, run by
/// translateToLLVMIR before lowering. Each emits one error per offending op.
mlir::LogicalResult checkNVVMOps(mlir::ModuleOp module,
                                 const TargetInfo &target);
mlir::LogicalResult checkAMDGPUOps(mlir::ModuleOp module,
                                   const TargetInfo &target);

/// NVVM's spellings of the kernel properties the passes record in
/// vendor-neutral attributes (NVVMKernelAttrs.cpp), set on the LLVM-dialect
/// kernels of `gpuModule` after the GPU-to-NVVM conversion.
void markNVVMKernels(mlir::gpu::GPUModuleOp gpuModule);

/// Replaces every tile.make_tensor in `gpuModule` by the memref descriptor
/// of its address (inttoptr, static sizes and strides of `indexBitwidth`
/// bits) behind an unrealized cast, which the memref conversions fold
/// (MakeTensorToLLVM.cpp).
void lowerMakeTensors(mlir::gpu::GPUModuleOp gpuModule, unsigned indexBitwidth);

/// convert-nvgpu-to-nvvm at the lowering's index width (NVGPUToNVVM.cpp):
/// upstream's pass lowers `index` to i64 whatever the rest of the lowering
/// does.
std::unique_ptr<mlir::Pass> createNVGPUToNVVMPass(unsigned indexBitwidth);

//===--- LLVM half (LLVMBackend.cpp) --------------------------------------===//

/// Collects the errors and warnings LLVM reports through its context while
/// alive, and forwards them as MLIR diagnostics at `loc` on flush().
class LLVMDiagnosticScope {
public:
  LLVMDiagnosticScope(llvm::LLVMContext &ctx, mlir::Location loc);
  ~LLVMDiagnosticScope();
  /// Emits what was collected; failure if an error was among it.
  mlir::LogicalResult flush();

private:
  llvm::LLVMContext &ctx;
  mlir::Location loc;
  llvm::SmallVector<std::pair<bool, std::string>> messages; // (isError, text)
};

/// The LLVM target machine for `target` (targets are initialized on first
/// use). Errors at `loc`.
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const TargetInfo &target, llvm::StringRef features,
                    unsigned optLevel, mlir::Location loc);

/// Sets the target's data layout and triple on `module`.
void setDataLayout(llvm::Module &module, llvm::TargetMachine &tm);

/// Links the definitions `module` needs from the bitcode file at `path`
/// (retargeted to `module`'s triple and data layout first). Errors at `loc`.
mlir::LogicalResult linkBitcodeLibrary(llvm::Module &module,
                                       llvm::StringRef path,
                                       mlir::Location loc);

/// Whether `module` declares (without defining) a function whose name starts
/// with `prefix`: the cue that a device library must be linked.
bool declaresFunctionWithPrefix(const llvm::Module &module,
                                llvm::StringRef prefix);

/// Gives internal linkage to every definition except the kernels, so that
/// unused library code is dropped and helpers are inlined freely.
void internalizeNonKernels(llvm::Module &module);

/// Runs LLVM's default module pipeline at `optLevel` (0-3) with `tm`'s
/// passes (NVVMReflect, AMDGPU attributor...).
void optimizeModule(llvm::Module &module, llvm::TargetMachine &tm,
                    unsigned optLevel);

/// Runs the backend on `prepared` to produce assembly or an object file. A
/// fatal error of the backend (e.g. "Cannot select" for an instruction the
/// chip lacks that the checks missed) is caught and reported at `loc` instead
/// of aborting; the half-compiled module is then leaked, not destroyed, and
/// `prepared` is left empty.
struct PreparedModule;
mlir::FailureOr<std::string> runBackend(PreparedModule &prepared,
                                        llvm::CodeGenFileType type,
                                        mlir::Location loc);

/// A timing scope `name` under options.timing (-ftime-report), or an
/// inactive one.
mlir::TimingScope nestTiming(const CodegenOptions &options,
                             llvm::StringRef name);

/// Prints `module` as LLVM IR text.
std::string printModule(const llvm::Module &module);

/// A translated, linked and optimized device module with what owns it.
struct PreparedModule {
  std::unique_ptr<llvm::LLVMContext> ctx;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> tm;
};

/// Lowers and translates `module`, then hands the llvm::Module to the vendor
/// step (prepareNVPTXModule / prepareAMDGPUModule) which links device
/// libraries and optimizes: the state emitLLVMIR prints and the backends
/// compile.
mlir::FailureOr<PreparedModule> prepareModule(mlir::ModuleOp module,
                                              const TargetInfo &target,
                                              const CodegenOptions &options);

/// Vendor steps of prepareModule (nvptx/, amdgpu/).
mlir::LogicalResult prepareNVPTXModule(PreparedModule &prepared,
                                       const TargetInfo &target,
                                       const CodegenOptions &options,
                                       mlir::Location loc);
mlir::LogicalResult prepareAMDGPUModule(PreparedModule &prepared,
                                        const TargetInfo &target,
                                        const CodegenOptions &options,
                                        mlir::Location loc);
/// The subtarget features each vendor asks of its target machine (NVIDIA:
/// the PTX version the module's intrinsics need).
std::string nvptxFeatures(const TargetInfo &target,
                          const llvm::Module &module);
std::string amdgpuFeatures(const TargetInfo &target);

/// A file in the system temporary directory, removed on destruction.
class TempFile {
public:
  /// Creates an empty file named like "tilec-<prefix>-XXXXXX.<suffix>".
  static mlir::FailureOr<TempFile>
  create(llvm::StringRef prefix, llvm::StringRef suffix, mlir::Location loc);
  TempFile(TempFile &&other);
  TempFile &operator=(TempFile &&) = delete;
  ~TempFile();
  llvm::StringRef path() const { return filePath; }
  mlir::LogicalResult write(llvm::StringRef contents, mlir::Location loc) const;
  mlir::FailureOr<std::string> read(mlir::Location loc) const;

private:
  explicit TempFile(std::string path) : filePath(std::move(path)) {}
  std::string filePath;
};

/// Runs `program` with `args` (args[0] is the program name) and waits,
/// capturing stdout and stderr together. Returns its exit code and output;
/// failure (with an error at `loc`) only if it could not be started.
struct ToolResult {
  int exitCode;
  std::string output;
};
mlir::FailureOr<ToolResult> runTool(llvm::StringRef program,
                                    llvm::ArrayRef<std::string> args,
                                    mlir::Location loc);

} // namespace tilec::detail

#endif // TILEC_TARGETS_COMMON_CODEGENIMPL_H
