// A fragment layout written by hand is followed, not re-chosen: the same
// kernel (square 256 floats of A into B through a fragment, 128 threads)
// with two injected #tile.fragment layouts. tile-infer-layouts keeps each
// (the loop and both copies follow it) and the PTX differs accordingly:
// - @split: thread t holds elements t and t + 128 (register basis (128)):
//   two coalesced scalar loads, 512 bytes apart;
// - @pairs: thread t holds 2t and 2t + 1 (register basis (1)): one
//   8-byte vector load.
// RUN: tilec-opt %s -tile-infer-layouts | FileCheck %s --check-prefix=IR
// RUN: tilec %s --target sm_80 -o - | FileCheck %s --check-prefix=PTX

// IR-LABEL: func.func @split
// IR: tile.alloc "f" {layout = [[SPLIT:#tile.fragment<register = \[\(128\)\], lane = \[\(1\), \(2\), \(4\), \(8\), \(16\)\], warp = \[\(32\), \(64\)\]>]]}
// IR: tile.parallel (%{{.*}}) in [256] attributes {loop_layout = [[SPLIT]]}
// IR-LABEL: func.func @pairs
// IR: tile.alloc "f" {layout = [[PAIRS:#tile.fragment<register = \[\(1\)\], lane = \[\(2\), \(4\), \(8\), \(16\), \(32\)\], warp = \[\(64\), \(128\)\]>]]}
// IR: tile.parallel (%{{.*}}) in [256] attributes {loop_layout = [[PAIRS]]}

// PTX-LABEL: .entry split_kernel(
// PTX-NOT: .v2.
// PTX: ld.global.nc.b32 {{.*}}, [[[A:%rd[0-9]+]]];
// PTX-NEXT: ld.global.nc.b32 {{.*}}, [[[A]]+512];
// PTX-NOT: .v2.
// PTX: st.global.b32 [[[B:%rd[0-9]+]]], {{.*}};
// PTX-NEXT: st.global.b32 [[[B]]+512], {{.*}};
// PTX-NOT: .v2.
// PTX: ret;
// PTX-LABEL: .entry pairs_kernel(
// PTX-NOT: ld.global.nc.b32
// PTX: ld.global.nc.v2.b32 {{.*}}, [%rd{{[0-9]+}}];
// PTX-NOT: ld.global
// PTX: st.global.v2.b32 [%rd{{[0-9]+}}], {{.*}};
// PTX-NOT: st.global
// PTX: ret;

module attributes {tile.target = #tile.target<"sm_80">} {
  func.func @split(%A: memref<1024xf32> {tile.name = "A"}, %B: memref<1024xf32> {tile.name = "B"}) attributes {tile.kernel} {
    %c4 = arith.constant 4 : index
    tile.kernel blocks(%bx) in (%c4) threads(128) {
      %f = tile.alloc "f" {layout = #tile.fragment<register = [(128)], lane = [(1), (2), (4), (8), (16)], warp = [(32), (64)]>} : memref<256xf32, #tile.space<fragment>>
      %c256 = arith.constant 256 : index
      %c0 = arith.constant 0 : index
      %base = arith.muli %bx, %c256 : index
      tile.copy %A[%base] [256] to %f[%c0] [256] : memref<1024xf32>, memref<256xf32, #tile.space<fragment>>
      tile.parallel (%i) in [256] {
        %x = memref.load %f[%i] : memref<256xf32, #tile.space<fragment>>
        %y = arith.mulf %x, %x : f32
        memref.store %y, %f[%i] : memref<256xf32, #tile.space<fragment>>
      }
      tile.copy %f[%c0] [256] to %B[%base] [256] : memref<256xf32, #tile.space<fragment>>, memref<1024xf32>
    }
    return
  }
  func.func @pairs(%A: memref<1024xf32> {tile.name = "A"}, %B: memref<1024xf32> {tile.name = "B"}) attributes {tile.kernel} {
    %c4 = arith.constant 4 : index
    tile.kernel blocks(%bx) in (%c4) threads(128) {
      %f = tile.alloc "f" {layout = #tile.fragment<register = [(1)], lane = [(2), (4), (8), (16), (32)], warp = [(64), (128)]>} : memref<256xf32, #tile.space<fragment>>
      %c256 = arith.constant 256 : index
      %c0 = arith.constant 0 : index
      %base = arith.muli %bx, %c256 : index
      tile.copy %A[%base] [256] to %f[%c0] [256] : memref<1024xf32>, memref<256xf32, #tile.space<fragment>>
      tile.parallel (%i) in [256] {
        %x = memref.load %f[%i] : memref<256xf32, #tile.space<fragment>>
        %y = arith.mulf %x, %x : f32
        memref.store %y, %f[%i] : memref<256xf32, #tile.space<fragment>>
      }
      tile.copy %f[%c0] [256] to %B[%base] [256] : memref<256xf32, #tile.space<fragment>>, memref<1024xf32>
    }
    return
  }
}
