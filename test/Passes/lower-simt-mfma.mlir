// tile-lower-simt on T.gemm for an AMD chip (LowerGemmMFMA.cpp), with the
// decisions of tile-infer-layouts written by hand.
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=gfx942 -tile-lower-simt -verify-diagnostics | FileCheck %s

// One wave, one 32x32x8 tile, K = 16 packed by 2: lane l reads 8 k of A's
// row l % 32 as one 16-byte vector (K is A's contiguous dimension) and
// the 8 elements of B's column l % 32 one by one; the two MFMAs take
// halves of them, B's as the instruction's A operand (C^T = B^T A^T).
// The result's registers 0-3 are 4 consecutive columns: 16-byte stores.
// CHECK-LABEL: gpu.func @mfma32
// CHECK: %[[A:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<32x16xf16, #tile.space<shared>>, vector<8xf16>
// CHECK-COUNT-8: memref.load %{{.*}} : memref<16x32xf16, #tile.space<shared>>
// CHECK: %[[B:.*]] = vector.from_elements {{.*}} : vector<8xf16>
// CHECK: %[[B0:.*]] = vector.shuffle %[[B]], %[[B]] [0, 1, 2, 3]
// CHECK: %[[A0:.*]] = vector.shuffle %[[A]], %[[A]] [0, 1, 2, 3]
// CHECK: %[[D0:.*]] = rocdl.mfma.f32.32x32x8f16 %[[B0]], %[[A0]], %{{.*}} : (vector<4xf16>, vector<4xf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
// CHECK: %[[B1:.*]] = vector.shuffle %[[B]], %[[B]] [4, 5, 6, 7]
// CHECK: %[[A1:.*]] = vector.shuffle %[[A]], %[[A]] [4, 5, 6, 7]
// CHECK: %[[D1:.*]] = rocdl.mfma.f32.32x32x8f16 %[[B1]], %[[A1]], %[[D0]]
// CHECK-COUNT-16: vector.extract %[[D1]]
// CHECK-COUNT-4: vector.store %{{.*}} {alignment = 16 : i64} : memref<32x32xf32>, vector<4xf32>
// CHECK-NOT: tile.gemm
gpu.module @m {
  gpu.func @mfma32(%O: memref<32x32xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %As = tile.alloc "A_shared" {tile.swizzle = #tile.swizzle<none>} : memref<32x16xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" {tile.swizzle = #tile.swizzle<none>} : memref<16x32xf16, #tile.space<shared>>
    %C = tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (0, 2), (0, 8), (0, 16)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (0, 4)], warp = []>} : memref<32x32xf32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C clear_accum {tile.mma = #tile.mma<mfma, "rocdl.mfma.f32.32x32x8f16", shape = [32, 32, 8], warps = [1, 1], a = shared, b = shared, k_pack = 2>} : memref<32x16xf16, #tile.space<shared>>, memref<16x32xf16, #tile.space<shared>>, memref<32x32xf32, #tile.space<fragment>>
    tile.copy %C[%c0, %c0] [32, 32] to %O[%c0, %c0] [32, 32] : memref<32x32xf32, #tile.space<fragment>>, memref<32x32xf32>
    gpu.return
  }
}

// -----

// bf16, 16x16x16 without packing, B stored N x K (transpose_b) with the
// 64-byte swizzle: both operands are 8-byte vector loads at swizzled
// indices, bitcast to the i16 vectors of the `_1k` instruction. Without
// clear_accum the accumulator is read from its registers first.
// CHECK-LABEL: gpu.func @bf16
// CHECK-COUNT-4: memref.load %{{.*}} : memref<4xf32>
// CHECK: %[[ACC:.*]] = vector.from_elements {{.*}} : vector<4xf32>
// CHECK: %[[A:.*]] = vector.load %{{.*}} {alignment = 8 : i64} : memref<16x32xbf16, #tile.space<shared>>, vector<4xbf16>
// CHECK: arith.xori
// CHECK: %[[B:.*]] = vector.load %{{.*}} {alignment = 8 : i64} : memref<16x32xbf16, #tile.space<shared>>, vector<4xbf16>
// CHECK: %[[BI:.*]] = vector.bitcast %[[B]] : vector<4xbf16> to vector<4xi16>
// CHECK: %[[AI:.*]] = vector.bitcast %[[A]] : vector<4xbf16> to vector<4xi16>
// CHECK: %[[D:.*]] = rocdl.mfma.f32.16x16x16bf16.1k %[[BI]], %[[AI]], %[[ACC]]
// CHECK: rocdl.mfma.f32.16x16x16bf16.1k %{{.*}}, %{{.*}}, %[[D]]
// CHECK-NOT: rocdl.mfma
gpu.module @m {
  gpu.func @bf16() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %As = tile.alloc "A_shared" {tile.swizzle = #tile.swizzle<none>} : memref<16x32xbf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" {tile.swizzle = #tile.swizzle<b64, xor = [2, 3, 3]>} : memref<16x32xbf16, #tile.space<shared>>
    %C = tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (0, 2)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (0, 4), (0, 8)], warp = []>} : memref<16x16xf32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C transpose_b {tile.mma = #tile.mma<mfma, "rocdl.mfma.f32.16x16x16bf16.1k", shape = [16, 16, 16], warps = [1, 1], a = shared, b = shared>} : memref<16x32xbf16, #tile.space<shared>>, memref<16x32xbf16, #tile.space<shared>>, memref<16x16xf32, #tile.space<fragment>>
    gpu.return
  }
}

// -----

// An accumulator laid out otherwise is caught, naming the first register
// that differs.
gpu.module @m {
  gpu.func @wrong_layout() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %As = tile.alloc "A_shared" : memref<32x8xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<8x32xf16, #tile.space<shared>>
    %C = tile.alloc "C" {layout = #tile.fragment<register = [(1, 0), (2, 0), (8, 0), (16, 0)], lane = [(0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (4, 0)], warp = []>} : memref<32x32xf32, #tile.space<fragment>>
    // expected-error @below {{the layout of `C` is not a rocdl.mfma.f32.32x32x8f16 accumulator tiling for a 1x1 wave split: register 1 of lane 0 of wave 0}}
    tile.gemm %As, %Bs, %C {tile.mma = #tile.mma<mfma, "rocdl.mfma.f32.32x32x8f16", shape = [32, 32, 8], warps = [1, 1], a = shared, b = shared>} : memref<32x8xf16, #tile.space<shared>>, memref<8x32xf16, #tile.space<shared>>, memref<32x32xf32, #tile.space<fragment>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @no_decision() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %As = tile.alloc "A_shared" : memref<32x8xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<8x32xf16, #tile.space<shared>>
    %C = tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (0, 2), (0, 8), (0, 16)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (0, 4)], warp = []>} : memref<32x32xf32, #tile.space<fragment>>
    // expected-error @below {{T.gemm has no instruction decision (tile.mma); run tile-infer-layouts first}}
    tile.gemm %As, %Bs, %C : memref<32x8xf16, #tile.space<shared>>, memref<8x32xf16, #tile.space<shared>>, memref<32x32xf32, #tile.space<fragment>>
    gpu.return
  }
}
