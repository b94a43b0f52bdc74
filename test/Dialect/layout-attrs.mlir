// The layout decisions as typed attributes: #tile.fragment (a fragment's
// layout, and a T.Parallel loop's when it is spread like one),
// #tile.strided (a loop that touches no fragment) and #tile.any_swizzle
// (T.annotate_layout's make_swizzled_layout), printed, re-parsed and
// printed again, in the custom and in the generic form.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s
// RUN: tilec-opt %s --mlir-print-op-generic | tilec-opt | FileCheck %s
// RUN: tilec-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @layouts
func.func @layouts(%n: index) attributes {tile.kernel} {
  tile.kernel blocks(%b) in (%n) threads(128) {
    // The mma.sync m16n8 accumulator over 2 x 2 warps: every input named,
    // each basis one coordinate per dimension.
    // CHECK: tile.alloc "acc" {layout = #tile.fragment<register = [(0, 1), (8, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(16, 0), (0, 8)]>} : memref<32x16xf32, #tile.space<fragment>>
    // GENERIC: "tile.alloc"() <{layout = #tile.fragment<register = [(0, 1), (8, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(16, 0), (0, 8)]>, name = "acc"}>
    %acc = tile.alloc "acc" {layout = #tile.fragment<register = [(0, 1), (8, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(16, 0), (0, 8)]>} : memref<32x16xf32, #tile.space<fragment>>
    // An extent that is not a power of two is laid out over its padding
    // (48 -> 64): coordinates up to 63 are inside the padded tile.
    // CHECK: tile.alloc "rows" {layout = #tile.fragment<register = [(32)], lane = [(1), (2), (4), (8), (16)], warp = [(0), (0)]>} : memref<48xf32, #tile.space<fragment>>
    %rows = tile.alloc "rows" {layout = #tile.fragment<register = [(32)], lane = [(1), (2), (4), (8), (16)], warp = [(0), (0)]>} : memref<48xf32, #tile.space<fragment>>
    // No basis at all: one element, one thread.
    // CHECK: tile.alloc "one" {layout = #tile.fragment<register = [], lane = [], warp = []>} : memref<1xf32, #tile.space<fragment>>
    %one = tile.alloc "one" {layout = #tile.fragment<register = [], lane = [], warp = []>} : memref<1xf32, #tile.space<fragment>>
    // CHECK: tile.annotate_layout %{{.*}} layout(#tile.fragment<register = [(0, 1), (8, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(16, 0), (0, 8)]>)
    tile.annotate_layout %acc layout(#tile.fragment<register = [(0, 1), (8, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(16, 0), (0, 8)]>) : memref<32x16xf32, #tile.space<fragment>>
    %S = tile.alloc "S" : memref<64x64xf16, #tile.space<shared>>
    // CHECK: tile.annotate_layout %S layout(#tile.any_swizzle)
    // GENERIC: "tile.annotate_layout"(%{{.*}}) <{layout = #tile.any_swizzle}>
    tile.annotate_layout %S layout(#tile.any_swizzle) : memref<64x64xf16, #tile.space<shared>>
    // CHECK: tile.parallel (%{{.*}}, %{{.*}}) in [32, 16] attributes {loop_layout = #tile.fragment<register = [(0, 1), (8, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(16, 0), (0, 8)]>}
    tile.parallel (%i, %j) in [32, 16] attributes {loop_layout = #tile.fragment<register = [(0, 1), (8, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(16, 0), (0, 8)]>} {
    }
    // CHECK: tile.parallel (%{{.*}}) in [1000] attributes {loop_layout = #tile.strided<vec = 4>}
    // GENERIC: <{extents = array<i64: 1000>, loop_layout = #tile.strided<vec = 4>}>
    tile.parallel (%i) in [1000] attributes {loop_layout = #tile.strided<vec = 4>} {
    }
    // CHECK: tile.parallel (%{{.*}}, %{{.*}}) in [7, 1001] attributes {loop_layout = #tile.strided<vec = 1, realign = 8>}
    tile.parallel (%i, %j) in [7, 1001] attributes {loop_layout = #tile.strided<vec = 1, realign = 8>} {
    }
  }
  return
}
