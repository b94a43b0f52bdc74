// tile-lower-shared: each planned shared buffer becomes a view of the
// kernel's dynamic shared memory at its offset, in the workgroup space.
// RUN: tilec-opt %s -split-input-file -tile-lower-shared -verify-diagnostics | FileCheck %s

// CHECK-LABEL: gpu.func @k
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[OFF_A:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %[[SMEM]][%[[OFF_A]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8x16xf16, #gpu.address_space<workgroup>>
// CHECK: %[[OFF_B:.*]] = arith.constant 256 : index
// CHECK: %[[B:.*]] = memref.view %[[SMEM]][%[[OFF_B]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[A]][%{{.*}}, %{{.*}}] : memref<8x16xf16, #gpu.address_space<workgroup>>
// CHECK: memref.load %[[B]][%{{.*}}] : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: memref.atomic_rmw addf %{{.*}}, %[[B]][%{{.*}}] : (f32, memref<4xf32, #gpu.address_space<workgroup>>) -> f32
// CHECK-NOT: tile.alloc
gpu.module @tilec_kernels {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %a = tile.alloc "a" {tile.shared_offset = 0 : i64} : memref<8x16xf16, #tile.space<shared>>
    %b = tile.alloc "b" {tile.shared_offset = 256 : i64} : memref<4xf32, #tile.space<shared>>
    %c0 = arith.constant 0 : index
    %h = arith.constant 1.0 : f16
    %one = arith.constant 1.0 : f32
    memref.store %h, %a[%c0, %c0] : memref<8x16xf16, #tile.space<shared>>
    %x = memref.load %b[%c0] : memref<4xf32, #tile.space<shared>>
    %y = memref.atomic_rmw addf %one, %b[%c0] : (f32, memref<4xf32, #tile.space<shared>>) -> f32
    gpu.return
  }
}

// -----

gpu.module @tilec_kernels {
  gpu.func @unplanned() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    // expected-error @below {{shared buffer `a` has no offset; run tile-plan-shared}}
    %a = tile.alloc "a" : memref<8xf32, #tile.space<shared>>
    gpu.return
  }
}
