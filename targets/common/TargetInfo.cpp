//===- TargetInfo.cpp - The chips tilec supports, as data
//------------------===//
//
// One ChipDesc per supported chip and a single TargetInfo implementation that
// reads it. Keeping the facts in a table (rather than a class per chip) makes
// the numbers easy to review against the vendors' tables: CUDA C Programming
// Guide "Technical Specifications per Compute Capability", PTX ISA (mma,
// wgmma shapes), AMD CDNA2/CDNA3 ISA guides (MFMA list) and the LLVM AMDGPU
// backend (which MFMA intrinsics each gfx accepts).
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/TargetInfo.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <vector>

using namespace tilec;
using llvm::ArrayRef;
using llvm::StringRef;

namespace {

using ET = MMAElementType;
constexpr unsigned kKiB = 1024;

//===--- MMA instruction tables -------------------------------------------===//

// mma.sync (sm_80): one warp, operands in registers. The shape is an
// attribute of nvvm.mma.sync, so all entries share the op name.
#define MMA_SYNC(M, N, K, A, B, C)                                             \
  MMAInstruction {                                                             \
    MMAKind::WarpSync, "nvvm.mma.sync", M, N, K, 0, ET::A, ET::B, ET::C, 32,   \
        false                                                                  \
  }
const MMAInstruction kAmpereMMA[] = {
    MMA_SYNC(16, 8, 16, F16, F16, F32),   MMA_SYNC(16, 8, 16, F16, F16, F16),
    MMA_SYNC(16, 8, 16, BF16, BF16, F32), MMA_SYNC(16, 8, 8, TF32, TF32, F32),
    MMA_SYNC(16, 8, 32, I8, I8, I32),     MMA_SYNC(8, 8, 4, F64, F64, F64),
};

// sm_90a: mma.sync plus wgmma (one warpgroup, B from shared memory, N any
// multiple of 8 up to 256; multiples of 16 for int8 beyond N=32, so 16 is
// the conservative step there).
#define WGMMA(K, NSTEP, A, B, C)                                               \
  MMAInstruction {                                                             \
    MMAKind::Warpgroup, "nvvm.wgmma.mma_async", 64, 256, K, NSTEP, ET::A,      \
        ET::B, ET::C, 128, true                                                \
  }
const MMAInstruction kHopperMMA[] = {
    MMA_SYNC(16, 8, 16, F16, F16, F32),   MMA_SYNC(16, 8, 16, F16, F16, F16),
    MMA_SYNC(16, 8, 16, BF16, BF16, F32), MMA_SYNC(16, 8, 8, TF32, TF32, F32),
    MMA_SYNC(16, 8, 32, I8, I8, I32),     MMA_SYNC(8, 8, 4, F64, F64, F64),
    // mma.sync with OCP 8-bit float operands (sm_89+), f32 accumulation.
    MMA_SYNC(16, 8, 32, F8E4M3, F8E4M3, F32),
    MMA_SYNC(16, 8, 32, F8E4M3, F8E5M2, F32),
    MMA_SYNC(16, 8, 32, F8E5M2, F8E4M3, F32),
    MMA_SYNC(16, 8, 32, F8E5M2, F8E5M2, F32),
    WGMMA(16, 8, F16, F16, F32),          WGMMA(16, 8, F16, F16, F16),
    WGMMA(16, 8, BF16, BF16, F32),        WGMMA(8, 8, TF32, TF32, F32),
    WGMMA(32, 8, F8E4M3, F8E4M3, F32),    WGMMA(32, 8, F8E4M3, F8E5M2, F32),
    WGMMA(32, 8, F8E5M2, F8E4M3, F32),    WGMMA(32, 8, F8E5M2, F8E5M2, F32),
    WGMMA(32, 8, F8E4M3, F8E4M3, F16),    WGMMA(32, 16, I8, I8, I32),
};
#undef WGMMA
#undef MMA_SYNC

// MFMA: one wavefront, operands in (arch or accumulation) VGPRs. Each shape
// and type is its own intrinsic, hence its own ROCDL op.
#define MFMA(NAME, M, N, K, A, B, C)                                           \
  MMAInstruction {                                                             \
    MMAKind::Wave, "rocdl.mfma." NAME, M, N, K, 0, ET::A, ET::B, ET::C, 64,    \
        false                                                                  \
  }
const MMAInstruction kCDNA2MMA[] = {
    MFMA("f32.32x32x8f16", 32, 32, 8, F16, F16, F32),
    MFMA("f32.16x16x16f16", 16, 16, 16, F16, F16, F32),
    MFMA("f32.32x32x8bf16.1k", 32, 32, 8, BF16, BF16, F32),
    MFMA("f32.16x16x16bf16.1k", 16, 16, 16, BF16, BF16, F32),
    MFMA("f32.32x32x2f32", 32, 32, 2, F32, F32, F32),
    MFMA("f32.16x16x4f32", 16, 16, 4, F32, F32, F32),
    MFMA("i32.32x32x8i8", 32, 32, 8, I8, I8, I32),
    MFMA("i32.16x16x16i8", 16, 16, 16, I8, I8, I32),
    MFMA("f64.16x16x4f64", 16, 16, 4, F64, F64, F64),
};
// gfx940+ dropped the k=8/16 int8 forms for k=16/32 ones and added xf32 and
// the FNUZ fp8/bf8 forms.
const MMAInstruction kCDNA3MMA[] = {
    MFMA("f32.32x32x8f16", 32, 32, 8, F16, F16, F32),
    MFMA("f32.16x16x16f16", 16, 16, 16, F16, F16, F32),
    MFMA("f32.32x32x8bf16.1k", 32, 32, 8, BF16, BF16, F32),
    MFMA("f32.16x16x16bf16.1k", 16, 16, 16, BF16, BF16, F32),
    MFMA("f32.32x32x2f32", 32, 32, 2, F32, F32, F32),
    MFMA("f32.16x16x4f32", 16, 16, 4, F32, F32, F32),
    MFMA("f32.32x32x4.xf32", 32, 32, 4, TF32, TF32, F32),
    MFMA("f32.16x16x8.xf32", 16, 16, 8, TF32, TF32, F32),
    MFMA("i32.32x32x16.i8", 32, 32, 16, I8, I8, I32),
    MFMA("i32.16x16x32.i8", 16, 16, 32, I8, I8, I32),
    MFMA("f32.32x32x16.fp8.fp8", 32, 32, 16, F8E4M3FNUZ, F8E4M3FNUZ, F32),
    MFMA("f32.32x32x16.fp8.bf8", 32, 32, 16, F8E4M3FNUZ, F8E5M2FNUZ, F32),
    MFMA("f32.32x32x16.bf8.fp8", 32, 32, 16, F8E5M2FNUZ, F8E4M3FNUZ, F32),
    MFMA("f32.32x32x16.bf8.bf8", 32, 32, 16, F8E5M2FNUZ, F8E5M2FNUZ, F32),
    MFMA("f32.16x16x32.fp8.fp8", 16, 16, 32, F8E4M3FNUZ, F8E4M3FNUZ, F32),
    MFMA("f32.16x16x32.fp8.bf8", 16, 16, 32, F8E4M3FNUZ, F8E5M2FNUZ, F32),
    MFMA("f32.16x16x32.bf8.fp8", 16, 16, 32, F8E5M2FNUZ, F8E4M3FNUZ, F32),
    MFMA("f32.16x16x32.bf8.bf8", 16, 16, 32, F8E5M2FNUZ, F8E5M2FNUZ, F32),
    MFMA("f64.16x16x4f64", 16, 16, 4, F64, F64, F64),
};
#undef MFMA

//===--- Chip table
//--------------------------------------------------------===//

// Registers. NVIDIA (CUDA C Programming Guide, "Technical Specifications per
// Compute Capability", 8.0 and 9.0): 64 K 32-bit registers per block, 255
// per thread; the occupancy calculator's data for both allocates them per
// warp in units of 256. CDNA2/CDNA3 (MI200/MI300 ISA guides, "unified VGPR
// file"; ROCT's VGPR size per CU, 512 KiB on gfx90a and gfx942): each of a
// CU's 4 SIMDs holds 512 VGPRs per lane, one wavefront may address 512 of
// them (256 arch + 256 accumulation VGPRs), allocated in granules of 8; a
// workgroup's wavefronts are spread over the 4 SIMDs (LLVM's AMDGPUBaseInfo:
// getTotalNumVGPRs, getVGPRAllocGranule, getEUsPerCU, the same model its
// register allocator uses for amdgpu-flat-work-group-size).
struct RegisterFile {
  unsigned maxPerThread;
  unsigned perBlock;
  unsigned allocationUnit; // per warp / wavefront
  unsigned partitions;
};
constexpr RegisterFile kNVIDIARegisters = {255, 64 * 1024, 256, 1};
constexpr RegisterFile kCDNARegisters = {512, 4 * 512 * 64, 8 * 64, 4};

struct ChipDesc {
  StringRef name;
  bool nvidia;
  unsigned warpSize;
  RegisterFile registers;
  unsigned maxSharedPerBlock;
  unsigned defaultSharedPerBlock;
  unsigned sharedPerMultiprocessor;
  bool asyncCopy, tma, clusters, matrixLoad, matrixStore, wgmma, setMaxNReg;
  ArrayRef<MMAInstruction> mma;
};

const ChipDesc kChips[] = {
    // A100: 164 KiB shared per SM, 163 KiB per block after opt-in.
    {"sm_80", true, 32, kNVIDIARegisters, 163 * kKiB, 48 * kKiB, 164 * kKiB,
     /*asyncCopy=*/true, /*tma=*/false, /*clusters=*/false,
     /*matrixLoad=*/true, /*matrixStore=*/false, /*wgmma=*/false,
     /*setMaxNReg=*/false, kAmpereMMA},
    // H100/H200: 228 KiB shared per SM, 227 KiB per block after opt-in.
    {"sm_90a", true, 32, kNVIDIARegisters, 227 * kKiB, 48 * kKiB, 228 * kKiB,
     /*asyncCopy=*/true, /*tma=*/true, /*clusters=*/true,
     /*matrixLoad=*/true, /*matrixStore=*/true, /*wgmma=*/true,
     /*setMaxNReg=*/true, kHopperMMA},
    // MI200 (CDNA2): 64 KiB LDS per CU and per workgroup.
    {"gfx90a", false, 64, kCDNARegisters, 64 * kKiB, 64 * kKiB, 64 * kKiB,
     /*asyncCopy=*/false, /*tma=*/false, /*clusters=*/false,
     /*matrixLoad=*/false, /*matrixStore=*/false, /*wgmma=*/false,
     /*setMaxNReg=*/false, kCDNA2MMA},
    // MI300 (CDNA3).
    {"gfx942", false, 64, kCDNARegisters, 64 * kKiB, 64 * kKiB, 64 * kKiB,
     /*asyncCopy=*/false, /*tma=*/false, /*clusters=*/false,
     /*matrixLoad=*/false, /*matrixStore=*/false, /*wgmma=*/false,
     /*setMaxNReg=*/false, kCDNA3MMA},
};

const StringRef kChipNames[] = {"sm_80", "sm_90a", "gfx90a", "gfx942"};
static_assert(std::size(kChipNames) == std::size(kChips));

class ChipTargetInfo final : public TargetInfo {
public:
  explicit ChipTargetInfo(const ChipDesc &desc) : desc(desc) {}

  StringRef chip() const override { return desc.name; }
  bool isNVIDIA() const override { return desc.nvidia; }
  bool hasDeviceAssert() const override { return desc.nvidia; }
  bool hasNamedBarriers() const override { return desc.nvidia; }
  bool hasOccupancyHint() const override { return desc.nvidia; }
  StringRef llvmTriple() const override {
    return desc.nvidia ? "nvptx64-nvidia-cuda" : "amdgcn-amd-amdhsa";
  }
  unsigned warpSize() const override { return desc.warpSize; }
  unsigned maxThreadsPerBlock() const override { return 1024; }
  unsigned maxRegistersPerThread() const override {
    return desc.registers.maxPerThread;
  }
  unsigned registersPerBlock() const override {
    return desc.registers.perBlock;
  }
  unsigned maxSharedMemoryPerBlock() const override {
    return desc.maxSharedPerBlock;
  }
  unsigned defaultSharedMemoryPerBlock() const override {
    return desc.defaultSharedPerBlock;
  }
  unsigned sharedMemoryPerMultiprocessor() const override {
    return desc.sharedPerMultiprocessor;
  }
  // Every supported chip has 32 banks of 4 bytes (NVIDIA since Kepler's
  // 4-byte mode, CDNA2/CDNA3 LDS).
  unsigned sharedMemoryBanks() const override { return 32; }
  unsigned sharedMemoryBankBytes() const override { return 4; }
  unsigned maxVectorBytes() const override { return 16; }
  bool hasAsyncCopy() const override { return desc.asyncCopy; }
  bool hasTMA() const override { return desc.tma; }
  bool hasClusters() const override { return desc.clusters; }
  bool hasMatrixLoad() const override { return desc.matrixLoad; }
  bool hasMatrixStore() const override { return desc.matrixStore; }
  bool hasWGMMA() const override { return desc.wgmma; }
  bool hasSetMaxNReg() const override { return desc.setMaxNReg; }
  ArrayRef<MMAInstruction> mmaInstructions() const override { return desc.mma; }

protected:
  unsigned registerAllocationUnit() const override {
    return desc.registers.allocationUnit;
  }
  unsigned registerFilePartitions() const override {
    return desc.registers.partitions;
  }

private:
  const ChipDesc &desc;
};

} // namespace

TargetInfo::~TargetInfo() = default;

std::unique_ptr<TargetInfo> TargetInfo::get(StringRef chip) {
  for (const ChipDesc &desc : kChips)
    if (desc.name == chip)
      return std::make_unique<ChipTargetInfo>(desc);
  return nullptr;
}

const TargetInfo *TargetInfo::lookup(StringRef chip) {
  // One instance per table entry, made on first use; a function-local static
  // is initialized once even when passes run on several threads.
  static const std::vector<std::unique_ptr<TargetInfo>> all = [] {
    std::vector<std::unique_ptr<TargetInfo>> infos;
    for (const ChipDesc &desc : kChips)
      infos.push_back(std::make_unique<ChipTargetInfo>(desc));
    return infos;
  }();
  for (const std::unique_ptr<TargetInfo> &info : all)
    if (info->chip() == chip)
      return info.get();
  return nullptr;
}

ArrayRef<StringRef> TargetInfo::supportedChips() { return kChipNames; }

uint64_t TargetInfo::blockRegisterFootprint(unsigned threads,
                                            unsigned registersPerThread) const {
  uint64_t warps = llvm::divideCeil(threads, warpSize());
  uint64_t perWarp = llvm::alignTo(uint64_t(registersPerThread) * warpSize(),
                                   registerAllocationUnit());
  // Every partition is charged as much as the busiest one: a block fits
  // when the busiest partition's share of the file does.
  uint64_t partitions = registerFilePartitions();
  return llvm::divideCeil(warps, partitions) * partitions * perWarp;
}

unsigned TargetInfo::maxRegistersPerThreadInBlock(unsigned threads) const {
  unsigned most = maxRegistersPerThread();
  while (most > 0 &&
         blockRegisterFootprint(threads, most) > registersPerBlock())
    --most;
  return most;
}

bool TargetInfo::hasMMA(MMAElementType ab, MMAElementType acc) const {
  return llvm::any_of(mmaInstructions(), [&](const MMAInstruction &mma) {
    return mma.a == ab && mma.b == ab && mma.acc == acc;
  });
}

StringRef tilec::stringifyMMAElementType(MMAElementType type) {
  switch (type) {
  case ET::F16:
    return "f16";
  case ET::BF16:
    return "bf16";
  case ET::TF32:
    return "tf32";
  case ET::F32:
    return "f32";
  case ET::F64:
    return "f64";
  case ET::F8E4M3:
    return "f8E4M3FN";
  case ET::F8E5M2:
    return "f8E5M2";
  case ET::F8E4M3FNUZ:
    return "f8E4M3FNUZ";
  case ET::F8E5M2FNUZ:
    return "f8E5M2FNUZ";
  case ET::I8:
    return "i8";
  case ET::I32:
    return "i32";
  }
  return "unknown";
}
