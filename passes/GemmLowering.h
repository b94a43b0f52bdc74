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

#include "llvm/ADT/DenseSet.h"

#include <map>
#include <optional>
#include <set>
#include <string>

namespace tilec::simt {

/// A shared operand buffer: a 2-D tile, or one stage of a ring of them
/// (a 3-D buffer, stage first); a gemm reading a region of it reads the
/// tile from (row, col) on.
struct SharedSlot {
  mlir::Value buffer;
  mlir::Value stage; // null for a 2-D buffer
  int64_t row = 0, col = 0;
};

/// The slot gemm operand `i` (0: A, 1: B) reads: its buffer, the stage
/// index of a region of a 3-D buffer, the region's origin.
SharedSlot operandSlot(tile::GemmOp op, unsigned i);

/// Indices into `slot` of tile element (row, col), swizzled as its buffer's
/// `tile.swizzle` says.
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

/// The mma.sync m16n8kK code of one T.gemm, in the pieces a software
/// pipeline interleaves: the operand fragments of one k-step (as a flat
/// list of 32-bit words, so they can be carried around a loop) and the
/// mmas of one k-step on the accumulator registers. create() checks the
/// accumulator's layout and the ldmatrix plans against the mma fragments.
/// K per step is the instruction's: 16 (f16 / bf16), 8 (tf32), 32 (fp8).
/// 8- and 32-bit operands stored K-contiguous take the b16 ldmatrix (its
/// words hold the same bytes); stored the other way, their words are
/// assembled from element loads (ldmatrix.trans splits them).
class MmaSyncGemm {
public:
  static mlir::FailureOr<MmaSyncGemm> create(KernelLowering &kernel,
                                             tile::GemmOp op);

  int64_t numSteps() const { return kDim / kStep; }
  /// Per-thread addressing values, at `b` (which must dominate every later
  /// call), for operands in `slotA` / `slotB`'s buffers (2-D tiles or
  /// rings; the stages are given per load, the regions' origins here).
  void setUp(mlir::OpBuilder &b, SharedSlot slotA, SharedSlot slotB);
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
  mlir::LogicalResult readNarrowPlans();
  /// One 32-bit operand word from element loads: `atom`'s registers
  /// word * perWord ... at the lane's (row0, col0) + origin, in the tile's
  /// (dim0, dim1) (swapped into storage order with `transposed`).
  mlir::Value loadWord(mlir::OpBuilder &b, SharedSlot slot,
                       const LinearLayout &atom, int64_t word, mlir::Value row0,
                       mlir::Value col0, bool transposed);

  KernelLowering *kernel;
  tile::GemmOp op;
  mlir::Location loc;
  const Fragment *acc = nullptr;
  int64_t warpsM = 1, warpsN = 1, lanes = 32, kDim = 0;
  /// Where each warp's part of the accumulator starts (MmaLayouts.h):
  /// warps one atom apart, or a contiguous run each along a dimension
  /// whose warp count is not a power of two.
  WarpPlacement place;
  /// K of one instruction and the operands' element width.
  int64_t kStep = 16, elemBits = 16;
  /// The operand fragments of the instruction (element registers).
  LinearLayout atomA, atomB;
  /// Whether A / B are read with ldmatrix (else element loads).
  bool ldmatrixA = true, ldmatrixB = true;
  /// For a B pair's ldmatrix.x4: bWord[h][j] is the word holding 32-bit
  /// mma register j of the pair's n8 tile h.
  int64_t bWord[2][2] = {};
  std::set<int64_t> mTiles, nTiles;
  llvm::SmallVector<int64_t> ms, ns;
  /// tileOfOrigin[(m0, n0)]: the index into `groups` of the tile at
  /// (m0, n0) of the gemm's C (the region's, where C is one); groups[t]:
  /// the accumulator's register group (registers 4g .. 4g + 3) holding it.
  std::map<std::pair<int64_t, int64_t>, int64_t> tileOfOrigin;
  llvm::SmallVector<int64_t> groups;
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
  std::pair<int64_t, int64_t> originA{0, 0}, originB{0, 0};
  mlir::Value warpRow, warpCol, aRow, aCol, bRow, bHigh, bLow;
  mlir::Value bRow2, bCol2; // only with an odd number of n8 tiles
  mlir::Value bElemCol;     // B's lane column (n) for element loads
};

/// The code of `op` at `b`'s insertion point, reading A and B from the
/// given slots (op itself is left in place), by the lowering of its
/// `tile.mma` kind. `asyncFenced`: the caller made the operands visible to
/// the async proxy (fence.proxy.async before the barrier that published
/// them), which wgmma needs; else the wgmma lowering fences itself.
mlir::LogicalResult emitGemm(KernelLowering &kernel, mlir::OpBuilder &b,
                             tile::GemmOp op, SharedSlot a, SharedSlot bSlot,
                             bool asyncFenced = false);

/// Byte alignment of shared buffers wgmma reads through descriptors (the
/// 128-byte swizzle's period, 8 rows of 128 bytes): recorded as
/// `tile.align` on their allocs for tile-plan-shared.
inline constexpr int64_t kWgmmaOperandAlignment = 1024;

/// tile-plan-warp-specialize's decision that a warp-specialized kernel
/// runs persistently (a unit attribute on the tile.kernel, then on its
/// gpu.func): tile-outline-kernels wraps the body in a loop over the
/// block indices, the launch header starts one block per multiprocessor,
/// and the rings' phases run on across the tiles a block computes.
inline constexpr llvm::StringLiteral kPersistentAttr = "tile.persistent";

/// tile-plan-warp-specialize's decision (--overlap-gemms) that the last
/// gemm of a warp-specialized loop stays in flight across the back edge
/// (a unit attribute on the tile.pipelined): the consumers issue
/// iteration j's first gemm while j - 1's last one runs, and wait for
/// both together.
inline constexpr llvm::StringLiteral kLastGemmInFlightAttr =
    "tile.last_gemm_in_flight";

/// tile-plan-warp-specialize's decision that the consumer warpgroups of a
/// warp-specialized loop take turns issuing its first gemm (a unit
/// attribute on the tile.pipelined; FlashAttention-3's pingpong): each
/// warpgroup's softmax then runs while the tensor cores work for the
/// other, instead of every warpgroup idling the tensor cores at once.
inline constexpr llvm::StringLiteral kPingpongAttr = "tile.pingpong";

/// How a wgmma operand buffer is addressed by its descriptors
/// (LowerGemmWgmma.cpp): a rows x cols tile in atoms of `width` columns.
struct WgmmaOperand {
  int64_t rows = 0, width = 0, elemBytes = 0;
  int64_t mode = 0; // the descriptor's encoding: 1 = 128B, 2 = 64B, 3 = 32B
  bool kMajor = true;

  /// Byte offset of the instruction window starting at (mn0, k0), mn0 a
  /// multiple of 8 (K-major) or of the atom width (MN-major).
  int64_t offset(int64_t mn0, int64_t k0) const {
    if (kMajor)
      return (k0 / width) * rows * width * elemBytes + mn0 * width * elemBytes +
             (k0 % width) * elemBytes;
    return (mn0 / width) * rows * width * elemBytes + k0 * width * elemBytes;
  }
  /// LBO, SBO and the swizzle mode, in place in the descriptor.
  uint64_t fields() const {
    uint64_t lbo = kMajor ? 16 : uint64_t(rows * width * elemBytes);
    uint64_t sbo = uint64_t(8 * width * elemBytes);
    return ((lbo >> 4) & 0x3FFF) << 16 | ((sbo >> 4) & 0x3FFF) << 32 |
           uint64_t(mode) << 62;
  }
};

/// The wgmma code of one T.gemm, in the pieces a pipeline interleaves:
/// the accumulator as one LLVM struct per instruction (carried around a
/// loop while wgmmas are in flight), the wgmmas of one tile, the wait.
class WgmmaGemm {
public:
  static mlir::FailureOr<WgmmaGemm> create(KernelLowering &kernel,
                                           tile::GemmOp op);
  /// Records the operands' alignment (`tile.align`) on their allocs.
  void markOperands(mlir::OpBuilder &b, SharedSlot a, SharedSlot bSlot);
  /// Per-warpgroup offsets, at `b` (which must dominate later calls).
  void setUp(mlir::OpBuilder &b);
  mlir::Type structType(mlir::MLIRContext *ctx) const;
  llvm::SmallVector<mlir::Value> loadAccumulators(mlir::OpBuilder &b);
  /// wgmma.fence, every k-step's wgmmas on `a` / `bSlot`, commit.
  void issue(mlir::OpBuilder &b, SharedSlot a, SharedSlot bSlot,
             llvm::MutableArrayRef<mlir::Value> accs);
  /// wgmma.wait_group `pending`.
  void wait(mlir::OpBuilder &b, int64_t pending);
  /// After a wait of 0: the structs back into the fragment's registers,
  /// each through an empty volatile asm after the wait. Without
  /// `afterWait` (an async gemm, its group in flight) as they are: the
  /// tile.wait_wgmma completing the group makes them opaque.
  void storeAccumulators(mlir::OpBuilder &b, mlir::ValueRange accs,
                         bool afterWait = true);

private:
  WgmmaGemm(KernelLowering &kernel, tile::GemmOp op)
      : kernel(&kernel), op(op), loc(op.getLoc()) {}
  mlir::LogicalResult mapRegisters();
  mlir::LogicalResult mapOperandA();
  mlir::Value descriptorBase(mlir::OpBuilder &b, SharedSlot slot,
                             const WgmmaOperand &d, mlir::Value wgOffset);
  /// wgmma with A from registers (`a` four 32-bit words) on `d`.
  mlir::Value issueRegisterA(mlir::OpBuilder &b, mlir::Value d,
                             mlir::ValueRange a, mlir::Value descB,
                             bool accumulate);

  KernelLowering *kernel;
  tile::GemmOp op;
  mlir::Location loc;
  const Fragment *acc = nullptr;
  int64_t groupsM = 1, groupsN = 1, mWG = 0, nWG = 0, instrN = 0, kDim = 0;
  /// K of one instruction: 16 (f16 / bf16) or 32 (8-bit floats).
  int64_t kStep = 16;
  int64_t mBlocks = 0, nBlocks = 0;
  WgmmaOperand descA, descB;
  /// regOf[(mb * nBlocks + nb) * instrN / 2 + i]: the fragment register
  /// holding register i of instruction (mb, nb)'s D.
  llvm::SmallVector<int64_t> regOf;
  /// A in registers (FlashAttention's P): its fragment, and for (m64
  /// block, k-step, element e of a0..a7) the fragment register holding it.
  const Fragment *fragA = nullptr;
  llvm::SmallVector<int64_t> aRegOf;
  mlir::Value wgA, wgB; // from setUp
};

/// A producer copy of a pipelined wgmma loop issued as TMA loads
/// (PipelineTma.cpp): one box per swizzle atom of the destination.
struct TmaCopy {
  tile::CopyOp copy;
  unsigned argIndex = 0; ///< the source tensor's kernel argument
  int64_t rowDim = 0;    ///< the source dimension the tile's rows run along
  int64_t rows = 0, cols = 0, width = 0, elemBytes = 0, swizzleBytes = 0;
  /// The box's first column in the tile and the tile's columns (a box
  /// may fill whole atoms of a wider tile: T.tma_copy into
  /// `KV_s[:, 64 j : 64 (j + 1)]`).
  int64_t col0 = 0, bufferCols = 0;
  /// Bytes one stage of this copy brings (the whole box, edges included).
  int64_t bytes() const { return rows * cols * elemBytes; }
};

/// The TMA plan of `copy` into `dstBuffer` (the ring or buffer it fills),
/// or nullopt with `why` set. With `rowsCheckedAtLaunch` (T.tma_copy,
/// which asks for TMA), a dynamic innermost extent is accepted: the launch
/// header's cuTensorMapEncodeTiled rejects rows that are not whole 16-byte
/// units.
std::optional<TmaCopy> planTmaCopy(tile::CopyOp copy, mlir::Value dstBuffer,
                                   std::string &why,
                                   bool rowsCheckedAtLaunch = false);

/// The kernel's tensor-map argument for `plan`: appended (and the host
/// launch ops given a placeholder operand) on first use, shared by every
/// copy with the same tensor, box and swizzle.
mlir::Value tensorMapArgument(mlir::gpu::GPUFuncOp func, const TmaCopy &plan);

/// The same for any TMA box: the argument of map {tensor, box (innermost
/// first), swizzle bytes} of the prim_func's tensor `tensor`.
mlir::Value tensorMapArgument(mlir::gpu::GPUFuncOp func, int64_t tensor,
                              llvm::ArrayRef<int64_t> box,
                              int64_t swizzleBytes);

/// The kernel argument (of the gpu.func, or before outlining of the
/// prim_func) a global tensor view comes from, through a rebuilt view
/// (memref.reinterpret_cast); null for anything else.
mlir::BlockArgument tmaTensorArgument(mlir::Value tensor);

/// A shared -> global tile.copy that tile-infer-layouts decided is a TMA
/// store (`#tile.tma_store`, PlanTmaStores.cpp), in place (LowerTmaStore.cpp).
mlir::LogicalResult lowerTmaStore(KernelLowering &kernel, tile::CopyOp copy,
                                  tile::TmaStoreAttr plan);

/// The TMA loads of `plan` into `dst` from the source at `srcOffsets`
/// (one per source dimension), completing on mbarrier `mbar` (a shared
/// pointer). Issued by the calling thread.
void issueTmaCopy(mlir::OpBuilder &b, mlir::Location loc, const TmaCopy &plan,
                  mlir::Value map, SharedSlot dst, mlir::ValueRange srcOffsets,
                  mlir::Value mbar, unsigned indexBits);

/// A tile.gemm of kind wgmma (LowerGemmWgmma.cpp) at `b`, on the given
/// slots: per warpgroup and k-step of 16, wgmma.mma_async m64nNk16 on
/// shared-memory descriptors, then commit and wait 0.
mlir::LogicalResult emitWgmmaGemm(KernelLowering &kernel, mlir::OpBuilder &b,
                                  tile::GemmOp op, SharedSlot a,
                                  SharedSlot bSlot, bool asyncFenced);
/// The same in place of `op`, which it erases; `fenced`: the operands are
/// already visible to the async proxy (the gemm before it fenced them).
/// An async gemm (T.wgmma_gemm) stops after the commit.
mlir::LogicalResult lowerWgmmaGemm(KernelLowering &kernel, tile::GemmOp op,
                                   bool fenced = false);

/// T.wgmma_gemm's groups (WgmmaGroups.cpp), before the gemms are lowered:
/// checks that every tile.wait_wgmma has a group to wait for and that no
/// op touches an accumulator between its async gemm and the wait that
/// completes it (where the block shows it), then lowers each wait to
/// wgmma.wait_group with the registers of every accumulator it may
/// complete passed through an empty volatile asm. Returns the async gemms
/// whose operands the async gemm right before them already fenced.
mlir::FailureOr<llvm::DenseSet<mlir::Operation *>>
lowerWgmmaWaits(KernelLowering &kernel);

/// `fence.proxy.async.shared::cta`: this thread's generic-proxy writes to
/// shared memory (st.shared, cp.async) become visible to the async proxy
/// wgmma and TMA use; emitted before the barrier that publishes them.
void fenceAsyncProxy(mlir::OpBuilder &b, mlir::Location loc);

/// `buffer` (a shared memref) cast to the GPU workgroup address space.
mlir::Value castToWorkgroup(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value buffer);
/// The LLVM pointer to element `indices` of `buffer` (see LowerGemm.cpp).
mlir::Value sharedElementPointer(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value buffer, mlir::ValueRange indices,
                                 unsigned indexBits);
/// The LLVM pointer to mbarrier `index` of `barriers` (a
/// tile.alloc_barrier's buffer; LowerHopper.cpp).
mlir::Value barrierPointer(KernelLowering &kernel, mlir::OpBuilder &b,
                           mlir::Location loc, mlir::Value barriers,
                           mlir::Value index);

/// TileLang's raw asynchronous copies (LowerAsyncCopy.cpp), before the
/// mbarriers are: tile.cp_async as one cp.async to the element's place
/// under the destination's swizzle, tile.cp_async_arrive as
/// cp.async.mbarrier.arrive.noinc, the group fences as cp.async's (dropped
/// from a kernel without tile.cp_async). Located errors for a run the
/// swizzle does not keep contiguous, a misaligned one, or a target without
/// cp.async.
mlir::LogicalResult lowerRawAsyncCopies(KernelLowering &kernel,
                                        const TargetInfo &target);

/// Software-pipelines the scf.for loops (from T.Pipelined) that
/// tile-plan-pipeline planned: S-deep rings of shared buffers filled by
/// cp.async S-1 iterations ahead (PipelineLoops.cpp).
mlir::LogicalResult pipelineGemmLoops(KernelLowering &kernel);

/// A warp-specialized kernel (WarpSpecialize.cpp): after pipelineGemmLoops
/// built the producer's loop, splits the body into the consumers' branch
/// and the producer warpgroup's, each with its setmaxnreg.
mlir::LogicalResult splitWarpRoles(KernelLowering &kernel);
/// At the end of the lowering: the consumers' block barriers count the
/// consumers only.
void nameConsumerBarriers(KernelLowering &kernel);

/// tile.copy from global memory into a shared buffer that carries a
/// `tile.swizzle` (a T.gemm operand): 16-byte vectors, coalesced, stored
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
mlir::LogicalResult lowerMmaSyncGemm(KernelLowering &kernel, tile::GemmOp op);

/// A tile.gemm of kind mfma (LowerGemmMFMA.cpp): per wave, operand vectors
/// read from shared memory and the rocdl.mfma.* op its decision names, per
/// accumulator tile and k-step, on the accumulator's registers. Erases the
/// gemm.
mlir::LogicalResult lowerMfmaGemm(KernelLowering &kernel, tile::GemmOp op);

} // namespace tilec::simt

#endif // TILEC_PASSES_GEMMLOWERING_H
