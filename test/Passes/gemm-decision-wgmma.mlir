// RUN: tilec-opt %s -tile-set-target=chip=sm_90a -tile-lower-simt -verify-diagnostics

// A wgmma decision (the kind exists in the sm_90a table) has no lowering
// yet: a located error, not a silent fallback to mma.sync.
gpu.module @m {
  gpu.func @injected_wgmma() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %As = tile.alloc "A_shared" : memref<64x16xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<16x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" {layout = {lane = [array<i32: 0, 2>, array<i32: 0, 4>, array<i32: 1, 0>, array<i32: 2, 0>, array<i32: 4, 0>], register = [array<i32: 0, 1>, array<i32: 8, 0>, array<i32: 0, 8>, array<i32: 0, 16>, array<i32: 0, 32>], warp = [array<i32: 16, 0>, array<i32: 32, 0>]}} : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @below {{T.gemm: the wgmma lowering does not exist yet}}
    tile.gemm %As, %Bs, %C {tile.mma = #tile.mma<wgmma, "nvvm.wgmma.mma_async", shape = [64, 64, 16], warps = [1, 1], a = shared, b = shared>} : memref<64x16xf16, #tile.space<shared>>, memref<16x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    gpu.return
  }
}
