// tile-lower-simt follows a `realign` decision written by hand
// (RealignedLoops.cpp): 4 threads, rows of 16 f32 in a 5x15 tensor (each
// row starts 60 bytes after the last), vectors of 4. Each slot's shift is
// the negated row offset modulo 4; a slot that does not wrap and passes the
// bounds check loads and stores one 16-byte vector, the others element by
// element; every load before the stores.
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=sm_90a -tile-lower-simt -canonicalize -cse | FileCheck %s
// CHECK-LABEL: gpu.func @realign
// CHECK-NOT: memref.store
// CHECK-NOT: vector.store
// CHECK: %[[V:.*]] = scf.if %[[FAST:.*]] -> (vector<4xf32>) {
// CHECK-NEXT: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<5x15xf32>, vector<4xf32>
// CHECK: } else {
// CHECK-COUNT-4: memref.load %arg0
// CHECK-NOT: memref.store
// CHECK-NOT: vector.store
// CHECK: scf.if %[[FAST]] {
// CHECK: vector.store %{{.*}}, %arg1[{{.*}}] {alignment = 16 : i64} : memref<5x15xf32>, vector<4xf32>
// CHECK-NEXT: } else {
// CHECK-COUNT-4: memref.store %{{.*}}, %arg1
// CHECK: gpu.return
gpu.module @m {
  gpu.func @realign(%A: memref<5x15xf32>, %C: memref<5x15xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
    %c5 = arith.constant 5 : index
    %c15 = arith.constant 15 : index
    %two = arith.constant 2.0 : f32
    tile.parallel (%i, %j) in [1, 16] attributes {loop_layout = #tile.strided<vec = 1, realign = 4>} {
      %r = gpu.block_id x
      %in_r = arith.cmpi ult, %r, %c5 : index
      %in_c = arith.cmpi ult, %j, %c15 : index
      %in = arith.andi %in_r, %in_c : i1
      scf.if %in {
        %a = memref.load %A[%r, %j] : memref<5x15xf32>
        %m = arith.mulf %a, %two : f32
        memref.store %m, %C[%r, %j] : memref<5x15xf32>
      }
    }
    gpu.return
  }
}

// -----

// Without the decision the same loop is one element per thread and step.
// CHECK-LABEL: gpu.func @plain
// CHECK-NOT: vector.load
// CHECK: gpu.return
gpu.module @m {
  gpu.func @plain(%A: memref<5x15xf32>, %C: memref<5x15xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
    %c5 = arith.constant 5 : index
    %c15 = arith.constant 15 : index
    %two = arith.constant 2.0 : f32
    tile.parallel (%i, %j) in [1, 16] attributes {loop_layout = #tile.strided<vec = 1>} {
      %r = gpu.block_id x
      %in_r = arith.cmpi ult, %r, %c5 : index
      %in_c = arith.cmpi ult, %j, %c15 : index
      %in = arith.andi %in_r, %in_c : i1
      scf.if %in {
        %a = memref.load %A[%r, %j] : memref<5x15xf32>
        %m = arith.mulf %a, %two : f32
        memref.store %m, %C[%r, %j] : memref<5x15xf32>
      }
    }
    gpu.return
  }
}
