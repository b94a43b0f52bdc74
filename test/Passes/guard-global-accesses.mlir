// tile-guard-global-accesses: element accesses to global tensors whose
// indices are not proved inside the shape run under the missing checks
// (TileLang's LegalizeSafeMemoryAccess); proved ones stay as they are.
// RUN: tilec-opt %s -split-input-file -tile-guard-global-accesses | FileCheck %s

// clean_logits_: the column walks past seq_len_kv (guarded against the
// symbol the shape names); the row is the block index of a grid of
// seq_len blocks, and every term is non-negative: no other check.
// CHECK-LABEL: func.func @dynamic_columns
// CHECK: tile.for serial %[[K:.*]] = {{.*}} {
// CHECK: %[[IDX:.*]] = arith.addi
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[IDX]], %arg2 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: memref.store %{{.*}}, %arg0[%{{.*}}, %[[IDX]]]
// CHECK-NOT: arith.cmpi
func.func @dynamic_columns(%L: memref<?x?xf32> {tile.name = "Logits", tile.shape = ["seq_len", "seq_len_kv"]}, %n: index {tile.symbol = "seq_len"}, %nkv: index {tile.symbol = "seq_len_kv"}) attributes {tile.kernel} {
  tile.kernel blocks(%bx) in (%n) threads(512) {
    %tx = tile.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c512 = arith.constant 512 : index
    %v = arith.constant 1.0 : f32
    tile.for serial %k = %c0 to %c8 step %c1 {
      %0 = arith.muli %k, %c512 : index
      %idx = arith.addi %0, %tx : index
      memref.store %v, %L[%bx, %idx] : memref<?x?xf32>
    }
  }
  return
}

// -----

// A grid that covers the tensor exactly: every access proved, nothing
// changes. A grid that passes it (8 blocks of 128 rows over 1000): the
// rows are checked, a load yields 0 past the end.
// CHECK-LABEL: func.func @static_grids
// CHECK: tile.parallel
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.addi
// CHECK-NEXT: memref.load %arg0
// CHECK-NEXT: memref.store {{.*}} %arg1
// CHECK: tile.parallel
// CHECK: %[[R:.*]] = arith.addi
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[R]], %{{.*}} : index
// CHECK-NEXT: %[[X:.*]] = scf.if %[[IN]] -> (f16) {
// CHECK-NEXT: %[[L:.*]] = memref.load %arg2[%[[R]], %{{.*}}]
// CHECK-NEXT: scf.yield %[[L]] : f16
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT: scf.yield %[[Z]] : f16
// CHECK: arith.cmpi slt, %[[R]]
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store %[[X]], %arg3
func.func @static_grids(%A: memref<1024x64xf16>, %B: memref<1024x64xf16>, %C: memref<1000x64xf16>, %D: memref<1000x64xf16>) attributes {tile.kernel} {
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx) in (%c8) threads(128) {
    tile.parallel (%i, %j) in [128, 64] {
      %0 = arith.muli %bx, %c128 : index
      %r = arith.addi %0, %i : index
      %x = memref.load %A[%r, %j] : memref<1024x64xf16>
      memref.store %x, %B[%r, %j] : memref<1024x64xf16>
    }
    tile.parallel (%i, %j) in [128, 64] {
      %0 = arith.muli %bx, %c128 : index
      %r = arith.addi %0, %i : index
      %x = memref.load %C[%r, %j] : memref<1000x64xf16>
      memref.store %x, %D[%r, %j] : memref<1000x64xf16>
    }
  }
  return
}

// -----

// The user's own checks prove the access: `if r < M` on the same value,
// or on the index computed again; `r < M and c < N` as Python's `and`
// (an scf.if yielding false otherwise). An `i - 1` may be negative: the
// check `>= 0` is added, the user's `< M` kept.
// CHECK-LABEL: func.func @user_guards
// CHECK-NOT: arith.cmpi sge
// CHECK: arith.subi
// CHECK: arith.cmpi sge
// CHECK-NOT: arith.cmpi
// CHECK: return
func.func @user_guards(%A: memref<?x?xf32> {tile.shape = ["m", "n"]}, %m: index {tile.symbol = "m"}, %n: index {tile.symbol = "n"}) attributes {tile.kernel} {
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx, %by) in (%m, %n) threads(256) {
    %v = arith.constant 2.0 : f32
    tile.parallel (%i, %j) in [16, 16] {
      %0 = arith.muli %by, %c16 : index
      %r = arith.addi %0, %i : index
      %1 = arith.muli %bx, %c16 : index
      %c = arith.addi %1, %j : index
      %in = arith.cmpi slt, %r, %m : index
      %both = scf.if %in -> (i1) {
        %cn = arith.cmpi slt, %c, %n : index
        scf.yield %cn : i1
      } else {
        %false = arith.constant false
        scf.yield %false : i1
      }
      scf.if %both {
        memref.store %v, %A[%r, %c] : memref<?x?xf32>
      }
      %2 = arith.muli %by, %c16 : index
      %r2 = arith.addi %2, %i : index
      %in2 = arith.cmpi ult, %r2, %m : index
      %in3 = arith.cmpi slt, %c, %n : index
      %in4 = arith.andi %in2, %in3 : i1
      scf.if %in4 {
        %3 = arith.muli %by, %c16 : index
        %r3 = arith.addi %3, %i : index
        memref.store %v, %A[%r3, %c] : memref<?x?xf32>
      }
      %rm = arith.subi %r, %c1 : index
      scf.if %in4 {
        memref.store %v, %A[%rm, %c] : memref<?x?xf32>
      }
    }
  }
  return
}

// -----

// Constant indices, on-chip buffers and views are not checked; neither is
// a kernel under TL_DISABLE_SAFE_MEMORY_ACCESS. An atomic is.
// CHECK-LABEL: func.func @unchecked
// CHECK-NOT: scf.if
// CHECK: return
// CHECK-LABEL: func.func @disabled
// CHECK-NOT: scf.if
// CHECK: return
// CHECK-LABEL: func.func @atomic
// CHECK: arith.cmpi slt
// CHECK-NEXT: scf.if
// CHECK-NEXT: tile.atomic_add
func.func @unchecked(%A: memref<?xf32> {tile.shape = ["n"]}, %n: index {tile.symbol = "n"}) attributes {tile.kernel} {
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c4) threads(128) {
    %c0 = arith.constant 0 : index
    %x = memref.load %A[%c0] : memref<?xf32>
    %S = tile.alloc "S" : memref<128xf32, #tile.space<shared>>
    %tx = tile.thread_id x
    %y = arith.addi %tx, %bx : index
    memref.store %x, %S[%y] : memref<128xf32, #tile.space<shared>>
  }
  return
}
func.func @disabled(%A: memref<?xf32> {tile.shape = ["n"]}, %n: index {tile.symbol = "n"}) attributes {tile.kernel, tile.disable_safe_memory_access} {
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c4) threads(128) {
    %tx = tile.thread_id x
    %v = arith.constant 1.0 : f32
    memref.store %v, %A[%tx] : memref<?xf32>
  }
  return
}
func.func @atomic(%A: memref<100xf32>) attributes {tile.kernel} {
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c4) threads(32) {
    %tx = tile.thread_id x
    %c32 = arith.constant 32 : index
    %0 = arith.muli %bx, %c32 : index
    %i = arith.addi %0, %tx : index
    %v = arith.constant 1.0 : f32
    tile.atomic_add %A[%i], %v : memref<100xf32>, f32
  }
  return
}

// -----

// An unsigned comparison proves the signed bound only where that bound is
// non-negative: `i <u -1` holds for nearly every i and proves nothing, so
// the store past 100 is still checked; `i <u 100` proves it.
// CHECK-LABEL: func.func @unsigned_bounds
// CHECK: arith.cmpi ult, %[[I:.*]], %c-1
// CHECK: scf.if
// CHECK: arith.cmpi slt, %[[I]], %c100
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store
// CHECK: arith.cmpi ult
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store
func.func @unsigned_bounds(%A: memref<100xf32>) attributes {tile.kernel} {
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c4) threads(32) {
    %tx = tile.thread_id x
    %c32 = arith.constant 32 : index
    %0 = arith.muli %bx, %c32 : index
    %i = arith.addi %0, %tx : index
    %v = arith.constant 1.0 : f32
    %m1 = arith.constant -1 : index
    %any = arith.cmpi ult, %i, %m1 : index
    scf.if %any {
      memref.store %v, %A[%i] : memref<100xf32>
    }
    %c100 = arith.constant 100 : index
    %in = arith.cmpi ult, %i, %c100 : index
    scf.if %in {
      memref.store %v, %A[%i] : memref<100xf32>
    }
  }
  return
}

// -----

// A `T.Tensor(shape, dtype, X.data)` view (a tile.view cast) is guarded by
// its own extents: 8 columns, not the tensor's 6; a dynamic one by its size
// operand. A cast that is not a view is not a tensor of the kernel's.
// CHECK-LABEL: func.func @views
// CHECK:      %[[LT:.*]] = arith.cmpi slt, %[[J:.*]], %c8 : index
// CHECK-NEXT: scf.if %[[LT]] {
// CHECK-NEXT:   memref.store %{{.*}}, %[[V:.*]][%{{.*}}, %[[J]]] : memref<3x8xf32>
// CHECK:      arith.cmpi slt, %{{.*}}, %[[N:.*]] : index
// CHECK-NEXT: scf.if
// CHECK-NEXT:   memref.store %{{.*}} : memref<?xf32>
// CHECK-NOT:  scf.if
func.func @views(%X: memref<4x6xf32>, %n: index) attributes {tile.kernel} {
  %c3 = arith.constant 3 : index
  tile.kernel blocks(%bx) in (%c3) threads(32) {
    %v = memref.reinterpret_cast %X to offset: [0], sizes: [3, 8], strides: [8, 1] {tile.view} : memref<4x6xf32> to memref<3x8xf32>
    %d = memref.reinterpret_cast %X to offset: [0], sizes: [%n], strides: [1] {tile.view} : memref<4x6xf32> to memref<?xf32>
    %o = memref.reinterpret_cast %X to offset: [0], sizes: [24], strides: [1] : memref<4x6xf32> to memref<24xf32>
    %j = tile.thread_id x
    %f = arith.constant 1.0 : f32
    memref.store %f, %v[%bx, %j] : memref<3x8xf32>
    memref.store %f, %d[%j] : memref<?xf32>
    memref.store %f, %o[%j] : memref<24xf32>
  }
  return
}
