// The lowering follows the recorded #tile.mma and never re-decides: an
// mma_sync decision injected into a gfx942 module is a located error (no
// NVVM op reaches an AMD module), an mfma decision is lowered to the MFMA
// it names.
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=gfx942 -tile-lower-simt -verify-diagnostics | FileCheck %s

gpu.module @m {
  gpu.func @injected_mma_sync() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %As = tile.alloc "A_shared" : memref<32x8xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<8x32xf16, #tile.space<shared>>
    %C = tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (0, 2), (0, 8), (0, 16)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (0, 4)], warp = []>} : memref<32x32xf32, #tile.space<fragment>>
    // expected-error @below {{T.gemm: gfx942 has no mma_sync instruction nvvm.mma.sync of shape 16x8x16}}
    tile.gemm %As, %Bs, %C {tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 16], warps = [1, 1], a = shared, b = shared>} : memref<32x8xf16, #tile.space<shared>>, memref<8x32xf16, #tile.space<shared>>, memref<32x32xf32, #tile.space<fragment>>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @injected_mfma
// CHECK: rocdl.mfma.f32.32x32x8f16
// CHECK-NOT: nvvm.
gpu.module @m {
  gpu.func @injected_mfma() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %As = tile.alloc "A_shared" {tile.swizzle = #tile.swizzle<none>} : memref<32x8xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" {tile.swizzle = #tile.swizzle<none>} : memref<8x32xf16, #tile.space<shared>>
    %C = tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (0, 2), (0, 8), (0, 16)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (0, 4)], warp = []>} : memref<32x32xf32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C {tile.mma = #tile.mma<mfma, "rocdl.mfma.f32.32x32x8f16", shape = [32, 32, 8], warps = [1, 1], a = shared, b = shared>} : memref<32x8xf16, #tile.space<shared>>, memref<8x32xf16, #tile.space<shared>>, memref<32x32xf32, #tile.space<fragment>>
    gpu.return
  }
}

