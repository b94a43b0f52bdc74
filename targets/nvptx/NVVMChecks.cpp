//===- NVVMChecks.cpp - Reject ops an NVIDIA chip does not have
//------------===//
//
// LLVM's NVPTX backend aborts ("Cannot select") on an instruction the chip
// lacks, e.g. wgmma or setmaxnreg for anything but sm_90a. So before any
// lowering, every op of the gpu.modules is checked against the chip and an
// unsupported one gets a located error naming the op, the feature and the
// chip it needs.
//
// Two sources: the NVVM dialect's own RequiresSMInterface (ops that declare
// their minimum SM), and the table below for the ops that do not declare it
// in LLVM 22 (taken from the PTX ISA's "Target ISA notes" of each
// instruction). Ops of the AMD dialects are rejected outright.
//
//===----------------------------------------------------------------------===//

#include "../common/CodegenImpl.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace tilec;

namespace {
/// Ops whose name starts with `prefix` need `sm` or newer; with
/// `archSpecific`, exactly the arch-specific "a" variant of `sm`.
struct Requirement {
  llvm::StringLiteral prefix;
  int sm;
  bool archSpecific;
  llvm::StringLiteral feature;
};

const Requirement kRequirements[] = {
    {"nvvm.wgmma.", 90, true, "wgmma"},
    {"nvvm.setmaxregister", 90, true, "setmaxnreg"},
    {"nvgpu.warpgroup.", 90, true, "wgmma"},
    {"nvvm.cp.async.bulk.", 90, false, "TMA / bulk asynchronous copy"},
    {"nvgpu.tma.", 90, false, "TMA"},
    {"nvvm.mbarrier.expect_tx", 90, false, "mbarrier transaction counts"},
    {"nvvm.mbarrier.complete_tx", 90, false, "mbarrier transaction counts"},
    {"nvvm.mbarrier.arrive.expect_tx", 90, false,
     "mbarrier transaction counts"},
    {"nvvm.mbarrier.arrive_drop.expect_tx", 90, false,
     "mbarrier transaction counts"},
    {"nvgpu.mbarrier.arrive.expect_tx", 90, false,
     "mbarrier transaction counts"},
    {"nvvm.mbarrier.try_wait", 90, false, "mbarrier.try_wait"},
    {"nvgpu.mbarrier.try_wait", 90, false, "mbarrier.try_wait"},
    {"nvvm.fence.mbarrier.init", 90, false, "fence.mbarrier_init"},
    {"nvvm.fence.proxy.acquire", 90, false, "fence.proxy.acquire"},
    {"nvvm.fence.proxy.release", 90, false, "fence.proxy.release"},
    {"nvvm.elect.sync", 90, false, "elect.sync"},
    {"nvvm.stmatrix", 90, false, "stmatrix"},
    {"nvvm.cluster.", 90, false, "thread block clusters"},
    {"nvvm.read.ptx.sreg.cluster", 90, false, "thread block clusters"},
    {"nvvm.read.ptx.sreg.nclusterid", 90, false, "thread block clusters"},
    {"nvvm.read.ptx.sreg.clusterid", 90, false, "thread block clusters"},
    {"nvvm.fence.sc.cluster", 90, false, "thread block clusters"},
    {"nvvm.mapa", 90, false, "distributed shared memory"},
    {"nvvm.griddepcontrol", 90, false, "programmatic dependent launch"},
    {"nvvm.convert.f32x2.to.f8x2", 89, false, "fp8 conversion"},
    {"nvvm.convert.f16x2.to.f8x2", 89, false, "fp8 conversion"},
    {"nvvm.convert.bf16x2.to.f8x2", 89, false, "fp8 conversion"},
    {"nvvm.convert.f32x2.to.f6x2", 100, true, "fp6 conversion"},
    {"nvvm.convert.f32x2.to.f4x2", 100, true, "fp4 conversion"},
    {"nvvm.tcgen05.", 100, true, "tcgen05"},
    {"nvvm.st.bulk", 100, false, "st.bulk"},
    {"nvvm.clusterlaunchcontrol.", 100, false, "cluster launch control"},
    {"nvvm.mma.block_scale", 120, true, "block-scaled mma"},
    {"nvvm.mma.sp.block_scale", 120, true, "block-scaled mma"},
};

struct Chip {
  int sm;
  bool archSpecific;
};

Chip parseChip(llvm::StringRef name) {
  Chip chip{0, name.ends_with("a")};
  (void)name.drop_front(3).take_while(llvm::isDigit).getAsInteger(10, chip.sm);
  return chip;
}

std::string describe(int sm, bool archSpecific, bool orNewer) {
  std::string text = "sm_" + std::to_string(sm) + (archSpecific ? "a" : "");
  if (orNewer)
    text += " or newer";
  return text;
}

/// The requirement `op` fails on `chip`, as (feature, needed-chip text).
std::optional<std::pair<std::string, std::string>>
unmetRequirement(Operation *op, Chip chip) {
  llvm::StringRef name = op->getName().getStringRef();
  for (const Requirement &req : kRequirements) {
    if (!name.starts_with(req.prefix))
      continue;
    bool met = req.archSpecific ? chip.archSpecific && chip.sm == req.sm
                                : chip.sm >= req.sm;
    if (!met)
      return std::make_pair(
          req.feature.str(),
          describe(req.sm, req.archSpecific, !req.archSpecific));
    return std::nullopt;
  }
  // fence.proxy orders the async proxy (TMA, wgmma) from sm_90 on; the alias
  // proxy exists since sm_70.
  if (auto fence = dyn_cast<NVVM::FenceProxyOp>(op)) {
    if (fence.getKind() != NVVM::ProxyKind::alias && chip.sm < 90)
      return std::make_pair(std::string("async-proxy fence"),
                            describe(90, false, true));
    return std::nullopt;
  }
  if (auto declared = dyn_cast<NVVM::RequiresSMInterface>(op)) {
    NVVM::NVVMCheckSMVersion needed = declared.getRequiredMinSMVersion();
    NVVM::NVVMCheckSMVersion have(chip.archSpecific, chip.sm);
    if (!needed.isCompatibleWith(have)) {
      std::string text;
      for (auto [i, sm] : llvm::enumerate(needed.smVersionList))
        text += (i ? " or " : "") +
                describe(sm, needed.archAccelerated, !needed.archAccelerated);
      return std::make_pair(std::string("this instruction"), text);
    }
  }
  return std::nullopt;
}
} // namespace

LogicalResult tilec::detail::checkNVVMOps(ModuleOp module,
                                          const TargetInfo &target) {
  Chip chip = parseChip(target.chip());
  bool ok = true;
  for (auto gpuModule : module.getBody()->getOps<gpu::GPUModuleOp>()) {
    gpuModule.walk([&](Operation *op) {
      llvm::StringRef dialect = op->getName().getDialectNamespace();
      if (dialect == "rocdl" || dialect == "amdgpu") {
        emitError(op->getLoc())
            << "'" << op->getName() << "' is an AMD operation; "
            << "the target " << target.chip() << " is an NVIDIA chip";
        ok = false;
        return;
      }
      if (auto unmet = unmetRequirement(op, chip)) {
        emitError(op->getLoc())
            << "'" << op->getName() << "' (" << unmet->first << ") needs "
            << unmet->second << "; the target is " << target.chip();
        ok = false;
      }
    });
  }
  return success(ok);
}
