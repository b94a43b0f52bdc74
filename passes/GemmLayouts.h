//===- GemmLayouts.h - Tensor-core GEMM layout decisions --------*- C++ -*-===//
//
// What tile-infer-layouts decides for every `tile.gemm` (the sm_80
// mma.sync path) and the attributes through which the lowering reads those
// decisions back:
//
// - `tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 16],
//   warps = [warpsM, warpsN], a = shared, b = shared>` on the tile.gemm:
//   the instruction, taken from the chip's TargetInfo table, and the warp
//   split (computeWarpPartition of its GemmWarpPolicy);
// - `layout` on the accumulator's fragment tile.alloc: the mma.sync
//   m16n8k16 accumulator tiled over the block (mmaAccumulatorLayout), in
//   the SIMT dictionary form, so T.Parallel epilogues and fragment copies
//   use it like any other fragment layout;
// - `tile.swizzle = #tile.swizzle<b64, xor = [bits, base, shift]>` on each
//   shared operand tile.alloc: the XOR swizzle pickSharedLayout chose, as
//   CUTLASS-style Swizzle<bits, base, shift> on the row-major element
//   offset (`#tile.swizzle<none>` when the tile keeps its plain row-major
//   layout).
//
// On chips whose table offers wave-wide MFMA instead (AMD CDNA) the same
// attributes, with an MFMA wave split and accumulator (GemmLayoutsMFMA.cpp,
// MfmaLayouts.h): `#tile.mma<mfma, "rocdl.mfma.f32.32x32x8f16", shape =
// [32, 32, 8], warps = [...], a = shared, b = shared, k_pack = 2>`, k_pack
// counting the instructions that share one operand read along K.
//
// The lowering (LowerGemm.cpp, LowerGemmMFMA.cpp) applies these
// mechanically.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_PASSES_GEMMLAYOUTS_H
#define TILEC_PASSES_GEMMLAYOUTS_H

#include "tilec/Dialect/TileOps.h"
#include "tilec/Layout/MfmaLayouts.h"
#include "tilec/Layout/SharedLayout.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace tilec::gemm {

/// The `#tile.swizzle` decision on a shared operand buffer.
inline constexpr llvm::StringLiteral kSharedLayoutAttr =
    tile::SwizzleAttr::getAttrName();

/// The family of matrix instructions the gemms of `target` take: the first
/// one tilec lowers that the chip's TargetInfo table offers (mma.sync,
/// then MFMA; wgmma once the Hopper lowering exists), or nullopt.
std::optional<MMAKind> pickMmaKind(const TargetInfo &target);

/// Whether `target`'s table holds the instruction `mma` names (its kind,
/// op name and shape).
bool targetHasMma(const TargetInfo &target, tile::MmaAttr mma);

/// The `tile.mma` decision of a gemm (null before tile-infer-layouts).
inline tile::MmaAttr readMma(tile::GemmOp gemm) {
  return gemm->getAttrOfType<tile::MmaAttr>(tile::MmaAttr::getAttrName());
}

/// A gemm's accumulator decision: the block layout, and what it is (for
/// the conflict diagnostic: "the mma.sync accumulator layout for a 2x2
/// warp split").
struct AccumulatorPlan {
  LinearLayout layout;
  std::string what;
};

/// The MFMA part of inferGemmLayouts for an m x n x k gemm of `in`
/// (f16/bf16) inputs over `threads` threads in waves of `waveSize` (64 on
/// every chip with MFMA; anything else is an error): picks the instruction
/// (from target.mmaInstructions(), the widest tile MfmaLayouts.h knows
/// that splits over the waves), records it and the wave split as
/// `tile.mma` on the gemm and returns the accumulator layout; a located
/// error if none fits. With A in registers the instruction steps along K
/// unpacked (k_pack 1: a lane's 4 k per step are what an accumulator
/// holds, mfmaRegisterOperandALayout) and K must hold whole N_i tiles.
mlir::FailureOr<AccumulatorPlan> planMfma(tile::GemmOp gemm,
                                          const TargetInfo &target, int64_t m,
                                          int64_t n, int64_t k, mlir::Type in,
                                          int64_t threads, int64_t waveSize,
                                          bool aInRegisters = false);

/// The recorded `mfma` decision of a gemm.
struct MfmaChoice {
  std::string instruction;
  MfmaShape shape;
  int kPack;
};
std::optional<MfmaChoice> readMfma(tile::GemmOp gemm);

/// Decides the layouts of every tile.gemm under `kernel` (a tile.kernel)
/// and records them as above, for the module's target: NVIDIA chips take
/// the mma.sync path, AMD ones MFMA. Errors (located on the gemm or the
/// buffers) for what a path cannot do.
mlir::LogicalResult inferGemmLayouts(mlir::Operation *kernel,
                                     const TargetInfo &target);

/// tile-plan-pipeline's decisions for every T.Pipelined loop under `root`
/// (see PipelineLoops.cpp): `tile.stage`/`tile.order` on the body's ops,
/// `tile.num_stages` on the shared buffers that become rings.
mlir::LogicalResult planPipelines(mlir::Operation *root,
                                  int64_t maxSharedBytes = 0);

/// What tile-lower-simt will add to `kernel`'s shared memory for cross-warp
/// reductions (LowerReduce.cpp: per element type one scratch buffer of
/// threads x output registers elements, shared by the kernel's
/// reductions), counted for every reduction whose source's warps span
/// part of the reduced dimension (as if each of those crossed warps).
int64_t reductionScratchBytes(tile::KernelOp kernel);

/// tile-share-storage's decision (ShareStorage.cpp): shared buffers whose
/// lifetimes in the kernel body do not overlap carry the same
/// `tile.storage_group` and start at one offset (tile-plan-shared).
inline constexpr llvm::StringLiteral kStorageGroupAttr = "tile.storage_group";

/// Makes that decision for `kernel`: only where its buffers, with every
/// T.Pipelined operand copy at its loop's stage count, do not fit in
/// `maxBytes`, unless `evenIfFits` (tile-plan-warp-specialize, for a ring
/// it deepens). Returns whether it grouped any buffers.
bool shareStorage(tile::KernelOp kernel, int64_t maxBytes, bool evenIfFits);

/// The bytes of one copy of a static shared buffer.
int64_t sharedBytes(tile::AllocOp alloc);
/// Whether `alloc` is a shared buffer of static shape.
bool isStaticShared(tile::AllocOp alloc);

/// The bytes of `kernel`'s static shared buffers, each `copiesOf(alloc)`
/// times (its ring stages), the members of a storage group counted once,
/// at the largest; without the reductions' scratch.
int64_t sharedFootprint(tile::KernelOp kernel,
                        llvm::function_ref<int64_t(tile::AllocOp)> copiesOf);

/// Whether `copy` is one the gemm path lowers into a swizzled buffer: a
/// global source whose box is a 2-D tile (its rows along one dimension, its
/// columns along the last, every other extent 1: FlashAttention's
/// K[b, rows, h, :]), the whole 2-D shared destination at offset zero, rows
/// of whole 16-byte chunks. Other users keep a buffer row-major.
bool isOperandCopy(tile::CopyOp copy);

/// Whether every use of shared buffer `alloc` is an operand copy into it
/// or a tile.gemm read (so its layout may be anything those follow).
bool onlyGemmUses(tile::AllocOp alloc);

/// For an operand copy, the source dimension its rows run along.
int64_t operandRowDim(tile::CopyOp copy);

/// The layout library's policy for the dialect's.
GemmWarpPolicy toPolicy(tile::GemmWarpPolicy policy);

/// The XOR swizzle recorded on a shared tile.alloc (bits == 0: none).
XorSwizzle readSwizzle(mlir::Operation *alloc);

/// The `atom` of the swizzle recorded on a shared tile.alloc: columns per
/// atom (0: the row is one atom).
int64_t readSwizzleAtom(mlir::Operation *alloc);

/// The element offset within a rows x cols buffer of tile element (r, c)
/// under `swizzle` with atoms of `atom` columns (0: none): what
/// swizzledIndices computes, as a number.
int64_t swizzledOffset(int64_t rows, int64_t cols, const XorSwizzle &swizzle,
                       int64_t atom, int64_t r, int64_t c);

/// Indices into `shape` (2-D, row-major, power-of-two columns when
/// swizzled) of the element that tile coordinate (row, col) occupies under
/// `swizzle` with atoms of `atom` columns (0: none): the offset of
/// swizzledOffset split back into a row and a column of the same buffer.
llvm::SmallVector<mlir::Value, 2>
swizzledIndices(mlir::OpBuilder &b, mlir::Location loc,
                llvm::ArrayRef<int64_t> shape, const XorSwizzle &swizzle,
                int64_t atom, mlir::Value row, mlir::Value col);

/// Why the region operand `i` (0: A, 1: B) of `gemm` cannot be read by
/// wgmma descriptors from its buffer's canonical layout `swizzle` (empty
/// when it can): its origin must lie on an 8-row group and on the K grid
/// of the instruction (`kStep` columns) for a K-major operand, on a
/// swizzle atom along M or N for an MN-major one.
std::string regionOriginProblem(tile::GemmOp gemm, unsigned i,
                                tile::SwizzleAttr swizzle, bool kMajor,
                                int64_t kStep);

/// The wgmma part of inferGemmLayouts (GemmLayoutsWgmma.cpp).
///
/// The matrix-instruction family of each tile.gemm of a kernel on a chip
/// with wgmma. The gemms fall into classes coupled through fragments (a
/// gemm's accumulator and register A, and the fragments one op or one
/// T.Parallel nest touches together); a class takes wgmma when every one
/// of its gemms can (f16 / bf16 A and B, or K-major fp8, int8 or tf32
/// ones, in shared buffers whose other users all go through the canonical
/// swizzle (wgmmaOperandUses), or an f16 / bf16 A in a fragment, not
/// transposed, K a power of two up to 256; an f32 accumulator, s32 for
/// int8; shapes a warpgroup split and a canonical swizzle cover, the
/// swizzles agreeing across the classes that take wgmma); otherwise it
/// keeps mma.sync (TileLang picks
/// per gemm too: FlashAttention backward's 32-row dQ gemm beside
/// wgmma-shaped dK and dV gemms).
struct WgmmaChoice {
  /// The gemms that take wgmma.
  llvm::DenseSet<mlir::Operation *> wgmma;
  /// Each gemm that keeps mma.sync: the gemm of its class that cannot
  /// take wgmma, and why.
  llvm::DenseMap<mlir::Operation *, std::pair<mlir::Operation *, std::string>>
      kept;
};
WgmmaChoice chooseWgmma(mlir::Operation *kernel, const TargetInfo &target,
                        int64_t threads);

/// The async gemms (T.wgmma_gemm) of `kernel` against the wgmma decision:
/// a located error on the first one where the chip has no wgmma
/// (`hasWgmma`), where `choice` keeps it on mma.sync (with the reason) or
/// inside a T.Pipelined loop (whose pipeline issues and waits for its
/// gemms itself).
mlir::LogicalResult checkAsyncGemms(mlir::Operation *kernel, bool hasWgmma,
                                    const WgmmaChoice &choice);

/// For an m x n x k gemm over `threads` threads: picks the warpgroup split
/// and the m64nNk16 instruction from the chip's table, records them as
/// `tile.mma` (kind wgmma; `a = registers` with `aInRegisters`) and returns
/// the accumulator layout.
mlir::FailureOr<AccumulatorPlan> planWgmma(tile::GemmOp gemm,
                                           const TargetInfo &target, int64_t m,
                                           int64_t n, int64_t k, mlir::Type in,
                                           int64_t threads, bool aInRegisters);

/// The canonical wgmma / TMA swizzle for a shared operand of `gemm`
/// (`isA`: operand A), as recorded by planWgmma's caller: the widest of
/// 128B, 64B, 32B that tiles the buffer's rows and that every instruction's
/// window starts on, with atoms when a row is wider than one swizzle.
mlir::FailureOr<tile::SwizzleAttr> wgmmaSwizzle(tile::GemmOp gemm, bool isA);

/// The TMA-store part of tile-infer-layouts (PlanTmaStores.cpp): on chips
/// with TMA, `#tile.tma_store` on the shared -> global copies of `kernel`
/// that qualify, and the canonical swizzle on their sources where nothing
/// else lays them out.
void planTmaStores(mlir::Operation *kernel, const TargetInfo &target);

/// The canonical wgmma / TMA swizzle of a shared rows x cols tile whose
/// rows run along the contiguous dimension (a K-major operand, or a TMA
/// store's source): the widest of 128B, 64B, 32B that tiles a row, with
/// atoms when a row is wider than one swizzle; an error for a tile none
/// fits.
llvm::Expected<tile::SwizzleAttr> rowMajorSwizzle(mlir::MLIRContext *ctx,
                                                  mlir::MemRefType type);

} // namespace tilec::gemm

#endif // TILEC_PASSES_GEMMLAYOUTS_H
