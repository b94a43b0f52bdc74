// tile-infer-layouts on T.gemm with float32 (tf32) and fp8 operands on
// sm_80: float32 takes mma.sync m16n8k8 tf32 (the m16n8k16 accumulator
// layout; a fragment A gets the m16n8k8 tf32 A tiling), fp8 has no
// instruction in sm_80's table; the located errors.
// gemm-layouts-dtypes-sm90.mlir has the sm_90a cases.
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=sm_80 -tile-infer-layouts -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @tf32
// CHECK: tile.alloc "A_shared" {tile.swizzle = #tile.swizzle<b128
// CHECK: tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (8, 0){{.*}}lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]
// CHECK: tile.gemm {{.*}} {tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 8], warps = [2, 2], a = shared, b = shared>}
func.func @tf32(%A: memref<64x32xf32>, %B: memref<64x32xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A_shared" : memref<64x32xf32, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<64x32xf32, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    tile.copy %A[%c0, %c0] [64, 32] to %As[%c0, %c0] [64, 32] : memref<64x32xf32>, memref<64x32xf32, #tile.space<shared>>
    tile.copy %B[%c0, %c0] [64, 32] to %Bs[%c0, %c0] [64, 32] : memref<64x32xf32>, memref<64x32xf32, #tile.space<shared>>
    tile.gemm %As, %Bs, %C transpose_b : memref<64x32xf32, #tile.space<shared>>, memref<64x32xf32, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @tf32_k12() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A_shared" : memref<64x12xf32, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<12x64xf32, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @below {{T.gemm on the mma.sync path needs K a multiple of 8, got 12}}
    tile.gemm %As, %Bs, %C : memref<64x12xf32, #tile.space<shared>>, memref<12x64xf32, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @fp8_on_sm80() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A_shared" : memref<64x64xf8E4M3FN, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<64x64xf8E4M3FN, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @below {{T.gemm on the mma.sync path: sm_80 has no m16n8kK instruction for 'f8E4M3FN' x 'f8E4M3FN' inputs and f32 accumulation}}
    tile.gemm %As, %Bs, %C transpose_b : memref<64x64xf8E4M3FN, #tile.space<shared>>, memref<64x64xf8E4M3FN, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

// The A fragment is the m16n8k8 tf32 A fragment (a0..a3: row +8, col +4;
// lanes: col +1, +2, rows +1, +2, +4), repeated along K then M, warps
// along N holding copies.
// CHECK-LABEL: func.func @tf32_a_in_registers
// CHECK: tile.alloc "A_frag" {layout = #tile.fragment<register = [(8, 0), (0, 4), (0, 8), (0, 16), (32, 0)], lane = [(0, 1), (0, 2), (1, 0), (2, 0), (4, 0)], warp = [(16, 0), (0, 0)]>}
// CHECK: tile.gemm {{.*}} {tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 8], warps = [2, 2], a = registers, b = shared>}
func.func @tf32_a_in_registers() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %Af = tile.alloc "A_frag" : memref<64x32xf32, #tile.space<fragment>>
    %Bs = tile.alloc "B_shared" : memref<32x64xf32, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    tile.gemm %Af, %Bs, %C : memref<64x32xf32, #tile.space<fragment>>, memref<32x64xf32, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}
