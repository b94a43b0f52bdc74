// RUN: tilec-opt %s -tile-decompose-scan | FileCheck %s

// CHECK-LABEL: func.func @scan
func.func @scan(%A: memref<128x64xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc "a" : memref<128x64xf32, #tile.space<fragment>>
    %c = tile.alloc "c" : memref<128x64xf32, #tile.space<fragment>>
    // CHECK: %[[S:.*]] = tile.alloc "scan_scratch" : memref<128x64xf32, #tile.space<shared>>
    // CHECK: tile.copy %a[{{.*}}] [128, 64] to %[[S]]
    // CHECK: tile.parallel (%[[I:.*]]) in [128]
    // CHECK: tile.for serial %[[K:.*]] =
    // CHECK: %[[P:.*]] = arith.subi %[[K]]
    // CHECK: memref.load %[[S]][%[[I]], %[[P]]]
    // CHECK: memref.load %[[S]][%[[I]], %[[K]]]
    // CHECK: arith.addf
    // CHECK: memref.store {{.*}}, %[[S]][%[[I]], %[[K]]]
    // CHECK: tile.copy %[[S]][{{.*}}] [128, 64] to %c
    // CHECK-NOT: tile.scan
    tile.scan sum %a -> %c dim(1) : memref<128x64xf32, #tile.space<fragment>> -> memref<128x64xf32, #tile.space<fragment>>
  }
  return
}
