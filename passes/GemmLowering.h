//===- GemmLowering.h - tile-lower-simt's tensor-core family ----*- C++ -*-===//
//
// The tensor-core family of tile-lower-simt: mma.sync (sm_80+) in
// LowerGemm.cpp and PipelineLoops.cpp, MFMA (AMD) in LowerGemmMFMA.cpp; it
// applies what GemmLayouts.cpp recorded. Declared apart from
// SIMTLowering.h so the SIMT families do not depend on it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_PASSES_GEMMLOWERING_H
#define TILEC_PASSES_GEMMLOWERING_H

#include "SIMTLowering.h"

#include "tilec/Layout/MmaLayouts.h"
#include "tilec/Target/TargetInfo.h"

#include <map>
#include <set>

namespace tilec::simt {

/// A shared operand buffer: a 2-D tile, or one stage of a ring of them
/// (a 3-D buffer, stage first).
struct SharedSlot {
  mlir::Value buffer;
  mlir::Value stage; // null for a 2-D buffer
};

/// Indices into `slot` of tile element (row, col), swizzled as its buffer's
/// `shared_layout` says.
llvm::SmallVector<mlir::Value, 3> slotIndices(mlir::OpBuilder &b,
                                              mlir::Location loc,
                                              SharedSlot slot, mlir::Value row,
                                              mlir::Value col);

/// Whether 16-byte chunks of `src` starting at column offset `c0` are
/// aligned and decided by one bounds check (cp.async needs both).
bool asyncCopyOk(mlir::Value src, mlir::Value c0, int64_t elemBytes);

/// Copies the tile of global `src` at `offsets` (one per src dimension;
/// the tile's rows run along dimension `rowDim`, its columns along the last
/// one, every other dimension is a fixed index) into `dst` (whole tile) as
/// 16-byte chunks; with `async` (and aligned chunks) as cp.async.cg
/// (zero-filling what lies outside `src`), for the caller to commit and
/// wait on, returning true; otherwise with loads and stores, returning
/// false. `live` (an i1, may be null) false: nothing is copied (async
/// copies still issue, reading 0 bytes, so `src` at `offsets` must be a
/// valid address).
bool emitOperandCopy(KernelLowering &kernel, mlir::OpBuilder &b,
                     mlir::Location loc, mlir::Value src,
                     mlir::ValueRange offsets, int64_t rowDim, SharedSlot dst,
                     bool async, mlir::Value live);

/// The mma.sync m16n8k16 code of one T.gemm, in the pieces a software
/// pipeline interleaves: the ldmatrix fragments of one k-step of 16 (as a
/// flat list of values, so they can be carried around a loop) and the
/// mmas of one k-step on the accumulator registers. create() checks the
/// accumulator's layout and the ldmatrix plans against the mma fragments.
class MmaSyncGemm {
public:
  static mlir::FailureOr<MmaSyncGemm> create(KernelLowering &kernel,
                                             tile::GemmOp op);

  int64_t numSteps() const { return kDim / 16; }
  /// Per-thread addressing values, at `b` (which must dominate every later
  /// call), for operands in `bufferA` / `bufferB` (2-D tiles or rings).
  void setUp(mlir::OpBuilder &b, mlir::Value bufferA, mlir::Value bufferB);
  /// The A and B fragments of k-step `step` (stages null for 2-D buffers):
  /// A's words (4 per m16 tile), then B's (2 per n8 tile, in tile order).
  llvm::SmallVector<mlir::Value> loadFragments(mlir::OpBuilder &b,
                                               mlir::Value stageA,
                                               mlir::Value stageB,
                                               int64_t step);
  llvm::SmallVector<mlir::Value> loadAccumulators(mlir::OpBuilder &b);
  void mmaStep(mlir::OpBuilder &b, mlir::ValueRange fragments,
               llvm::MutableArrayRef<mlir::Value> accs);
  void storeAccumulators(mlir::OpBuilder &b, mlir::ValueRange accs);

private:
  MmaSyncGemm(KernelLowering &kernel, tile::GemmOp op)
      : kernel(&kernel), op(op), loc(op.getLoc()) {}
  mlir::LogicalResult readTiles();
  mlir::LogicalResult readPlans();
  mlir::LogicalResult readOperandA();
  mlir::Type inputType();
  llvm::SmallVector<mlir::Value, 4>
  loadMatrices(mlir::OpBuilder &b, mlir::Value shared, mlir::ValueRange at,
               bool trans, int numMatrices = 4);

  KernelLowering *kernel;
  tile::GemmOp op;
  mlir::Location loc;
  const Fragment *acc = nullptr;
  int64_t warpsM = 1, warpsN = 1, lanes = 32, kDim = 0;
  std::set<int64_t> mTiles, nTiles;
  llvm::SmallVector<int64_t> ms, ns;
  std::map<std::pair<int64_t, int64_t>, int64_t> tileOfOrigin;
  /// ldmatrix.x4 of A, of pairs of B's n8 tiles, and .x2 of B's odd last
  /// n8 tile.
  LdmatrixPlan planA, planB, planB2;
  int64_t bRegister[2][4] = {};
  /// A in registers: its fragment, and for (m tile, k-step, mma register)
  /// the fragment register holding that element.
  const Fragment *fragA = nullptr;
  llvm::SmallVector<int64_t> aRegisters;
  // From setUp.
  mlir::Value bufferA, bufferB, sharedA, sharedB;
  mlir::Value warpRow, warpCol, aRow, aCol, bRow, bHigh, bLow;
  mlir::Value bRow2, bCol2; // only with an odd number of n8 tiles
};

/// The code of `op` at `b`'s insertion point, reading A and B from the
/// given slots (op itself is left in place).
mlir::LogicalResult emitGemm(KernelLowering &kernel, mlir::OpBuilder &b,
                             tile::GemmOp op, SharedSlot a, SharedSlot bSlot);

/// Software-pipelines the scf.for loops (from T.Pipelined) that
/// tile-plan-pipeline planned: S-deep rings of shared buffers filled by
/// cp.async S-1 iterations ahead (PipelineLoops.cpp).
mlir::LogicalResult pipelineGemmLoops(KernelLowering &kernel);

/// tile.copy from global memory into a shared buffer that carries a
/// `shared_layout` (a T.gemm operand): 16-byte vectors, coalesced, stored
/// at their swizzled place; elements past the tensor's end read as zero.
/// Other copies are left to lowerCopiesAndFills.
mlir::LogicalResult lowerOperandCopies(KernelLowering &kernel);

/// Every tile.gemm of the kernel, each by the lowering of the instruction
/// family its `tile.mma` decision names (the only place that dispatches on
/// it); a gemm without a decision, or of a kind with no lowering yet, is a
/// located error. Must run while fragments are lowered.
mlir::LogicalResult lowerGemms(KernelLowering &kernel,
                               const TargetInfo &target);

/// A tile.gemm of kind mma_sync: per warp, for every k-step of 16,
/// ldmatrix.x4 of the A and B blocks the warp needs (.x2 for an odd last n8
/// tile of B) and one mma.sync m16n8k16 per accumulator tile, on the
/// accumulator's registers. Erases the gemm.
mlir::LogicalResult lowerMmaSyncGemm(KernelLowering &kernel,
                                     tile::GemmOp op);

/// A tile.gemm of kind mfma (LowerGemmMFMA.cpp): per wave, operand vectors
/// read from shared memory and the rocdl.mfma.* op its decision names, per
/// accumulator tile and k-step, on the accumulator's registers. Erases the
/// gemm.
mlir::LogicalResult lowerMfmaGemm(KernelLowering &kernel, tile::GemmOp op);

} // namespace tilec::simt

#endif // TILEC_PASSES_GEMMLOWERING_H
