// tile-plan-shared: byte offsets of the shared buffers in the kernel's one
// dynamic shared-memory buffer, the total on the kernel and its launches.
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=sm_90a -tile-plan-shared -verify-diagnostics | FileCheck %s

// 256 bytes of f16 at 0; 12 bytes of f32 at the next 16-byte boundary
// (256); 4 more bytes at 272; total 276 rounded up to 288.
// CHECK-LABEL: func.func @host
// CHECK: %[[BYTES:.*]] = arith.constant 288 : i32
// CHECK: gpu.launch_func @tilec_kernels::@k {{.*}} dynamic_shared_memory_size %[[BYTES]]
// CHECK: gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, tile.dynamic_shared_bytes = 288 : i64}
// CHECK: tile.alloc "a" {tile.shared_offset = 0 : i64}
// CHECK: tile.alloc "b" {tile.shared_offset = 256 : i64}
// CHECK: tile.alloc "c" {tile.shared_offset = 272 : i64}
// CHECK: tile.alloc "frag"
// CHECK-NOT: tile.shared_offset
module attributes {gpu.container_module} {
  func.func @host() {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @tilec_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
    return
  }
  gpu.module @tilec_kernels {
    gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %a = tile.alloc "a" : memref<8x16xf16, #tile.space<shared>>
      %b = tile.alloc "b" : memref<3xf32, #tile.space<shared>>
      %c = tile.alloc "c" : memref<1xi32, #tile.space<shared>>
      %f = tile.alloc "frag" : memref<32xf32, #tile.space<fragment>>
      gpu.return
    }
  }
}

// -----

// A kernel without shared buffers needs none.
// CHECK-LABEL: gpu.func @none
// CHECK-SAME: tile.dynamic_shared_bytes = 0 : i64
gpu.module @tilec_kernels {
  gpu.func @none() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    gpu.return
  }
}

// -----

gpu.module @tilec_kernels {
  // expected-error @below {{kernel 'big' needs 262144 bytes of shared memory, more than the 232448 a block may use}}
  gpu.func @big() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    // expected-note @below {{`x`: 131072 bytes}}
    %x = tile.alloc "x" : memref<32768xf32, #tile.space<shared>>
    // expected-note @below {{`y`: 131072 bytes}}
    %y = tile.alloc "y" : memref<32768xf32, #tile.space<shared>>
    gpu.return
  }
}
