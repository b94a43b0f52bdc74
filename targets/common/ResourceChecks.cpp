//===- ResourceChecks.cpp - Kernels against the chip's limits -------------===//
//
// The numbers come from TargetInfo (threads, registers per thread and per
// block with the chip's allocation granularity, shared memory), the usage
// from KernelResources. A kernel's location is its gpu.func's, which
// tile-outline-kernels gives the `T.Kernel` call, so every message points
// at the kernel in the .tile source.
//
// Both assemblers normally keep registers within what the launch bounds
// allow (tilec states the block size: .maxntid for ptxas,
// amdgpu-flat-work-group-size for LLVM) and spill the rest; the register
// error is the guard for kernels without that bound (hand-written GPU-level
// input) and the spill warning is what the user usually sees.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/ResourceChecks.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace tilec {

namespace {

std::string kernelName(const KernelResources &r) { return "`" + r.name + "`"; }

/// Threads per block of `kernel`: what the launch header uses (tile.threads),
/// else the bound the kernel was compiled for; 0 if neither is known.
unsigned threadsOf(gpu::GPUFuncOp kernel) {
  if (auto threads = kernel->getAttrOfType<IntegerAttr>("tile.threads"))
    return unsigned(std::max<int64_t>(threads.getInt(), 0));
  if (std::optional<ArrayRef<int32_t>> block = kernel.getKnownBlockSize()) {
    uint64_t product = 1;
    for (int32_t d : *block)
      product *= uint64_t(std::max(d, 0));
    return unsigned(std::min<uint64_t>(product, UINT32_MAX));
  }
  return 0;
}

/// ", all that 1024 threads allow" when `registers` is the cap the block size
/// imposes, ", the most a thread may have" at the chip's cap, else "".
std::string capReason(int registers, unsigned threads,
                      const TargetInfo &target) {
  if (threads > 0 &&
      unsigned(registers) == target.maxRegistersPerThreadInBlock(threads) &&
      unsigned(registers) < target.maxRegistersPerThread())
    return ", all that " + std::to_string(threads) + " threads allow";
  if (unsigned(registers) >= target.maxRegistersPerThread())
    return ", the most a thread may have";
  return "";
}

void checkRegisters(const KernelResources &r, const LaunchShape &launch,
                    const TargetInfo &target,
                    std::vector<ResourceFinding> &findings) {
  if (r.registers < 0)
    return;
  unsigned perThread = unsigned(r.registers);
  if (perThread > target.maxRegistersPerThread()) {
    findings.push_back(
        {true, "kernel " + kernelName(r) + " uses " +
                   std::to_string(perThread) +
                   " registers per thread, more than the " +
                   std::to_string(target.maxRegistersPerThread()) +
                   " a thread may have on " + target.chip().str()});
    return;
  }
  if (launch.threads == 0)
    return;
  uint64_t product = uint64_t(perThread) * launch.threads;
  uint64_t allocated = target.blockRegisterFootprint(launch.threads, perThread);
  if (allocated <= target.registersPerBlock())
    return;
  std::string message = "kernel " + kernelName(r) + " needs " +
                        std::to_string(perThread) + " registers per thread x " +
                        std::to_string(launch.threads) +
                        " threads = " + std::to_string(product) + " registers";
  if (allocated != product)
    message += " (" + std::to_string(allocated) + " once allocated per " +
               (target.isNVIDIA() ? "warp" : "wavefront") + ")";
  message +=
      ", more than the " + std::to_string(target.registersPerBlock()) +
      " a block may use on " + target.chip().str() + "; at most " +
      std::to_string(target.maxRegistersPerThreadInBlock(launch.threads)) +
      " per thread fit " + std::to_string(launch.threads) + " threads";
  findings.push_back({true, std::move(message)});
}

void checkSharedMemory(const KernelResources &r, const LaunchShape &launch,
                       const TargetInfo &target,
                       std::vector<ResourceFinding> &findings) {
  uint64_t staticBytes = uint64_t(std::max(r.sharedBytes, 0));
  uint64_t total = staticBytes + launch.dynamicSharedBytes;
  if (total <= target.maxSharedMemoryPerBlock())
    return;
  findings.push_back(
      {true, "kernel " + kernelName(r) + " needs " + std::to_string(total) +
                 " bytes of shared memory (" +
                 std::to_string(launch.dynamicSharedBytes) + " dynamic + " +
                 std::to_string(staticBytes) + " static), more than the " +
                 std::to_string(target.maxSharedMemoryPerBlock()) +
                 " a block may use on " + target.chip().str()});
}

void checkSpills(const KernelResources &r, const LaunchShape &launch,
                 const TargetInfo &target,
                 std::vector<ResourceFinding> &findings) {
  std::string what;
  if (r.spillStoreBytes > 0 || r.spillLoadBytes > 0)
    what = "local memory: " + std::to_string(std::max(r.spillStoreBytes, 0)) +
           " bytes stored, " + std::to_string(std::max(r.spillLoadBytes, 0)) +
           " bytes loaded";
  else if (r.spilledVectorRegisters > 0 || r.spilledScalarRegisters > 0)
    what = "scratch memory: " +
           std::to_string(std::max(r.spilledVectorRegisters, 0)) + " VGPRs, " +
           std::to_string(std::max(r.spilledScalarRegisters, 0)) + " SGPRs";
  if (what.empty())
    return;
  std::string message =
      "kernel " + kernelName(r) + " spills registers to " + what;
  if (r.registers >= 0)
    message += "; it has " + std::to_string(r.registers) +
               " registers per thread" +
               capReason(r.registers, launch.threads, target);
  findings.push_back({false, std::move(message)});
}

} // namespace

std::vector<ResourceFinding> checkResources(const KernelResources &r,
                                            const LaunchShape &launch,
                                            const TargetInfo &target) {
  std::vector<ResourceFinding> findings;
  checkRegisters(r, launch, target, findings);
  checkSharedMemory(r, launch, target, findings);
  checkSpills(r, launch, target, findings);
  return findings;
}

LogicalResult checkKernelThreads(ModuleOp module, const TargetInfo &target) {
  bool ok = true;
  module.walk([&](gpu::GPUFuncOp kernel) {
    if (!kernel.isKernel())
      return;
    unsigned threads = threadsOf(kernel);
    if (threads <= target.maxThreadsPerBlock())
      return;
    kernel.emitError() << "kernel `" << kernel.getName() << "` has " << threads
                       << " threads per block, more than the "
                       << target.maxThreadsPerBlock() << " a block may have on "
                       << target.chip();
    ok = false;
  });
  return success(ok);
}

LogicalResult checkKernelResources(ModuleOp module, const TargetInfo &target,
                                   ArrayRef<KernelResources> resources) {
  llvm::StringMap<const KernelResources *> byName;
  for (const KernelResources &r : resources)
    byName[r.name] = &r;
  bool ok = true;
  module.walk([&](gpu::GPUFuncOp kernel) {
    auto it = byName.find(kernel.getName());
    if (!kernel.isKernel() || it == byName.end())
      return;
    LaunchShape launch;
    launch.threads = threadsOf(kernel);
    if (auto shared =
            kernel->getAttrOfType<IntegerAttr>("tile.dynamic_shared_bytes"))
      launch.dynamicSharedBytes =
          unsigned(std::max<int64_t>(shared.getInt(), 0));
    for (const ResourceFinding &finding :
         checkResources(*it->second, launch, target)) {
      if (finding.isError) {
        kernel.emitError() << finding.message;
        ok = false;
      } else {
        kernel.emitWarning() << finding.message;
      }
    }
  });
  return success(ok);
}

} // namespace tilec
