// math ops lower to device-library calls (libdevice __nv_* on NVIDIA, ocml on
// AMD) that must be linked, inlined and gone from the output.
// RUN: tilec %s --emit=ptx --target sm_80 -o - | FileCheck %s --check-prefix=PTX
// RUN: tilec %s --emit=llvm --target gfx90a -o - | FileCheck %s --check-prefix=AMD

// PTX-LABEL: .visible .entry softplus(
// PTX-NOT: __nv_
// PTX: ex2.approx
// PTX-NOT: .extern
// PTX-NOT: call

// AMD-LABEL: define amdgpu_kernel void @softplus(
// AMD-NOT: declare {{.*}}@__ocml_
// AMD-NOT: call {{.*}}@__ocml_
// AMD-NOT: @__oclc_

module {
  gpu.module @kernels {
    // y = log(1 + exp(x))
    gpu.func @softplus(%x: memref<4096xf32>, %y: memref<4096xf32>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c256 = arith.constant 256 : index
      %base = arith.muli %bid, %c256 : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %x[%i] : memref<4096xf32>
      %e = math.exp %v : f32
      %one = arith.constant 1.0 : f32
      %s = arith.addf %e, %one : f32
      %l = math.log %s : f32
      memref.store %l, %y[%i] : memref<4096xf32>
      gpu.return
    }
  }
}
