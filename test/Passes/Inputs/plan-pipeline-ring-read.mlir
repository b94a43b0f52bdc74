// A pipelined loop whose operand buffer is also read by a copy into a
// fragment (not only by the gemm): tile-plan-pipeline must leave it alone.
func.func @ring_read(%A: memref<64x32xf16>, %B: memref<32x64xf16>, %G: memref<64x32xf16>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %As = tile.alloc "A_shared" : memref<64x32xf16, #tile.space<shared>>
    %Bs = tile.alloc "B_shared" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    %F = tile.alloc "F" : memref<64x32xf16, #tile.space<fragment>>
    tile.pipelined %k = %c0 to %c4 step %c1 num_stages(3) {
      tile.copy %A[%c0, %c0] [64, 32] to %As[%c0, %c0] [64, 32] : memref<64x32xf16>, memref<64x32xf16, #tile.space<shared>>
      tile.copy %B[%c0, %c0] [32, 64] to %Bs[%c0, %c0] [32, 64] : memref<32x64xf16>, memref<32x64xf16, #tile.space<shared>>
      tile.gemm %As, %Bs, %C : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
      tile.copy %As[%c0, %c0] [64, 32] to %F[%c0, %c0] [64, 32] : memref<64x32xf16, #tile.space<shared>>, memref<64x32xf16, #tile.space<fragment>>
    }
  }
  return
}
