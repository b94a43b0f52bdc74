// tile-strip-debug erases tile.print everywhere and tile.device_assert unless
// keep-asserts is set; nothing else changes.
// RUN: tilec-opt %s -split-input-file -tile-strip-debug | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tile-strip-debug=keep-asserts=true | FileCheck %s --check-prefix=KEEP

// CHECK-LABEL: func.func @nested
// KEEP-LABEL: func.func @nested
func.func @nested(%g: memref<128xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %tx = tile.thread_id x
    %x = memref.load %g[%tx] : memref<128xf32>
    %ok = arith.cmpi ult, %tx, %c1 : index
    tile.print %x msg("x =") : f32
    tile.print %g : memref<128xf32>
    tile.device_assert %ok, "tx in range"
    tile.parallel (%i) in [128] {
      %y = memref.load %g[%i] : memref<128xf32>
      tile.print %y : f32
      tile.device_assert %ok
      memref.store %y, %g[%i] : memref<128xf32>
    }
    tile.barrier
  }
  return
}
// CHECK: tile.kernel
// CHECK-NOT: tile.print
// CHECK-NOT: tile.device_assert
// CHECK: tile.parallel
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: tile.barrier

// KEEP: tile.kernel
// KEEP-NOT: tile.print
// KEEP: tile.device_assert %{{.*}}, "tx in range"
// KEEP-NOT: tile.print
// KEEP: tile.parallel
// KEEP-NEXT: memref.load
// KEEP-NEXT: tile.device_assert %{{.*}}{{$}}
// KEEP-NEXT: memref.store
// KEEP-NEXT: }
// KEEP-NEXT: tile.barrier

// -----

// A function without debug ops is left exactly as it was.
// CHECK-LABEL: func.func @untouched
// CHECK: tile.kernel blocks(%bx) in (%{{.*}}) threads(32) {
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @untouched() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    tile.barrier
  }
  return
}
