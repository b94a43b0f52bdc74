//===- Codegen.h - GPU dialect to PTX, cubin and HSACO ----------*- C++ -*-===//
//
// The last stage of tilec: an MLIR module holding gpu.modules whose gpu.func
// kernels use upstream dialects only (gpu, arith, math, memref, scf, cf,
// vector, index, affine; nvvm/nvgpu for NVIDIA, rocdl/amdgpu for AMD) is
// lowered to the LLVM dialect, translated to LLVM IR and compiled in process
// by LLVM's NVPTX or AMDGPU backend.
//
// - Everything runs in process, deterministically (identical input gives
//   byte-identical output) and without a GPU driver. The only subprocesses
//   are ptxas (PTX -> cubin) and ld.lld (AMDGPU object -> HSACO), because
//   neither exists as a library here.
// - The input module is not modified: each entry point lowers a clone.
// - Kernel memref arguments use the bare-pointer convention: each becomes
//   one pointer parameter, so they must have a static shape and static
//   strides (pass dynamic sizes as scalar arguments).
// - All gpu.modules of the input are linked into one device image.
// - Errors are reported as MLIR diagnostics on the offending operation (or
//   on the module) and the call returns failure; nothing aborts. Operations
//   the chip lacks (wgmma on sm_80, fp8 MFMA on gfx90a, nvvm ops on an AMD
//   chip...) are rejected before code generation with a located error.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_CODEGEN_H
#define TILEC_TARGET_CODEGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class TimingScope;
} // namespace mlir

namespace tilec {

/// Registers every dialect the code emitters accept as input (gpu, arith,
/// math, memref, scf, cf, vector, index, affine, func, ub, complex, llvm,
/// nvvm, nvgpu, rocdl, amdgpu) plus the interfaces the lowering and the
/// translation need, e.g. for a driver that parses a GPU-level .mlir file.
void registerCodegenDialects(mlir::DialectRegistry &registry);

/// Per-kernel resource usage reported by the device assembler: ptxas -v for
/// cubins, the AMDGPU code-object metadata for HSACOs. -1: not reported.
struct KernelResources {
  std::string name;
  /// 32-bit registers per thread: NVIDIA registers; AMD VGPRs per lane,
  /// accumulation VGPRs (AGPRs) included, as `.vgpr_count` counts them on
  /// the CDNA chips' unified register file.
  int registers = -1;
  /// AMD only: the AGPRs among `registers`.
  int accumRegisters = -1;
  /// AMD only: scalar registers per wavefront.
  int scalarRegisters = -1;
  /// NVIDIA only: bytes spilled to / reloaded from local memory.
  int spillStoreBytes = -1;
  int spillLoadBytes = -1;
  /// AMD only: VGPRs and SGPRs spilled to scratch memory.
  int spilledVectorRegisters = -1;
  int spilledScalarRegisters = -1;
  /// Per-thread stack / private-segment bytes.
  int stackBytes = -1;
  /// Static shared memory (LDS) bytes; dynamic shared memory is not counted.
  int sharedBytes = -1;
};

struct CodegenOptions {
  /// A chip TargetInfo::get accepts: "sm_80", "sm_90a", "gfx90a", "gfx942".
  /// The module's `#tile.target` decides; when both are given they must
  /// agree, and an empty `chip` takes the module's.
  std::string chip;
  /// LLVM optimization level 0-3 for the IR pipeline and the backend
  /// (tilec -O0 .. -O3).
  unsigned optLevel = 3;
  /// ptxas's -O level (0-3), apart from `optLevel` as nvcc keeps it: ptxas
  /// allocates the registers, and its report is what the resource checks
  /// and the header read, so a lighter LLVM pipeline leaves it at -O3.
  unsigned ptxasOptLevel = 3;
  /// Width of `index` on the device (32 or 64). 32 is cheaper (fewer
  /// registers and instructions) and right while every index, including
  /// linearized addresses in elements, fits in a signed 32-bit integer.
  unsigned indexBitwidth = 32;
  /// Flush f32 denormals to zero (libdevice's __nvvm_reflect("__CUDA_FTZ"),
  /// the ROCm device libraries' __oclc_daz_opt).
  bool flushDenormals = false;
  /// Roots of the CUDA and ROCm installations (--cuda-path, --rocm-path);
  /// empty: searched as Toolchain.h describes.
  std::string cudaPath;
  std::string rocmPath;
  /// ptxas to run for cubins; empty: found through Toolchain.h's search.
  std::string ptxasPath;
  /// Extra ptxas arguments (e.g. "-lineinfo").
  std::vector<std::string> ptxasArgs;
  /// libdevice.10.bc; empty: the CUDA toolkit's (Toolchain.h).
  std::string libdevicePath;
  /// Directory of the ROCm device libraries (ocml.bc, ockl.bc, oclc_*.bc);
  /// empty: searched (Toolchain.h).
  std::string rocmBitcodeDir;
  /// ld.lld to link HSACOs; empty: LLVM 22's, searched (Toolchain.h).
  std::string lldPath;
  /// When set (tilec -ftime-report), the stages nest their times in it.
  mlir::TimingScope *timing = nullptr;
};

/// Lowers the gpu.modules to the LLVM dialect and returns the LLVM IR text of
/// the module as handed to the backend: device libraries linked, internalized
/// and optimized at `optLevel` (for --emit=llvm).
mlir::FailureOr<std::string> emitLLVMIR(mlir::ModuleOp module,
                                        const CodegenOptions &options);

/// Where a problem of the backend or the assembler is reported: at the
/// kernel `message` names (`'<kernel>'`), else at the only kernel of the
/// module (its T.Kernel line), else at the module.
mlir::Location backendLocation(mlir::ModuleOp module,
                               llvm::StringRef message = "");

/// PTX assembly for an NVIDIA chip.
mlir::FailureOr<std::string> emitPTX(mlir::ModuleOp module,
                                     const CodegenOptions &options);

/// A cubin for an NVIDIA chip: emitPTX, then ptxas -v. When `resources` is
/// given it receives one entry per kernel (in ptxas's order).
mlir::FailureOr<std::string>
emitCubin(mlir::ModuleOp module, const CodegenOptions &options,
          std::vector<KernelResources> *resources = nullptr);

/// Runs ptxas on PTX text (e.g. the output of emitPTX), so that a driver
/// emitting both PTX and a cubin lowers once. Errors are reported at `loc`.
mlir::FailureOr<std::string>
assemblePTX(llvm::StringRef ptx, mlir::Location loc,
            const CodegenOptions &options,
            std::vector<KernelResources> *resources = nullptr);

/// A code object v5 HSACO (ELF shared object) for an AMD chip, with no
/// undefined symbols. When `resources` is given it receives one entry per
/// kernel, read from the code object's metadata note.
mlir::FailureOr<std::string>
emitHSACO(mlir::ModuleOp module, const CodegenOptions &options,
          std::vector<KernelResources> *resources = nullptr);

/// The loadable binary of the chip's vendor: emitCubin or emitHSACO.
mlir::FailureOr<std::string>
emitBinary(mlir::ModuleOp module, const CodegenOptions &options,
           std::vector<KernelResources> *resources = nullptr);

/// Parses the "ptxas info" lines of `ptxas -v` output, one entry per
/// "Compiling entry function" (exposed for tests).
std::vector<KernelResources> parsePtxasResourceUsage(llvm::StringRef log);

} // namespace tilec

#endif // TILEC_TARGET_CODEGEN_H
