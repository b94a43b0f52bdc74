// Warp shuffles and warp reductions: shfl.sync on NVIDIA (redux.sync for a
// uniform i32 reduction, sm_80+; butterfly shuffles otherwise), ds_bpermute
// and DPP on AMD.
// RUN: tilec %s --emit=ptx --target sm_80 -o - | FileCheck %s --check-prefix=PTX
// RUN: tilec %s --emit=llvm --target gfx942 -o - | FileCheck %s --check-prefix=AMD

// PTX-LABEL: .visible .entry warp_sum(
// PTX-DAG: shfl.sync.bfly.b32
// PTX-DAG: shfl.sync.down.b32
// PTX-DAG: shfl.sync.idx.b32
// PTX-DAG: redux.sync.add.s32

// AMD-LABEL: define amdgpu_kernel void @warp_sum(
// AMD-DAG: @llvm.amdgcn.ds.bpermute
// AMD-DAG: @llvm.amdgcn.update.dpp

module {
  gpu.module @kernels {
    gpu.func @warp_sum(%in: memref<1024xf32>, %counts: memref<1024xi32>,
                       %out: memref<1024xf32>, %total: memref<1024xi32>) kernel {
      %tid = gpu.thread_id x
      %v = memref.load %in[%tid] : memref<1024xf32>
      %width = arith.constant 32 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c0 = arith.constant 0 : i32
      %x1, %ok1 = gpu.shuffle xor %v, %c1, %width : f32
      %s1 = arith.addf %v, %x1 : f32
      %x2, %ok2 = gpu.shuffle down %s1, %c2, %width : f32
      %s2 = arith.addf %s1, %x2 : f32
      %x3, %ok3 = gpu.shuffle idx %s2, %c0, %width : f32
      %r = gpu.subgroup_reduce add %x3 : (f32) -> f32
      memref.store %r, %out[%tid] : memref<1024xf32>
      %n = memref.load %counts[%tid] : memref<1024xi32>
      %sum = gpu.subgroup_reduce add %n uniform : (i32) -> i32
      memref.store %sum, %total[%tid] : memref<1024xi32>
      gpu.return
    }
  }
}
