// Malformed layout attributes and layouts that do not fit their op: each
// rejected where it is written, with the message shown.
// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{this basis has 1 coordinates, the first one 2}}
#bad = #tile.fragment<register = [(0, 1), (2)], lane = [], warp = []>

// -----

// expected-error @+1 {{a basis needs one coordinate per dimension, got none}}
#bad = #tile.fragment<register = [()], lane = [], warp = []>

// -----

// The inputs are named in the order register, lane, warp.
// expected-error @+1 {{expected 'register'}}
#bad = #tile.fragment<lane = [(1)], register = [], warp = []>

// -----

// expected-error @+1 {{#tile.fragment lane basis coordinate -2 is negative}}
#bad = #tile.fragment<register = [(1)], lane = [(-2)], warp = []>

// -----

// expected-error @+1 {{#tile.strided vec must be at least 1, got 0}}
#bad = #tile.strided<vec = 0>

// -----

// expected-error @+1 {{#tile.strided realign must be a power of two of at least 2, got 6}}
#bad = #tile.strided<vec = 1, realign = 6>

// -----

func.func @rank(%n: index) {
  tile.kernel blocks(%b) in (%n) threads(32) {
    // expected-error @+1 {{'tile.alloc' op #tile.fragment does not fit the fragment of shape [64]: each basis has 2 coordinates but the tile has 1 dimensions}}
    %f = tile.alloc "f" {layout = #tile.fragment<register = [(0, 1)], lane = [], warp = []>} : memref<64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @outside(%n: index) {
  tile.kernel blocks(%b) in (%n) threads(2) {
    // A coordinate past the padded extent (48 pads to 64).
    // expected-error @+1 {{'tile.alloc' op #tile.fragment does not fit the fragment of shape [48]:}}
    %f = tile.alloc "f" {layout = #tile.fragment<register = [(64)], lane = [(1)], warp = []>} : memref<48xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @shared_layout(%n: index) {
  tile.kernel blocks(%b) in (%n) threads(32) {
    // expected-error @+1 {{'tile.alloc' op a 'layout' belongs on a fragment, not on a shared buffer}}
    %s = tile.alloc "s" {layout = #tile.fragment<register = [(1)], lane = [], warp = []>} : memref<2xf32, #tile.space<shared>>
  }
  return
}

// -----

func.func @untyped_layout(%n: index) {
  tile.kernel blocks(%b) in (%n) threads(32) {
    // expected-error @+1 {{'tile.alloc' op attribute 'layout' failed to satisfy constraint}}
    %f = tile.alloc "f" {layout = {register = [array<i32: 1>], lane = [], warp = []}} : memref<2xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @loop_shape(%n: index) {
  tile.kernel blocks(%b) in (%n) threads(2) {
    // expected-error @+1 {{'tile.parallel' op #tile.fragment does not fit the loop of shape [4, 4]: each basis has 1 coordinates but the tile has 2 dimensions}}
    tile.parallel (%i, %j) in [4, 4] attributes {loop_layout = #tile.fragment<register = [(1)], lane = [(2)], warp = []>} {
    }
  }
  return
}

// -----

func.func @loop_untyped(%n: index) {
  tile.kernel blocks(%b) in (%n) threads(32) {
    // expected-error @+1 {{'tile.parallel' op attribute 'loop_layout' failed to satisfy constraint}}
    tile.parallel (%i) in [64] attributes {loop_layout = {vec = 4 : i64}} {
    }
  }
  return
}

// -----

func.func @swizzle_fragment(%n: index) {
  tile.kernel blocks(%b) in (%n) threads(32) {
    %f = tile.alloc "f" : memref<64xf32, #tile.space<fragment>>
    // expected-error @+1 {{'tile.annotate_layout' op #tile.any_swizzle applies to shared buffers, got a fragment}}
    tile.annotate_layout %f layout(#tile.any_swizzle) : memref<64xf32, #tile.space<fragment>>
  }
  return
}

// -----

func.func @fragment_shared(%n: index) {
  tile.kernel blocks(%b) in (%n) threads(32) {
    %s = tile.alloc "s" : memref<64xf32, #tile.space<shared>>
    // expected-error @+1 {{'tile.annotate_layout' op a #tile.fragment layout applies to fragments, got a shared buffer}}
    tile.annotate_layout %s layout(#tile.fragment<register = [(1)], lane = [], warp = []>) : memref<64xf32, #tile.space<shared>>
  }
  return
}

// -----

// expected-error @+1 {{'tile.min_blocks_per_multiprocessor' must be an i32 of at least 1, got 0 : i32}}
func.func @blocks() attributes {tile.min_blocks_per_multiprocessor = 0 : i32} {
  return
}
