// tile-infer-layouts on T.gemm (the mma.sync path): the warp split on the
// gemm, the mma accumulator layout on its fragment, the swizzle of each
// shared operand; and the located errors for what the path cannot do.
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=sm_80 -tile-infer-layouts -verify-diagnostics | FileCheck %s

// 64x64 tile, 4 warps, Square: 2x2 warps of 32x32 (2 m16 x 4 n8 tiles, 32
// registers per thread). A_shared has 64-byte rows (64B swizzle: chunk
// bits 3-4 of the element offset XOR bits 6-7), B_shared 128-byte rows
// (128B swizzle: bits 3-5 XOR bits 6-8). The epilogue loop follows C.
// CHECK-LABEL: func.func @gemm64
// CHECK: tile.alloc "A_shared" {tile.swizzle = #tile.swizzle<b64, xor = [2, 3, 3]>}
// CHECK: tile.alloc "B_shared" {tile.swizzle = #tile.swizzle<b128, xor = [3, 3, 3]>}
// CHECK: tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (8, 0), (0, 16), (0, 32), (32, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(16, 0), (0, 8)]>}
// CHECK: tile.gemm {{.*}} {tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 16], warps = [2, 2], a = shared, b = shared>}
// CHECK: tile.parallel {{.*}}loop_layout = #tile.fragment<register = [(0, 1), (8, 0), (0, 16), (0, 32), (32, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(16, 0), (0, 8)]>
func.func @gemm64(%A: memref<64x32xf16>, %B: memref<32x64xf16>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A_shared" : memref<64x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    tile.copy %A[%c0, %c0] [64, 32] to %As[%c0, %c0] [64, 32] : memref<64x32xf16>, memref<64x32xf16, #tile.space<shared>>
    tile.copy %B[%c0, %c0] [32, 64] to %Bs[%c0, %c0] [32, 64] : memref<32x64xf16>, memref<32x64xf16, #tile.space<shared>>
    tile.gemm %As, %Bs, %C clear_accum : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    tile.parallel (%i, %j) in [64, 64] {
      %x = memref.load %C[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
      %z = arith.constant 0.0 : f32
      %y = arith.maxnumf %x, %z : f32
      memref.store %y, %C[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
    }
  }
  return
}

// -----

// A shared buffer other ops read row-major keeps its plain layout.
// CHECK-LABEL: func.func @plain
// CHECK: tile.alloc "A_shared" {tile.swizzle = #tile.swizzle<none>}
// CHECK: tile.alloc "B_shared" {tile.swizzle = #tile.swizzle<b128, xor = [3, 3, 3]>}
func.func @plain(%O: memref<64xf16>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A_shared" : memref<64x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    tile.copy %As[%c0, %c0] [1, 32] to %O[%c0] [32] : memref<64x32xf16, #tile.space<shared>>, memref<64xf16>
  }
  return
}

// -----

// Two gemms that split the same accumulator differently.
func.func @conflict() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A_shared" : memref<64x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    // expected-error-re @below {{conflicting layouts for fragment `C`: this T.gemm needs the mma.sync accumulator layout for a 4x1 warp split, but the T.gemm at {{.*}}gemm-layouts.mlir:{{[0-9]+}}:{{[0-9]+}} gave it another}}
    tile.gemm %As, %Bs, %C policy = full_row : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

// int8 x int8 -> int32: mma.sync m16n8k32 (s8, s32 accumulator).
// CHECK-LABEL: func.func @i8_inputs
// CHECK: tile.gemm {{.*}}#tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 32]
func.func @i8_inputs() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A_shared" : memref<64x32xi8, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<32x64xi8, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xi32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C : memref<64x32xi8, #tile.space<shared>>, memref<32x64xi8, #tile.space<shared>>, memref<64x64xi32, #tile.space<fragment>>
  }
  return
}

// -----

// 8 columns per warp (one n8 tile, B read with ldmatrix.x2): 16x64 over 8
// warps, Square, is 1x8 warps of 16x8, one accumulator tile (4 registers)
// per thread.
// CHECK-LABEL: func.func @narrow
// CHECK: tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (8, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(0, 8), (0, 16), (0, 32)]>}
// CHECK: tile.gemm {{.*}} {tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 16], warps = [1, 8], a = shared, b = shared>}
func.func @narrow() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %As = tile.alloc "A_shared" : memref<16x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<16x64xf32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C : memref<16x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<16x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

// mla_decode's S = Q K^T: 64x64, K stored N x K (transpose_B), FullCol over
// 8 warps: 1x8 warps of 64x8, 4 m16 tiles and one n8 tile per warp (16
// registers: register bits 2-3 step 16 rows). Q_shared and K_shared have
// 128-byte rows (128B swizzle).
// CHECK-LABEL: func.func @full_col_one_n8
// CHECK: tile.alloc "Q_shared" {tile.swizzle = #tile.swizzle<b128, xor = [3, 3, 3]>}
// CHECK: tile.alloc "K_shared" {tile.swizzle = #tile.swizzle<b128, xor = [3, 3, 3]>}
// CHECK: tile.alloc "acc_s" {layout = #tile.fragment<register = [(0, 1), (8, 0), (16, 0), (32, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(0, 8), (0, 16), (0, 32)]>}
// CHECK: tile.gemm {{.*}} {tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 16], warps = [1, 8], a = shared, b = shared>}
func.func @full_col_one_n8(%Q: memref<64x64xf16>, %K: memref<64x64xf16>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %Qs = tile.alloc "Q_shared" : memref<64x64xf16, #tile.space<shared>>
    %Ks = tile.alloc "K_shared" : memref<64x64xf16, #tile.space<shared>>
    %S = tile.alloc "acc_s" : memref<64x64xf32, #tile.space<fragment>>
    tile.copy %Q[%c0, %c0] [64, 64] to %Qs[%c0, %c0] [64, 64] : memref<64x64xf16>, memref<64x64xf16, #tile.space<shared>>
    tile.copy %K[%c0, %c0] [64, 64] to %Ks[%c0, %c0] [64, 64] : memref<64x64xf16>, memref<64x64xf16, #tile.space<shared>>
    tile.gemm %Qs, %Ks, %S transpose_b policy = full_col clear_accum : memref<64x64xf16, #tile.space<shared>>, memref<64x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

// A in registers (FlashAttention's P @ V): with FullRow the 4 warps lie
// along M, so P's mma A operand tiling (8 registers per m16 x k16 tile:
// k-bit 8 is register bit 2) equals the accumulator tiling S gets from the
// first gemm, and the S -> P cast is a register copy. Only B is swizzled.
// CHECK-LABEL: func.func @p_times_v
// CHECK: tile.alloc "S" {layout = [[ACC:#tile.fragment<register = \[\(0, 1\), \(8, 0\), \(0, 8\), \(0, 16\), \(0, 32\)\], lane = \[\(0, 2\), \(0, 4\), \(1, 0\), \(2, 0\), \(4, 0\)\], warp = \[\(16, 0\), \(32, 0\)\]>]]}
// CHECK: tile.alloc "P" {layout = [[ACC]]}
// CHECK: tile.alloc "V_shared" {tile.swizzle = #tile.swizzle<b128
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 16], warps = [4, 1], a = shared, b = shared>}
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 16], warps = [4, 1], a = registers, b = shared>}
func.func @p_times_v(%Q: memref<64x64xf16>, %K: memref<64x64xf16>, %V: memref<64x64xf16>) attributes {tile.kernel} {
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
    tile.gemm %Qs, %Ks, %S transpose_b policy = full_row : memref<64x64xf16, #tile.space<shared>>, memref<64x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    tile.copy %S[%c0, %c0] [64, 64] to %P[%c0, %c0] [64, 64] : memref<64x64xf32, #tile.space<fragment>>, memref<64x64xf16, #tile.space<fragment>>
    tile.gemm %P, %Vs, %O policy = full_row : memref<64x64xf16, #tile.space<fragment>>, memref<64x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

// A fragment read by two gemms with different warp splits (4x1, then
// 2x2 with copies along N) is a located error naming both.
func.func @a_conflict(%V: memref<64x64xf16>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %P = tile.alloc "P" : memref<64x64xf16, #tile.space<fragment>>
    %Vs = tile.alloc "V_shared" : memref<64x64xf16, #tile.space<shared>>
    %O = tile.alloc "O" : memref<64x64xf32, #tile.space<fragment>>
    %O2 = tile.alloc "O2" : memref<64x64xf32, #tile.space<fragment>>
    tile.gemm %P, %Vs, %O policy = full_row : memref<64x64xf16, #tile.space<fragment>>, memref<64x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    // expected-error-re @below {{conflicting layouts for fragment `P`: this T.gemm reads it as its A operand for a 2x2 warp split, but the T.gemm at {{.*}}gemm-layouts.mlir:{{[0-9]+}}:{{[0-9]+}} gave it another}}
    tile.gemm %P, %Vs, %O2 : memref<64x64xf16, #tile.space<fragment>>, memref<64x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}
