//===- ResourceChecks.h - Kernels against the chip's limits -----*- C++ -*-===//
//
// Static resource checks of compiled kernels, so that a kernel the driver
// could not launch ("too many resources requested for launch", "out of
// resources") is rejected at compile time, at the `T.Kernel` line that made
// it: threads per block before code generation; registers, shared memory
// and spills afterwards, from what ptxas -v or the AMDGPU code-object
// metadata reported (KernelResources). Shared memory of the planned buffers
// is checked earlier, by tile-plan-shared, which names the buffers.
//
// Errors fail the compile; spills are warnings (the kernel runs, slower).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_RESOURCECHECKS_H
#define TILEC_TARGET_RESOURCECHECKS_H

#include "tilec/Target/Codegen.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace tilec {

/// One problem of one kernel, as text (no location: the caller has it).
struct ResourceFinding {
  bool isError = true; ///< false: a warning
  std::string message;
};

/// What the launch of one kernel is known to use besides its KernelResources.
struct LaunchShape {
  unsigned threads = 0;            ///< threads per block; 0: unknown
  unsigned dynamicSharedBytes = 0; ///< tile.dynamic_shared_bytes
};

/// Checks `r` (reported by the assembler for a kernel launched as `launch`)
/// against `target`: registers per thread and per block, static plus dynamic
/// shared memory (errors); spilled registers (a warning). Pure, for tests.
std::vector<ResourceFinding> checkResources(const KernelResources &r,
                                            const LaunchShape &launch,
                                            const TargetInfo &target);

/// Threads per block of every gpu.func kernel of `module` (its tile.threads,
/// else its known_block_size) against the chip; an error at the kernel for
/// each one over the limit.
mlir::LogicalResult checkKernelThreads(mlir::ModuleOp module,
                                       const TargetInfo &target);

/// Runs checkResources for each gpu.func kernel of `module` that `resources`
/// reports on, and emits the findings at the kernel's location (the
/// `T.Kernel` call of a .tile source). Failure if any is an error.
mlir::LogicalResult
checkKernelResources(mlir::ModuleOp module, const TargetInfo &target,
                     llvm::ArrayRef<KernelResources> resources);

} // namespace tilec

#endif // TILEC_TARGET_RESOURCECHECKS_H
