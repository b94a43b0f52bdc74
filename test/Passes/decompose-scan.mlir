// RUN: tilec-opt %s -tile-decompose-scan -split-input-file | FileCheck %s

// A fragment scan is staged through a shared scratch: copied in, scanned
// in place, copied out.
// CHECK-LABEL: func.func @fragment
func.func @fragment(%A: memref<128x64xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc "a" : memref<128x64xf32, #tile.space<fragment>>
    %c = tile.alloc "c" : memref<128x64xf32, #tile.space<fragment>>
    // CHECK: %[[S:.*]] = tile.alloc "scan_scratch" : memref<128x64xf32, #tile.space<shared>>
    // CHECK: tile.copy %a[{{.*}}] [128, 64] to %[[S]]
    // CHECK-NEXT: tile.scan sum %[[S]] -> %[[S]] dim(1) reverse
    // CHECK-NEXT: tile.copy %[[S]][{{.*}}] [128, 64] to %c
    tile.scan sum %a -> %c dim(1) reverse : memref<128x64xf32, #tile.space<fragment>> -> memref<128x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

// Between shared buffers the scan stays for tile-lower-simt; from shared
// into a fragment it writes the scratch straight from the source.
// CHECK-LABEL: func.func @shared
func.func @shared(%A: memref<64x64xf16>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc "s" : memref<64x64xf16, #tile.space<shared>>
    %f = tile.alloc "f" : memref<64x64xf16, #tile.space<fragment>>
    // CHECK: %[[S:.*]] = tile.alloc "scan_scratch"
    // CHECK-NOT: tile.copy
    // CHECK: tile.scan max %s -> %s dim(0)
    tile.scan max %s -> %s dim(0) : memref<64x64xf16, #tile.space<shared>> -> memref<64x64xf16, #tile.space<shared>>
    // CHECK-NOT: tile.copy
    // CHECK: tile.scan sum %s -> %[[S]] dim(0)
    // CHECK-NEXT: tile.copy %[[S]][{{.*}}] [64, 64] to %f
    tile.scan sum %s -> %f dim(0) : memref<64x64xf16, #tile.space<shared>> -> memref<64x64xf16, #tile.space<fragment>>
  }
  return
}
