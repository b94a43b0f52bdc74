// The lowering follows an injected #tile.tma_store: the copy's threads
// fence their shared writes for the async proxy before the barrier, thread
// 0 issues one TMA store per box (one per 64-column swizzle atom, the
// second at column 64), commits and waits for the boxes to be read; the
// tensor map is an appended kernel argument for the destination (argument
// 0). With swizzle 0 one box covers the whole row-major tile. Without the
// decision the copy stays the threads' stores.
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=sm_90a -tile-lower-simt | FileCheck %s

// CHECK-LABEL: gpu.func @swizzled
// CHECK-SAME: %arg1: !llvm.ptr {tile.tensor_map = {box = array<i64: 64, 64>, swizzle = 128 : i64, tensor = 0 : i64}}
// CHECK-SAME: tile.tensor_map_args = array<i64: 1>
// CHECK: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %arg1, %{{.*}}, box[%{{.*}}, %{{.*}}]
// CHECK: arith.constant 64 : index
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %arg1, %{{.*}}, box[%{{.*}}, %{{.*}}]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NOT: memref.store
gpu.module @m {
  gpu.func @swizzled(%O: memref<1000x128xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %S = tile.alloc "O_shared" {tile.swizzle = #tile.swizzle<b128, xor = [3, 3, 3], atom = 64>} : memref<64x128xf16, #tile.space<shared>>
    tile.barrier
    tile.copy %S[%c0, %c0] [64, 128] to %O[%c64, %c0] [64, 128] {tile.tma_store = #tile.tma_store<box = [64, 64], swizzle = 128>} : memref<64x128xf16, #tile.space<shared>>, memref<1000x128xf16>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @plain
// CHECK-SAME: %arg1: !llvm.ptr {tile.tensor_map = {box = array<i64: 128, 64>, swizzle = 0 : i64, tensor = 0 : i64}}
// CHECK: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.commit.group
gpu.module @m {
  gpu.func @plain(%O: memref<1000x128xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %S = tile.alloc "O_shared" : memref<64x128xf16, #tile.space<shared>>
    tile.copy %S[%c0, %c0] [64, 128] to %O[%c0, %c0] [64, 128] {tile.tma_store = #tile.tma_store<box = [128, 64], swizzle = 0>} : memref<64x128xf16, #tile.space<shared>>, memref<1000x128xf16>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @undecided
// CHECK-NOT: nvvm.cp.async.bulk
// CHECK: vector.store
gpu.module @m {
  gpu.func @undecided(%O: memref<1000x128xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %S = tile.alloc "O_shared" : memref<64x128xf16, #tile.space<shared>>
    tile.copy %S[%c0, %c0] [64, 128] to %O[%c0, %c0] [64, 128] : memref<64x128xf16, #tile.space<shared>>, memref<1000x128xf16>
    gpu.return
  }
}
