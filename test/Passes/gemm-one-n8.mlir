// T.gemm with one n8 tile per warp (FullCol over 8 warps and 64 columns,
// mla_decode's S = Q K^T) through the whole tile-to-gpu pipeline: B's
// single n8 tile is read with ldmatrix.x2 (.trans when B is stored K x N,
// plain when it is N x K), A with ldmatrix.x4 as always. Per warp and
// k-step (2 of them): 4 A ldmatrix.x4 (4 m16 tiles), 1 B ldmatrix.x2 and
// 4 mma.sync.
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=sm_80 -tile-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @k_major_b_kernel
// CHECK-COUNT-4: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>, num = 2 : i32{{.*}} -> !llvm.struct<(i32, i32)>
// CHECK-COUNT-4: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>, num = 2 : i32
// CHECK-NOT: nvvm.ldmatrix
// CHECK-COUNT-8: nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
func.func @k_major_b(%Q: memref<64x32xf16>, %K: memref<64x32xf16>, %S: memref<64x64xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %Qs = tile.alloc "Q_shared" : memref<64x32xf16, #tile.space<shared>>
    %Ks = tile.alloc "K_shared" : memref<64x32xf16, #tile.space<shared>>
    %acc = tile.alloc "acc_s" : memref<64x64xf32, #tile.space<fragment>>
    tile.copy %Q[%c0, %c0] [64, 32] to %Qs[%c0, %c0] [64, 32] : memref<64x32xf16>, memref<64x32xf16, #tile.space<shared>>
    tile.copy %K[%c0, %c0] [64, 32] to %Ks[%c0, %c0] [64, 32] : memref<64x32xf16>, memref<64x32xf16, #tile.space<shared>>
    tile.gemm %Qs, %Ks, %acc transpose_b policy = full_col clear_accum : memref<64x32xf16, #tile.space<shared>>, memref<64x32xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    tile.copy %acc[%c0, %c0] [64, 64] to %S[%c0, %c0] [64, 64] : memref<64x64xf32, #tile.space<fragment>>, memref<64x64xf32>
  }
  return
}

// -----

// CHECK-LABEL: gpu.func @n_major_b_kernel
// CHECK-COUNT-4: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>, num = 2 : i32{{.*}} -> !llvm.struct<(i32, i32)>
// CHECK-COUNT-4: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>, num = 2 : i32
// CHECK-NOT: nvvm.ldmatrix
// CHECK-COUNT-8: nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
func.func @n_major_b(%A: memref<64x32xf16>, %B: memref<32x64xf16>, %C: memref<64x64xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %As = tile.alloc "A_shared" : memref<64x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<32x64xf16, #tile.space<shared>>
    %acc = tile.alloc "acc" : memref<64x64xf32, #tile.space<fragment>>
    tile.copy %A[%c0, %c0] [64, 32] to %As[%c0, %c0] [64, 32] : memref<64x32xf16>, memref<64x32xf16, #tile.space<shared>>
    tile.copy %B[%c0, %c0] [32, 64] to %Bs[%c0, %c0] [32, 64] : memref<32x64xf16>, memref<32x64xf16, #tile.space<shared>>
    tile.gemm %As, %Bs, %acc policy = full_col clear_accum : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    tile.copy %acc[%c0, %c0] [64, 64] to %C[%c0, %c0] [64, 64] : memref<64x64xf32, #tile.space<fragment>>, memref<64x64xf32>
  }
  return
}
