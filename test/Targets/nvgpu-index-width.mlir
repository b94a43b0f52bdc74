// nvgpu ops are lowered at the index width of the rest of the lowering
// (32 bits): an scf.if yielding an index (here the block index, as a loop
// extent) next to nvgpu ops used to be retyped to i64 by upstream's
// convert-nvgpu-to-nvvm and end in "LLVM Translation failed for operation:
// builtin.unrealized_conversion_cast".
// RUN: tilec %s --emit=ptx --target sm_80 -o - | FileCheck %s

// CHECK-LABEL: .visible .entry k(
// CHECK: mov.u32 {{.*}}%ctaid.x;
// CHECK: cp.async.ca.shared.global
// CHECK: cp.async.wait_group 0;
// CHECK: ldmatrix.sync.aligned.m8n8.x1.shared.b16
// CHECK-NOT: unrealized

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%src: memref<1024xf16>, %out: memref<4096xi32>)
        workgroup(%smem : memref<16x16xf16, #gpu.address_space<workgroup>>)
        kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c8 = arith.constant 8 : index
      %bx = gpu.block_id x
      %tx = gpu.thread_id x
      %p = arith.cmpi slt, %bx, %c2 : index
      %n = scf.if %p -> (index) {
        %a = arith.addi %bx, %c2 : index
        scf.yield %a : index
      } else {
        scf.yield %bx : index
      }
      %row = arith.remui %tx, %c8 : index
      %t = nvgpu.device_async_copy %src[%c0], %smem[%row, %c0], 8
          : memref<1024xf16> to memref<16x16xf16, #gpu.address_space<workgroup>>
      nvgpu.device_async_wait %t
      scf.for %i = %c0 to %n step %c1 {
        %f = nvgpu.ldmatrix %smem[%row, %c0] {numTiles = 1 : i32, transpose = false}
            : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<1x2xf16>
        %v = vector.extract %f[0] : vector<2xf16> from vector<1x2xf16>
        %w = vector.bitcast %v : vector<2xf16> to vector<1xi32>
        %s = vector.extract %w[0] : i32 from vector<1xi32>
        memref.store %s, %out[%i] : memref<4096xi32>
      }
      gpu.return
    }
  }
}
