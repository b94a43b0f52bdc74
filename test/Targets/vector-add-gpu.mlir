// A vector add at the GPU level (the input contract of the code emitters):
// PTX for both NVIDIA chips, LLVM IR for AMD. Kernel memrefs are bare
// pointers and indices are 32-bit.
// RUN: tilec %s --emit=ptx --target sm_80 -o - | FileCheck %s --check-prefixes=PTX,SM80
// RUN: tilec %s --emit=ptx --target sm_90a -o - | FileCheck %s --check-prefixes=PTX,SM90A
// RUN: tilec %s --emit=llvm --target gfx942 -o - | FileCheck %s --check-prefix=AMD

// PTX: .version 8.0
// SM80: .target sm_80
// SM90A: .target sm_90a
// PTX-LABEL: .visible .entry vadd(
// PTX-NEXT: .param .u64 .ptr .align 1 vadd_param_0,
// PTX-NEXT: .param .u64 .ptr .align 1 vadd_param_1,
// PTX-NEXT: .param .u64 .ptr .align 1 vadd_param_2,
// PTX-NEXT: .param .u32 vadd_param_3
// PTX: mov.u32 {{.*}}%tid.x;
// PTX: mov.u32 {{.*}}%ctaid.x;
// PTX: mov.u32 {{.*}}%ntid.x;
// PTX: ld.global.b32
// PTX: ld.global.b32
// PTX: add.rn.f32
// PTX: st.global.b32
// PTX-NOT: .local

// AMD: target triple = "amdgcn-amd-amdhsa"
// AMD: define amdgpu_kernel void @vadd(ptr {{.*}}, ptr {{.*}}, ptr {{.*}}, i32 {{.*}})
// AMD: fadd float
// AMD: "amdgpu-flat-work-group-size"="1,1024"
// AMD: !{i32 1, !"amdhsa_code_object_version", i32 500}

module {
  gpu.module @kernels {
    gpu.func @vadd(%a: memref<1048576xf32>, %b: memref<1048576xf32>,
                   %c: memref<1048576xf32>, %n: i32) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %ni = arith.index_cast %n : i32 to index
      %inside = arith.cmpi slt, %i, %ni : index
      scf.if %inside {
        %x = memref.load %a[%i] : memref<1048576xf32>
        %y = memref.load %b[%i] : memref<1048576xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %c[%i] : memref<1048576xf32>
      }
      gpu.return
    }
  }
}
