// Registers per block are checked against the chip once ptxas has said how
// many a thread uses: this kernel keeps 128 floats per thread alive across
// a loop and states no launch bound to ptxas (no known_block_size), so
// ptxas gives it well over 64 registers, too many for the 1024 threads the
// header would launch (tile.threads). Every output that runs ptxas fails
// with the error at the kernel, exit 1 and no file.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: %expect_exit 1 tilec %s --emit=cubin -o %t/k.cubin 2>&1 | FileCheck %s --strict-whitespace --match-full-lines
// RUN: %expect_exit 1 tilec %s --target sm_80 -o %t/k.ptx --header %t/k.h --json %t/k.json 2>&1 | FileCheck %s --strict-whitespace --match-full-lines
// RUN: ls %t | count 0
// The same kernel launched with 256 threads fits: no message at all.
// RUN: sed 's/tile.threads = 1024/tile.threads = 256/' %s > %t/fits.mlir
// RUN: tilec %t/fits.mlir --emit=cubin -o %t/fits.cubin 2>&1 | count 0
// RUN: test -s %t/fits.cubin

// CHECK:{{.*}}resources-registers.mlir:[[@LINE+6]]:5: error: kernel `wide` needs {{[0-9]+}} registers per thread x 1024 threads = {{[0-9]+}} registers, more than the 65536 a block may use on sm_{{80|90a}}; at most 64 per thread fit 1024 threads
// CHECK-NEXT:    gpu.func @wide(%a: memref<131072xf32>, %n: i32) kernel attributes {tile.threads = 1024 : i64} {
// CHECK-NEXT:    ^
// CHECK-NOT:{{.*(error|warning|note):.*}}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @wide(%a: memref<131072xf32>, %n: i32) kernel attributes {tile.threads = 1024 : i64} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %one = arith.constant dense<1.0> : vector<128xf32>
      %base = arith.muli %tid, %c128 : index
      %v = vector.load %a[%base] : memref<131072xf32>, vector<128xf32>
      %count = arith.index_cast %n : i32 to index
      %r = scf.for %i = %c0 to %count step %c1 iter_args(%acc = %v) -> vector<128xf32> {
        %sq = arith.mulf %acc, %acc : vector<128xf32>
        %next = arith.addf %sq, %one : vector<128xf32>
        scf.yield %next : vector<128xf32>
      }
      vector.store %r, %a[%base] : memref<131072xf32>, vector<128xf32>
      gpu.return
    }
  }
}
