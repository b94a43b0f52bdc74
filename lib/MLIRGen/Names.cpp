//===- Names.cpp - The names each compile-time module provides ------------===//
//
// One table of what `T` (tilelang.language), `tilelang`, `math` and
// `itertools` provide, so that an unknown name is reported where it is
// written, with the closest known spelling, instead of later at a call.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

using llvm::ArrayRef;
using llvm::StringRef;

namespace tilec::mlirgen {

static const StringRef kLanguage[] = {
    // kernels, types, symbols
    "prim_func", "macro", "Kernel", "Tensor", "Buffer", "dynamic", "symbolic",
    "const", "empty", // eager-style factories
    "ceildiv", "get_thread_binding", "get_block_binding", "GemmWarpPolicy",
    // memory and movement
    "alloc_shared", "alloc_fragment", "alloc_local", "alloc_var",
    "alloc_reducer", "finalize_reducer", "alloc_barrier", "copy", "async_copy",
    "tma_copy", "clear", "fill", "im2col", "c2d_im2col",
    // compute
    "gemm", "gemm_sp", "wgmma_gemm", "wait_wgmma", "reduce_max", "reduce_min",
    "reduce_sum", "reduce_abssum", "reduce_absmax", "cumsum", "cummax",
    "atomic_add",
    // loops and scheduling
    "Parallel", "Pipelined", "serial", "unroll", "vectorized", "Persistent",
    "use_swizzle", "annotate_layout", "Layout", "Fragment",
    "make_swizzled_layout",
    // debugging and synchronization
    "print", "device_assert", "sync_threads", "syncthreads", "barrier_wait",
    "sync_grid",
    // explicit warp specialization (HopperPrimitives.cpp)
    "ws", "barrier_arrive", "mbarrier_arrive", "mbarrier_wait_parity",
    "mbarrier_expect_tx", "fence_proxy_async", "set_max_nreg",
    "no_set_max_nreg", "inc_max_nreg", "dec_max_nreg",
    "annotate_producer_reg_dealloc", "annotate_consumer_reg_alloc",
    // scalar math
    "exp", "exp2", "exp10", "log", "log2", "log10", "sqrt", "rsqrt", "tanh",
    "sigmoid", "abs", "fabs", "floor", "ceil", "sin", "cos", "erf", "trunc",
    "round", "pow", "max", "min", "clamp", "if_then_else", "Select", "infinity",
    "max_value", "min_value", "cast", "Cast",
    // dtypes
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float8_e4m3", "float8_e4m3fn", "float8_e5m2", "float16",
    "bfloat16", "float32", "float64", "half", "float", "double",
    // a device address, the element type of a pointer-table parameter
    "ptr", "handle"};

/// TileLang primitives tilec knows but does not implement yet: accepted as
/// names, and a "not supported yet" error where they are called.
static const StringRef kNotYet[] = {"atomic_max",
                                    "atomic_min",
                                    "atomic_load",
                                    "atomic_store",
                                    "reduce_bitand",
                                    "reduce_bitor",
                                    "reduce_bitxor",
                                    "alloc_tmem",
                                    "tcgen05_gemm",
                                    "attr",
                                    "call_extern",
                                    "StridedTensor",
                                    "view",
                                    "annotate_l2_hit_ratio",
                                    // Blackwell: clusters, CLC, tcgen05
                                    "ClusterKernel",
                                    "alloc_cluster_barrier",
                                    "block_rank_in_cluster",
                                    "clc_try_cancel_multicast",
                                    "clc_is_canceled",
                                    "clc_get_first_ctaid_x",
                                    "tcgen05_mma_arrive",
                                    "tcgen05_sf_warp_transpose",
                                    "tcgen05_cp_warpx4",
                                    "tcgen05_gemm_blockscaled",
                                    "mma_gemm_blockscaled",
                                    // the newer warp-specialization API
                                    "WSScope",
                                    "WSRole",
                                    "WSPipeline",
                                    "WSSync",
                                    "WSSchedule",
                                    "WSID",
                                    "ws_op",
                                    "annotate_ws_schedule",
                                    // the rest TileLang's examples use
                                    "PersistentTileScheduler",
                                    "import_source",
                                    "comm_reducer",
                                    "tvm_thread_allreduce",
                                    "mbarrier_arrive_expect_tx",
                                    "index_to_coordinates",
                                    "float4_e2m1_unpacked",
                                    "dp4a",
                                    "atomic_addx4",
                                    "any_sync"};

static const StringRef kTilelang[] = {
    "jit",       "autotune",         "language", "layout",
    "autotuner", "PassConfigKey",    "cdiv",     "next_power_of_2",
    "math",      "carver",           "tileop",   "transform",
    "DataType",  "TensorSupplyType", "quantize", "tvm"};
static const StringRef kMath[] = {"log2", "log", "log10", "exp", "exp2",
                                  "sqrt", "tanh", "sin", "cos", "pow",
                                  "ceil", "floor", "trunc", "gcd", "prod",
                                  "pi", "e", "inf"};
static const StringRef kItertools[] = {"product"};
static const StringRef kLayout[] = {"make_swizzled_layout"};
static const StringRef kAutotuner[] = {"autotune"};

std::optional<ArrayRef<StringRef>> moduleNames(StringRef module) {
  if (module == "T") {
    static const std::vector<StringRef> all = [] {
      std::vector<StringRef> names(std::begin(kLanguage), std::end(kLanguage));
      names.insert(names.end(), std::begin(kNotYet), std::end(kNotYet));
      llvm::ArrayRef<StringRef> more = frontendPrimitiveNames();
      names.insert(names.end(), more.begin(), more.end());
      llvm::ArrayRef<StringRef> async = asyncCopyPrimitiveNames();
      names.insert(names.end(), async.begin(), async.end());
      return names;
    }();
    return ArrayRef<StringRef>(all);
  }
  if (module == "tilelang")
    return ArrayRef<StringRef>(kTilelang);
  if (module == "math")
    return ArrayRef<StringRef>(kMath);
  if (module == "itertools")
    return ArrayRef<StringRef>(kItertools);
  if (module == "tilelang.layout")
    return ArrayRef<StringRef>(kLayout);
  if (module == "tilelang.autotuner")
    return ArrayRef<StringRef>(kAutotuner);
  return tileLangModuleNames(module);
}

/// TileLang's sub-byte element types. tilec stores every element in whole
/// bytes, and these need packed storage (two int4 or fp4 values a byte)
/// through copies, layouts and the tensor-core operands: named so that the
/// error says "not supported yet" rather than "unknown".
static const StringRef kSubByteDTypes[] = {
    "int4",  "uint4",         "int2",          "uint2",        "int1",
    "uint1", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn"};

bool isSubByteDType(StringRef name) {
  return llvm::is_contained(kSubByteDTypes, name);
}

bool isNotSupportedYet(StringRef primitive) {
  return llvm::is_contained(kNotYet, primitive);
}

std::string closestName(StringRef name, ArrayRef<StringRef> candidates) {
  // A spelling that differs only in case is the likeliest intent.
  for (StringRef c : candidates)
    if (c.equals_insensitive(name) && c != name)
      return c.str();
  std::string best;
  unsigned bestDist = std::max<unsigned>(2, name.size() / 3) + 1;
  for (StringRef c : candidates) {
    unsigned d = c.edit_distance(name, /*AllowReplacements=*/true, bestDist);
    if (d < bestDist) {
      bestDist = d;
      best = c.str();
    }
  }
  return best;
}

} // namespace tilec::mlirgen
