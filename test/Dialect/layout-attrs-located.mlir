// A malformed #tile.fragment is an error at the attribute, with the file,
// line and column (tilec-opt, and tilec resuming from tile-level IR); no
// output is written.
// RUN: %expect_exit 1 tilec-opt %s 2>&1 | FileCheck %s
// RUN: rm -f %t.ptx
// RUN: %expect_exit 1 tilec %s --target sm_80 -o %t.ptx 2>&1 | FileCheck %s
// RUN: not test -e %t.ptx
// CHECK: layout-attrs-located.mlir:[[@LINE+6]]:70: error: this basis has 1 coordinates, the first one 2
// CHECK-NEXT: {{^}}    %f = tile.alloc "f" {layout = #tile.fragment<register = [(0, 1), (2)], lane = [], warp = []>}
// CHECK-NEXT: {{^ +}}^{{$}}
// CHECK-NOT: error
func.func @k(%n: index) attributes {tile.kernel} {
  tile.kernel blocks(%b) in (%n) threads(32) {
    %f = tile.alloc "f" {layout = #tile.fragment<register = [(0, 1), (2)], lane = [], warp = []>} : memref<4x4xf32, #tile.space<fragment>>
  }
  return
}
