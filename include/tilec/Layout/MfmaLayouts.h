//===- MfmaLayouts.h - AMD MFMA fragment layouts ----------------*- C++ -*-===//
//
// The register fragments of the CDNA2/CDNA3 matrix fused-multiply-add
// instructions with 16-bit inputs (v_mfma_f32_32x32x8f16 / _32x32x8bf16_1k
// and v_mfma_f32_16x16x16f16 / _16x16x16bf16_1k), as LinearLayouts
// (register, lane[, warp]) -> (dim0, dim1), and their tiling over the
// wavefronts ("warps" here: 64 lanes) and registers of a workgroup.
// "register" counts elements, as in MmaLayouts.h: a VGPR holding two f16
// values is two registers.
//
// Source: AMD Instinct MI200 (CDNA2) and MI300 (CDNA3) Instruction Set
// Architecture reference guides, chapter 7 "Matrix Arithmetic
// Instructions" (the operand layout of the dense MFMA ops), as printed by
// AMD's Matrix Instruction Calculator (`matrix_calculator.py -a CDNA3 -i
// v_mfma_f32_32x32x8f16 --register-layout`). The bf16 `_1k` forms have the
// layouts of the f16 ones. With lane = 0..63, element v = 0..3 of a lane's
// 4-element A/B vector and register i of its accumulator:
//
//   32x32x8:   A[i = lane % 32][k = 4 (lane / 32) + v]
//              B[k = 4 (lane / 32) + v][j = lane % 32]
//              D[i = 8 (r / 4) + 4 (lane / 32) + r % 4][j = lane % 32], r < 16
//   16x16x16:  A[i = lane % 16][k = 4 (lane / 16) + v]
//              B[k = 4 (lane / 16) + v][j = lane % 16]
//              D[i = 4 (lane / 16) + r][j = lane % 16], r < 4
//
// The fp32 forms v_mfma_f32_32x32x2f32 and _16x16x4f32 (one block each)
// take one element per lane, k = lane / M_i (A[i = lane % M_i][k],
// B[k][j = lane % N_i]), and leave D as the 16-bit forms of their M_i x N_i
// do; "4" below reads E = M_i K_i / 64 (mfmaLaneElements) for them.
//
// Block GEMM convention. C = A B is issued as C^T = B^T A^T: the
// instruction's A operand is fed from B and its B operand from A. The lanes
// then hold the same A and B elements as above (the instruction's B^T
// fragment of a k x n block is its A fragment of the n x k transpose), but
// each lane's accumulator registers run along n (4 consecutive columns per
// group of 4 registers), so epilogues store C rows as vectors. The block
// accumulator layouts below are this transposed D.
//
// Tiling follows MmaLayouts.h: waves placed next to each other at
// instruction granularity (wave w_m covers rows [M_i w_m, M_i (w_m + 1)) of
// every M_i * wavesM rows), wave index = w_m + wavesM * w_n, registers
// ordered instruction first, then repeats along the tile's second
// dimension, then its first.
//
// K packing. A lane's 4 elements are 8 bytes; with kPack = 2 a lane reads 8
// consecutive k (one 16-byte LDS read when K is contiguous) and feeds the
// first 4 to one instruction and the last 4 to the next. This permutes k
// inside each group of kPack * K_i; A and B use the same permutation, so the
// sum is unchanged:
//   instruction t of packed group g, lane group h = lane / M_i, element v:
//   k = g * kPack * K_i + h * 4 kPack + 4 t + v.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LAYOUT_MFMALAYOUTS_H
#define TILEC_LAYOUT_MFMALAYOUTS_H

#include "tilec/Layout/MmaLayouts.h"

namespace tilec {

/// The MFMA shapes whose layouts are known here: the 16-bit-input ones and
/// the fp32 ones (v_mfma_f32_32x32x2f32, v_mfma_f32_16x16x4f32).
enum class MfmaShape { M32N32K8, M16N16K16, M32N32K2, M16N16K4 };

struct MfmaDims {
  int64_t m, n, k;
};
MfmaDims getMfmaDims(MfmaShape shape);

/// The shape of an instruction with an f32 accumulator for m x n x k (K 8
/// or 16: 16-bit A/B; K 2 or 4: fp32 A/B), or an error for shapes this
/// library has no layout for.
llvm::Expected<MfmaShape> getMfmaShape(int64_t m, int64_t n, int64_t k);

/// Lanes of a wavefront: every MFMA here is issued by 64 lanes.
inline constexpr int64_t kMfmaLanes = 64;

/// The A (or B) elements one lane passes to one instruction, M_i K_i / 64:
/// 4 for the 16-bit shapes, 1 for the fp32 ones.
int64_t mfmaLaneElements(MfmaShape shape);

//===----------------------------------------------------------------------===//
// One instruction, one wavefront, as the ISA lays it out
//===----------------------------------------------------------------------===//

/// A (dim0 = i, dim1 = k): (register: 4, lane: 64).
LinearLayout mfmaOperandA(MfmaShape shape);
/// B (dim0 = k, dim1 = j): (register: 4, lane: 64).
LinearLayout mfmaOperandB(MfmaShape shape);
/// D (dim0 = i, dim1 = j), f32: (register: m * n / 64, lane: 64).
LinearLayout mfmaAccumulator(MfmaShape shape);

//===----------------------------------------------------------------------===//
// Block GEMM (C = A B issued as C^T = B^T A^T)
//===----------------------------------------------------------------------===//

/// What one instruction leaves of C (dim0 = m, dim1 = n) in a lane's
/// registers: the transpose of mfmaAccumulator.
LinearLayout mfmaSwappedAccumulator(MfmaShape shape);

/// What a lane holds of one packed group of A (dim0 = m, dim1 = k; m of
/// M_i, k of kPack * K_i) and of B (dim0 = k, dim1 = n), with the k
/// permutation above. kPack is 1 or 2.
llvm::Expected<LinearLayout> mfmaPackedOperandA(MfmaShape shape, int kPack);
llvm::Expected<LinearLayout> mfmaPackedOperandB(MfmaShape shape, int kPack);

/// How `numWaves` wavefronts split an m x n accumulator into whole
/// instruction tiles (M_i x N_i): FullRow puts every wave along M (spilling
/// to N when M has fewer tiles than waves), FullCol along N, Square picks the
/// split whose per-wave tile is closest to square (|log2(rows / cols)|
/// smallest; ties go to more waves along M). m and n need not be powers of
/// two: every wave gets the same whole number of tiles along each. Fails
/// when m or n is not a multiple of the instruction's or no split fits.
llvm::Expected<WarpPartition> computeWavePartition(GemmWarpPolicy policy,
                                                   int64_t m, int64_t n,
                                                   int64_t numWaves,
                                                   MfmaShape shape);

/// The f32 accumulator of a blockM x blockN tile (multiples of M_i *
/// wavesM and N_i * wavesN; one that is not a power of two is laid out
/// over the next power of two, PaddedLayout.h).
llvm::Expected<LinearLayout> mfmaAccumulatorLayout(int64_t blockM,
                                                   int64_t blockN,
                                                   MfmaShape shape,
                                                   WarpPartition waves);

/// Operand A of a blockM x blockK tile (waves along N hold copies) and B of
/// a blockK x blockN tile (waves along M hold copies), packed by kPack.
llvm::Expected<LinearLayout> mfmaOperandALayout(int64_t blockM, int64_t blockK,
                                                MfmaShape shape,
                                                WarpPartition waves, int kPack);
llvm::Expected<LinearLayout> mfmaOperandBLayout(int64_t blockK, int64_t blockN,
                                                MfmaShape shape,
                                                WarpPartition waves, int kPack);

/// Operand A of a blockM x blockK tile held in registers (FlashAttention's
/// P): the accumulator layout of an m x k product (mfmaSwappedAccumulator
/// tiled, waves along N holding copies). Per k step of the unpacked
/// instruction a lane holds the 4 consecutive k that it reads as its
/// operand (C = A B issued as C^T = B^T A^T makes A the instruction's B,
/// whose lane l holds k = 4 (l / M_i) + j of row l % M_i, as the swapped
/// accumulator holds n), so a fragment copied from an accumulator of the
/// same wave split is a register copy. blockK must be a multiple of N_i.
llvm::Expected<LinearLayout> mfmaRegisterOperandALayout(int64_t blockM,
                                                        int64_t blockK,
                                                        MfmaShape shape,
                                                        WarpPartition waves);

} // namespace tilec

#endif // TILEC_LAYOUT_MFMALAYOUTS_H
