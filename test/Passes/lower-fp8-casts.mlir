// tile-lower-fp8-casts: conversions to e4m3 / e5m2 become the satfinite
// cvt of a pair (the value in the low byte), conversions from them the
// exact cvt to f16x2 then an exact widening (or narrowing, to bf16);
// vectors element by element; sm_80 has no fp8 cvt (a located error).
// RUN: tilec-opt %s -split-input-file -tile-lower-fp8-casts -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @casts
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[P:.*]] = llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%[[Z]], %arg0) : (f32, f32) -> i16
// CHECK: %[[L:.*]] = arith.trunci %[[P]] : i16 to i8
// CHECK: arith.bitcast %[[L]] : i8 to f8E4M3FN
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.ff.to.e5m2x2.rn"
// CHECK: vector.from_elements {{.*}} : vector<4xf8E5M2>
// CHECK: %[[H:.*]] = arith.extf %arg2 : f16 to f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%{{.*}}, %[[H]])
// CHECK: %[[B:.*]] = arith.bitcast %arg3 : f8E4M3FN to i8
// CHECK: %[[W:.*]] = arith.extui %[[B]] : i8 to i16
// CHECK: %[[V:.*]] = llvm.call_intrinsic "llvm.nvvm.e4m3x2.to.f16x2.rn"(%[[W]]) : (i16) -> vector<2xf16>
// CHECK: %[[E:.*]] = vector.extract %[[V]][0] : f16 from vector<2xf16>
// CHECK: arith.extf %[[E]] : f16 to f32
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.e5m2x2.to.f16x2.rn"
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: arith.truncf {{.*}} to f8
// CHECK-NOT: arith.extf {{.*}} : f8
module attributes {tile.target = #tile.target<"sm_90a">} {
  func.func @casts(%x: f32, %v: vector<4xf32>, %h: f16, %y: f8E4M3FN,
                   %w: vector<2xf8E5M2>)
      -> (f8E4M3FN, vector<4xf8E5M2>, f8E4M3FN, f32, vector<2xbf16>) {
    %a = arith.truncf %x : f32 to f8E4M3FN
    %b = arith.truncf %v : vector<4xf32> to vector<4xf8E5M2>
    %c = arith.truncf %h : f16 to f8E4M3FN
    %d = arith.extf %y : f8E4M3FN to f32
    %e = arith.extf %w : vector<2xf8E5M2> to vector<2xbf16>
    return %a, %b, %c, %d, %e : f8E4M3FN, vector<4xf8E5M2>, f8E4M3FN, f32, vector<2xbf16>
  }
}

// -----

module attributes {tile.target = #tile.target<"sm_80">} {
  func.func @on_sm80(%x: f32) -> f8E4M3FN {
    // expected-error @below {{converting to or from float8 needs a chip with fp8 conversions (sm_89 or newer); sm_80 has none}}
    %a = arith.truncf %x : f32 to f8E4M3FN
    return %a : f8E4M3FN
  }
}

// -----

// AMD: a located error here, not a failed LLVM IR translation later.
module attributes {tile.target = #tile.target<"gfx942">} {
  func.func @on_gfx942(%y: f8E5M2) -> f32 {
    // expected-error @below {{converting to or from float8 (OCP e4m3 / e5m2) is not supported on AMD chips yet (gfx942)}}
    %a = arith.extf %y : f8E5M2 to f32
    return %a : f32
  }
}
