// TileLang's explicit Hopper forms (T.ws, mbarriers, T.tma_copy,
// T.set_max_nreg, T.wgmma_gemm / T.wait_wgmma) in their custom syntax, printed and re-parsed, and
// through the generic form; #tile.partition with them.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s
// RUN: tilec-opt %s --mlir-print-op-generic | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @hopper
func.func @hopper(%A: memref<256x256xf16>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads(256) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bars = tile.alloc_barrier [128, 128] : memref<2xi64, #tile.space<shared>>
    %As = tile.alloc "As" : memref<128x64xf16, #tile.space<shared>>
    // CHECK: tile.ws [1] attributes {tile.partition = #tile.partition<begin = 128, threads = 128>} {
    tile.ws [1] attributes {tile.partition = #tile.partition<begin = 128, threads = 128>} {
      // CHECK-NEXT: tile.set_max_nreg 24
      tile.set_max_nreg 24
      // CHECK-NEXT: tile.mbarrier_wait %{{.*}}[%{{.*}}], %{{.*}} : memref<2xi64, #tile.space<shared>>
      tile.mbarrier_wait %bars[%c1], %c1 : memref<2xi64, #tile.space<shared>>
      // CHECK-NEXT: tile.tma_copy %{{.*}}[%{{.*}}, %{{.*}}] [128, 64] to %{{.*}}[%{{.*}}, %{{.*}}] [128, 64] barrier %{{.*}}[%{{.*}}] : memref<256x256xf16>, memref<128x64xf16, #tile.space<shared>>, memref<2xi64, #tile.space<shared>>
      tile.tma_copy %A[%c0, %c0] [128, 64] to %As[%c0, %c0] [128, 64] barrier %bars[%c0] : memref<256x256xf16>, memref<128x64xf16, #tile.space<shared>>, memref<2xi64, #tile.space<shared>>
      // CHECK-NEXT: tile.mbarrier_expect_tx %{{.*}}[%{{.*}}], %{{.*}} : memref<2xi64, #tile.space<shared>>
      tile.mbarrier_expect_tx %bars[%c0], %c0 : memref<2xi64, #tile.space<shared>>
      // CHECK-NEXT: tile.mbarrier_arrive %{{.*}}[%{{.*}}] : memref<2xi64, #tile.space<shared>>
      tile.mbarrier_arrive %bars[%c0] : memref<2xi64, #tile.space<shared>>
      // T.ptx_cp_async (8 float16 = 16 bytes), predicated, and its
      // completion on an mbarrier or its groups.
      // CHECK-NEXT: tile.cp_async %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}], 8 : memref<256x256xf16>, memref<128x64xf16, #tile.space<shared>>
      tile.cp_async %A[%c0, %c1] to %As[%c1, %c0], 8 : memref<256x256xf16>, memref<128x64xf16, #tile.space<shared>>
      %p = arith.cmpi ult, %c0, %c1 : index
      // CHECK-NEXT: arith.cmpi
      // CHECK-NEXT: tile.cp_async %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}], 4 if %{{.*}} : memref<256x256xf16>, memref<128x64xf16, #tile.space<shared>>
      tile.cp_async %A[%c0, %c1] to %As[%c1, %c0], 4 if %p : memref<256x256xf16>, memref<128x64xf16, #tile.space<shared>>
      // CHECK-NEXT: tile.cp_async_arrive %{{.*}}[%{{.*}}] : memref<2xi64, #tile.space<shared>>
      tile.cp_async_arrive %bars[%c1] : memref<2xi64, #tile.space<shared>>
      // CHECK-NEXT: tile.cp_async_commit
      tile.cp_async_commit
      // CHECK-NEXT: tile.cp_async_wait 1
      tile.cp_async_wait 1
    }
    // CHECK: tile.ws [0] {
    tile.ws [0] {
      // CHECK-NEXT: tile.set_max_nreg 240 increase
      tile.set_max_nreg 240 increase
      // CHECK-NEXT: tile.fence_proxy_async
      tile.fence_proxy_async
    }
  }
  return
}

// T.wgmma_gemm: an async tile.gemm, and T.wait_wgmma.
// CHECK-LABEL: func.func @wgmma_async
func.func @wgmma_async(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads(128) {
    %As = tile.alloc "As" : memref<64x64xf16, #tile.space<shared>>
    %Bs = tile.alloc "Bs" : memref<64x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} transpose_b clear_accum async : memref<64x64xf16, #tile.space<shared>>
    tile.gemm %As, %Bs, %C transpose_b clear_accum async : memref<64x64xf16, #tile.space<shared>>, memref<64x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    // CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} async :
    tile.gemm %As, %Bs, %C async : memref<64x64xf16, #tile.space<shared>>, memref<64x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    // CHECK-NEXT: tile.wait_wgmma 1
    tile.wait_wgmma 1
    // CHECK-NEXT: tile.wait_wgmma 0
    tile.wait_wgmma 0
  }
  return
}
