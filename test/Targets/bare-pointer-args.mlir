// Kernel memrefs are passed as bare pointers, so their shape must be static;
// a dynamic one is refused with an error at the kernel.
// RUN: not tilec %s --emit=ptx --target sm_80 -o %t.ptx 2>&1 | FileCheck %s

module {
  gpu.module @kernels {
    // CHECK: :[[@LINE+1]]:{{[0-9]+}}: error: argument #1 of 'scale' has type 'memref<?xf32>', which cannot be passed as a bare pointer
    gpu.func @scale(%n: i32, %a: memref<?xf32>) kernel {
      gpu.return
    }
  }
}
