// Threads per block are checked against the chip before any code is
// generated (the frontend checks `T.Kernel(threads=...)`; this covers
// GPU-level input): tile.threads for the launch header, else the
// known_block_size the kernel is compiled for. Exit 1, no output file.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %expect_exit 1 tilec %s --emit=ptx --target sm_90a -o %t/k.ptx 2>&1 | FileCheck %s --check-prefixes=CHECK,SM90A --strict-whitespace --match-full-lines
// RUN: %expect_exit 1 tilec %s --emit=hsaco --target gfx942 -o %t/k.hsaco 2>&1 | FileCheck %s --check-prefixes=CHECK,GFX942 --strict-whitespace --match-full-lines
// RUN: ls %t | count 0

// SM90A:{{.*}}resources-threads.mlir:[[@LINE+11]]:5: error: kernel `header_threads` has 2048 threads per block, more than the 1024 a block may have on sm_90a
// GFX942:{{.*}}resources-threads.mlir:[[@LINE+10]]:5: error: kernel `header_threads` has 2048 threads per block, more than the 1024 a block may have on gfx942
// CHECK-NEXT:    gpu.func @header_threads() kernel attributes {tile.threads = 2048 : i64} {
// CHECK-NEXT:    ^
// SM90A-NEXT:{{.*}}resources-threads.mlir:[[@LINE+13]]:5: error: kernel `bound_threads` has 1280 threads per block, more than the 1024 a block may have on sm_90a
// GFX942-NEXT:{{.*}}resources-threads.mlir:[[@LINE+12]]:5: error: kernel `bound_threads` has 1280 threads per block, more than the 1024 a block may have on gfx942
// CHECK-NEXT:    gpu.func @bound_threads() kernel attributes {known_block_size = array<i32: 640, 2, 1>} {
// CHECK-NEXT:    ^
// CHECK-NOT:{{.*(error|warning|note):.*}}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @header_threads() kernel attributes {tile.threads = 2048 : i64} {
      gpu.return
    }
    gpu.func @fits() kernel attributes {tile.threads = 1024 : i64} {
      gpu.return
    }
    gpu.func @bound_threads() kernel attributes {known_block_size = array<i32: 640, 2, 1>} {
      gpu.return
    }
  }
}
