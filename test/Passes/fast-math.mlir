// tile-fast-math adds fastmath<arcp,contract,afn> to the float ops of kernels (inside a
// tile.kernel, or in a gpu.func once outlined) and leaves host code, other
// functions and ops without fastmath flags alone.
// RUN: tilec-opt %s -split-input-file -tile-fast-math | FileCheck %s
// RUN: tilec-opt %s -split-input-file | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @gelu
// OFF-LABEL: func.func @gelu
func.func @gelu(%g: memref<128xf32>, %s: f32) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  // Host code around the kernel: not marked.
  // CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
  %host = arith.mulf %s, %s : f32
  // CHECK: tile.kernel
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %one = arith.constant 1.0 : f32
    %c = arith.constant -1.5957691216 : f32
    // CHECK: tile.parallel
    tile.parallel (%i) in [128] {
      // CHECK-NEXT: memref.load
      // CHECK-NEXT: arith.mulf %{{.*}}, %{{.*}} fastmath<arcp,contract,afn> : f32
      // CHECK-NEXT: math.exp %{{.*}} fastmath<arcp,contract,afn> : f32
      // CHECK-NEXT: arith.addf %{{.*}}, %{{.*}} fastmath<arcp,contract,afn> : f32
      // CHECK-NEXT: arith.divf %{{.*}}, %{{.*}} fastmath<arcp,contract,afn> : f32
      // CHECK-NEXT: arith.cmpf olt, %{{.*}}, %{{.*}} fastmath<arcp,contract,afn> : f32
      // CHECK-NEXT: arith.select
      // CHECK-NEXT: arith.truncf %{{.*}} fastmath<arcp,contract,afn> : f32 to f16
      // CHECK-NEXT: arith.extf %{{.*}} fastmath<arcp,contract,afn> : f16 to f32
      // CHECK-NEXT: memref.store
      %x = memref.load %g[%i] : memref<128xf32>
      %t = arith.mulf %x, %c fastmath<contract> : f32
      %e = math.exp %t : f32
      %d = arith.addf %e, %one : f32
      %y = arith.divf %x, %d : f32
      %neg = arith.cmpf olt, %y, %one : f32
      %z = arith.select %neg, %y, %one : f32
      %h = arith.truncf %z : f32 to f16
      %w = arith.extf %h : f16 to f32
      memref.store %w, %g[%i] : memref<128xf32>
    }
  }
  return
}
// Without the pass the flags stay as written.
// OFF: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// OFF-NEXT: math.exp %{{.*}} : f32
// OFF-NEXT: arith.addf %{{.*}}, %{{.*}} : f32
// OFF-NEXT: arith.divf %{{.*}}, %{{.*}} : f32

// -----

// Outlined kernels and device functions are device code too; a host
// function is not.
// CHECK-LABEL: gpu.module @kernels
gpu.module @kernels {
  // CHECK: gpu.func @k
  // CHECK: math.log %{{.*}} fastmath<arcp,contract,afn> : f32
  // CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<arcp,contract,afn> : f32
  gpu.func @k(%x: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%c0] : memref<4xf32>
    %l = math.log %v : f32
    %q = arith.divf %l, %v : f32
    memref.store %q, %x[%c0] : memref<4xf32>
    gpu.return
  }
  // CHECK: gpu.func @device_fn
  // CHECK: math.sqrt %{{.*}} fastmath<arcp,contract,afn> : f32
  gpu.func @device_fn(%v: f32) -> f32 {
    %r = math.sqrt %v : f32
    gpu.return %r : f32
  }
}
// CHECK-LABEL: func.func @host
// CHECK-NEXT: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: math.exp %{{.*}} : f32
// CHECK-NEXT: return
func.func @host(%a: f32, %b: f32) -> f32 {
  %q = arith.divf %a, %b : f32
  %e = math.exp %q : f32
  return %e : f32
}
