// Every tile op in its custom syntax, printed, re-parsed and printed again,
// and the same through the generic form (which checks that every attribute
// and property survives the generic printer and parser).
// RUN: tilec-opt %s | tilec-opt | FileCheck %s
// RUN: tilec-opt %s --mlir-print-op-generic | tilec-opt | FileCheck %s
// RUN: tilec-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @gemm_kernel
// CHECK-SAME: attributes {tile.kernel}
func.func @gemm_kernel(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>,
                       %C: memref<1024x1024xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  // CHECK: tile.kernel blocks(%[[BX:.*]], %[[BY:.*]]) in (%[[C8:.*]], %[[C8]]) threads(128) {
  // GENERIC: "tile.kernel"(%{{.*}}, %{{.*}}) <{threads = 128 : i64}>
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {
    // CHECK: %[[AS:.*]] = tile.alloc "A_shared" : memref<128x32xf16, #tile.space<shared>>
    // GENERIC: "tile.alloc"() <{name = "A_shared"}> : () -> memref<128x32xf16, #tile.space<shared>>
    %As = tile.alloc "A_shared" : memref<128x32xf16, #tile.space<shared>>
    // CHECK: %[[BS:.*]] = tile.alloc "B_shared" : memref<32x128xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<32x128xf16, #tile.space<shared>>
    // CHECK: %[[CL:.*]] = tile.alloc "C_local" : memref<128x128xf32, #tile.space<fragment>>
    %Cl = tile.alloc "C_local" : memref<128x128xf32, #tile.space<fragment>>
    // CHECK: tile.use_swizzle panel_size = 10, order = row
    // GENERIC: "tile.use_swizzle"() <{enable = true, order = #tile<swizzle_order row>, panel_size = 10 : i64}>
    tile.use_swizzle panel_size = 10, order = row
    // CHECK: tile.use_swizzle panel_size = 4, order = col {enable = false}
    tile.use_swizzle panel_size = 4, order = col {enable = false}
    %zero = arith.constant 0.0 : f32
    // CHECK: tile.fill %[[CL]], %{{.*}} : memref<128x128xf32, #tile.space<fragment>>, f32
    tile.fill %Cl, %zero : memref<128x128xf32, #tile.space<fragment>>, f32
    // CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} num_stages(3) {
    tile.pipelined %k = %c0 to %c32 step %c1 num_stages(3) {
      // CHECK-NEXT: tile.copy %{{.*}}[%[[BY]], %[[K]]] [128, 32] to %[[AS]][%{{.*}}, %{{.*}}] [128, 32] : memref<1024x1024xf16>, memref<128x32xf16, #tile.space<shared>>
      tile.copy %A[%by, %k] [128, 32] to %As[%c0, %c0] [128, 32]
          : memref<1024x1024xf16>, memref<128x32xf16, #tile.space<shared>>
      // CHECK-NEXT: tile.copy {{.*}} {coalesced_width = 8 : i64, disable_tma}
      tile.copy %B[%k, %bx] [32, 128] to %Bs[%c0, %c0] [32, 128]
          {disable_tma, coalesced_width = 8 : i64}
          : memref<1024x1024xf16>, memref<32x128xf16, #tile.space<shared>>
      // CHECK-NEXT: tile.gemm %[[AS]], %[[BS]], %[[CL]] : memref<128x32xf16, #tile.space<shared>>, memref<32x128xf16, #tile.space<shared>>, memref<128x128xf32, #tile.space<fragment>>
      // GENERIC: "tile.gemm"({{.*}}) <{k_pack = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1, 0>, policy = #tile<gemm_policy square>, wg_wait = 0 : i64}>
      tile.gemm %As, %Bs, %Cl
          : memref<128x32xf16, #tile.space<shared>>,
            memref<32x128xf16, #tile.space<shared>>,
            memref<128x128xf32, #tile.space<fragment>>
      // Regions: A's first 16 columns, B's first 16 rows, C's left half.
      // CHECK-NEXT: tile.gemm %[[AS]][%{{.*}}, %{{.*}}] [128, 16], %[[BS]][%{{.*}}, %{{.*}}] [16, 64], %[[CL]][%{{.*}}, %{{.*}}] [128, 64] :
      // GENERIC: "tile.gemm"({{.*}}) <{a_extents = array<i64: 128, 16>, b_extents = array<i64: 16, 64>, c_extents = array<i64: 128, 64>, k_pack = 1 : i64, operandSegmentSizes = array<i32: 1, 2, 1, 2, 1, 2>
      tile.gemm %As[%c0, %c0] [128, 16], %Bs[%c0, %c0] [16, 64],
          %Cl[%c0, %c0] [128, 64]
          : memref<128x32xf16, #tile.space<shared>>,
            memref<32x128xf16, #tile.space<shared>>,
            memref<128x128xf32, #tile.space<fragment>>
      // CHECK-NEXT: }
    }
    // Implicit terminators are elided.
    // CHECK-NOT: tile.yield
    // CHECK: tile.copy %[[CL]][%{{.*}}, %{{.*}}] [128, 128] to %{{.*}}[%[[BY]], %[[BX]]] [128, 128] : memref<128x128xf32, #tile.space<fragment>>, memref<1024x1024xf16>
    tile.copy %Cl[%c0, %c0] [128, 128] to %C[%by, %bx] [128, 128]
        : memref<128x128xf32, #tile.space<fragment>>, memref<1024x1024xf16>
  }
  return
}

// CHECK-LABEL: func.func @gemm_variants
func.func @gemm_variants() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %At = tile.alloc "At" : memref<32x64xbf16, #tile.space<shared>>
    %Bt = tile.alloc "Bt" : memref<128x32xbf16, #tile.space<shared>>
    %Af = tile.alloc "Af" : memref<64x32xbf16, #tile.space<fragment>>
    %Acc = tile.alloc "Acc" : memref<64x128xf32, #tile.space<fragment>>
    // CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} transpose_a transpose_b policy = full_row clear_accum {k_pack = 2 : i64, wg_wait = -1 : i64} : memref<32x64xbf16, #tile.space<shared>>, memref<128x32xbf16, #tile.space<shared>>, memref<64x128xf32, #tile.space<fragment>>
    tile.gemm %At, %Bt, %Acc transpose_a transpose_b policy = full_row clear_accum
        {k_pack = 2 : i64, wg_wait = -1 : i64}
        : memref<32x64xbf16, #tile.space<shared>>,
          memref<128x32xbf16, #tile.space<shared>>,
          memref<64x128xf32, #tile.space<fragment>>
    // A register-resident A operand (RS gemm), full_col policy.
    // CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} transpose_b policy = full_col :
    tile.gemm %Af, %Bt, %Acc transpose_b policy = full_col
        : memref<64x32xbf16, #tile.space<fragment>>,
          memref<128x32xbf16, #tile.space<shared>>,
          memref<64x128xf32, #tile.space<fragment>>
    // Mixed FP8 inputs and i8 inputs with an i32 accumulator.
    %A8 = tile.alloc "A8" : memref<64x32xf8E4M3FN, #tile.space<shared>>
    %B8 = tile.alloc "B8" : memref<32x128xf8E5M2, #tile.space<shared>>
    // CHECK: tile.gemm {{.*}} : memref<64x32xf8E4M3FN, #tile.space<shared>>, memref<32x128xf8E5M2, #tile.space<shared>>
    tile.gemm %A8, %B8, %Acc
        : memref<64x32xf8E4M3FN, #tile.space<shared>>,
          memref<32x128xf8E5M2, #tile.space<shared>>,
          memref<64x128xf32, #tile.space<fragment>>
    %Ai = tile.alloc "Ai" : memref<64x32xi8, #tile.space<shared>>
    %Bi = tile.alloc "Bi" : memref<32x128xi8, #tile.space<shared>>
    %Ci = tile.alloc "Ci" : memref<64x128xi32, #tile.space<fragment>>
    // CHECK: tile.gemm {{.*}} : memref<64x32xi8, #tile.space<shared>>, memref<32x128xi8, #tile.space<shared>>, memref<64x128xi32, #tile.space<fragment>>
    tile.gemm %Ai, %Bi, %Ci
        : memref<64x32xi8, #tile.space<shared>>,
          memref<32x128xi8, #tile.space<shared>>,
          memref<64x128xi32, #tile.space<fragment>>
  }
  return
}

// CHECK-LABEL: func.func @buffers_and_sync
func.func @buffers_and_sync(%Out: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // A 3-D grid; the block indices print as %bx, %by, %bz.
  // CHECK: tile.kernel blocks(%bx, %by, %bz) in (%{{.*}}, %{{.*}}, %{{.*}}) threads(64) attributes {note = "x"} {
  tile.kernel blocks(%i, %j, %k) in (%c4, %c4, %c4) threads(64) attributes {note = "x"} {
    // CHECK: %tx = tile.thread_id x
    %tx = tile.thread_id x
    // CHECK: %ty = tile.thread_id y
    %ty = tile.thread_id y
    // CHECK: %tz = tile.thread_id z
    // GENERIC: "tile.thread_id"() <{dim = 2 : i64}> : () -> index
    %tz = tile.thread_id z
    // CHECK: %[[BAR:.*]] = tile.alloc_barrier [128, 1] : memref<2xi64, #tile.space<shared>>
    // GENERIC: "tile.alloc_barrier"() <{arrive_counts = array<i64: 128, 1>}>
    %bar = tile.alloc_barrier [128, 1] : memref<2xi64, #tile.space<shared>>
    // T.alloc_var and T.alloc_local.
    // CHECK: %acc = tile.alloc "acc" : memref<f32, #tile.space<local>>
    %acc = tile.alloc "acc" : memref<f32, #tile.space<local>>
    // CHECK: %regs = tile.alloc "regs" : memref<8xf32, #tile.space<local>>
    %regs = tile.alloc "regs" : memref<8xf32, #tile.space<local>>
    // A fragment with its layout (every thread holds all 8 elements).
    // CHECK: %frag = tile.alloc "frag" {layout = #tile.fragment<register = [(1), (2), (4)], lane = [(0), (0), (0), (0), (0)], warp = [(0), (0)]>} : memref<8xf32, #tile.space<fragment>>
    // GENERIC: "tile.alloc"() <{layout = #tile.fragment<register = [(1), (2), (4)], lane = [(0), (0), (0), (0), (0)], warp = [(0), (0)]>, name = "frag"}>
    %frag = tile.alloc "frag" {layout = #tile.fragment<register = [(1), (2), (4)], lane = [(0), (0), (0), (0), (0)], warp = [(0), (0)]>} : memref<8xf32, #tile.space<fragment>>
    %S = tile.alloc "S" : memref<64x64xf32, #tile.space<shared>>
    // CHECK: tile.annotate_layout %S layout(#tile.any_swizzle) : memref<64x64xf32, #tile.space<shared>>
    // GENERIC: "tile.annotate_layout"(%{{.*}}) <{layout = #tile.any_swizzle}>
    tile.annotate_layout %S layout(#tile.any_swizzle) : memref<64x64xf32, #tile.space<shared>>
    // CHECK: tile.barrier
    tile.barrier
    %v = memref.load %acc[] : memref<f32, #tile.space<local>>
    // CHECK: tile.atomic_add %{{.*}}[%tx, %ty], %{{.*}} : memref<?x64xf32>, f32
    tile.atomic_add %Out[%tx, %ty], %v : memref<?x64xf32>, f32
    // CHECK: tile.atomic_add %S[%tx, %ty], %{{.*}} : memref<64x64xf32, #tile.space<shared>>, f32
    tile.atomic_add %S[%tx, %ty], %v : memref<64x64xf32, #tile.space<shared>>, f32
    // A row of a 2-D buffer copied into a 1-D one: unit extents drop out.
    // CHECK: tile.copy %S[%{{.*}}, %{{.*}}] [1, 8] to %regs[%{{.*}}] [8] : memref<64x64xf32, #tile.space<shared>>, memref<8xf32, #tile.space<local>>
    tile.copy %S[%c0, %c0] [1, 8] to %regs[%c0] [8]
        : memref<64x64xf32, #tile.space<shared>>, memref<8xf32, #tile.space<local>>
    // CHECK: tile.print %{{.*}} msg("acc =") : f32
    // GENERIC: "tile.print"(%{{.*}}) <{msg = "acc ="}> : (f32) -> ()
    tile.print %v msg("acc =") : f32
    // CHECK: tile.print %S : memref<64x64xf32, #tile.space<shared>>
    tile.print %S : memref<64x64xf32, #tile.space<shared>>
    %ok = arith.cmpi ult, %tx, %c4 : index
    // CHECK: tile.device_assert %{{.*}}, "tx in range"
    tile.device_assert %ok, "tx in range"
    // CHECK: tile.device_assert %{{.*}}{{$}}
    // GENERIC: "tile.device_assert"(%{{.*}}) <{msg = ""}> : (i1) -> ()
    tile.device_assert %ok
  }
  return
}

// CHECK-LABEL: func.func @loops_and_reductions
func.func @loops_and_reductions(%X: memref<4x128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  tile.kernel blocks(%b) in (%c8) threads(128) {
    %S = tile.alloc "S" : memref<128x64xf32, #tile.space<fragment>>
    // CHECK: tile.copy %{{.*}}[%bx, %{{.*}}, %{{.*}}] [1, 128, 64] to %S[%{{.*}}, %{{.*}}] [128, 64] : memref<4x128x64xf32>, memref<128x64xf32, #tile.space<fragment>>
    tile.copy %X[%b, %c0, %c0] [1, 128, 64] to %S[%c0, %c0] [128, 64]
        : memref<4x128x64xf32>, memref<128x64xf32, #tile.space<fragment>>
    %m = tile.alloc "m" : memref<128xf32, #tile.space<fragment>>
    %m1 = tile.alloc "m1" : memref<128x1xf32, #tile.space<fragment>>
    // CHECK: tile.reduce max %S -> %m dim(1) : memref<128x64xf32, #tile.space<fragment>> -> memref<128xf32, #tile.space<fragment>>
    // GENERIC: "tile.reduce"(%{{.*}}, %{{.*}}) <{clear = true, dim = 1 : i64, kind = #tile<reduce_kind max>}>
    tile.reduce max %S -> %m dim(1)
        : memref<128x64xf32, #tile.space<fragment>> -> memref<128xf32, #tile.space<fragment>>
    // CHECK: tile.reduce sum %S -> %m1 dim(1) {clear = false} : memref<128x64xf32, #tile.space<fragment>> -> memref<128x1xf32, #tile.space<fragment>>
    tile.reduce sum %S -> %m1 dim(1) {clear = false}
        : memref<128x64xf32, #tile.space<fragment>> -> memref<128x1xf32, #tile.space<fragment>>
    // CHECK: tile.reduce min
    tile.reduce min %S -> %m dim(1)
        : memref<128x64xf32, #tile.space<fragment>> -> memref<128xf32, #tile.space<fragment>>
    // CHECK: tile.reduce abssum
    tile.reduce abssum %S -> %m dim(1)
        : memref<128x64xf32, #tile.space<fragment>> -> memref<128xf32, #tile.space<fragment>>
    %n = tile.alloc "n" : memref<64xf32, #tile.space<fragment>>
    // CHECK: tile.reduce absmax %S -> %n dim(0)
    tile.reduce absmax %S -> %n dim(0)
        : memref<128x64xf32, #tile.space<fragment>> -> memref<64xf32, #tile.space<fragment>>
    // CHECK: tile.scan sum %S -> %S dim(1) : memref<128x64xf32, #tile.space<fragment>> -> memref<128x64xf32, #tile.space<fragment>>
    tile.scan sum %S -> %S dim(1)
        : memref<128x64xf32, #tile.space<fragment>> -> memref<128x64xf32, #tile.space<fragment>>
    // CHECK: tile.scan max %S -> %S dim(0) reverse :
    // GENERIC: "tile.scan"(%{{.*}}, %{{.*}}) <{dim = 0 : i64, kind = #tile<scan_kind max>, reverse}>
    tile.scan max %S -> %S dim(0) reverse
        : memref<128x64xf32, #tile.space<fragment>> -> memref<128x64xf32, #tile.space<fragment>>
    // CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in [128, 64] {
    // GENERIC: "tile.parallel"() <{extents = array<i64: 128, 64>}>
    tile.parallel (%i, %j) in [128, 64] {
      // CHECK-NEXT: memref.load %S[%[[I]], %[[J]]]
      %x = memref.load %S[%i, %j] : memref<128x64xf32, #tile.space<fragment>>
      %y = math.exp %x : f32
      memref.store %y, %S[%i, %j] : memref<128x64xf32, #tile.space<fragment>>
    }
    // CHECK: tile.parallel (%{{.*}}) in [128] attributes {loop_layout = #tile.strided<vec = 4>} {
    tile.parallel (%i) in [128] attributes {loop_layout = #tile.strided<vec = 4>} {
    }
    // CHECK: tile.for serial %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
    // GENERIC: "tile.for"(%{{.*}}, %{{.*}}, %{{.*}}) <{kind = #tile<loop_kind serial>}>
    tile.for serial %i = %c0 to %c8 step %c1 {
      // CHECK-NEXT: tile.for unroll %{{.*}} = %[[IV]] to %{{.*}} step %{{.*}} {
      tile.for unroll %j = %i to %c8 step %c1 {
        // CHECK-NEXT: tile.for vectorized %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} attributes {hint} {
        tile.for vectorized %v = %c0 to %c8 step %c1 attributes {hint} {
        }
      }
    }
    // CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} num_stages(2) order [-1, 0, 1] stage [-1, 0, 1] {
    // GENERIC: "tile.pipelined"(%{{.*}}, %{{.*}}, %{{.*}}) <{num_stages = 2 : i64, order = array<i64: -1, 0, 1>, stage = array<i64: -1, 0, 1>}>
    tile.pipelined %k = %c0 to %c8 step %c1 num_stages(2) order [-1, 0, 1] stage [-1, 0, 1] {
    }
    // CHECK: tile.pipelined {{.*}} num_stages(3) order [0, 1] stage [0, 1] group {{\[\[}}0, 1], [2]] attributes {tag} {
    // GENERIC: group = [array<i64: 0, 1>, array<i64: 2>]
    tile.pipelined %k = %c0 to %c8 step %c1 num_stages(3) order [0, 1] stage [0, 1] group [[0, 1], [2]] attributes {tag} {
    }
  }
  return
}
