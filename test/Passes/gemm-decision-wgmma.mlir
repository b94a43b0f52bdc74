// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=sm_90a -tile-lower-simt -verify-diagnostics | FileCheck %s

// A wgmma decision injected by hand is followed: one warpgroup, m64n64k16,
// A K-major in a 64-byte swizzle (one atom per row), B N-major in a
// 128-byte one. Descriptors: A's SBO = 8 rows of 64 bytes = 512 bytes
// (32 << 32), LBO unused (1 << 16), mode 2 (64B) in bits 62-63; B's LBO = one atom, 32 rows x 128
// bytes = 4096 (256 << 16), SBO = 1024 (64 << 32), mode 1 (128B). The second
// k-step moves A's start by 32 bytes (2 units) and B's by 16 rows of 128
// bytes (128 units).

// CHECK-LABEL: gpu.func @injected_wgmma
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: gpu.barrier
// CHECK-DAG: arith.constant -9223371899415756800 : i64
// CHECK-DAG: arith.constant 4611686293322072064 : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.inline_asm has_side_effects "", "=f,0"
gpu.module @m {
  gpu.func @injected_wgmma() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %As = tile.alloc "A_shared" {tile.swizzle = #tile.swizzle<b64, xor = [2, 3, 3]>} : memref<64x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" {tile.swizzle = #tile.swizzle<b128, xor = [3, 3, 3]>} : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (8, 0), (0, 8), (0, 16), (0, 32)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(16, 0), (32, 0)]>} : memref<64x64xf32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C {tile.mma = #tile.mma<wgmma, "nvvm.wgmma.mma_async", shape = [64, 64, 16], warps = [4, 1], a = shared, b = shared>} : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    gpu.return
  }
}

// -----

// The lowering checks the accumulator's layout against the wgmma D
// fragment: an mma.sync-style 2x2 warp layout is a located error.
gpu.module @m {
  gpu.func @wrong_layout() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %As = tile.alloc "A_shared" {tile.swizzle = #tile.swizzle<b64, xor = [2, 3, 3]>} : memref<64x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" {tile.swizzle = #tile.swizzle<b128, xor = [3, 3, 3]>} : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (8, 0), (0, 8), (0, 16), (16, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(32, 0), (0, 32)]>} : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @below {{does not hold the wgmma accumulator fragment}}
    tile.gemm %As, %Bs, %C {tile.mma = #tile.mma<wgmma, "nvvm.wgmma.mma_async", shape = [64, 64, 16], warps = [4, 1], a = shared, b = shared>} : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    gpu.return
  }
}

// -----

// The descriptors follow the recorded swizzle; one that is not one
// swizzle wide (64-byte rows under a 32-byte swizzle, no atoms) is a
// located error, not a wrong descriptor.
gpu.module @m {
  gpu.func @wrong_swizzle() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %As = tile.alloc "A_shared" {tile.swizzle = #tile.swizzle<b32, xor = [1, 3, 3]>} : memref<64x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" {tile.swizzle = #tile.swizzle<b128, xor = [3, 3, 3]>} : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" {layout = #tile.fragment<register = [(0, 1), (8, 0), (0, 8), (0, 16), (0, 32)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(16, 0), (32, 0)]>} : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @below {{an atom of 32 columns is not one #tile.swizzle<b32, xor = [1, 3, 3]> swizzle wide}}
    tile.gemm %As, %Bs, %C {tile.mma = #tile.mma<wgmma, "nvvm.wgmma.mma_async", shape = [64, 64, 16], warps = [4, 1], a = shared, b = shared>} : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    gpu.return
  }
}
