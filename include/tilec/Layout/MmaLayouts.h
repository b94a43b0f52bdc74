//===- MmaLayouts.h - Tensor-core fragment layouts --------------*- C++ -*-===//
//
// The register fragments of the tensor-core instructions, as LinearLayouts
// (register, lane[, warp]) -> (dim0, dim1), and their tiling over the warps
// and registers of a thread block. "register" counts elements (a 32-bit
// register holding two f16 values is two registers here). The formulas in
// the comments restate the PTX ISA figures; groupID = lane / 4 and
// threadID_in_group = lane % 4.
//
// Tiling follows TileLang and Triton: warps are placed next to each other
// at instruction granularity (warp w_m covers rows [16 w_m, 16 w_m + 16)
// of every 16 * warpsM rows), and register repeats cover the rest of the
// tile on top of that. Warp index = w_m + warpsM * w_n (M fastest, as in
// CUTLASS). A thread's registers are ordered: instruction fragment first,
// then repeats along the tile's second dimension, then along the first.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LAYOUT_MMALAYOUTS_H
#define TILEC_LAYOUT_MMALAYOUTS_H

#include "tilec/Layout/LinearLayout.h"

namespace tilec {

//===----------------------------------------------------------------------===//
// mma.sync.aligned.m16n8k16 (f16/bf16 inputs, f32 accumulator), one warp
//===----------------------------------------------------------------------===//

/// Operand A, 16x16 (dim0 = m, dim1 = k), 8 elements per lane a0..a7:
/// row = groupID + 8 * ((i >> 1) & 1), col = 2 * threadID_in_group +
/// (i & 1) + 8 * (i >> 2). Register bits: k+1, m+8, k+8; lane bits: k+2,
/// k+4, m+1, m+2, m+4.
LinearLayout mmaM16N8K16OperandA();

/// Operand B, 16x8 (dim0 = k, dim1 = n), 4 elements per lane b0..b3:
/// row = 2 * threadID_in_group + (i & 1) + 8 * (i >> 1), col = groupID.
/// Register bits: k+1, k+8; lane bits: k+2, k+4, n+1, n+2, n+4.
LinearLayout mmaM16N8K16OperandB();

/// Accumulator C/D (f32), 16x8 (dim0 = m, dim1 = n), c0..c3:
/// row = groupID + 8 * (i >> 1), col = 2 * threadID_in_group + (i & 1).
/// Register bits: n+1, m+8; lane bits: n+2, n+4, m+1, m+2, m+4.
LinearLayout mmaM16N8K16Accumulator();

//===----------------------------------------------------------------------===//
// mma.sync with 32-bit (tf32) and 8-bit (e4m3 / e5m2 / s8) operands
//===----------------------------------------------------------------------===//
//
// The accumulator is the m16n8k16 one (16x8, four 32-bit registers); only
// the operands differ. "register" still counts elements: a .b32 register
// holds one tf32 element or four 8-bit ones (element 4w + e is byte e of
// register w).

/// m16n8k8 .tf32 operand A, 16x8: a0..a3, row = groupID + 8 * (i & 1),
/// col = threadID_in_group + 4 * (i >> 1).
LinearLayout mmaM16N8K8Tf32OperandA();

/// m16n8k8 .tf32 operand B, 8x8: b0, b1, row = threadID_in_group + 4 * i,
/// col = groupID.
LinearLayout mmaM16N8K8Tf32OperandB();

/// m16n8k32 8-bit operand A, 16x32: a0..a15, row = groupID + 8 * ((i >> 2)
/// & 1), col = 4 * threadID_in_group + (i & 3) + 16 * (i >> 3).
LinearLayout mmaM16N8K32B8OperandA();

/// m16n8k32 8-bit operand B, 32x8: b0..b7, row = 4 * threadID_in_group +
/// (i & 3) + 16 * (i >> 2), col = groupID.
LinearLayout mmaM16N8K32B8OperandB();

/// The operand fragments of the mma.sync m16n8kK instruction for
/// `elemBits`-bit operands (8: k32, 16: k16, 32: tf32 k8), or an error for
/// another width.
struct MmaSyncOperands {
  int64_t k;
  LinearLayout a, b;
};
llvm::Expected<MmaSyncOperands> mmaSyncOperands(int elemBits);

//===----------------------------------------------------------------------===//
// Warp partition (TileLang's GemmWarpPolicy)
//===----------------------------------------------------------------------===//

enum class GemmWarpPolicy { Square, FullRow, FullCol };
/// mma.sync (16x8 per warp) or wgmma (warps in groups of 4 along M).
enum class MmaKind { MmaSync, Wgmma };

struct WarpPartition {
  int64_t warpsM = 1;
  int64_t warpsN = 1;
  bool operator==(const WarpPartition &o) const {
    return warpsM == o.warpsM && warpsN == o.warpsN;
  }
};

/// How `numWarps` warps split an m x n accumulator, as TileLang decides:
/// FullRow puts every warp along M (spilling to N if M runs out), FullCol
/// along N, Square minimizes |(m/warpsM/16) / (n/warpsN/8) - m/n| over the
/// exact factorizations (for Wgmma, warpsM a multiple of 4). Fails where
/// TileLang would stop: m not a multiple of 16, n of 8, no valid split.
llvm::Expected<WarpPartition>
computeWarpPartition(GemmWarpPolicy policy, int64_t m, int64_t n,
                     int64_t numWarps, MmaKind kind = MmaKind::MmaSync);

/// Where the warps of a WarpPartition sit in a block that
/// tileFragmentOverBlock tiles with an atomM x atomN fragment: warp w's
/// part starts at origin(w). With both counts powers of two the warps
/// along M are the low warp bits, one atom apart, and the register repeats
/// go around their whole span (TileLang's placement). A count that is not
/// a power of two (12 warps as 3 x 4, or 3 wgmma warpgroups along M) is
/// laid out over the next power of two: its warps take the high warp bits
/// and each owns a contiguous run of blockDim / count (the register
/// repeats inside the run), so the phantom warps past the block's own
/// only the padding past the tile's extent.
struct WarpPlacement {
  int64_t warpsM = 1, warpsN = 1; // the real counts
  /// The warps along M are the low warp-index bits.
  bool mMinor = true;
  /// Rows (columns) from one warp's part to the next along M (N); 0 where
  /// the warps along that dimension hold copies.
  int64_t strideM = 0, strideN = 0;
  /// The warps the layout spans (every count rounded up to a power of
  /// two); warps past warpsM * warpsN are phantoms.
  int64_t paddedWarps() const;
  /// The warp's coordinates along M and N.
  std::pair<int64_t, int64_t> coords(int64_t warp) const;
  /// The first row and column of warp `warp`'s part.
  std::pair<int64_t, int64_t> origin(int64_t warp) const;
};

/// The placement tileFragmentOverBlock uses; fails where the warps cannot
/// be laid out over the block (both counts not powers of two, or a count
/// that is not one with a per-warp extent that is not a power-of-two
/// number of atoms).
llvm::Expected<WarpPlacement> placeWarps(int64_t atomM, int64_t atomN,
                                         int64_t blockM, int64_t blockN,
                                         WarpPartition warps, bool ownM,
                                         bool ownN);

//===----------------------------------------------------------------------===//
// Block-level mma.sync fragments: (register, lane, warp) -> (dim0, dim1)
//===----------------------------------------------------------------------===//

/// The accumulator of a blockM x blockN tile (powers of two, blockM a
/// multiple of 16 * warpsM, blockN of 8 * warpsN).
llvm::Expected<LinearLayout>
mmaAccumulatorLayout(int64_t blockM, int64_t blockN, WarpPartition warps);

/// Operand A of a blockM x blockK tile; warps along N hold copies (their
/// warp bits are broadcast: zero bases).
llvm::Expected<LinearLayout> mmaOperandALayout(int64_t blockM, int64_t blockK,
                                               WarpPartition warps);

/// Operand B of a blockK x blockN tile; warps along M hold copies.
llvm::Expected<LinearLayout> mmaOperandBLayout(int64_t blockK, int64_t blockN,
                                               WarpPartition warps);

/// `atom` (one instruction's fragment, (register, lane) -> (dim0, dim1))
/// tiled over a blockM x blockN tile: warps next to each other at atom
/// granularity (warp bits over warpsM, then warpsN), then register repeats
/// along dim1, then dim0. A warp dimension that does not own distinct data
/// (ownM / ownN false) is broadcast: zero bases. A warp count that is not
/// a power of two is placed as placeWarps says. The tiling of every
/// fragment here and in MfmaLayouts.h.
llvm::Expected<LinearLayout>
tileFragmentOverBlock(const LinearLayout &atom, int64_t blockM, int64_t blockN,
                      WarpPartition warps, bool ownM, bool ownN);

//===----------------------------------------------------------------------===//
// ldmatrix
//===----------------------------------------------------------------------===//

/// Which lane supplies which row address for ldmatrix.x1/.x2/.x4: lane ->
/// (matrix, row): lanes 8i..8i+7 give rows 0..7 of matrix i. Lanes past
/// 8 * numMatrices repeat the lower lanes (their addresses are ignored).
llvm::Expected<LinearLayout> ldmatrixAddressLayout(int numMatrices);

/// What ldmatrix delivers: (register, lane) -> (matrix, row, col) of the
/// 8x8 b16 matrices as stored (row = the 16-byte row a lane addressed).
/// Without .trans lane l gets row l/4, cols 2(l%4) and 2(l%4)+1 of each
/// matrix; with .trans it gets col l/4 of rows 2(l%4) and 2(l%4)+1.
/// Register 2i + e is element e of the 32-bit register of matrix i.
llvm::Expected<LinearLayout> ldmatrixResultLayout(int numMatrices, bool trans);

enum class MmaOperand { A, B };

/// One ldmatrix loading a block of an mma.sync operand stored with tile
/// dimension `contiguousDim` (0 or 1) fastest in shared memory.
struct LdmatrixPlan {
  /// Use ldmatrix.trans: when the contiguous dim is not the K dim.
  bool trans = false;
  /// lane -> (dim0, dim1): the first element of the 16-byte row this lane
  /// addresses (matrix i: bit 0 -> dim0 + 8, bit 1 -> dim1 + 8). Lanes
  /// past the last matrix's repeat the lower lanes' rows.
  LinearLayout rowStart;
  /// (register, lane) -> (dim0, dim1): what each lane receives; register
  /// 2i + e is element e of the 32-bit register of matrix i.
  LinearLayout fragment;
};

/// ldmatrix.x4 of a 16x16 block: A m16 x k16 (its fragment is the mma A
/// fragment), or B k16 x n16 (two n8 B fragments side by side, registers
/// 4..7 the second).
llvm::Expected<LdmatrixPlan> ldmatrixX4(MmaOperand operand, int contiguousDim);

/// ldmatrix.x2 of the 16x8 (k16 x n8) block of one B operand: its fragment
/// is the mma B fragment, registers b0b1 and b2b3 one 32-bit word each. For
/// a warp with an odd number of n8 tiles. A has no x2 form (an error).
llvm::Expected<LdmatrixPlan> ldmatrixX2(MmaOperand operand, int contiguousDim);

/// The fragment of a b16 ldmatrix `plan` (register 2i + e = half e of
/// 32-bit word i, in b16 units along the tile) read as `elemBits`-bit
/// elements: the same bytes, with the K dimension `kDim` (0 or 1, the
/// contiguous one) rescaled, and register 4i + e (8-bit) or i (32-bit)
/// element e of word i. 16 returns the fragment unchanged. This is how a
/// b16 ldmatrix of K-contiguous 8-bit or 32-bit data delivers those types'
/// mma operands. A .trans plan is an error for 8 and 32 bits (it moves
/// 16-bit halves across rows, splitting or mixing elements).
llvm::Expected<LinearLayout> ldmatrixAsElements(const LdmatrixPlan &plan,
                                                int kDim, int elemBits);

//===----------------------------------------------------------------------===//
// wgmma.mma_async m64nNk16 (sm_90a), one warpgroup of 4 warps
//===----------------------------------------------------------------------===//

/// The f32 accumulator of m64nNk16 (n a power of two in [8, 256]), ins
/// (register: n/2, lane: 32, warp: 4) -> (dim0: 64, dim1: n): warp w of
/// the group owns rows 16w..16w+15; register i of lane l holds
/// row = 16w + groupID + 8 * ((i >> 1) & 1),
/// col = 8 * (i >> 2) + 2 * threadID_in_group + (i & 1).
llvm::Expected<LinearLayout> wgmmaAccumulatorLayout(int64_t n);

/// A blockM x blockN accumulator computed by wgmma m64nNk16 with `warps`
/// (warpsM a multiple of 4: warpsM / 4 warpgroups along M, warpsN along N).
llvm::Expected<LinearLayout> wgmmaTiledAccumulatorLayout(int64_t blockM,
                                                         int64_t blockN,
                                                         WarpPartition warps,
                                                         int64_t instrN);

/// wgmma's A operand from registers over a blockM x blockK tile: the
/// accumulator layout of an m x k product (A of an m64 x k16 block is the
/// D fragment of N = 16), blockK a power of two up to 256; the warpgroups
/// along N (warps.warpsN) each hold their M block's rows: replicated.
llvm::Expected<LinearLayout> wgmmaRegisterOperandALayout(int64_t blockM,
                                                         int64_t blockK,
                                                         WarpPartition warps);

} // namespace tilec

#endif // TILEC_LAYOUT_MMALAYOUTS_H
