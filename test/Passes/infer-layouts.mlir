// tile-infer-layouts: which layout each fragment and each T.Parallel loop
// gets, with 64 threads in warps of 32 (lane bits 0-4, warp bit 5 of the
// thread id). Layouts print as {lane, register, warp} lists of bases, one
// i32 array (one value per tile dimension) per input bit.
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=sm_80 -tile-infer-layouts -verify-diagnostics | FileCheck %s

// A fragment copied from an f16 tensor: blocked, 8 contiguous elements
// (16 bytes) per thread along the last dimension, lanes next along it, the
// warp on the row. The reduction's output keeps the threads' rows and
// drops the columns (replicated over the 32 lanes); the 2-D loop takes the
// layout of `row`, the 1-D loop that of `row_sum`.
// CHECK-LABEL: func.func @softmax_like
// CHECK: tile.alloc "row" {layout = #tile.fragment<register = [(0, 1), (0, 2), (0, 4)], lane = [(0, 8), (0, 16), (0, 32), (0, 64), (0, 128)], warp = [(1, 0)]>}
// CHECK: tile.alloc "row_max" {layout = #tile.fragment<register = [], lane = [(0), (0), (0), (0), (0)], warp = [(1)]>}
// CHECK: tile.alloc "row_sum" {layout = #tile.fragment<register = [], lane = [(0), (0), (0), (0), (0)], warp = [(1)]>}
// CHECK: tile.parallel ({{.*}}) in [2, 256] attributes {loop_layout = #tile.fragment<register = [(0, 1), (0, 2), (0, 4)], lane = [(0, 8), (0, 16), (0, 32), (0, 64), (0, 128)], warp = [(1, 0)]>}
// CHECK: tile.parallel ({{.*}}) in [2] attributes {loop_layout = #tile.fragment<register = [], lane = [(0), (0), (0), (0), (0)], warp = [(1)]>}
func.func @softmax_like(%X: memref<64x256xf16>, %Y: memref<64x256xf16>) attributes {tile.kernel} {
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  tile.kernel blocks(%bx) in (%c32) threads(64) {
    %row = tile.alloc "row" : memref<2x256xf32, #tile.space<fragment>>
    %row_max = tile.alloc "row_max" : memref<2xf32, #tile.space<fragment>>
    %row_sum = tile.alloc "row_sum" : memref<2xf32, #tile.space<fragment>>
    %m0 = arith.muli %bx, %c2 : index
    tile.copy %X[%m0, %c0] [2, 256] to %row[%c0, %c0] [2, 256] : memref<64x256xf16>, memref<2x256xf32, #tile.space<fragment>>
    tile.reduce max %row -> %row_max dim(1) : memref<2x256xf32, #tile.space<fragment>> -> memref<2xf32, #tile.space<fragment>>
    tile.parallel (%i, %j) in [2, 256] {
      %x = memref.load %row[%i, %j] : memref<2x256xf32, #tile.space<fragment>>
      %m = memref.load %row_max[%i] : memref<2xf32, #tile.space<fragment>>
      %d = arith.subf %x, %m : f32
      %e = math.exp2 %d : f32
      memref.store %e, %row[%i, %j] : memref<2x256xf32, #tile.space<fragment>>
    }
    tile.reduce sum %row -> %row_sum dim(1) : memref<2x256xf32, #tile.space<fragment>> -> memref<2xf32, #tile.space<fragment>>
    tile.parallel (%i) in [2] {
      %s = memref.load %row_sum[%i] : memref<2xf32, #tile.space<fragment>>
      %one = arith.constant 1.0 : f32
      %r = arith.divf %one, %s : f32
      memref.store %r, %row_sum[%i] : memref<2xf32, #tile.space<fragment>>
    }
    tile.copy %row[%c0, %c0] [2, 256] to %Y[%m0, %c0] [2, 256] : memref<2x256xf32, #tile.space<fragment>>, memref<64x256xf16>
  }
  return
}

// -----

// No copy anchors `sq`: the first loop writing it gets a fresh blocked
// layout with vectors sized for the f16 tensor it reads, cut to 4 so that
// all 64 threads get work (2 x 128 elements); `sq` takes it. The reduction
// with a kept unit dimension ([2, 1]) collapses the columns to extent 1.
// A later loop indexing `rstd` with its row only gets its own layout and
// `rstd` is held where it needs it.
// CHECK-LABEL: func.func @fresh_loop
// CHECK: tile.alloc "sq" {layout = #tile.fragment<register = [(0, 1), (0, 2)], lane = [(0, 4), (0, 8), (0, 16), (0, 32), (0, 64)], warp = [(1, 0)]>}
// CHECK: tile.alloc "sq_sum" {layout = #tile.fragment<register = [], lane = [(0, 0), (0, 0), (0, 0), (0, 0), (0, 0)], warp = [(1, 0)]>}
// CHECK: tile.parallel ({{.*}}) in [2, 128] attributes {loop_layout = #tile.fragment<register = [(0, 1), (0, 2)], lane = [(0, 4), {{.*}}], warp = [(1, 0)]>}
// CHECK: tile.parallel ({{.*}}) in [2, 128] attributes {loop_layout = #tile.fragment<register = [(0, 1), (0, 2)], lane = [(0, 4), {{.*}}], warp = [(1, 0)]>}
func.func @fresh_loop(%X: memref<64x128xf16>, %Y: memref<64x128xf16>) attributes {tile.kernel} {
  %c32 = arith.constant 32 : index
  %c2 = arith.constant 2 : index
  tile.kernel blocks(%bx) in (%c32) threads(64) {
    %sq = tile.alloc "sq" : memref<2x128xf32, #tile.space<fragment>>
    %sq_sum = tile.alloc "sq_sum" : memref<2x1xf32, #tile.space<fragment>>
    %row0 = arith.muli %bx, %c2 : index
    tile.parallel (%i, %j) in [2, 128] {
      %r = arith.addi %row0, %i : index
      %x = memref.load %X[%r, %j] : memref<64x128xf16>
      %xf = arith.extf %x : f16 to f32
      %x2 = arith.mulf %xf, %xf : f32
      memref.store %x2, %sq[%i, %j] : memref<2x128xf32, #tile.space<fragment>>
    }
    tile.reduce sum %sq -> %sq_sum dim(1) : memref<2x128xf32, #tile.space<fragment>> -> memref<2x1xf32, #tile.space<fragment>>
    tile.parallel (%i, %j) in [2, 128] {
      %c0 = arith.constant 0 : index
      %s = memref.load %sq_sum[%i, %c0] : memref<2x1xf32, #tile.space<fragment>>
      %r = arith.addi %row0, %i : index
      %y = arith.truncf %s : f32 to f16
      memref.store %y, %Y[%r, %j] : memref<64x128xf16>
    }
  }
  return
}

// -----

// Loops over global memory only are strided: 4 f32 (16 bytes) per thread
// and step; 6 f32 elements per row allow only 2; a tiny loop gets 1.
// CHECK-LABEL: func.func @strided
// CHECK: tile.parallel ({{.*}}) in [1024] attributes {loop_layout = #tile.strided<vec = 4>}
// CHECK: tile.parallel ({{.*}}) in [100, 6] attributes {loop_layout = #tile.strided<vec = 2>}
// CHECK: tile.parallel ({{.*}}) in [3] attributes {loop_layout = #tile.strided<vec = 1>}
func.func @strided(%A: memref<1024xf32>, %B: memref<100x6xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %one = arith.constant 1.0 : f32
    tile.parallel (%i) in [1024] {
      memref.store %one, %A[%i] : memref<1024xf32>
    }
    tile.parallel (%i, %j) in [100, 6] {
      memref.store %one, %B[%i, %j] : memref<100x6xf32>
    }
    tile.parallel (%i) in [3] {
      memref.store %one, %A[%i] : memref<1024xf32>
    }
  }
  return
}

// -----

// A layout set by hand (here: lanes along rows, registers along columns)
// is kept and the loop indexing the fragment takes it; a fragment only
// filled gets the default blocked layout (4 f32 per thread).
// CHECK-LABEL: func.func @pinned
// CHECK: tile.alloc "acc" {layout = #tile.fragment<register = [(0, 1), (0, 2)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0)], warp = [(32, 0)]>}
// CHECK: tile.alloc "ones" {layout = #tile.fragment<register = [(1), (2)], lane = [(4), (8), (16), (32), (64)], warp = [(128)]>}
// CHECK: loop_layout = #tile.fragment<register = [(0, 1), (0, 2)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0)], warp = [(32, 0)]>
func.func @pinned() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %acc = tile.alloc "acc" {layout = #tile.fragment<register = [(0, 1), (0, 2)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0)], warp = [(32, 0)]>} : memref<64x4xf32, #tile.space<fragment>>
    %ones = tile.alloc "ones" : memref<256xf32, #tile.space<fragment>>
    %one = arith.constant 1.0 : f32
    tile.fill %ones, %one : memref<256xf32, #tile.space<fragment>>, f32
    tile.parallel (%i, %j) in [64, 4] {
      memref.store %one, %acc[%i, %j] : memref<64x4xf32, #tile.space<fragment>>
    }
  }
  return
}

// -----

// T.annotate_layout pins a fragment like a `layout` attribute.
// CHECK-LABEL: func.func @annotated
// CHECK: tile.alloc "v" {layout = #tile.fragment<register = [(1)], lane = [(2), (4), (8), (16), (32)], warp = [(0)]>}
func.func @annotated(%G: memref<64xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %v = tile.alloc "v" : memref<64xf32, #tile.space<fragment>>
    tile.annotate_layout %v layout(#tile.fragment<register = [(1)], lane = [(2), (4), (8), (16), (32)], warp = [(0)]>) : memref<64xf32, #tile.space<fragment>>
    tile.copy %G[%c0] [64] to %v[%c0] [64] : memref<64xf32>, memref<64xf32, #tile.space<fragment>>
  }
  return
}

// -----

// A copy is the weakest constraint: `a` is copied from global memory, but
// the loop that reads it is laid out like the pinned `b` it stores into,
// and `a` follows the loop (the copy then moves whatever layout `a` has).
// CHECK-LABEL: func.func @copy_yields
// CHECK: tile.alloc "a" {layout = [[B:#tile.fragment<register = \[\], lane = \[\(2\), \(1\), \(4\), \(8\), \(16\)\], warp = \[\(32\)\]>]]}
// CHECK: tile.alloc "b" {layout = [[B]]}
// CHECK: loop_layout = [[B]]
func.func @copy_yields(%G: memref<64xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %a = tile.alloc "a" : memref<64xf32, #tile.space<fragment>>
    %b = tile.alloc "b" {layout = #tile.fragment<register = [], lane = [(2), (1), (4), (8), (16)], warp = [(32)]>} : memref<64xf32, #tile.space<fragment>>
    tile.copy %G[%c0] [64] to %a[%c0] [64] : memref<64xf32>, memref<64xf32, #tile.space<fragment>>
    tile.parallel (%i) in [64] {
      %x = memref.load %a[%i] : memref<64xf32, #tile.space<fragment>>
      memref.store %x, %b[%i] : memref<64xf32, #tile.space<fragment>>
    }
  }
  return
}

// -----

// A real conflict: `row` is the reduction of a pinned fragment (a strict
// constraint), `b` is pinned otherwise, and one loop needs both. The error
// names both constraints.
func.func @conflict(%G: memref<64xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %acc = tile.alloc "acc" {layout = #tile.fragment<register = [(0, 1), (0, 2)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0)], warp = [(32, 0)]>} : memref<64x4xf32, #tile.space<fragment>>
    %row = tile.alloc "row" : memref<64xf32, #tile.space<fragment>>
    // expected-note @below {{`b` got its layout here}}
    %b = tile.alloc "b" {layout = #tile.fragment<register = [], lane = [(2), (1), (4), (8), (16)], warp = [(32)]>} : memref<64xf32, #tile.space<fragment>>
    // expected-note @below {{`row` got its layout here}}
    tile.reduce sum %acc -> %row dim(1) : memref<64x4xf32, #tile.space<fragment>> -> memref<64xf32, #tile.space<fragment>>
    // expected-error-re @below {{layout conflict: fragment `b` (laid out by pinned at {{.*}}infer-layouts.mlir:{{[0-9]+}}:{{[0-9]+}}) does not match this T.Parallel loop, laid out like fragment `row` (by the reduction at {{.*}}infer-layouts.mlir:{{[0-9]+}}:{{[0-9]+}}): thread 1 runs iteration [1] but does not hold element [1]}}
    tile.parallel (%i) in [64] {
      %x = memref.load %row[%i] : memref<64xf32, #tile.space<fragment>>
      // expected-note @below {{the access}}
      memref.store %x, %b[%i] : memref<64xf32, #tile.space<fragment>>
    }
    tile.copy %row[%c0] [64] to %G[%c0] [64] : memref<64xf32, #tile.space<fragment>>, memref<64xf32>
  }
  return
}

// -----

// mla_decode's softmax statistics: the gemm pins `acc` (1x8 warps of 64x8,
// FullCol), the row maximum `row` is its reduction (rows over lane bits
// 2-4 and register bits, replicated over the lanes and warps holding
// columns), the loops over `acc` and over `row` and `scale` follow it, and
// the copy of `row` to global memory at the end, the weakest constraint,
// decides nothing (it used to pin `row` first, blocked over the threads,
// and the loops then conflicted).
// CHECK-LABEL: func.func @reduce_then_copy
// CHECK: tile.alloc "row" {layout = [[ROW:#tile.fragment<register = \[\(8\), \(16\), \(32\)\], lane = \[\(0\), \(0\), \(1\), \(2\), \(4\)\], warp = \[\(0\), \(0\), \(0\)\]>]]}
// CHECK: tile.alloc "scale" {layout = [[ROW]]}
// CHECK: tile.parallel ({{.*}}) in [64, 64] attributes {loop_layout = #tile.fragment<register = [(0, 1), (8, 0), (16, 0), (32, 0)], lane = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], warp = [(0, 8), (0, 16), (0, 32)]>}
// CHECK: tile.parallel ({{.*}}) in [64] attributes {loop_layout = [[ROW]]}
func.func @reduce_then_copy(%Q: memref<64x64xf16>, %K: memref<64x64xf16>, %R: memref<64xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %Qs = tile.alloc "Q_shared" : memref<64x64xf16, #tile.space<shared>>
    %Ks = tile.alloc "K_shared" : memref<64x64xf16, #tile.space<shared>>
    %acc = tile.alloc "acc" : memref<64x64xf32, #tile.space<fragment>>
    %row = tile.alloc "row" : memref<64xf32, #tile.space<fragment>>
    %scale = tile.alloc "scale" : memref<64xf32, #tile.space<fragment>>
    tile.copy %Q[%c0, %c0] [64, 64] to %Qs[%c0, %c0] [64, 64] : memref<64x64xf16>, memref<64x64xf16, #tile.space<shared>>
    tile.copy %K[%c0, %c0] [64, 64] to %Ks[%c0, %c0] [64, 64] : memref<64x64xf16>, memref<64x64xf16, #tile.space<shared>>
    tile.gemm %Qs, %Ks, %acc transpose_b policy = full_col clear_accum : memref<64x64xf16, #tile.space<shared>>, memref<64x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    tile.reduce max %acc -> %row dim(1) : memref<64x64xf32, #tile.space<fragment>> -> memref<64xf32, #tile.space<fragment>>
    tile.parallel (%i, %j) in [64, 64] {
      %x = memref.load %acc[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
      %m = memref.load %row[%i] : memref<64xf32, #tile.space<fragment>>
      %d = arith.subf %x, %m : f32
      %e = math.exp2 %d : f32
      memref.store %e, %acc[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
    }
    tile.parallel (%i) in [64] {
      %m = memref.load %row[%i] : memref<64xf32, #tile.space<fragment>>
      %l = math.log2 %m : f32
      memref.store %l, %scale[%i] : memref<64xf32, #tile.space<fragment>>
    }
    tile.copy %row[%c0] [64] to %R[%c0] [64] : memref<64xf32, #tile.space<fragment>>, memref<64xf32>
  }
  return
}

// -----

// A region of a fragment as B (a whole fragment B is staged through shared
// memory; test gemm-fragment-b.tile).
func.func @gemm(%A: memref<64x64xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A_shared" : memref<64x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_frag" : memref<32x128xf16, #tile.space<fragment>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @below {{T.gemm on the mma.sync path reads A from shared memory (T.alloc_shared) or a fragment, and B from shared memory}}
    tile.gemm %As, %Bs[%c0, %c0] [32, 64], %C : memref<64x32xf16, #tile.space<shared>>, memref<32x128xf16, #tile.space<fragment>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

// An extent that is not a power of two is padded (96 -> 128) with the
// padding in whole registers: threads take only the bits below 96's lowest
// set bit (32), the rest are iterations, of which the fourth is dropped.
// CHECK-LABEL: func.func @not_power_of_two
// CHECK: tile.alloc "a" {layout = #tile.fragment<register = [(32), (64)], lane = [(1), (2), (4), (8), (16)], warp = [(0)]>}
func.func @not_power_of_two(%G: memref<96xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %a = tile.alloc "a" : memref<96xf32, #tile.space<fragment>>
    tile.copy %G[%c0] [96] to %a[%c0] [96] : memref<96xf32>, memref<96xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @bad_layout() attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    // expected-error @below {{invalid layout for fragment `a`: the layout spreads over 32 threads but the kernel has 64}}
    %a = tile.alloc "a" {layout = #tile.fragment<register = [(32)], lane = [(1), (2), (4), (8), (16)], warp = []>} : memref<64xf32, #tile.space<fragment>>
  }
  return
}

// -----

// A loop over rows indexing a 2-D fragment as a[i, k] with k from an inner
// T.unroll loop takes the fragment's layout on its rows (thread t: rows t
// and t + 32, the 4 columns in its registers dropped), and `s` gets it.
// CHECK-LABEL: func.func @row_loop
// CHECK: tile.alloc "a" {layout = #tile.fragment<register = [(0, 1), (0, 2), (32, 0)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0)], warp = []>}
// CHECK: tile.alloc "s" {layout = #tile.fragment<register = [(32)], lane = [(1), (2), (4), (8), (16)], warp = []>}
// CHECK: tile.parallel ({{.*}}) in [64] attributes {loop_layout = #tile.fragment<register = [(32)], lane = [(1), (2), (4), (8), (16)], warp = []>}
func.func @row_loop(%G: memref<64x4xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc "a" : memref<64x4xf32, #tile.space<fragment>>
    %s = tile.alloc "s" : memref<64xf32, #tile.space<fragment>>
    tile.copy %G[%c0, %c0] [64, 4] to %a[%c0, %c0] [64, 4] : memref<64x4xf32>, memref<64x4xf32, #tile.space<fragment>>
    tile.parallel (%i) in [64] {
      %z = arith.constant 0.0 : f32
      memref.store %z, %s[%i] : memref<64xf32, #tile.space<fragment>>
      tile.for unroll %k = %c0 to %c4 step %c1 {
        %x = memref.load %a[%i, %k] : memref<64x4xf32, #tile.space<fragment>>
        %y = memref.load %s[%i] : memref<64xf32, #tile.space<fragment>>
        %w = arith.addf %x, %y : f32
        memref.store %w, %s[%i] : memref<64xf32, #tile.space<fragment>>
      }
    }
  }
  return
}

// -----

// The same with a serial inner loop: its variable is a run-time value, like
// one defined outside the loop (mhc_post's `a_local[i_hci, i_hco]`): the
// copy lays `a` out with that dimension in each thread's registers, and
// the access reads the register array at the run-time index.
// CHECK-LABEL: func.func @serial_inner
// CHECK: tile.alloc "a" {layout = #tile.fragment<register = [(32, 0), (0, 1), (0, 2)], lane = [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0)], warp = []>}
// CHECK: tile.parallel (%{{.*}}) in [64] attributes {loop_layout = #tile.fragment<register = [(32)], lane = [(1), (2), (4), (8), (16)], warp = []>}
func.func @serial_inner(%G: memref<64x4xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc "a" : memref<64x4xf32, #tile.space<fragment>>
    tile.copy %G[%c0, %c0] [64, 4] to %a[%c0, %c0] [64, 4] : memref<64x4xf32>, memref<64x4xf32, #tile.space<fragment>>
    tile.parallel (%i) in [64] {
      tile.for serial %k = %c0 to %c4 step %c1 {
        %x = memref.load %a[%i, %k] : memref<64x4xf32, #tile.space<fragment>>
        memref.store %x, %G[%i, %k] : memref<64x4xf32>
      }
    }
  }
  return
}

// -----

// A serial inner loop's variable along a dimension the layout spreads over
// the lanes (pinned here): the element is on another thread.
func.func @serial_inner_threads(%G: memref<64x4xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-note @below {{`a` got its layout here}}
    %a = tile.alloc "a" {layout = #tile.fragment<register = [(8, 0), (16, 0), (32, 0)], lane = [(0, 1), (0, 2), (1, 0), (2, 0), (4, 0)], warp = []>} : memref<64x4xf32, #tile.space<fragment>>
    tile.copy %G[%c0, %c0] [64, 4] to %a[%c0, %c0] [64, 4] : memref<64x4xf32>, memref<64x4xf32, #tile.space<fragment>>
    // expected-error @below {{at run-time index #1 = 0, thread 1 runs iteration [0] but does not hold element [0, 0]}}
    tile.parallel (%i) in [64] {
      tile.for serial %k = %c0 to %c4 step %c1 {
        // expected-note @below {{the access}}
        %x = memref.load %a[%i, %k] : memref<64x4xf32, #tile.space<fragment>>
        memref.store %x, %G[%i, %k] : memref<64x4xf32>
      }
    }
  }
  return
}

// -----

// A fragment serial code reads element by element (a mask at a loop-carried
// index) is fully replicated before anything else decides: every thread
// holds element e in register e, lane and warp bases zero. The loop that
// reads it takes the layout of `x`, not the replicated one, and the copy
// into it follows the replicated layout.
// CHECK-LABEL: func.func @floating_mask
// CHECK: tile.alloc "mask" {layout = #tile.fragment<register = [(1), (2)], lane = [(0), (0), (0), (0), (0)], warp = [(0)]>}
// CHECK: tile.alloc "x" {layout = #tile.fragment<register = [], lane = [(1), (2), (4), (8), (16)], warp = [(32)]>}
// CHECK: tile.parallel ({{.*}}) in [64] attributes {loop_layout = #tile.fragment<register = [], lane = [(1), (2), (4), (8), (16)], warp = [(32)]>}
func.func @floating_mask(%M: memref<4xi8>, %X: memref<64xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %mask = tile.alloc "mask" : memref<4xi8, #tile.space<fragment>>
    %x = tile.alloc "x" : memref<64xf32, #tile.space<fragment>>
    tile.copy %M[%c0] [4] to %mask[%c0] [4] : memref<4xi8>, memref<4xi8, #tile.space<fragment>>
    tile.copy %X[%c0] [64] to %x[%c0] [64] : memref<64xf32>, memref<64xf32, #tile.space<fragment>>
    tile.for serial %k = %c0 to %c4 step %c1 {
      %m = memref.load %mask[%k] : memref<4xi8, #tile.space<fragment>>
      tile.parallel (%i) in [64] {
        %v = memref.load %x[%i] : memref<64xf32, #tile.space<fragment>>
        %w = memref.load %mask[%c0] : memref<4xi8, #tile.space<fragment>>
        %f = arith.sitofp %w : i8 to f32
        %s = arith.addf %v, %f : f32
        memref.store %s, %x[%i] : memref<64xf32, #tile.space<fragment>>
      }
    }
    tile.copy %x[%c0] [64] to %X[%c0] [64] : memref<64xf32, #tile.space<fragment>>, memref<64xf32>
  }
  return
}

// -----

// A T.Parallel loop spread over the threads cannot write a replicated
// fragment: the threads that skip an iteration would keep stale copies.
func.func @floating_written_spread(%X: memref<64xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %x = tile.alloc "x" : memref<64xf32, #tile.space<fragment>>
    %r = tile.alloc "r" : memref<8xf32, #tile.space<fragment>>
    tile.copy %X[%c0] [64] to %x[%c0] [64] : memref<64xf32>, memref<64xf32, #tile.space<fragment>>
    // expected-error @below {{this T.Parallel loop writes fragment `r`, which is also accessed outside T.Parallel loops and so held by every thread, but the loop spreads its iterations over the threads: the other threads' copies would go stale}}
    tile.parallel (%i, %j) in [8, 8] {
      %c8 = arith.constant 8 : index
      %k = arith.muli %i, %c8 : index
      %n = arith.addi %k, %j : index
      %v = memref.load %x[%n] : memref<64xf32, #tile.space<fragment>>
      // expected-note @below {{the write}}
      memref.store %v, %r[%i] : memref<8xf32, #tile.space<fragment>>
    }
    // expected-note @below {{`r` got its layout here}}
    %s = memref.load %r[%c0] : memref<8xf32, #tile.space<fragment>>
    memref.store %s, %X[%c0] : memref<64xf32>
  }
  return
}

// -----

// A per-row reduction of rows laid out on different warps leaves each row
// in its warp only; a serial read needs every thread to hold every row.
func.func @floating_row_reduction(%X: memref<2x256xf32>, %Y: memref<2xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %x = tile.alloc "x" {layout = #tile.fragment<register = [(0, 1), (0, 2), (0, 4)], lane = [(0, 8), (0, 16), (0, 32), (0, 64), (0, 128)], warp = [(1, 0)]>} : memref<2x256xf32, #tile.space<fragment>>
    %s = tile.alloc "s" : memref<2xf32, #tile.space<fragment>>
    tile.copy %X[%c0, %c0] [2, 256] to %x[%c0, %c0] [2, 256] : memref<2x256xf32>, memref<2x256xf32, #tile.space<fragment>>
    // expected-error @below {{the output `s` of this reduction is accessed outside T.Parallel loops, so every thread must hold all of it, but the reduction leaves each output element only in the threads that hold its row of `x`}}
    tile.reduce sum %x -> %s dim(1) : memref<2x256xf32, #tile.space<fragment>> -> memref<2xf32, #tile.space<fragment>>
    // expected-note @below {{`s` got its layout here}}
    %v = memref.load %s[%c0] : memref<2xf32, #tile.space<fragment>>
    memref.store %v, %Y[%c0] : memref<2xf32>
  }
  return
}
