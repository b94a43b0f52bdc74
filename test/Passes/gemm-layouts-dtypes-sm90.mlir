// tile-infer-layouts on sm_90a: fp8 operands (e4m3, e5m2, mixed) read
// K-major (A M x K, B N x K with transpose_b) take wgmma m64nNk32 from
// sm_90a's table; stored the other way round (wgmma has no transpose for
// 8-bit types) they keep mma.sync m16n8k32. float32 ones take m16n8k8 tf32.
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=sm_90a -tile-infer-layouts -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @e4m3_e5m2
// CHECK: tile.alloc "A_shared" {tile.swizzle = #tile.swizzle<b64, xor = [2, 4, 3]>}
// CHECK: tile.alloc "B_shared" {tile.swizzle = #tile.swizzle<b64, xor = [2, 4, 3]>}
// CHECK: tile.gemm {{.*}} {tile.mma = #tile.mma<wgmma, "nvvm.wgmma.mma_async", shape = [64, 64, 32], warps = [4, 1], a = shared, b = shared>}
func.func @e4m3_e5m2() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A_shared" : memref<64x64xf8E4M3FN, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<64x64xf8E5M2, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C transpose_b : memref<64x64xf8E4M3FN, #tile.space<shared>>, memref<64x64xf8E5M2, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

// CHECK-LABEL: func.func @e5m2_mn_major
// CHECK: tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (8, 0){{.*}}lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]
// CHECK: tile.gemm {{.*}} {tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 32], warps = [2, 2], a = shared, b = shared>}
func.func @e5m2_mn_major() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A_shared" : memref<64x64xf8E5M2, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<64x64xf8E5M2, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C : memref<64x64xf8E5M2, #tile.space<shared>>, memref<64x64xf8E5M2, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

// CHECK-LABEL: func.func @tf32
// CHECK: tile.gemm {{.*}} {tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 8], warps = [2, 2], a = shared, b = shared>}
func.func @tf32() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A_shared" : memref<32x64xf32, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<32x64xf32, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C transpose_a : memref<32x64xf32, #tile.space<shared>>, memref<32x64xf32, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @fp8_k48() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A_shared" : memref<64x48xf8E4M3FN, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<64x48xf8E4M3FN, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @below {{T.gemm on the mma.sync path needs K a multiple of 32, got 48}}
    tile.gemm %As, %Bs, %C transpose_b : memref<64x48xf8E4M3FN, #tile.space<shared>>, memref<64x48xf8E4M3FN, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @fp8_a_in_registers() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %Af = tile.alloc "A_frag" : memref<64x64xf8E4M3FN, #tile.space<fragment>>
    %Bs = tile.alloc "B_shared" : memref<64x64xf8E4M3FN, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @below {{T.gemm on the mma.sync path reads a 'f8E4M3FN' A operand from shared memory (T.alloc_shared); A in registers takes float16, bfloat16 or float32}}
    tile.gemm %Af, %Bs, %C transpose_b : memref<64x64xf8E4M3FN, #tile.space<fragment>>, memref<64x64xf8E4M3FN, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}
