// The typed decisions of the tile dialect: #tile.target on the module and
// #tile.mma on a gemm round-trip, and their verifiers reject what no chip or
// lowering could follow.
// RUN: tilec-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK: module attributes {tile.target = #tile.target<"gfx942">}
module attributes {tile.target = #tile.target<"gfx942">} {
}

// -----

// CHECK-LABEL: func.func @mma
// CHECK: tile.gemm {{.*}} {tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 16], warps = [2, 2], a = registers, b = shared>}
// CHECK: tile.gemm {{.*}} {tile.mma = #tile.mma<mfma, "rocdl.mfma.f32.32x32x8f16", shape = [32, 32, 8], warps = [2, 1], a = shared, b = shared, k_pack = 2>}
func.func @mma(%A: memref<64x64xf16>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A" : memref<64x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C {tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 16], warps = [2, 2], a = registers, b = shared, k_pack = 1>} : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    tile.gemm %As, %Bs, %C {tile.mma = #tile.mma<mfma, "rocdl.mfma.f32.32x32x8f16", shape = [32, 32, 8], warps = [2, 1], a = shared, b = shared, k_pack = 2>} : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

// expected-error @+1 {{unknown target chip 'sm_70'; tilec supports sm_80 sm_90a gfx90a gfx942}}
module attributes {tile.target = #tile.target<"sm_70">} {
}

// -----

// expected-error @+1 {{'tile.target' must be a #tile.target, got "sm_90a"}}
module attributes {tile.target = "sm_90a"} {
}

// -----

module {
  // expected-error @+1 {{'tile.target' belongs on the builtin module, not on 'func.func'}}
  func.func @f() attributes {tile.target = #tile.target<"sm_90a">} {
    return
  }
}

// -----

// expected-error @+1 {{#tile.mma shape must be positive, got [16, 0, 16]}}
func.func @bad_shape() attributes {x = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 0, 16], warps = [1, 1], a = shared, b = shared>} {
  return
}

// -----

// expected-error @+1 {{#tile.mma warps must be positive, got [0, 4]}}
func.func @bad_warps() attributes {x = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 16], warps = [0, 4], a = shared, b = shared>} {
  return
}

// -----

// expected-error @+1 {{#tile.mma k_pack is 1, or 2 on the mfma kind; got 2}}
func.func @bad_pack() attributes {x = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 16], warps = [1, 1], a = shared, b = shared, k_pack = 2>} {
  return
}

// -----

// expected-error @+1 {{#tile.mma: B is read from shared memory on every kind}}
func.func @b_registers() attributes {x = #tile.mma<wgmma, "nvvm.wgmma.mma_async", shape = [64, 128, 16], warps = [1, 1], a = shared, b = registers>} {
  return
}

// -----

// expected-error @+1 {{#tile.mma: the mfma kind reads A from shared memory}}
func.func @mfma_a_registers() attributes {x = #tile.mma<mfma, "rocdl.mfma.f32.32x32x8f16", shape = [32, 32, 8], warps = [1, 1], a = registers, b = shared>} {
  return
}

// -----

// expected-error @+1 {{'tile.mma' records the instruction of a tile.gemm, not of 'func.func'}}
func.func @not_gemm() attributes {tile.mma = #tile.mma<mma_sync, "nvvm.mma.sync", shape = [16, 8, 16], warps = [1, 1], a = shared, b = shared>} {
  return
}

// -----

// CHECK-LABEL: func.func @swizzle
// CHECK: tile.alloc "A" {tile.swizzle = #tile.swizzle<b64, xor = [2, 3, 3]>}
// CHECK: tile.alloc "B" {tile.swizzle = #tile.swizzle<none>}
func.func @swizzle() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A" {tile.swizzle = #tile.swizzle<b64, xor = [2, 3, 3]>} : memref<128x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B" {tile.swizzle = #tile.swizzle<none>} : memref<32x128xf16, #tile.space<shared>>
  }
  return
}

// -----

// expected-error @+1 {{#tile.swizzle<b128> XORs 3 bits, not 2}}
func.func @swizzle_bits() attributes {x = #tile.swizzle<b128, xor = [2, 3, 3]>} {
  return
}

// -----

// expected-error @+1 {{#tile.swizzle xor needs base >= 0 and shift >= bits, got [3, 3, 2]}}
func.func @swizzle_shift() attributes {x = #tile.swizzle<b128, xor = [3, 3, 2]>} {
  return
}

// -----

func.func @swizzle_fragment() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    // expected-error @+1 {{'tile.swizzle' belongs on a shared buffer}}
    %F = tile.alloc "F" {tile.swizzle = #tile.swizzle<none>} : memref<128x32xf32, #tile.space<fragment>>
  }
  return
}

// -----

// CHECK-LABEL: func.func @roles
// CHECK: x = #tile.warp_specialize<consumers = 256, producers = 128, registers = [240, 24]>
func.func @roles() attributes {x = #tile.warp_specialize<consumers = 256, producers = 128, registers = [240, 24]>} {
  return
}

// -----

// expected-error @+1 {{#tile.warp_specialize partitions are whole warpgroups (multiples of 128 threads), got 192 consumers and 128 producers}}
func.func @bad_roles() attributes {x = #tile.warp_specialize<consumers = 192, producers = 128, registers = [240, 24]>} {
  return
}

// -----

// expected-error @+1 {{#tile.warp_specialize registers are multiples of 8 in [24, 256], got 20}}
func.func @bad_registers() attributes {x = #tile.warp_specialize<consumers = 256, producers = 128, registers = [240, 20]>} {
  return
}

// -----

// CHECK-LABEL: func.func @tma_store
// CHECK: x = #tile.tma_store<box = [64, 1, 128, 1], swizzle = 128>
func.func @tma_store() attributes {x = #tile.tma_store<box = [64, 1, 128, 1], swizzle = 128>} {
  return
}

// -----

// expected-error @+1 {{#tile.tma_store box has 1 to 5 extents in [1, 256], got 2 extents}}
func.func @bad_tma_box() attributes {x = #tile.tma_store<box = [64, 512], swizzle = 128>} {
  return
}

// -----

// expected-error @+1 {{#tile.tma_store swizzle is 0, 32, 64 or 128 bytes, got 16}}
func.func @bad_tma_swizzle() attributes {x = #tile.tma_store<box = [64, 128], swizzle = 16>} {
  return
}
