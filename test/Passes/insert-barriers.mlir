// tile-insert-barriers: a tile.barrier before and after each tile-level
// write to shared memory, none where it protects nothing.
// RUN: tilec-opt %s -split-input-file -tile-insert-barriers | FileCheck %s

// The first write has nothing to wait for; the fragment copy back into
// the same buffer waits for the readers (WAR) and the final read waits for
// it (RAW). Copies that only read shared memory or write elsewhere get
// nothing.
// CHECK-LABEL: func.func @copies
// CHECK: tile.alloc "xs"
// CHECK-NOT: tile.barrier
// CHECK: tile.copy %{{.*}} to %[[XS:.*]][{{.*}}] [4, 128] : memref<4x128xf16>, memref<4x128xf16, #tile.space<shared>>
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.copy %[[XS]]{{.*}} to %[[F:[a-z0-9_]+]]
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.copy %[[F]]{{.*}} to %[[XS]]
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.copy %[[XS]]{{.*}} to %arg1
// CHECK-NEXT: }
func.func @copies(%X: memref<4x128xf16>, %Y: memref<4x128xf16>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %xs = tile.alloc "xs" : memref<4x128xf16, #tile.space<shared>>
    %f = tile.alloc "f" : memref<4x128xf16, #tile.space<fragment>>
    tile.copy %X[%c0, %c0] [4, 128] to %xs[%c0, %c0] [4, 128] : memref<4x128xf16>, memref<4x128xf16, #tile.space<shared>>
    tile.copy %xs[%c0, %c0] [4, 128] to %f[%c0, %c0] [4, 128] : memref<4x128xf16, #tile.space<shared>>, memref<4x128xf16, #tile.space<fragment>>
    tile.copy %f[%c0, %c0] [4, 128] to %xs[%c0, %c0] [4, 128] : memref<4x128xf16, #tile.space<fragment>>, memref<4x128xf16, #tile.space<shared>>
    tile.copy %xs[%c0, %c0] [4, 128] to %Y[%c0, %c0] [4, 128] : memref<4x128xf16, #tile.space<shared>>, memref<4x128xf16>
  }
  return
}

// -----

// In a loop the write waits for the previous iteration's readers; a
// T.Parallel loop storing to shared memory and a shared fill count as
// writers, a user barrier is reused.
// CHECK-LABEL: func.func @loop
// CHECK: tile.for serial
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.fill %[[S:.*]], %{{.*}} : memref<64xf32, #tile.space<shared>>, f32
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.parallel
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: }
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.parallel
// CHECK: memref.load %[[S]]
// CHECK: }
// CHECK-NEXT: }
func.func @loop(%G: memref<64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc "s" : memref<64xf32, #tile.space<shared>>
    %zero = arith.constant 0.0 : f32
    tile.for serial %k = %c0 to %c4 step %c1 {
      tile.fill %s, %zero : memref<64xf32, #tile.space<shared>>, f32
      tile.barrier
      tile.parallel (%i) in [64] {
        %x = memref.load %G[%i] : memref<64xf32>
        memref.store %x, %s[%i] : memref<64xf32, #tile.space<shared>>
      }
      tile.parallel (%i) in [64] {
        %c63 = arith.constant 63 : index
        %j = arith.subi %c63, %i : index
        %x = memref.load %s[%j] : memref<64xf32, #tile.space<shared>>
        memref.store %x, %G[%i] : memref<64xf32>
      }
    }
  }
  return
}

// -----

// A histogram: each thread adds to one bin under a condition on its index
// and on loaded data. Atomic adds do not race with each other, so the
// barriers go around the outermost loop that touches the bins only
// atomically, where the whole block runs them; the loop that also reads the
// bins keeps them next to its atomic add.
// CHECK-LABEL: func.func @histogram
// CHECK: tile.fill %[[H:[a-z0-9_]+]]
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.for serial
// CHECK-NOT: tile.barrier
// CHECK: tile.atomic_add %[[H]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.for serial
// CHECK: memref.load %[[H]]
// CHECK: tile.barrier
// CHECK-NEXT: tile.atomic_add %[[H]]
// CHECK-NEXT: tile.barrier
func.func @histogram(%G: memref<1024xi32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %tx = gpu.thread_id x
    %h = tile.alloc "h" : memref<16xi32, #tile.space<shared>>
    tile.fill %h, %zero : memref<16xi32, #tile.space<shared>>, i32
    tile.for serial %k = %c0 to %c4 step %c1 {
      %i = arith.addi %k, %tx : index
      %in = arith.cmpi slt, %i, %n : index
      scf.if %in {
        %v = memref.load %G[%i] : memref<1024xi32>
        %b = arith.index_cast %v : i32 to index
        tile.atomic_add %h[%b], %one : memref<16xi32, #tile.space<shared>>, i32
      }
    }
    tile.for serial %k = %c0 to %c4 step %c1 {
      %x = memref.load %h[%k] : memref<16xi32, #tile.space<shared>>
      %b = arith.index_cast %x : i32 to index
      tile.atomic_add %h[%b], %one : memref<16xi32, #tile.space<shared>>, i32
    }
  }
  return
}
