//===- ROCDLChecks.cpp - Reject ops an AMD chip does not have
//--------------===//
//
// LLVM's AMDGPU backend aborts ("Cannot select") on an intrinsic the chip
// lacks, and the ROCDL ops do not say which chips have them. This table,
// checked against llc-22 for gfx90a and gfx942 (see the TargetTest unit
// test), lists the MFMA/conversion families whose availability differs among
// CDNA chips, so an unsupported op gets a located error before lowering.
// Ops of the NVIDIA dialects are rejected outright.
//
//===----------------------------------------------------------------------===//

#include "../common/CodegenImpl.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace tilec;

namespace {
/// CDNA generations, oldest first.
enum class Gen { CDNA2 = 0, CDNA3 = 1, CDNA4 = 2, RDNA = 3 };

struct Rule {
  llvm::StringLiteral name;
  bool exact; // whole name, else prefix
  /// Chips in [first, last] have it.
  Gen first, last;
  llvm::StringLiteral feature;
};

// Rules are tried in order; the first match decides.
const Rule kRules[] = {
    // gfx940+ replaced these with the ".1k" bf16 and k=16/32 int8 forms.
    {"rocdl.mfma.i32.32x32x8i8", true, Gen::CDNA2, Gen::CDNA2, "int8 MFMA"},
    {"rocdl.mfma.i32.16x16x16i8", true, Gen::CDNA2, Gen::CDNA2, "int8 MFMA"},
    {"rocdl.mfma.f32.32x32x2bf16", true, Gen::CDNA2, Gen::CDNA2, "bf16 MFMA"},
    {"rocdl.mfma.f32.16x16x2bf16", true, Gen::CDNA2, Gen::CDNA2, "bf16 MFMA"},
    {"rocdl.mfma.f32.4x4x2bf16", true, Gen::CDNA2, Gen::CDNA2, "bf16 MFMA"},
    {"rocdl.mfma.f32.32x32x4bf16", true, Gen::CDNA2, Gen::CDNA2, "bf16 MFMA"},
    {"rocdl.mfma.f32.16x16x8bf16", true, Gen::CDNA2, Gen::CDNA2, "bf16 MFMA"},
    // CDNA4 (gfx950) only.
    {"rocdl.mfma.scale", false, Gen::CDNA4, Gen::CDNA4, "scaled MFMA"},
    {"rocdl.mfma.f32.16x16x32.f16", true, Gen::CDNA4, Gen::CDNA4, "MFMA"},
    {"rocdl.mfma.f32.32x32x16.f16", true, Gen::CDNA4, Gen::CDNA4, "MFMA"},
    {"rocdl.mfma.f32.16x16x32.bf16", true, Gen::CDNA4, Gen::CDNA4, "MFMA"},
    {"rocdl.mfma.f32.32x32x16.bf16", true, Gen::CDNA4, Gen::CDNA4, "MFMA"},
    {"rocdl.mfma.i32.16x16x64.i8", true, Gen::CDNA4, Gen::CDNA4, "MFMA"},
    {"rocdl.mfma.i32.32x32x32.i8", true, Gen::CDNA4, Gen::CDNA4, "MFMA"},
    {"rocdl.smfmac.f32.16x16x64", false, Gen::CDNA4, Gen::CDNA4, "SMFMAC"},
    {"rocdl.smfmac.f32.32x32x32", false, Gen::CDNA4, Gen::CDNA4, "SMFMAC"},
    {"rocdl.smfmac.i32.16x16x128", false, Gen::CDNA4, Gen::CDNA4, "SMFMAC"},
    {"rocdl.smfmac.i32.32x32x64", false, Gen::CDNA4, Gen::CDNA4, "SMFMAC"},
    {"rocdl.cvt.scalef32", false, Gen::CDNA4, Gen::CDNA4, "scaled conversion"},
    {"rocdl.permlane16.swap", false, Gen::CDNA4, Gen::CDNA4, "permlane swap"},
    {"rocdl.permlane32.swap", false, Gen::CDNA4, Gen::CDNA4, "permlane swap"},
    {"rocdl.ds.read.tr", false, Gen::CDNA4, Gen::CDNA4, "transposing LDS read"},
    // CDNA3+ (gfx940 on).
    {"rocdl.mfma.i32.16x16x32.i8", true, Gen::CDNA3, Gen::CDNA4, "int8 MFMA"},
    {"rocdl.mfma.i32.32x32x16.i8", true, Gen::CDNA3, Gen::CDNA4, "int8 MFMA"},
    {"rocdl.mfma.f32.16x16x8.xf32", true, Gen::CDNA3, Gen::CDNA3, "xf32 MFMA"},
    {"rocdl.mfma.f32.32x32x4.xf32", true, Gen::CDNA3, Gen::CDNA3, "xf32 MFMA"},
    {"rocdl.smfmac.", false, Gen::CDNA3, Gen::CDNA4, "sparse MFMA"},
    // RDNA only.
    {"rocdl.wmma.", false, Gen::RDNA, Gen::RDNA, "WMMA"},
    {"rocdl.swmmac.", false, Gen::RDNA, Gen::RDNA, "WMMA"},
};

const char *genName(Gen gen) {
  switch (gen) {
  case Gen::CDNA2:
    return "gfx90a";
  case Gen::CDNA3:
    return "gfx942";
  case Gen::CDNA4:
    return "gfx950";
  case Gen::RDNA:
    return "an RDNA chip";
  }
  return "?";
}

std::string neededChips(Gen first, Gen last) {
  if (first == last)
    return genName(first);
  return std::string(genName(first)) + " to " + genName(last);
}

/// Whether an fp8/bf8 op of the name (MFMA or conversion) exists on `gen`.
bool isFp8Op(llvm::StringRef name) {
  return (name.starts_with("rocdl.mfma.") || name.starts_with("rocdl.cvt.")) &&
         (name.contains("fp8") || name.contains("bf8"));
}
} // namespace

LogicalResult tilec::detail::checkAMDGPUOps(ModuleOp module,
                                            const TargetInfo &target) {
  Gen gen = target.chip() == "gfx90a" ? Gen::CDNA2 : Gen::CDNA3;
  bool ok = true;
  for (auto gpuModule : module.getBody()->getOps<gpu::GPUModuleOp>()) {
    gpuModule.walk([&](Operation *op) {
      llvm::StringRef name = op->getName().getStringRef();
      llvm::StringRef dialect = op->getName().getDialectNamespace();
      if (dialect == "nvvm" || dialect == "nvgpu") {
        emitError(op->getLoc())
            << "'" << name << "' is an NVIDIA operation; the "
            << "target " << target.chip() << " is an AMD chip";
        ok = false;
        return;
      }
      if (dialect != "rocdl")
        return;
      for (const Rule &rule : kRules) {
        if (rule.exact ? name != rule.name : !name.starts_with(rule.name))
          continue;
        if (gen < rule.first || gen > rule.last) {
          emitError(op->getLoc())
              << "'" << name << "' (" << rule.feature << ") needs "
              << neededChips(rule.first, rule.last) << "; the target is "
              << target.chip();
          ok = false;
        }
        return;
      }
      // FNUZ fp8/bf8 MFMAs and conversions arrived with CDNA3 (gfx950's
      // OCP forms are caught by the rules above).
      if (isFp8Op(name) && gen < Gen::CDNA3) {
        emitError(op->getLoc())
            << "'" << name << "' (fp8 arithmetic) needs gfx942; "
            << "the target is " << target.chip();
        ok = false;
      }
    });
  }
  return success(ok);
}
