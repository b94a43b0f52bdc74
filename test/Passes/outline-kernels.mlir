// tile-outline-kernels: each tile.kernel becomes a gpu.func kernel taking
// all the prim_func's arguments, launched from the func by gpu.launch_func.
// RUN: tilec-opt %s -split-input-file -tile-outline-kernels -verify-diagnostics | FileCheck %s

// One kernel: `<func>_kernel`. Static tensors keep their type and become
// noalias, 16-byte aligned pointers; block and thread sizes are known.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: func.func @vadd(%[[A:.*]]: memref<1024xf32> {tile.name = "A"}, %[[B:.*]]: memref<1024xf32> {tile.name = "B"})
// CHECK-SAME: tile.kernels = [@tilec_kernels::@vadd_kernel]
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[T:.*]] = arith.constant 256 : index
// CHECK: gpu.launch_func @tilec_kernels::@vadd_kernel blocks in (%[[C4]], %[[ONE]], %[[ONE]]) threads in (%[[T]], %[[ONE]], %[[ONE]]) args(%[[A]] : memref<1024xf32>, %[[B]] : memref<1024xf32>)
// CHECK-NOT: tile.kernel blocks
// CHECK: gpu.module @tilec_kernels
// CHECK: gpu.func @vadd_kernel(%{{.*}}: memref<1024xf32> {llvm.align = 16 : i64, llvm.noalias, tile.name = "A"}, %{{.*}}: memref<1024xf32> {llvm.align = 16 : i64, llvm.noalias, tile.name = "B"}) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>
// CHECK-SAME: tile.dynamic_shared_bytes = 0 : i64, tile.func = "vadd", tile.grid_host = ["4"], tile.launch = 0 : i64, tile.threads = 256 : i64
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[TX:.*]] = gpu.thread_id x
// CHECK: %[[BASE:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK: arith.addi %[[BASE]], %[[TX]] : index
// CHECK: gpu.return
module {
  func.func @vadd(%A: memref<1024xf32> {tile.name = "A"}, %B: memref<1024xf32> {tile.name = "B"}) attributes {tile.kernel} {
    %c4 = arith.constant 4 : index
    tile.kernel blocks(%bx) in (%c4) threads(256) attributes {tile.grid_host = ["4"]} {
      %tx = tile.thread_id x
      %c256 = arith.constant 256 : index
      %base = arith.muli %bx, %c256 : index
      %i = arith.addi %base, %tx : index
      %x = memref.load %A[%i] : memref<1024xf32>
      memref.store %x, %B[%i] : memref<1024xf32>
    }
    return
  }
}

// -----

// Two kernels: `<func>_kernel0`, `<func>_kernel1`, launched in order. A
// dynamic tensor is a rank-0 memref (its base pointer) rebuilt inside with
// the symbol's value; the symbol is an i32 parameter. Pure host values the
// kernel uses (the grid size) are recomputed on the device; the grid is
// not static, so there is no known_grid_size.
// CHECK-LABEL: func.func @two
// CHECK-SAME: tile.kernels = [@tilec_kernels::@two_kernel0, @tilec_kernels::@two_kernel1]
// CHECK-DAG: %[[N32:.*]] = arith.index_cast %[[N:.*]] : index to i32
// CHECK-DAG: %[[BASE:.*]] = memref.reinterpret_cast %[[X:.*]] to offset: [0], sizes: [], strides: [] : memref<?x64xf32> to memref<f32>
// CHECK: gpu.launch_func @tilec_kernels::@two_kernel0 {{.*}} args(%[[BASE]] : memref<f32>, %[[N32]] : i32)
// CHECK: gpu.launch_func @tilec_kernels::@two_kernel1
// CHECK: gpu.func @two_kernel0(%[[P:.*]]: memref<f32> {llvm.align = 16 : i64, llvm.noalias, tile.name = "X"}, %[[S:.*]]: i32 {tile.symbol = "n"}) kernel
// CHECK-NOT: known_grid_size
// CHECK-SAME: tile.launch = 0 : i64
// CHECK: %[[NI:.*]] = arith.index_cast %[[S]] : i32 to index
// CHECK: %[[V:.*]] = memref.reinterpret_cast %[[P]] to offset: [0], sizes: [%[[NI]], 64], strides: [64, 1] : memref<f32> to memref<?x64xf32>
// CHECK: %[[G:.*]] = arith.divui %[[NI]], %{{.*}} : index
// CHECK: memref.store %{{.*}}, %[[V]][%[[G]], %{{.*}}] : memref<?x64xf32>
// CHECK: gpu.func @two_kernel1
// CHECK-SAME: tile.launch = 1 : i64
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[ZERO]], %[[ZERO]]]
module {
  func.func @two(%X: memref<?x64xf32> {tile.name = "X"}, %n: index {tile.symbol = "n"}) attributes {tile.kernel} {
    %c128 = arith.constant 128 : index
    %g = arith.divui %n, %c128 : index
    tile.kernel blocks(%bx) in (%g) threads(128) {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %X[%g, %c0] : memref<?x64xf32>
    }
    tile.kernel blocks(%bx) in (%g) threads(128) {
      %ty = tile.thread_id y
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %X[%ty, %ty] : memref<?x64xf32>
    }
    return
  }
}

// -----

// With several symbols, `tile.shape` says which one sizes each dimension.
// CHECK-LABEL: gpu.func @shaped_kernel
// CHECK-SAME: (%[[P:.*]]: memref<f16> {{.*}}, %[[M:.*]]: i32 {tile.symbol = "m"}, %[[K:.*]]: i32 {tile.symbol = "k"})
// CHECK-DAG: %[[MI:.*]] = arith.index_cast %[[M]] : i32 to index
// CHECK-DAG: %[[KI:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK: memref.reinterpret_cast %[[P]] to offset: [0], sizes: [%[[MI]], %[[KI]]], strides: [%[[KI]], 1] : memref<f16> to memref<?x?xf16>
module {
  func.func @shaped(%A: memref<?x?xf16> {tile.shape = ["m", "k"]}, %m: index {tile.symbol = "m"}, %k: index {tile.symbol = "k"}) attributes {tile.kernel} {
    %c1 = arith.constant 1 : index
    tile.kernel blocks(%bx) in (%c1) threads(32) {
      %c0 = arith.constant 0 : index
      %x = memref.load %A[%c0, %c0] : memref<?x?xf16>
      memref.store %x, %A[%c0, %c0] : memref<?x?xf16>
    }
    return
  }
}

// -----

// T.use_swizzle(panel_size=4): blocks launched in order L = by * gx + bx
// walk panels of 4 block rows, column by column. The remap is kernel-wide:
// a use before the op (`by % 4` here, as in `bh = bbh % H` computed ahead
// of T.use_swizzle) sees the remapped indices too, or the blocks would not
// cover the grid once.
// CHECK-LABEL: gpu.func @swizzled_kernel
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[BY:.*]] = gpu.block_id y
// CHECK: %[[GX:.*]] = gpu.grid_dim x
// CHECK: %[[GY:.*]] = gpu.grid_dim y
// CHECK: %[[P:.*]] = arith.constant 4 : index
// CHECK: %[[ROWS:.*]] = arith.muli %[[BY]], %[[GX]]
// CHECK: %[[L:.*]] = arith.addi %[[ROWS]], %[[BX]]
// CHECK: %[[SPAN:.*]] = arith.muli %[[P]], %[[GX]]
// CHECK: %[[PANEL:.*]] = arith.divui %[[L]], %[[SPAN]]
// CHECK: %[[OFF:.*]] = arith.remui %[[L]], %[[SPAN]]
// CHECK: %[[FIRST:.*]] = arith.muli %[[PANEL]], %[[P]]
// CHECK: %[[LEFT:.*]] = arith.subi %[[GY]], %[[FIRST]]
// CHECK: %[[HEIGHT:.*]] = arith.minui %[[P]], %[[LEFT]]
// CHECK: %[[R:.*]] = arith.remui %[[OFF]], %[[HEIGHT]]
// CHECK: %[[NBY:.*]] = arith.addi %[[FIRST]], %[[R]]
// CHECK: %[[NBX:.*]] = arith.divui %[[OFF]], %[[HEIGHT]]
// CHECK-NOT: gpu.block_id
// CHECK: %[[H:.*]] = arith.remui %[[NBY]], %{{.*}}
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[H]], %[[NBX]]]
// CHECK-NOT: tile.use_swizzle
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[NBY]], %[[NBX]]]
module {
  func.func @swizzled(%C: memref<64x64xf32>) attributes {tile.kernel} {
    %c8 = arith.constant 8 : index
    tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(32) {
      %one = arith.constant 1.0 : f32
      %c4 = arith.constant 4 : index
      %h = arith.remui %by, %c4 : index
      memref.store %one, %C[%h, %bx] : memref<64x64xf32>
      tile.use_swizzle panel_size = 4, order = row
      memref.store %one, %C[%by, %bx] : memref<64x64xf32>
    }
    return
  }
}

// -----

module {
  // expected-error @below {{cannot tell which symbol is dimension 0 of argument #0; give the argument a `tile.shape` attribute naming the symbol of each dynamic dimension}}
  func.func @ambiguous(%A: memref<?xf32>, %m: index {tile.symbol = "m"}, %n: index {tile.symbol = "n"}) attributes {tile.kernel} {
    %c1 = arith.constant 1 : index
    tile.kernel blocks(%bx) in (%c1) threads(32) {
    }
    return
  }
}

// -----

// A dynamic dimension may be an expression over symbols.
// CHECK-LABEL: gpu.func @expression_kernel
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[SUM:.*]] = arith.addi %[[N]], %[[ONE]] : index
// CHECK: %[[TWO:.*]] = arith.constant 2 : index
// CHECK: %[[SIZE:.*]] = arith.muli %[[SUM]], %[[TWO]] : index
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%[[SIZE]]], strides: [1]
module {
  func.func @expression(%A: memref<?xf32> {tile.shape = ["(n + 1) * 2"]}, %n: index {tile.symbol = "n"}) attributes {tile.kernel} {
    %c1 = arith.constant 1 : index
    tile.kernel blocks(%bx) in (%c1) threads(32) {
    }
    return
  }
}

// -----

module {
  // expected-error @below {{dimension 0 of argument #0 is "m * 2"; a dynamic dimension must be an integer expression (+ - * / %, parentheses) over symbol names}}
  func.func @unknown_symbol(%A: memref<?xf32> {tile.shape = ["m * 2"]}, %n: index {tile.symbol = "n"}) attributes {tile.kernel} {
    %c1 = arith.constant 1 : index
    tile.kernel blocks(%bx) in (%c1) threads(32) {
    }
    return
  }
}
