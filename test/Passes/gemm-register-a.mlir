// The whole tile-to-gpu pipeline on FlashAttention's two GEMMs: S = Q K^T,
// P = S (cast, a register copy), O = P V with P in registers. Q and K come
// through ldmatrix (A non-transposed; K stored N x K, so B without .trans),
// V through ldmatrix.trans; P is never loaded: the second gemm's 64 mmas
// (16 n8 tiles x 4 k-steps per warp) read registers. The f16 output is
// stored in 8-byte pairs (a lane-pair shuffle, then vector<4xf16>).
// RUN: tilec-opt %s -tile-set-target=chip=sm_80 -tile-to-gpu > %t
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=MMA < %t

// Per warp (16 rows), gemm 1: 4 k-steps x (1 A + 4 B) ldmatrix; gemm 2:
// 16 ldmatrix.trans of V and no ldmatrix of P.
// CHECK-LABEL: gpu.func @p_times_v_kernel
// CHECK-COUNT-20: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>
// CHECK-NOT: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>
// CHECK-COUNT-16: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>
// CHECK-NOT: nvvm.ldmatrix
// CHECK: gpu.shuffle  xor
// CHECK: vector.store {{.*}} : memref<64x64xf16>, vector<4xf16>

// 4 k-steps x 8 n8 tiles of mma per gemm.
// MMA-COUNT-64: nvvm.mma.sync
// MMA-NOT: nvvm.mma.sync
func.func @p_times_v(%Q: memref<64x64xf16>, %K: memref<64x64xf16>, %V: memref<64x64xf16>, %Out: memref<64x64xf16>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %Qs = tile.alloc "Q_shared" : memref<64x64xf16, #tile.space<shared>>
    %Ks = tile.alloc "K_shared" : memref<64x64xf16, #tile.space<shared>>
    %S = tile.alloc "S" : memref<64x64xf32, #tile.space<fragment>>
    %P = tile.alloc "P" : memref<64x64xf16, #tile.space<fragment>>
    %Vs = tile.alloc "V_shared" : memref<64x64xf16, #tile.space<shared>>
    %O = tile.alloc "O" : memref<64x64xf32, #tile.space<fragment>>
    tile.copy %Q[%c0, %c0] [64, 64] to %Qs[%c0, %c0] [64, 64] : memref<64x64xf16>, memref<64x64xf16, #tile.space<shared>>
    tile.copy %K[%c0, %c0] [64, 64] to %Ks[%c0, %c0] [64, 64] : memref<64x64xf16>, memref<64x64xf16, #tile.space<shared>>
    tile.copy %V[%c0, %c0] [64, 64] to %Vs[%c0, %c0] [64, 64] : memref<64x64xf16>, memref<64x64xf16, #tile.space<shared>>
    tile.gemm %Qs, %Ks, %S transpose_b policy = full_row clear_accum : memref<64x64xf16, #tile.space<shared>>, memref<64x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    tile.copy %S[%c0, %c0] [64, 64] to %P[%c0, %c0] [64, 64] : memref<64x64xf32, #tile.space<fragment>>, memref<64x64xf16, #tile.space<fragment>>
    tile.gemm %P, %Vs, %O policy = full_row clear_accum : memref<64x64xf16, #tile.space<fragment>>, memref<64x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    tile.copy %O[%c0, %c0] [64, 64] to %Out[%c0, %c0] [64, 64] : memref<64x64xf32, #tile.space<fragment>>, memref<64x64xf16>
  }
  return
}
