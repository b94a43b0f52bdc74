// One case per verifier rule of the tile dialect (and per custom parser
// error): each must be rejected with the message shown.
// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// ===== nesting

func.func @outside_kernel() {
  // expected-error @+1 {{'tile.barrier' op must be nested in a 'tile.kernel'}}
  tile.barrier
  return
}

// -----

func.func @copy_outside_kernel(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.copy' op must be nested in a 'tile.kernel'}}
  tile.copy %a[%c0] [8] to %b[%c0] [8] : memref<8xf32>, memref<8xf32>
  return
}

// -----

func.func @yield_in_func() {
  // expected-error @+1 {{'tile.yield' op expects parent op to be one of 'tile.kernel, tile.parallel, tile.pipelined, tile.for'}}
  tile.yield
}

// -----

// ===== tile.kernel

func.func @kernel_four_dims(%n: index) {
  // expected-error @+1 {{'tile.kernel' op expects 1 to 3 grid extents, got 4}}
  tile.kernel blocks(%a, %b, %c, %d) in (%n, %n, %n, %n) threads(128) {
  }
  return
}

// -----

func.func @kernel_no_dims() {
  // expected-error @+1 {{'tile.kernel' op expects 1 to 3 grid extents, got 0}}
  tile.kernel blocks() in () threads(128) {
  }
  return
}

// -----

func.func @kernel_zero_threads(%n: index) {
  // expected-error @+1 {{'tile.kernel' op threads must be positive, got 0}}
  tile.kernel blocks(%a) in (%n) threads(0) {
  }
  return
}

// -----

func.func @kernel_arg_count(%n: index) {
  // expected-error @+1 {{'tile.kernel' op body has 1 block arguments but the number of grid dimensions is 2}}
  tile.kernel blocks(%a) in (%n, %n) threads(128) {
  }
  return
}

// -----

func.func @kernel_arg_type(%n: index) {
  // expected-error @+1 {{'tile.kernel' op block argument #0 must be of type 'index', got 'i32'}}
  "tile.kernel"(%n) <{threads = 128 : i64}> ({
  ^bb0(%a: i32):
    "tile.yield"() : () -> ()
  }) : (index) -> ()
  return
}

// -----

func.func @kernel_nested(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.kernel' op must not be nested in another 'tile.kernel'}}
    tile.kernel blocks(%b) in (%n) threads(32) {
    }
  }
  return
}

// -----

// expected-error @+1 {{'tile.kernel' must be a unit attribute, got 1 : i64}}
func.func @kernel_attr_not_unit() attributes {tile.kernel = 1} {
  return
}

// -----

// expected-error @+1 {{'tile.kernel' marks kernel functions, but is attached to 'builtin.module'}}
module attributes {tile.kernel} {
}

// -----

// ===== tile.thread_id

func.func @thread_id_dim(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.thread_id' op dim must be 0, 1 or 2, got 3}}
    %t = tile.thread_id 3
  }
  return
}

// -----

func.func @thread_id_keyword(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{expected thread dimension x, y or z, got 'w'}}
    %t = tile.thread_id w
  }
  return
}

// -----

// ===== tile.alloc

func.func @alloc_global(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op expects a shared, fragment or local memory space, got global buffer 'memref<16xf32>'}}
    %b = tile.alloc "b" : memref<16xf32>
  }
  return
}

// -----

func.func @alloc_foreign_space(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op expects a shared, fragment or local memory space, got foreign buffer 'memref<16xf32, 3>'}}
    %b = tile.alloc "b" : memref<16xf32, 3>
  }
  return
}

// -----

func.func @alloc_dynamic(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op expects a static shape, got 'memref<?x16xf32, #tile.space<shared>>'}}
    %b = tile.alloc "b" : memref<?x16xf32, #tile.space<shared>>
  }
  return
}

// -----

func.func @alloc_strided(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op expects an identity memref layout}}
    %b = tile.alloc "b" : memref<16x16xf32, strided<[1, 16]>, #tile.space<shared>>
  }
  return
}

// -----

func.func @alloc_rank0_shared(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc' op rank-0 buffers must be in the local space, got shared}}
    %b = tile.alloc "b" : memref<f32, #tile.space<shared>>
  }
  return
}

// -----

// ===== tile.alloc_barrier

func.func @barrier_none(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc_barrier' op expects at least one barrier}}
    %b = tile.alloc_barrier [] : memref<0xi64, #tile.space<shared>>
  }
  return
}

// -----

func.func @barrier_zero_count(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc_barrier' op arrive count of barrier 1 must be positive, got 0}}
    %b = tile.alloc_barrier [128, 0] : memref<2xi64, #tile.space<shared>>
  }
  return
}

// -----

func.func @barrier_type(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.alloc_barrier' op result type 'memref<3xi64, #tile.space<shared>>' does not match the 2 arrive counts; expected 'memref<2xi64, #tile.space<shared>>'}}
    %b = tile.alloc_barrier [128, 128] : memref<3xi64, #tile.space<shared>>
  }
  return
}

// -----

// ===== tile.annotate_layout

func.func @annotate_global(%g: memref<16xf32>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.annotate_layout' op expects a shared or fragment buffer, got global buffer 'memref<16xf32>'}}
    tile.annotate_layout %g layout(#tile.any_swizzle) : memref<16xf32>
  }
  return
}

// -----

// ===== tile.copy

func.func @copy_offset_count(%g: memref<64x64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc "s" : memref<64x64xf16, #tile.space<shared>>
    // expected-error @+1 {{'tile.copy' op expects 2 source offsets (one per dimension), got 1}}
    tile.copy %g[%n] [64, 64] to %s[%n, %n] [64, 64] : memref<64x64xf16>, memref<64x64xf16, #tile.space<shared>>
  }
  return
}

// -----

func.func @copy_extent_count(%g: memref<64x64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc "s" : memref<64x64xf16, #tile.space<shared>>
    // expected-error @+1 {{'tile.copy' op expects 2 destination extents (one per dimension), got 3}}
    tile.copy %g[%n, %n] [64, 64] to %s[%n, %n] [64, 64, 1] : memref<64x64xf16>, memref<64x64xf16, #tile.space<shared>>
  }
  return
}

// -----

func.func @copy_zero_extent(%g: memref<64x64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc "s" : memref<64x64xf16, #tile.space<shared>>
    // expected-error @+1 {{'tile.copy' op source extent 0 of dimension 1 must be positive}}
    tile.copy %g[%n, %n] [64, 0] to %s[%n, %n] [64, 64] : memref<64x64xf16>, memref<64x64xf16, #tile.space<shared>>
  }
  return
}

// -----

func.func @copy_box_exceeds_shared(%g: memref<64x64xf16>, %n: index) {
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc "s" : memref<64x64xf16, #tile.space<shared>>
    // expected-error @+1 {{'tile.copy' op destination box [32, 96) exceeds dimension 1 of the shared destination buffer (size 64)}}
    tile.copy %g[%n, %n] [64, 64] to %s[%n, %c32] [64, 64] : memref<64x64xf16>, memref<64x64xf16, #tile.space<shared>>
  }
  return
}

// -----

func.func @copy_extent_exceeds_fragment(%g: memref<64x64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %f = tile.alloc "f" : memref<32x64xf16, #tile.space<fragment>>
    // expected-error @+1 {{'tile.copy' op source box [0, 64) exceeds dimension 0 of the fragment source buffer (size 32)}}
    tile.copy %f[%n, %n] [64, 64] to %g[%n, %n] [64, 64] : memref<32x64xf16, #tile.space<fragment>>, memref<64x64xf16>
  }
  return
}

// -----

func.func @copy_box_mismatch(%g: memref<4x64x64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc "s" : memref<64x32xf16, #tile.space<shared>>
    // expected-error @+1 {{'tile.copy' op source box [1, 64, 64] does not match destination box [64, 32] (compared as [64, 64] and [64, 32] after dropping unit extents)}}
    tile.copy %g[%n, %n, %n] [1, 64, 64] to %s[%n, %n] [64, 32] : memref<4x64x64xf16>, memref<64x32xf16, #tile.space<shared>>
  }
  return
}

// -----

func.func @copy_coalesced_width(%g: memref<64x64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc "s" : memref<64x64xf16, #tile.space<shared>>
    // expected-error @+1 {{'tile.copy' op coalesced_width must be positive, got 0}}
    tile.copy %g[%n, %n] [64, 64] to %s[%n, %n] [64, 64] {coalesced_width = 0 : i64} : memref<64x64xf16>, memref<64x64xf16, #tile.space<shared>>
  }
  return
}

// -----

// ===== tile.fill

func.func @fill_type(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %f = tile.alloc "f" : memref<64xf32, #tile.space<fragment>>
    %v = arith.constant 0.0 : f16
    // expected-error @+1 {{'tile.fill' op value type 'f16' does not match element type 'f32' of the destination}}
    tile.fill %f, %v : memref<64xf32, #tile.space<fragment>>, f16
  }
  return
}

// -----

// ===== tile.atomic_add

func.func @atomic_fragment(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %f = tile.alloc "f" : memref<64xf32, #tile.space<fragment>>
    %v = arith.constant 1.0 : f32
    // expected-error @+1 {{'tile.atomic_add' op expects a global or shared destination, got fragment buffer 'memref<64xf32, #tile.space<fragment>>'}}
    tile.atomic_add %f[%n], %v : memref<64xf32, #tile.space<fragment>>, f32
  }
  return
}

// -----

func.func @atomic_indices(%g: memref<64x64xf32>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %v = arith.constant 1.0 : f32
    // expected-error @+1 {{'tile.atomic_add' op expects 2 indices (one per dimension), got 1}}
    tile.atomic_add %g[%n], %v : memref<64x64xf32>, f32
  }
  return
}

// -----

func.func @atomic_value_type(%g: memref<64xf32>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %v = arith.constant 1 : i32
    // expected-error @+1 {{'tile.atomic_add' op value type 'i32' does not match element type 'f32' of the destination}}
    tile.atomic_add %g[%n], %v : memref<64xf32>, i32
  }
  return
}

// -----

// ===== tile.gemm

func.func @gemm_rank(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<2x64x32xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op expects rank-2 operands, got A of rank 3}}
    tile.gemm %A, %B, %C : memref<2x64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_region_bounds(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %c0 = arith.constant 0 : index
    %c48 = arith.constant 48 : index
    %A = tile.alloc "A" : memref<64x64xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op region of A at offset 48 with extent 32 leaves dimension 1 of extent 64}}
    tile.gemm %A[%c0, %c48] [64, 32], %B, %C : memref<64x64xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_region_dynamic_origin(%n: index, %k: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %c0 = arith.constant 0 : index
    %A = tile.alloc "A" : memref<64x64xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op expects constant matrix offsets for the region of A}}
    tile.gemm %A[%c0, %k] [64, 32], %B, %C : memref<64x64xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_region_stage(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %A = tile.alloc "A" : memref<2x64x32xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op stage 2 of A is outside its 2 tiles}}
    tile.gemm %A[%c2, %c0, %c0] [64, 32], %B, %C : memref<2x64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_region_shape(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %c0 = arith.constant 0 : index
    %A = tile.alloc "A" : memref<64x64xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op K of A (16) does not match K of B (32) (A: [64, 16], B: [32, 64], C: [64, 64])}}
    tile.gemm %A[%c0, %c0] [64, 16], %B, %C : memref<64x64xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_dynamic(%B: memref<?x64xf16, #tile.space<shared>>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<64x32xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op expects static shapes, got B of 'memref<?x64xf16, #tile.space<shared>>'}}
    tile.gemm %A, %B, %C : memref<64x32xf16, #tile.space<shared>>, memref<?x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_global_a(%A: memref<64x32xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %B = tile.alloc "B" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op expects A in shared or fragment memory, got global}}
    tile.gemm %A, %B, %C : memref<64x32xf16>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_shared_c(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<64x32xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<shared>>
    // expected-error @+1 {{'tile.gemm' op expects C in fragment memory, got shared}}
    tile.gemm %A, %B, %C : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<shared>>
  }
  return
}

// -----

func.func @gemm_k(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<128x64xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x128xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<128x128xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op K of A (64) does not match K of B (32) (A: [128, 64], B: [32, 128], C: [128, 128])}}
    tile.gemm %A, %B, %C : memref<128x64xf16, #tile.space<shared>>, memref<32x128xf16, #tile.space<shared>>, memref<128x128xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_k_transposed(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<64x32xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<64x32xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // Without transpose_b, B (64x32) has K = 64 but A has K = 32.
    // expected-error @+1 {{'tile.gemm' op K of A (32) does not match K of B (64) (A: [64, 32], B: [64, 32], C: [64, 64])}}
    tile.gemm %A, %B, %C : memref<64x32xf16, #tile.space<shared>>, memref<64x32xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_m(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<32x64xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x128xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<128x128xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op M of A (64) does not match M of C (128) (A: [32, 64] transposed, B: [32, 128], C: [128, 128])}}
    tile.gemm %A, %B, %C transpose_a : memref<32x64xf16, #tile.space<shared>>, memref<32x128xf16, #tile.space<shared>>, memref<128x128xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_n(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<128x32xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<64x32xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<128x128xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op N of B (64) does not match N of C (128) (A: [128, 32], B: [64, 32] transposed, C: [128, 128])}}
    tile.gemm %A, %B, %C transpose_b : memref<128x32xf16, #tile.space<shared>>, memref<64x32xf16, #tile.space<shared>>, memref<128x128xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_input_type(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<64x32xf64, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xf64, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op A element type 'f64' is not one of f16, bf16, f32, f8E4M3FN, f8E5M2, i8}}
    tile.gemm %A, %B, %C : memref<64x32xf64, #tile.space<shared>>, memref<32x64xf64, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_mixed_inputs(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<64x32xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xbf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op A and B element types differ ('f16' vs 'bf16')}}
    tile.gemm %A, %B, %C : memref<64x32xf16, #tile.space<shared>>, memref<32x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_accumulator_type(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<64x32xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xbf16, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op C element type 'bf16' is not one of f32, f16, i32}}
    tile.gemm %A, %B, %C : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_int_float_accumulator(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<64x32xi8, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xi8, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op 'i8' inputs need an i32 accumulator, got 'f32'}}
    tile.gemm %A, %B, %C : memref<64x32xi8, #tile.space<shared>>, memref<32x64xi8, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_float_int_accumulator(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<64x32xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xi32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op 'f16' inputs need a float accumulator, got 'i32'}}
    tile.gemm %A, %B, %C : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xi32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_k_pack(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<64x32xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op k_pack must be positive, got 0}}
    tile.gemm %A, %B, %C {k_pack = 0 : i64} : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_wg_wait(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<64x32xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op wg_wait must be -1 or non-negative, got -2}}
    tile.gemm %A, %B, %C {wg_wait = -2 : i64} : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_async_wg_wait(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<64x32xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op an async gemm takes no wg_wait (its groups are completed by tile.wait_wgmma), got 1}}
    tile.gemm %A, %B, %C async {wg_wait = 1 : i64} : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @gemm_async_f16(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc "A" : memref<64x32xf16, #tile.space<shared>>
    %B = tile.alloc "B" : memref<32x64xf16, #tile.space<shared>>
    %C = tile.alloc "C" : memref<64x64xf16, #tile.space<fragment>>
    // expected-error @+1 {{'tile.gemm' op an async gemm (wgmma) accumulates in f32, got}}
    tile.gemm %A, %B, %C async : memref<64x32xf16, #tile.space<shared>>, memref<32x64xf16, #tile.space<shared>>, memref<64x64xf16, #tile.space<fragment>>
  }
  return
}

// -----

func.func @cp_async_size(%A: memref<64x64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %c0 = arith.constant 0 : index
    %As = tile.alloc "As" : memref<64x64xf16, #tile.space<shared>>
    // expected-error @+1 {{'tile.cp_async' op copies 4, 8 or 16 bytes, got 3 elements of 'f16'}}
    tile.cp_async %A[%c0, %c0] to %As[%c0, %c0], 3 : memref<64x64xf16>, memref<64x64xf16, #tile.space<shared>>
  }
  return
}

// -----

func.func @cp_async_into_global(%A: memref<64x64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'tile.cp_async' op destination must be a shared buffer}}
    tile.cp_async %A[%c0, %c0] to %A[%c0, %c0], 8 : memref<64x64xf16>, memref<64x64xf16>
  }
  return
}

// -----

func.func @cp_async_widths(%A: memref<64x64xf32>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %c0 = arith.constant 0 : index
    %As = tile.alloc "As" : memref<64x64xf16, #tile.space<shared>>
    // expected-error @+1 {{'tile.cp_async' op source and destination elements must be whole bytes of one width}}
    tile.cp_async %A[%c0, %c0] to %As[%c0, %c0], 4 : memref<64x64xf32>, memref<64x64xf16, #tile.space<shared>>
  }
  return
}

// -----

func.func @cp_async_wait_negative(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.cp_async_wait' op pending group count must be non-negative, got -1}}
    tile.cp_async_wait -1
  }
  return
}

// -----

func.func @wait_wgmma_negative(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.wait_wgmma' op pending group count must be non-negative, got -1}}
    tile.wait_wgmma -1
  }
  return
}

// -----

// ===== tile.reduce / tile.scan

func.func @reduce_dim(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %S = tile.alloc "S" : memref<128x64xf32, #tile.space<fragment>>
    %m = tile.alloc "m" : memref<128xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.reduce' op dim 2 is out of range for a source of rank 2}}
    tile.reduce max %S -> %m dim(2) : memref<128x64xf32, #tile.space<fragment>> -> memref<128xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @reduce_element_type(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %S = tile.alloc "S" : memref<128x64xf32, #tile.space<fragment>>
    %m = tile.alloc "m" : memref<128xi32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.reduce' op destination element type 'i32' is not of the kind (float or integer) of source element type 'f32'}}
    tile.reduce sum %S -> %m dim(1) : memref<128x64xf32, #tile.space<fragment>> -> memref<128xi32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @reduce_shape(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %S = tile.alloc "S" : memref<128x64xf32, #tile.space<fragment>>
    %m = tile.alloc "m" : memref<64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.reduce' op destination shape [64] is neither [128] (dim 1 removed) nor [128, 1] (dim 1 kept) for source shape [128, 64]}}
    tile.reduce sum %S -> %m dim(1) : memref<128x64xf32, #tile.space<fragment>> -> memref<64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @scan_shape(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %x = tile.alloc "x" : memref<256xf32, #tile.space<shared>>
    %y = tile.alloc "y" : memref<128xf32, #tile.space<shared>>
    // expected-error @+1 {{'tile.scan' op destination shape [128] does not match source shape [256]}}
    tile.scan sum %x -> %y dim(0) : memref<256xf32, #tile.space<shared>> -> memref<128xf32, #tile.space<shared>>
  }
  return
}

// -----

func.func @scan_dim(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %x = tile.alloc "x" : memref<256xf32, #tile.space<shared>>
    // expected-error @+1 {{'tile.scan' op dim 1 is out of range for a source of rank 1}}
    tile.scan max %x -> %x dim(1) : memref<256xf32, #tile.space<shared>> -> memref<256xf32, #tile.space<shared>>
  }
  return
}

// -----

func.func @scan_element_type(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %x = tile.alloc "x" : memref<256xf32, #tile.space<shared>>
    %y = tile.alloc "y" : memref<256xi32, #tile.space<shared>>
    // expected-error @+1 {{'tile.scan' op destination element type 'i32' does not match source element type 'f32'}}
    tile.scan sum %x -> %y dim(0) : memref<256xf32, #tile.space<shared>> -> memref<256xi32, #tile.space<shared>>
  }
  return
}

// -----

// ===== loops

func.func @parallel_extent(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.parallel' op extent 1 must be positive, got 0}}
    tile.parallel (%i, %j) in [128, 0] {
    }
  }
  return
}

// -----

func.func @parallel_no_extent(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.parallel' op expects at least one extent}}
    tile.parallel () in [] {
    }
  }
  return
}

// -----

func.func @parallel_arg_count(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.parallel' op body has 1 block arguments but the number of extents is 2}}
    tile.parallel (%i) in [128, 64] {
    }
  }
  return
}

// -----

func.func @pipelined_stages(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.pipelined' op num_stages must be non-negative, got -1}}
    tile.pipelined %k = %n to %n step %n num_stages(-1) {
    }
  }
  return
}

// -----

func.func @pipelined_order_stage(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.pipelined' op order has 3 entries but stage has 2}}
    tile.pipelined %k = %n to %n step %n num_stages(2) order [0, 1, 2] stage [0, 1] {
    }
  }
  return
}

// -----

func.func @pipelined_group(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.pipelined' op stage has 3 entries but group has 2}}
    tile.pipelined %k = %n to %n step %n num_stages(2) stage [0, 0, 1] group [[0], [1, 2]] {
    }
  }
  return
}

// -----

func.func @pipelined_args(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.pipelined' op body has 2 block arguments but a loop has 1}}
    "tile.pipelined"(%n, %n, %n) <{num_stages = 2 : i64}> ({
    ^bb0(%i: index, %j: index):
      "tile.yield"() : () -> ()
    }) : (index, index, index) -> ()
  }
  return
}

// -----

func.func @for_kind(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{expected loop kind serial, unroll or vectorized, got 'parallel'}}
    tile.for parallel %i = %n to %n step %n {
    }
  }
  return
}

// -----

func.func @for_arg_type(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.for' op block argument #0 must be of type 'index', got 'i64'}}
    "tile.for"(%n, %n, %n) <{kind = #tile<loop_kind serial>}> ({
    ^bb0(%i: i64):
      "tile.yield"() : () -> ()
    }) : (index, index, index) -> ()
  }
  return
}

// -----

// ===== scheduling hints, debugging

func.func @swizzle_panel(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.use_swizzle' op panel_size must be positive, got 0}}
    tile.use_swizzle panel_size = 0, order = row
  }
  return
}

// -----

func.func @swizzle_outside_kernel() {
  // expected-error @+1 {{'tile.use_swizzle' op must be nested in a 'tile.kernel'}}
  tile.use_swizzle panel_size = 8, order = col
  return
}

// -----

func.func @assert_not_i1(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %c = arith.constant 1 : i32
    // expected-error @+1 {{'tile.device_assert' op operand #0 must be 1-bit signless integer, but got 'i32'}}
    "tile.device_assert"(%c) <{msg = ""}> : (i32) -> ()
  }
  return
}

// -----

func.func @print_vector(%v: vector<4xf32>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.print' op operand #0 must be}}
    tile.print %v : vector<4xf32>
  }
  return
}

// -----

// ===== tile.ws, tile.set_max_nreg, #tile.partition

func.func @ws_not_consecutive(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(384) {
    // expected-error @+1 {{'tile.ws' op warpgroups are consecutive non-negative ids, got array<i64: 0, 2>}}
    tile.ws [0, 2] {
    }
  }
  return
}

// -----

func.func @set_max_nreg_count(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{'tile.set_max_nreg' op register count must be a multiple of 8 in [24, 256], got 250}}
    tile.set_max_nreg 250
  }
  return
}

// -----

func.func @partition_warps(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error @+1 {{#tile.partition is a range of whole warps, got begin = 0, threads = 48}}
    tile.ws [0] attributes {tile.partition = #tile.partition<begin = 0, threads = 48>} {
    }
  }
  return
}
