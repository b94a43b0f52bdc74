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
/// error if none fits.
mlir::FailureOr<AccumulatorPlan> planMfma(tile::GemmOp gemm,
                                          const TargetInfo &target, int64_t m,
                                          int64_t n, int64_t k, mlir::Type in,
                                          int64_t threads, int64_t waveSize);

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

/// Whether `copy` is one the gemm path lowers into a swizzled buffer: a
/// global source whose box is a 2-D tile (its rows along one dimension, its
/// columns along the last, every other extent 1: FlashAttention's
/// K[b, rows, h, :]), the whole 2-D shared destination at offset zero, rows
/// of whole 16-byte chunks. Other users keep a buffer row-major.
bool isOperandCopy(tile::CopyOp copy);

/// For an operand copy, the source dimension its rows run along.
int64_t operandRowDim(tile::CopyOp copy);

/// The layout library's policy for the dialect's.
GemmWarpPolicy toPolicy(tile::GemmWarpPolicy policy);

/// The XOR swizzle recorded on a shared tile.alloc (bits == 0: none).
XorSwizzle readSwizzle(mlir::Operation *alloc);

/// Indices into `shape` (2-D, row-major, power-of-two columns when
/// swizzled) of the element that tile coordinate (row, col) occupies under
/// `swizzle`: the row-major offset is swizzled and split back into a row
/// and a column of the same buffer.
llvm::SmallVector<mlir::Value, 2>
swizzledIndices(mlir::OpBuilder &b, mlir::Location loc,
                llvm::ArrayRef<int64_t> shape, const XorSwizzle &swizzle,
                mlir::Value row, mlir::Value col);

} // namespace tilec::gemm

#endif // TILEC_PASSES_GEMMLAYOUTS_H
