// tile.scan over shared buffers (passes/LowerScan.cpp).
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=sm_90a -tile-lower-simt -canonicalize -verify-diagnostics | FileCheck %s

// Along rows of 64 floats: 16 lanes per row (one 16-byte vector each), two
// rows per warp, 8 rows per pass of the block's 4 warps, so 8 passes
// (a loop). Each lane scans its vector, the 16 lanes scan their totals with
// shuffles up by 1, 2, 4, 8 (the lanes of the other row of the warp left
// out by the `>=` tests on the lane within its group), and the exclusive
// prefix is one more shuffle up by 1.
// CHECK-LABEL: gpu.func @rows
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// CHECK: %[[SUB:.*]] = arith.remui %[[LANE]], %c16
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK: %[[V:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<64x64xf32, #tile.space<shared>>, vector<4xf32>
// CHECK: %[[X0:.*]] = vector.extract %[[V]][0]
// CHECK: %[[X1:.*]] = vector.extract %[[V]][1]
// CHECK: arith.addf %[[X0]], %[[X1]]
// CHECK: gpu.shuffle  up %{{.*}}, %c1_i32, %c32_i32
// CHECK-NEXT: arith.cmpi uge, %[[SUB]], %c1
// CHECK: gpu.shuffle  up %{{.*}}, %c2_i32
// CHECK: gpu.shuffle  up %{{.*}}, %c4_i32
// CHECK: gpu.shuffle  up %{{.*}}, %c8_i32
// CHECK-NEXT: arith.cmpi uge, %[[SUB]], %c8
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.shuffle  up %{{.*}}, %c1_i32
// CHECK-NEXT: arith.cmpi eq, %[[SUB]], %c0
// CHECK-NOT: gpu.shuffle
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x64xf32, #tile.space<shared>>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
gpu.module @m {
  gpu.func @rows() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %s = tile.alloc "s" : memref<64x64xf32, #tile.space<shared>>
    tile.scan sum %s -> %s dim(1) : memref<64x64xf32, #tile.space<shared>> -> memref<64x64xf32, #tile.space<shared>>
    gpu.return
  }
}

// -----

// One long row (1024 halves, 8 per lane): 4 warps, 4 chunks of 256; fewer
// rows than warps, so each warp takes one chunk as a segment: it reduces
// it (xor shuffles), writes the total to the carry scratch, and after a
// barrier adds the totals of the segments before it. Reversed: lane 0
// takes the last vector, and the first element of each vector is the
// last of its scan.
// CHECK-LABEL: gpu.func @long_row
// CHECK: %[[C:.*]] = tile.alloc "scan_carries" : memref<4xf16, #tile.space<shared>>
// CHECK: arith.subi %c127
// CHECK: vector.load {{.*}} vector<8xf16>
// CHECK: arith.extf
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32
// CHECK: memref.store %{{.*}}, %[[C]]
// CHECK: gpu.barrier
// CHECK-COUNT-3: memref.load %[[C]]
// CHECK: vector.load {{.*}} vector<8xf16>
// CHECK-COUNT-6: gpu.shuffle  up
// CHECK-NOT: gpu.shuffle
// CHECK: vector.store {{.*}} vector<8xf16>
gpu.module @m {
  gpu.func @long_row() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %s = tile.alloc "s" : memref<1024xf16, #tile.space<shared>>
    tile.scan sum %s -> %s dim(0) reverse : memref<1024xf16, #tile.space<shared>> -> memref<1024xf16, #tile.space<shared>>
    gpu.return
  }
}

// -----

// Down columns: 64x64 floats, 16 column vectors, 256 threads: 16 segments
// of 4 rows per column vector. Each thread loads its 4 rows, scans them in
// registers, publishes the totals, and after the barrier adds the earlier
// segments' totals (15 candidates, selected by segment) and stores once.
// No shuffles.
// CHECK-LABEL: gpu.func @columns
// CHECK: %[[C:.*]] = tile.alloc "scan_carries" : memref<1024xf32, #tile.space<shared>>
// CHECK-NOT: gpu.shuffle
// CHECK-COUNT-4: vector.load {{.*}} : memref<64x64xf32, #tile.space<shared>>, vector<4xf32>
// CHECK: vector.store {{.*}}, %[[C]]
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-15: vector.load {{.*}}%[[C]]
// CHECK-NOT: vector.load
// CHECK-COUNT-4: vector.store {{.*}} : memref<64x64xf32, #tile.space<shared>>, vector<4xf32>
// CHECK-NOT: gpu.shuffle
gpu.module @m {
  gpu.func @columns() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %s = tile.alloc "s" : memref<64x64xf32, #tile.space<shared>>
    tile.scan max %s -> %s dim(0) : memref<64x64xf32, #tile.space<shared>> -> memref<64x64xf32, #tile.space<shared>>
    gpu.return
  }
}

// -----

// A column per thread when there are more columns than threads: 512
// columns of i32, 128 vectors, 64 threads (2 per thread, a loop over the
// two), 8 rows each in one batch: 8 loads, then the running sums and 8
// stores. The integer maximum starts from the smallest i32.
// CHECK-LABEL: gpu.func @many_columns
// CHECK-NOT: gpu.barrier
// CHECK-NOT: scan_carries
// CHECK-COUNT-8: vector.load {{.*}} vector<4xi32>
// CHECK-NOT: vector.load
// CHECK: arith.maxsi
// CHECK-COUNT-7: vector.store {{.*}} vector<4xi32>
// CHECK: arith.addi %{{.*}}, %c64
// CHECK-COUNT-8: vector.load {{.*}} vector<4xi32>
// CHECK-COUNT-8: vector.store {{.*}} vector<4xi32>
// CHECK-NOT: vector.load
gpu.module @m {
  gpu.func @many_columns() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %s = tile.alloc "s" : memref<8x512xi32, #tile.space<shared>>
    tile.scan max %s -> %s dim(0) : memref<8x512xi32, #tile.space<shared>> -> memref<8x512xi32, #tile.space<shared>>
    gpu.return
  }
}

// -----

// Under a condition on the thread index the scan runs on those warps
// only, with one segment (no block-wide barrier inside).
gpu.module @m {
  gpu.func @guarded() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %s = tile.alloc "s" : memref<16x16xf32, #tile.space<shared>>
    %tid = gpu.thread_id x
    %c48 = arith.constant 48 : index
    %in = arith.cmpi ult, %tid, %c48 : index
    scf.if %in {
      // expected-error @below {{this scan runs on threads [0, 48) only; under a condition on the thread index it needs whole warps (multiples of 32 threads)}}
      tile.scan sum %s -> %s dim(1) : memref<16x16xf32, #tile.space<shared>> -> memref<16x16xf32, #tile.space<shared>>
    }
    gpu.return
  }
}
