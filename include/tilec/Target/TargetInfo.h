//===- TargetInfo.h - What shared lowering may ask about a chip -*- C++ -*-===//
//
// TargetInfo answers every question the vendor-neutral parts of tilec (layout
// selection, pass heuristics, the launch header) ask about a chip: warp size,
// shared-memory limits and banks, which asynchronous-copy and matrix
// instructions exist. Code outside targets/ never tests a chip name or a
// vendor-specific feature directly; it asks here, so adding a chip means
// adding one table entry in targets/common/TargetInfo.cpp.
//
// The header depends on LLVM Support only, so light clients (the header
// generator, unit tests) can use it without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_TARGETINFO_H
#define TILEC_TARGET_TARGETINFO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>

namespace tilec {

/// Element types of matrix-multiply instructions. The AMD 8-bit floats of
/// gfx942 are the "FNUZ" variants (no negative zero, NaN = 0x80), which are
/// not bit-compatible with NVIDIA's OCP E4M3/E5M2: they are distinct here.
enum class MMAElementType {
  F16,
  BF16,
  TF32, // fp32 storage, 10-bit mantissa math (NVIDIA tf32, AMD xf32)
  F32,
  F64,
  F8E4M3,     // OCP e4m3 (NVIDIA)
  F8E5M2,     // OCP e5m2 (NVIDIA)
  F8E4M3FNUZ, // gfx942 fp8
  F8E5M2FNUZ, // gfx942 bf8
  I8,
  I32,
};

/// Printable name of an MMAElementType ("f16", "f8E4M3FNUZ", ...), spelled
/// like the MLIR builtin type.
llvm::StringRef stringifyMMAElementType(MMAElementType type);

/// The families of matrix instructions, as the layout decisions and the
/// lowering tell them apart (how many threads issue one, where operands
/// live, which layouts they imply). The `tile` dialect's `#tile.mma`
/// records one of them per T.gemm.
enum class MMAKind {
  /// One warp, operands and accumulator in registers (mma.sync, sm_80+).
  WarpSync,
  /// One warpgroup, asynchronous, B (and optionally A) read from shared
  /// memory through descriptors (wgmma, sm_90a).
  Warpgroup,
  /// One wavefront, operands in VGPRs (MFMA, CDNA).
  Wave,
};

/// One matrix-multiply-accumulate instruction: D(m x n) = A(m x k) * B(k x n)
/// + C, computed cooperatively by `threads` threads.
struct MMAInstruction {
  MMAKind kind;
  /// The MLIR operation the lowering emits for it (e.g. "nvvm.mma.sync",
  /// "nvvm.wgmma.mma_async", "rocdl.mfma.f32.32x32x8f16"). Several entries
  /// share one op name when the shape or types are attributes of the op.
  llvm::StringRef opName;
  unsigned m, n, k;
  /// 0 when n is fixed; otherwise n may be any multiple of nStep in
  /// [nStep, n] (wgmma's N).
  unsigned nStep;
  MMAElementType a, b, acc;
  /// Threads that issue one instruction together: 32 (NVIDIA warp), 128
  /// (NVIDIA warpgroup), 64 (AMD wavefront).
  unsigned threads;
  /// B (and optionally A) are read from shared memory through descriptors
  /// rather than from registers (wgmma).
  bool operandsInSharedMemory;
};

/// Everything shared lowering may ask about a chip, and nothing vendor-named
/// elsewhere. Obtain one with TargetInfo::get; instances are immutable.
class TargetInfo {
public:
  /// The TargetInfo for `chip` ("sm_80", "sm_90a", "gfx90a", "gfx942"), or
  /// nullptr if tilec does not support that chip (plain "sm_90" is not
  /// supported: tilec's Hopper code needs the sm_90a-only instructions).
  static std::unique_ptr<TargetInfo> get(llvm::StringRef chip);
  /// The shared, immutable TargetInfo for `chip` (made once per chip and
  /// kept for the process), or nullptr for an unsupported chip. This is what
  /// the `#tile.target` module attribute hands to passes and codegen.
  static const TargetInfo *lookup(llvm::StringRef chip);
  /// The chips get() accepts, in a stable order (for help and error text).
  static llvm::ArrayRef<llvm::StringRef> supportedChips();

  virtual ~TargetInfo();

  /// The chip name as given to get().
  virtual llvm::StringRef chip() const = 0;
  virtual bool isNVIDIA() const = 0;
  bool isAMD() const { return !isNVIDIA(); }
  /// Whether device code can stop the kernel with a message
  /// (`__assertfail` on NVIDIA); without it (AMD) T.device_assert prints
  /// the failure and the kernel goes on.
  virtual bool hasDeviceAssert() const = 0;
  /// Barriers among a subset of a block's warps (NVIDIA's `bar.sync id,
  /// count`, 16 ids per block); without them (AMD) only the whole block can
  /// synchronize.
  virtual bool hasNamedBarriers() const = 0;
  /// Whether a kernel can ask the code generator's register allocator to
  /// keep a minimum number of blocks resident per multiprocessor (NVIDIA's
  /// `.minnctapersm`), which gives each thread the registers that many
  /// blocks leave; tilec does not ask AMD's (amdgpu-waves-per-eu) yet.
  virtual bool hasOccupancyHint() const = 0;
  /// LLVM target triple of the device code ("nvptx64-nvidia-cuda",
  /// "amdgcn-amd-amdhsa").
  virtual llvm::StringRef llvmTriple() const = 0;

  //===--- Threads and registers ------------------------------------------===//

  /// Threads of a warp (NVIDIA) / wavefront (AMD): 32 or 64.
  virtual unsigned warpSize() const = 0;
  /// Most threads one block (workgroup) may have: 1024.
  virtual unsigned maxThreadsPerBlock() const = 0;
  /// Most 32-bit registers one thread may use: 255 on NVIDIA; 512 on the
  /// CDNA chips (256 arch VGPRs + 256 accumulation VGPRs).
  virtual unsigned maxRegistersPerThread() const = 0;
  /// 32-bit registers the register file holds for one block: 65536 on
  /// sm_80/sm_90a; on CDNA 4 SIMDs x 512 VGPRs x 64 lanes = 131072.
  virtual unsigned registersPerBlock() const = 0;
  /// Registers a block of `threads` threads occupies when each thread uses
  /// `registersPerThread`, counted as the hardware allocates them (per warp,
  /// in units; on CDNA the wavefronts are spread over the 4 SIMDs of a CU
  /// and the busiest SIMD decides). Compare with registersPerBlock().
  uint64_t blockRegisterFootprint(unsigned threads,
                                  unsigned registersPerThread) const;
  /// The most registers each thread of a block of `threads` threads may use
  /// so that the block fits registersPerBlock() (and maxRegistersPerThread()):
  /// 64 for 1024 threads on NVIDIA, 128 on CDNA.
  unsigned maxRegistersPerThreadInBlock(unsigned threads) const;

  //===--- Shared memory (LDS on AMD) -------------------------------------===//

  /// Most shared memory, in bytes, one block may use after opting in
  /// (cudaFuncAttributeMaxDynamicSharedMemorySize): sm_80 163 KiB, sm_90a
  /// 227 KiB, gfx 64 KiB.
  virtual unsigned maxSharedMemoryPerBlock() const = 0;
  /// Shared memory, in bytes, a block may use without opting in: 48 KiB on
  /// NVIDIA (beyond it the launcher must raise the limit), 64 KiB on AMD.
  virtual unsigned defaultSharedMemoryPerBlock() const = 0;
  /// Shared memory of one multiprocessor (SM / CU), in bytes: bounds how many
  /// blocks can be resident at once.
  virtual unsigned sharedMemoryPerMultiprocessor() const = 0;
  /// Number of shared-memory banks, each sharedMemoryBankBytes() wide.
  virtual unsigned sharedMemoryBanks() const = 0;
  virtual unsigned sharedMemoryBankBytes() const = 0;

  //===--- Memory instructions --------------------------------------------===//

  /// Widest global load/store of one thread, in bytes (16: ld.global.v4.b32,
  /// global_load_dwordx4).
  virtual unsigned maxVectorBytes() const = 0;
  /// Asynchronous global->shared copies that bypass registers (cp.async,
  /// sm_80+).
  virtual bool hasAsyncCopy() const = 0;
  /// Bulk tensor copies driven by a tensor map (TMA, sm_90a) and mbarriers
  /// with transaction counts.
  virtual bool hasTMA() const = 0;
  /// Thread-block clusters and distributed shared memory (sm_90a).
  virtual bool hasClusters() const = 0;
  /// Warp-wide matrix loads from shared memory (ldmatrix, sm_75+).
  virtual bool hasMatrixLoad() const = 0;
  /// Warp-wide matrix stores to shared memory (stmatrix, sm_90+).
  virtual bool hasMatrixStore() const = 0;

  //===--- Matrix multiply and warp specialization ------------------------===//

  /// Warpgroup-wide asynchronous MMA reading shared memory (wgmma, sm_90a).
  virtual bool hasWGMMA() const = 0;
  /// Per-warpgroup register reallocation (setmaxnreg, sm_90a).
  virtual bool hasSetMaxNReg() const = 0;
  /// The matrix-multiply instructions of the chip that tilec's lowering may
  /// use (not necessarily every variant the hardware has).
  virtual llvm::ArrayRef<MMAInstruction> mmaInstructions() const = 0;
  /// Whether some MMA instruction takes operands of type `ab` accumulating
  /// into `acc`.
  bool hasMMA(MMAElementType ab, MMAElementType acc) const;

protected:
  /// Registers of one warp are allocated in multiples of this (NVIDIA: 256
  /// per warp; CDNA: 8 VGPRs per lane = 512 per wavefront).
  virtual unsigned registerAllocationUnit() const = 0;
  /// Register files a block's warps are spread over evenly (NVIDIA: 1, the
  /// documented per-block limit; CDNA: the 4 SIMDs of a CU).
  virtual unsigned registerFilePartitions() const = 0;

  TargetInfo() = default;
  TargetInfo(const TargetInfo &) = delete;
  TargetInfo &operator=(const TargetInfo &) = delete;
};

} // namespace tilec

#endif // TILEC_TARGET_TARGETINFO_H
