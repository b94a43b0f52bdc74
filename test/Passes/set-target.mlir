// tile-set-target records the chip once; passes that need a chip read it
// from the module and fail, located, without one; a decision injected by
// hand must name an instruction of the module's chip.
// RUN: tilec-opt %s -split-input-file -tile-set-target=chip=gfx942 -verify-diagnostics | FileCheck %s
// RUN: not tilec-opt %s -split-input-file -tile-set-target=chip=sm_70 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tilec-opt %s -split-input-file -tile-infer-layouts 2>&1 | FileCheck %s --check-prefix=NONE
// UNKNOWN: error: unknown target chip 'sm_70'; tilec supports sm_80 sm_90a gfx90a gfx942
// NONE: error: no target chip: the module has no 'tile.target' attribute (tilec sets it from --target; with tilec-opt run -tile-set-target=chip=NAME first)

// CHECK: module attributes {tile.target = #tile.target<"gfx942">}
func.func @k(%A: memref<64xf32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %F = tile.alloc "F" : memref<64xf32, #tile.space<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %A[%c0] [64] to %F[%c0] [64] : memref<64xf32>, memref<64xf32, #tile.space<fragment>>
  }
  return
}

// -----

// The target is decided once.
// expected-error @+1 {{the module is already compiled for 'sm_90a', not 'gfx942'}}
module attributes {tile.target = #tile.target<"sm_90a">} {
}
