// tile-lower-simt on kernels whose layouts are set by hand.
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=sm_90a -tile-lower-simt -verify-diagnostics | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=sm_90a -tile-lower-simt=assert-lowering=printf -verify-diagnostics | FileCheck %s --check-prefix=PRINTF
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=sm_90a -tile-lower-simt=fp-contract=false -verify-diagnostics | FileCheck %s --check-prefix=EXACT

// Without fp-contract, float ops keep their default (no fusion allowed).
// EXACT-LABEL: gpu.func @fragment_loop
// EXACT: arith.mulf %{{.*}}, %{{.*}} : f32

// A fragment of 8 elements over 4 threads: thread t holds elements 2t and
// 2t+1 (lane bases [2], [4]; register base [1]). The loop is cloned per
// register with i = ((tid & 3) << 1) + r, and the fragment becomes a
// 2-element register array indexed by constants. The two registers hold
// consecutive elements, so the clones' loads of G (from 2t, even) are one
// aligned 2-element vector load (RowVectors.cpp).
// CHECK-LABEL: gpu.func @fragment_loop
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[REGS:.*]] = memref.alloca() : memref<2xf32>
// CHECK: %[[LOW:.*]] = arith.andi %{{.*}}, %{{.*}} : index
// CHECK: %[[T:.*]] = arith.shli %[[LOW]], %{{.*}} : index
// CHECK: %[[V:.*]] = vector.load %{{.*}}[%[[T]]] {alignment = 8 : i64} : memref<8xf32>, vector<2xf32>
// CHECK: %[[X0:.*]] = vector.extract %[[V]][0]
// CHECK: %[[X1:.*]] = vector.extract %[[V]][1]
// CHECK: %[[Y0:.*]] = arith.mulf %[[X0]], %[[X0]] fastmath<contract> : f32
// CHECK: %[[R0:.*]] = arith.constant 0 : index
// CHECK: memref.store %[[Y0]], %[[REGS]][%[[R0]]] : memref<2xf32>
// CHECK: %[[Y1:.*]] = arith.mulf %[[X1]], %[[X1]] fastmath<contract> : f32
// CHECK: %[[R1:.*]] = arith.constant 1 : index
// CHECK: memref.store %[[Y1]], %[[REGS]][%[[R1]]] : memref<2xf32>
// CHECK-NOT: tile.
// CHECK: gpu.return
gpu.module @m {
  gpu.func @fragment_loop(%G: memref<8xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
    %f = tile.alloc "f" {layout = #tile.fragment<register = [(1)], lane = [(2), (4)], warp = []>} : memref<8xf32, #tile.space<fragment>>
    tile.parallel (%i) in [8] attributes {loop_layout = #tile.fragment<register = [(1)], lane = [(2), (4)], warp = []>} {
      %x = memref.load %G[%i] : memref<8xf32>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %f[%i] : memref<8xf32, #tile.space<fragment>>
    }
    gpu.return
  }
}

// -----

// A strided loop over 10 elements, 2 per thread and step, 4 threads: two
// steps (flat start 0 and 8) of elements tid*2 + {0, 1}; the second step
// is partial. A thread whose last vector ends inside (tid*2 + 8 + 2 <= 10)
// runs both steps unguarded, their stores last (LowerParallel.cpp); the
// others guard each step, one test per vector since 2 divides 10. The two
// stores of a vector start at an even element: one aligned vector store
// (RowVectors.cpp).
// CHECK-LABEL: gpu.func @strided
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[B0:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[B1:.*]] = arith.addi %c8, %{{.*}} : index
// CHECK: %[[END:.*]] = arith.addi %[[B1]], %c2{{.*}} : index
// CHECK: %[[ALL:.*]] = arith.cmpi ule, %[[END]], %{{.*}} : index
// CHECK: scf.if %[[ALL]] {
// CHECK-NOT: scf.if
// CHECK:   vector.store %{{.*}}, %{{.*}}[%[[B0]]] {alignment = 8 : i64} : memref<10xf32>, vector<2xf32>
// CHECK-NEXT:   vector.store %{{.*}}, %{{.*}}[%[[B1]]] {alignment = 8 : i64} : memref<10xf32>, vector<2xf32>
// CHECK-NEXT: } else {
// CHECK: %[[S0:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[S0]], %{{.*}} : index
// CHECK: scf.if %[[IN0]] {
// CHECK:   %[[V:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK:   vector.store %[[V]], %{{.*}}[%[[S0]]] {alignment = 8 : i64} : memref<10xf32>, vector<2xf32>
// CHECK-NOT: memref.store
// CHECK: }
// CHECK: scf.if
// CHECK-NOT: scf.if
// CHECK: gpu.return
gpu.module @m {
  gpu.func @strided(%G: memref<10xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
    %one = arith.constant 1.0 : f32
    tile.parallel (%i) in [10] attributes {loop_layout = #tile.strided<vec = 2>} {
      memref.store %one, %G[%i] : memref<10xf32>
    }
    gpu.return
  }
}

// -----

// A copy from an f16 tensor into a fragment with 8 contiguous registers
// per thread: one 16-byte aligned vector.load per thread, masked on the
// row (the block's rows may pass the end) without a branch: a row outside
// reads the origin and the select drops it; the copy back stores a vector.
// CHECK-LABEL: gpu.func @vector_copy
// CHECK: %[[REGS:.*]] = memref.alloca() : memref<8xf32>
// CHECK: %[[COL:.*]] = arith.shli %{{.*}}, %{{.*}} : index
// CHECK: %[[ROW:.*]] = gpu.block_id x
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %{{.*}} : index
// CHECK-NOT: scf.if
// CHECK: %[[R:.*]] = arith.select %[[IN]], %[[ROW]], %[[Z:.*]] : index
// CHECK: %[[C:.*]] = arith.select %[[IN]], %[[COL]], %[[Z]] : index
// CHECK: %[[L:.*]] = vector.load %{{.*}}[%[[R]], %[[C]]] {alignment = 16 : i64} : memref<100x64xf16>, vector<8xf16>
// CHECK: %[[ZV:.*]] = arith.constant dense<0.000000e+00> : vector<8xf16>
// CHECK: %[[V:.*]] = arith.select %[[IN]], %[[L]], %[[ZV]] : vector<8xf16>
// CHECK: %[[E0:.*]] = vector.extract %[[V]][0] : f16 from vector<8xf16>
// CHECK: %[[W0:.*]] = arith.extf %[[E0]] fastmath<contract> : f16 to f32
// CHECK: memref.store %[[W0]], %[[REGS]]
// CHECK: vector.extract %[[V]][7]
// CHECK: %[[PACKED:.*]] = vector.from_elements {{.*}} : vector<8xf16>
// CHECK: scf.if
// CHECK:   vector.store %[[PACKED]], %{{.*}}[%{{.*}}, %[[COL]]] {alignment = 16 : i64} : memref<100x64xf16>, vector<8xf16>
gpu.module @m {
  gpu.func @vector_copy(%X: memref<100x64xf16>, %Y: memref<100x64xf16>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %f = tile.alloc "f" {layout = #tile.fragment<register = [(0, 1), (0, 2), (0, 4)], lane = [(0, 8), (0, 16), (0, 32)], warp = []>} : memref<1x64xf32, #tile.space<fragment>>
    %bx = gpu.block_id x
    %c0 = arith.constant 0 : index
    tile.copy %X[%bx, %c0] [1, 64] to %f[%c0, %c0] [1, 64] : memref<100x64xf16>, memref<1x64xf32, #tile.space<fragment>>
    tile.copy %f[%c0, %c0] [1, 64] to %Y[%bx, %c0] [1, 64] : memref<1x64xf32, #tile.space<fragment>>, memref<100x64xf16>
    gpu.return
  }
}

// -----

// The same copy from a tensor with a dynamic row count: the masked loads
// read the origin, which an empty tensor lacks, so one uniform branch on
// "at least one row" covers the whole copy (zeros otherwise).
// CHECK-LABEL: gpu.func @dynamic_vector_copy
// CHECK: %[[ROWS:.*]] = memref.dim %{{.*}}, %c0{{.*}} : memref<?x64xf16>
// CHECK: %[[HAS:.*]] = arith.cmpi uge, %[[ROWS]], %{{.*}} : index
// CHECK: scf.if %[[HAS]] {
// CHECK-NOT: scf.if
// CHECK:   vector.load
// CHECK:   arith.select
// CHECK: } else {
// CHECK-COUNT-8: memref.store %{{.*}}, %{{.*}} : memref<8xf32>
// CHECK: }
gpu.module @m {
  gpu.func @dynamic_vector_copy(%X: memref<?x64xf16>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %f = tile.alloc "f" {layout = #tile.fragment<register = [(0, 1), (0, 2), (0, 4)], lane = [(0, 8), (0, 16), (0, 32)], warp = []>} : memref<1x64xf32, #tile.space<fragment>>
    %bx = gpu.block_id x
    %c0 = arith.constant 0 : index
    tile.copy %X[%bx, %c0] [1, 64] to %f[%c0, %c0] [1, 64] : memref<?x64xf16>, memref<1x64xf32, #tile.space<fragment>>
    gpu.return
  }
}

// -----

// Storing a fragment every thread holds (zero lane bases): only the
// threads whose replica bits (all of them here) are zero store, one
// 8-byte vector.
// CHECK-LABEL: gpu.func @replicated_store
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[BITS:.*]] = arith.andi %[[TID]], %{{.*}} : index
// CHECK: %[[ONCE:.*]] = arith.cmpi eq, %[[BITS]], %{{.*}} : index
// CHECK: %[[V:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: scf.if %[[ONCE]] {
// CHECK:   vector.store %[[V]], %{{.*}}[%{{.*}}] {alignment = 8 : i64} : memref<2xf32>, vector<2xf32>
gpu.module @m {
  gpu.func @replicated_store(%G: memref<2xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
    %f = tile.alloc "f" {layout = #tile.fragment<register = [(1)], lane = [(0), (0)], warp = []>} : memref<2xf32, #tile.space<fragment>>
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    tile.fill %f, %one : memref<2xf32, #tile.space<fragment>>, f32
    tile.copy %f[%c0] [2] to %G[%c0] [2] : memref<2xf32, #tile.space<fragment>>, memref<2xf32>
    gpu.return
  }
}

// -----

// A sum over 64 threads, one element each: butterfly shuffles over the 5
// lane bits, then the two warps combine through shared memory (thread t
// adds the partial of thread t ^ 32) between two barriers. With
// clear = false the old value joins.
// CHECK-LABEL: gpu.func @reduce
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[X:.*]] = memref.load %[[SRC:.*]][%{{.*}}] : memref<1xf32>
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[W:.*]] = arith.constant 32 : i32
// CHECK: %[[S1:.*]], %{{.*}} = gpu.shuffle xor %[[X]], %[[C1]], %[[W]] : f32
// CHECK: %[[A1:.*]] = arith.addf %[[X]], %[[S1]] fastmath<contract> : f32
// CHECK: arith.constant 2 : i32
// CHECK: gpu.shuffle xor %[[A1]]
// CHECK: arith.constant 4 : i32
// CHECK: gpu.shuffle xor
// CHECK: arith.constant 8 : i32
// CHECK: gpu.shuffle xor
// CHECK: arith.constant 16 : i32
// CHECK: %[[S5:.*]], %{{.*}} = gpu.shuffle xor %[[A4:.*]], %{{.*}}, %{{.*}} : f32
// CHECK: %[[A5:.*]] = arith.addf %[[A4]], %[[S5]] fastmath<contract> : f32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[SCRATCH:.*]] = tile.alloc "reduce_scratch" : memref<64xf32, #tile.space<shared>>
// CHECK: memref.store %[[A5]], %[[SCRATCH]][%{{.*}}]
// CHECK: gpu.barrier
// CHECK: %[[OTHER:.*]] = arith.xori %[[TID]], %{{.*}} : index
// CHECK: %[[P:.*]] = memref.load %[[SCRATCH]][%{{.*}}]
// CHECK: %[[TOTAL:.*]] = arith.addf %[[A5]], %[[P]] fastmath<contract> : f32
// CHECK: gpu.barrier
// CHECK: %[[OLD:.*]] = memref.load %[[DST:.*]][%{{.*}}] : memref<1xf32>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[TOTAL]] fastmath<contract> : f32
// CHECK: memref.store %[[NEW]], %[[DST]]
gpu.module @m {
  gpu.func @reduce() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %s = tile.alloc "s" {layout = #tile.fragment<register = [], lane = [(1), (2), (4), (8), (16)], warp = [(32)]>} : memref<64xf32, #tile.space<fragment>>
    %d = tile.alloc "d" {layout = #tile.fragment<register = [], lane = [(0), (0), (0), (0), (0)], warp = [(0)]>} : memref<1xf32, #tile.space<fragment>>
    tile.reduce sum %s -> %d dim(0) {clear = false} : memref<64xf32, #tile.space<fragment>> -> memref<1xf32, #tile.space<fragment>>
    gpu.return
  }
}

// -----

// Two cross-warp reductions share one scratch buffer, as large as the
// larger needs (64 threads x 2 output registers), allocated before the
// first: each uses it only between its two barriers.
// CHECK-LABEL: gpu.func @reduce_shared_scratch
// CHECK: %[[SCRATCH:.*]] = tile.alloc "reduce_scratch" : memref<128xf32, #tile.space<shared>>
// CHECK-NOT: tile.alloc "reduce_scratch"
// CHECK: memref.store %{{.*}}, %[[SCRATCH]][%{{.*}}] : memref<128xf32, #tile.space<shared>>
// CHECK-COUNT-2: gpu.barrier
// CHECK-COUNT-2: memref.store %{{.*}}, %[[SCRATCH]][%{{.*}}] : memref<128xf32, #tile.space<shared>>
// CHECK-COUNT-2: gpu.barrier
// CHECK-NOT: gpu.barrier
gpu.module @m {
  gpu.func @reduce_shared_scratch() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %s = tile.alloc "s" {layout = #tile.fragment<register = [], lane = [(1), (2), (4), (8), (16)], warp = [(32)]>} : memref<64xf32, #tile.space<fragment>>
    %d = tile.alloc "d" {layout = #tile.fragment<register = [], lane = [(0), (0), (0), (0), (0)], warp = [(0)]>} : memref<1xf32, #tile.space<fragment>>
    %t = tile.alloc "t" {layout = #tile.fragment<register = [(1, 0)], lane = [(0, 1), (0, 2), (0, 4), (0, 8), (0, 16)], warp = [(0, 32)]>} : memref<2x64xf32, #tile.space<fragment>>
    %e = tile.alloc "e" {layout = #tile.fragment<register = [(1)], lane = [(0), (0), (0), (0), (0)], warp = [(0)]>} : memref<2xf32, #tile.space<fragment>>
    tile.reduce sum %s -> %d dim(0) : memref<64xf32, #tile.space<fragment>> -> memref<1xf32, #tile.space<fragment>>
    tile.reduce max %t -> %e dim(1) : memref<2x64xf32, #tile.space<fragment>> -> memref<2xf32, #tile.space<fragment>>
    gpu.return
  }
}

// -----

// Loops: `unroll` with static bounds is unrolled, `serial` stays a loop,
// and T.Pipelined becomes a plain loop keeping its schedule.
// CHECK-LABEL: gpu.func @loops
// CHECK-NOT: tile.for
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK: scf.for
// CHECK: scf.for {{.*}} {
// CHECK: } {tile.num_stages = 3 : i64, tile.order = array<i64: 1, 0>}
gpu.module @m {
  gpu.func @loops(%G: memref<4xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %one = arith.constant 1.0 : f32
    tile.for unroll %i = %c0 to %c4 step %c1 {
      memref.store %one, %G[%i] : memref<4xf32>
    }
    tile.for serial %i = %c0 to %c4 step %c1 {
      memref.store %one, %G[%i] : memref<4xf32>
    }
    tile.pipelined %k = %c0 to %c4 step %c1 num_stages(3) order [1, 0] {
      memref.store %one, %G[%k] : memref<4xf32>
    }
    gpu.return
  }
}

// -----

// One-to-one ops; local buffers become allocas without memory space.
// CHECK-LABEL: gpu.func @misc
// CHECK: %[[LOCAL:.*]] = memref.alloca() : memref<4xf32>
// CHECK: gpu.barrier
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}] : (f32, memref<8xf32>) -> f32
// CHECK: memref.store %{{.*}}, %[[LOCAL]][%{{.*}}] : memref<4xf32>
// CHECK: gpu.printf "x (block %lld,%lld,%lld thread %lld): %f\0A"
// CHECK: cf.assert %{{.*}}, "in range"
// PRINTF-LABEL: gpu.func @misc
// PRINTF: scf.if
// PRINTF: gpu.printf "assertion failed at {{.*}}lower-simt.mlir:{{[0-9]+}}:{{[0-9]+}} (block %lld,%lld,%lld thread %lld): in range\0A"
gpu.module @m {
  gpu.func @misc(%G: memref<8xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %l = tile.alloc "l" : memref<4xf32, #tile.space<local>>
    tile.barrier
    tile.atomic_add %G[%c0], %one : memref<8xf32>, f32
    memref.store %one, %l[%c0] : memref<4xf32, #tile.space<local>>
    tile.print %one msg("x") : f32
    %ok = arith.constant true
    tile.device_assert %ok, "in range"
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @no_layout() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    // expected-error @below {{fragment `f` has no layout; run tile-infer-layouts first}}
    %f = tile.alloc "f" : memref<32xf32, #tile.space<fragment>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @outside_loop() kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
    %f = tile.alloc "f" {layout = #tile.fragment<register = [], lane = [(1), (2)], warp = []>} : memref<4xf32, #tile.space<fragment>>
    %c0 = arith.constant 0 : index
    // expected-error @below {{fragment `f` is read at [0] outside a T.Parallel loop, but its layout (decided by the ops that compute it) puts that element in some threads only}}
    %x = memref.load %f[%c0] : memref<4xf32, #tile.space<fragment>>
    gpu.return
  }
}

// -----

// Serial code reads and writes a replicated fragment (every thread holds
// element e in register e): a constant index is that register, an index
// known at run time indexes the register array.
// CHECK-LABEL: gpu.func @replicated_serial
// CHECK: %[[REGS:.*]] = memref.alloca() : memref<4xf32>
// CHECK: memref.store %{{.*}}, %[[REGS]][%c2{{.*}}] : memref<4xf32>
// CHECK: scf.for %[[K:.*]] =
// CHECK:   memref.load %[[REGS]][%[[K]]] : memref<4xf32>
gpu.module @m {
  gpu.func @replicated_serial(%out: memref<4xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
    %f = tile.alloc "f" {layout = #tile.fragment<register = [(1), (2)], lane = [(0), (0)], warp = []>} : memref<4xf32, #tile.space<fragment>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %v = arith.constant 1.0 : f32
    memref.store %v, %f[%c2] : memref<4xf32, #tile.space<fragment>>
    scf.for %k = %c0 to %c4 step %c1 {
      %x = memref.load %f[%k] : memref<4xf32, #tile.space<fragment>>
      memref.store %x, %out[%k] : memref<4xf32>
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @spread_dynamic(%out: memref<4xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
    %f = tile.alloc "f" {layout = #tile.fragment<register = [], lane = [(1), (2)], warp = []>} : memref<4xf32, #tile.space<fragment>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %k = %c0 to %c4 step %c1 {
      // expected-error @below {{fragment `f` is indexed outside a T.Parallel loop by a value known only at run time, but its layout (decided by the ops that compute it, e.g. a T.gemm) spreads it over the threads}}
      %x = memref.load %f[%k] : memref<4xf32, #tile.space<fragment>>
      memref.store %x, %out[%k] : memref<4xf32>
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @wrong_register() kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
    %f = tile.alloc "f" {layout = #tile.fragment<register = [], lane = [(1), (2)], warp = []>} : memref<4xf32, #tile.space<fragment>>
    %one = arith.constant 1.0 : f32
    tile.parallel (%i) in [4] attributes {loop_layout = #tile.fragment<register = [], lane = [(1), (2)], warp = []>} {
      %c1 = arith.constant 1 : index
      %j = arith.xori %i, %c1 : index
      // expected-error @below {{fragment `f` is not laid out like this T.Parallel loop: thread 0 runs iteration [0] but does not hold element [1]}}
      memref.store %one, %f[%j] : memref<4xf32, #tile.space<fragment>>
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @scan() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %s = tile.alloc "s" : memref<32xf32, #tile.space<local>>
    // expected-error @below {{the SIMT lowering scans shared buffers only; run tile-decompose-scan first}}
    tile.scan sum %s -> %s dim(0) : memref<32xf32, #tile.space<local>> -> memref<32xf32, #tile.space<local>>
    gpu.return
  }
}

// -----

// A copy from global into shared memory runs strided over the box in
// 16-byte vectors: 16 threads, one vector of 8 f16 each, thread t moving
// row t / 2, columns (t % 2) * 8 + [0, 8). Rows past the tensor read zero;
// the columns are provably inside. Both accesses are aligned vectors. The
// shared buffer stays a tile.alloc for tile-plan-shared.
// CHECK-LABEL: gpu.func @shared_copy
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[S:.*]] = tile.alloc "s" : memref<8x16xf16, #tile.space<shared>>
// CHECK-DAG: %[[HALF:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK-DAG: %[[ROW:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK: %[[COL:.*]] = arith.muli %[[HALF]], %{{.*}} : index
// CHECK: %[[GROW:.*]] = arith.addi %{{.*}}, %[[ROW]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[GROW]], %{{.*}} : index
// CHECK: %[[X:.*]] = scf.if %[[IN]] -> (vector<8xf16>) {
// CHECK:   vector.load %{{.*}}[%[[GROW]], %[[COL]]] {alignment = 16 : i64} : memref<60x16xf16>, vector<8xf16>
// CHECK: vector.store %[[X]], %[[S]][%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<8x16xf16, #tile.space<shared>>, vector<8xf16>
// CHECK-NEXT: gpu.return
gpu.module @m {
  gpu.func @shared_copy(%G: memref<60x16xf16>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %s = tile.alloc "s" : memref<8x16xf16, #tile.space<shared>>
    %bx = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %r = arith.muli %bx, %c8 : index
    tile.copy %G[%r, %c0] [8, 16] to %s[%c0, %c0] [8, 16] : memref<60x16xf16>, memref<8x16xf16, #tile.space<shared>>
    gpu.return
  }
}

// -----

// Every thread holds both elements of `f` (zero lane bases) and runs both
// iterations, but only the first replica (thread bits 0-1 clear) adds to
// global memory: 4 replicas must not add 4 times.
// CHECK-LABEL: gpu.func @replicated_atomic
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[BITS:.*]] = arith.andi %[[TID]], %[[MASK:.*]] : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[BITS]], %{{.*}} : index
// CHECK: %[[V0:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<2xf32>
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.atomic_rmw addf %[[V0]]
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.atomic_rmw addf
gpu.module @m {
  gpu.func @replicated_atomic(%G: memref<2xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
    %f = tile.alloc "f" {layout = #tile.fragment<register = [(1)], lane = [(0), (0)], warp = []>} : memref<2xf32, #tile.space<fragment>>
    tile.parallel (%i) in [2] attributes {loop_layout = #tile.fragment<register = [(1)], lane = [(0), (0)], warp = []>} {
      %x = memref.load %f[%i] : memref<2xf32, #tile.space<fragment>>
      tile.atomic_add %G[%i], %x : memref<2xf32>, f32
    }
    gpu.return
  }
}
