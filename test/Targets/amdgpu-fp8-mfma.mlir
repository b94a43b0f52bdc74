// An fp8 MFMA exists on gfx942 (CDNA3) but not on gfx90a (CDNA2): the latter
// gets a located error instead of LLVM's "Cannot select" abort.
// RUN: tilec %s --emit=hsaco --target gfx942 -o %t.hsaco
// RUN: llvm-readelf -s %t.hsaco | FileCheck %s --check-prefix=GFX942
// RUN: not tilec %s --emit=hsaco --target gfx90a -o %t.bad.hsaco 2>&1 | FileCheck %s --check-prefix=GFX90A

// GFX942: mfma.kd

// GFX90A-NOT: Cannot select

module {
  gpu.module @amd {
    gpu.func @mfma(%out: memref<16xf32>, %a: i64) kernel {
      %c = arith.constant dense<0.0> : vector<16xf32>
      %z = arith.constant 0 : i32
      // GFX90A: :[[@LINE+1]]:{{[0-9]+}}: error: 'rocdl.mfma.f32.32x32x16.fp8.fp8' (fp8 arithmetic) needs gfx942; the target is gfx90a
      %r = rocdl.mfma.f32.32x32x16.fp8.fp8 %a, %a, %c, %z, %z, %z
        : (i64, i64, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
      %e = vector.extract %r[0] : f32 from vector<16xf32>
      %i0 = arith.constant 0 : index
      memref.store %e, %out[%i0] : memref<16xf32>
      gpu.return
    }
  }
}
