// The loadable binaries: cubins through ptxas for both NVIDIA chips, and a
// code object v5 HSACO (ELF shared object, no undefined symbols) per AMD chip.
// REQUIRES: ptxas
// RUN: tilec %s --emit=cubin --target sm_80 -o %t.sm80.cubin
// RUN: llvm-readelf -h %t.sm80.cubin | FileCheck %s --check-prefix=CUBIN
// RUN: tilec %s --emit=cubin --target sm_90a -o %t.sm90a.cubin
// RUN: llvm-readelf -h %t.sm90a.cubin | FileCheck %s --check-prefix=CUBIN
// RUN: tilec %s --emit=hsaco --target gfx90a -o %t.gfx90a.hsaco
// RUN: llvm-readelf -h -s --dyn-syms %t.gfx90a.hsaco | FileCheck %s --check-prefixes=HSACO,GFX90A
// RUN: tilec %s --emit=hsaco --target gfx942 -o %t.gfx942.hsaco
// RUN: llvm-readelf -h -s --dyn-syms %t.gfx942.hsaco | FileCheck %s --check-prefixes=HSACO,GFX942

// CUBIN: Class: ELF64
// CUBIN: Machine: {{.*}}CUDA

// HSACO: OS/ABI: AMDGPU - HSA
// HSACO-NEXT: ABI Version: 3
// HSACO-NEXT: Type: DYN
// HSACO-NEXT: Machine: EM_AMDGPU
// GFX90A: Flags: {{.*}}gfx90a
// GFX942: Flags: {{.*}}gfx942
// HSACO-NOT: UND {{[A-Za-z_.]}}
// HSACO: {{ FUNC .* vadd$}}
// HSACO-NOT: UND {{[A-Za-z_.]}}
// HSACO: {{ OBJECT .* vadd.kd$}}
// HSACO-NOT: UND {{[A-Za-z_.]}}

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
        %e = math.exp %x : f32
        %s = arith.addf %e, %y : f32
        memref.store %s, %c[%i] : memref<1048576xf32>
      }
      gpu.return
    }
  }
}
