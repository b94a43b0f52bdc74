// tile-infer-layouts on T.gemm for AMD chips (the MFMA path): the wave
// split and the instruction on the gemm, the transposed MFMA accumulator on
// its fragment, the swizzle of each shared operand; and the located errors.
// Both CDNA chips have the same f16/bf16 instructions, hence one prefix.
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=gfx942 -tile-infer-layouts -verify-diagnostics | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=gfx90a -tile-infer-layouts -verify-diagnostics | FileCheck %s

// gemm_relu's block: 128x128x32 f16 over 128 threads = 2 waves. 32x32x8
// tiles, Square split 2x1 (64x128 per wave: 2 x 4 tiles, 128 registers);
// K = 32 holds two k-steps, so lanes read 8 k (16 bytes) for two MFMAs.
// C's registers: 0-3 run along n (+1, +2: the transposed D), then +8, +16
// (the instruction's register groups), then tiles along n (+32, +64) and m
// (+64); lanes 0-31 are rows, lane bit 5 adds 4 columns; wave 1 rows + 32.
// The shared swizzles are the mma.sync ones: MFMA reads of A hit 8 rows at
// one 16-byte column per 8 lanes, as ldmatrix does.
// CHECK-LABEL: func.func @relu
// CHECK: tile.alloc "A_shared" {tile.swizzle = #tile.swizzle<b64, xor = [2, 3, 3]>}
// CHECK: tile.alloc "B_shared" {tile.swizzle = #tile.swizzle<b128, xor = [3, 3, 4]>}
// CHECK: tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (0, 2), (0, 8), (0, 16), (0, 32), (0, 64), (64, 0)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (0, 4)], warp = [(32, 0)]>}
// CHECK: tile.gemm {{.*}} {tile.mma = #tile.mma<mfma, "rocdl.mfma.f32.32x32x8f16", shape = [32, 32, 8], warps = [2, 1], a = shared, b = shared, k_pack = 2>}
// CHECK: tile.parallel {{.*}}loop_layout = #tile.fragment<register = [(0, 1), (0, 2), (0, 8), (0, 16), (0, 32), (0, 64), (64, 0)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (0, 4)], warp = [(32, 0)]>
func.func @relu(%A: memref<128x32xf16>, %B: memref<32x128xf16>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A_shared" : memref<128x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<32x128xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<128x128xf32, #tile.space<fragment>>
    tile.copy %A[%c0, %c0] [128, 32] to %As[%c0, %c0] [128, 32] : memref<128x32xf16>, memref<128x32xf16, #tile.space<shared>>
    tile.copy %B[%c0, %c0] [32, 128] to %Bs[%c0, %c0] [32, 128] : memref<32x128xf16>, memref<32x128xf16, #tile.space<shared>>
    tile.gemm %As, %Bs, %C clear_accum : memref<128x32xf16, #tile.space<shared>>, memref<32x128xf16, #tile.space<shared>>, memref<128x128xf32, #tile.space<fragment>>
    tile.parallel (%i, %j) in [128, 128] {
      %x = memref.load %C[%i, %j] : memref<128x128xf32, #tile.space<fragment>>
      %z = arith.constant 0.0 : f32
      %y = arith.maxnumf %x, %z : f32
      memref.store %y, %C[%i, %j] : memref<128x128xf32, #tile.space<fragment>>
    }
  }
  return
}

// -----

// bf16 over 256 threads = 4 waves: the `_1k` instruction, 2x2 waves of
// 64x64 (2 x 2 tiles, 64 registers).
// CHECK-LABEL: func.func @bf16_256
// CHECK: tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (0, 2), (0, 8), (0, 16), (0, 64), (64, 0)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (0, 4)], warp = [(32, 0), (0, 32)]>}
// CHECK: tile.gemm {{.*}} {tile.mma = #tile.mma<mfma, "rocdl.mfma.f32.32x32x8bf16.1k", shape = [32, 32, 8], warps = [2, 2], a = shared, b = shared, k_pack = 2>}
func.func @bf16_256() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %As = tile.alloc "A_shared" : memref<128x32xbf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<32x128xbf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<128x128xf32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C : memref<128x32xbf16, #tile.space<shared>>, memref<32x128xbf16, #tile.space<shared>>, memref<128x128xf32, #tile.space<fragment>>
  }
  return
}

// -----

// A 16-row tile has no room for 32x32 tiles: 16x16x16 (4 registers per
// tile: +1, +2 along n; lanes 0-15 rows, lane bits 4-5 add 4 and 8
// columns), 4 tiles along n for the one wave. K = 16 is one k-step: no
// packing; B stored N x K (transpose_B).
// CHECK-LABEL: func.func @narrow
// CHECK: tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (0, 2), (0, 16), (0, 32)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (0, 4), (0, 8)], warp = []>}
// CHECK: tile.gemm {{.*}} {tile.mma = #tile.mma<mfma, "rocdl.mfma.f32.16x16x16f16", shape = [16, 16, 16], warps = [1, 1], a = shared, b = shared>}
func.func @narrow() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %As = tile.alloc "A_shared" : memref<16x16xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<64x16xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<16x64xf32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C transpose_b : memref<16x16xf16, #tile.space<shared>>, memref<64x16xf16, #tile.space<shared>>, memref<16x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @short_k() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %As = tile.alloc "A_shared" : memref<32x4xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<4x32xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<32x32xf32, #tile.space<fragment>>
    // expected-error-re @below {{T.gemm on the MFMA path: no gfx9{{[0-9a-z]+}} instruction fits a 32x32x4 gemm over 1 waves; rocdl.mfma.f32.32x32x8f16: K = 4 is not a multiple of 8; rocdl.mfma.f32.16x16x16f16: K = 4 is not a multiple of 16}}
    tile.gemm %As, %Bs, %C : memref<32x4xf16, #tile.space<shared>>, memref<4x32xf16, #tile.space<shared>>, memref<32x32xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @too_many_waves() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(512) {
    %As = tile.alloc "A_shared" : memref<32x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<32x32xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<32x32xf32, #tile.space<fragment>>
    // expected-error @below {{instruction fits a 32x32x32 gemm over 8 waves; rocdl.mfma.f32.32x32x8f16: cannot split a 32x32 gemm over 8 waves of 32x32 MFMA tiles: no split gives every wave whole tiles; rocdl.mfma.f32.16x16x16f16: cannot split a 32x32 gemm over 8 waves of 16x16 MFMA tiles: no split gives every wave whole tiles}}
    tile.gemm %As, %Bs, %C : memref<32x32xf16, #tile.space<shared>>, memref<32x32xf16, #tile.space<shared>>, memref<32x32xf32, #tile.space<fragment>>
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
    // expected-error-re @below {{conflicting layouts for fragment `C`: this T.gemm needs the MFMA accumulator layout of rocdl.mfma.f32.32x32x8f16 for a 1x2 wave split, but the T.gemm at {{.*}}gemm-layouts-mfma.mlir:{{[0-9]+}}:{{[0-9]+}} gave it another}}
    tile.gemm %As, %Bs, %C policy = full_col : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

// k_pack = 2 (TileLang's knob) needs two k-steps of the instruction.
func.func @k_pack() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %As = tile.alloc "A_shared" : memref<16x16xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<16x16xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<16x16xf32, #tile.space<fragment>>
    // expected-error @below {{instruction fits a 16x16x16 gemm over 1 waves; rocdl.mfma.f32.32x32x8f16: cannot split a 16x16 gemm over 1 waves of 32x32 MFMA tiles: m and n must be multiples of the tile; rocdl.mfma.f32.16x16x16f16: K = 16 is not a multiple of 32}}
    tile.gemm %As, %Bs, %C {k_pack = 2 : i64} : memref<16x16xf16, #tile.space<shared>>, memref<16x16xf16, #tile.space<shared>>, memref<16x16xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @k_pack4() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %As = tile.alloc "A_shared" : memref<16x16xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<16x16xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<16x16xf32, #tile.space<fragment>>
    // expected-error @below {{T.gemm on the MFMA path takes k_pack 1 or 2, got 4}}
    tile.gemm %As, %Bs, %C {k_pack = 4 : i64} : memref<16x16xf16, #tile.space<shared>>, memref<16x16xf16, #tile.space<shared>>, memref<16x16xf32, #tile.space<fragment>>
  }
  return
}

// -----

// float32 A and B take the fp32 MFMAs (test/Targets/mfma-f32.tile); int8
// ones have no MFMA lowering yet.
func.func @i8_inputs() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %As = tile.alloc "A_shared" : memref<32x32xi8, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<32x32xi8, #tile.space<shared>>
    %C = tile.alloc "C" : memref<32x32xi32, #tile.space<fragment>>
    // expected-error @below {{T.gemm with int8 operands is not supported yet on the MFMA path (it is on NVIDIA's mma.sync and wgmma)}}
    tile.gemm %As, %Bs, %C : memref<32x32xi8, #tile.space<shared>>, memref<32x32xi8, #tile.space<shared>>, memref<32x32xi32, #tile.space<fragment>>
  }
  return
}
