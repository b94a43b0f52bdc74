//===- CudaHeader.cpp - The launch header for the CUDA driver API ---------===//
//
// Renders the CUDA flavour of the header. The image is loaded with
// cuModuleLoadDataEx once per CUDA context (a context is the unit in which
// modules live) and kept in a small list keyed by the context handle and,
// with CUDA 12 headers, the context's unique id, so that a new context that
// reuses a destroyed one's handle does not see a dead module. Dynamic shared
// memory above 48 KB and non-portable cluster sizes are opted into right
// after loading, once per function and context. Launch functions check
// their arguments, compute grids in 64-bit, build any TMA descriptors, and
// only then launch, so that a rejected call launches nothing.
//
//===----------------------------------------------------------------------===//

#include "Support.h"

#include <cctype>

namespace tilec::header {

using namespace detail;

namespace {

std::string_view swizzleName(TensorMap::Swizzle s) {
  switch (s) {
  case TensorMap::Swizzle::None:
    return "CU_TENSOR_MAP_SWIZZLE_NONE";
  case TensorMap::Swizzle::B32:
    return "CU_TENSOR_MAP_SWIZZLE_32B";
  case TensorMap::Swizzle::B64:
    return "CU_TENSOR_MAP_SWIZZLE_64B";
  case TensorMap::Swizzle::B128:
    return "CU_TENSOR_MAP_SWIZZLE_128B";
  }
  return "";
}

std::string_view interleaveName(TensorMap::Interleave i) {
  switch (i) {
  case TensorMap::Interleave::None:
    return "CU_TENSOR_MAP_INTERLEAVE_NONE";
  case TensorMap::Interleave::B16:
    return "CU_TENSOR_MAP_INTERLEAVE_16B";
  case TensorMap::Interleave::B32:
    return "CU_TENSOR_MAP_INTERLEAVE_32B";
  }
  return "";
}

std::string_view l2Name(TensorMap::L2Promotion l) {
  switch (l) {
  case TensorMap::L2Promotion::None:
    return "CU_TENSOR_MAP_L2_PROMOTION_NONE";
  case TensorMap::L2Promotion::B64:
    return "CU_TENSOR_MAP_L2_PROMOTION_L2_64B";
  case TensorMap::L2Promotion::B128:
    return "CU_TENSOR_MAP_L2_PROMOTION_L2_128B";
  case TensorMap::L2Promotion::B256:
    return "CU_TENSOR_MAP_L2_PROMOTION_L2_256B";
  }
  return "";
}

std::string list(const std::vector<std::string> &items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + items[i];
  return out;
}

void writeTensorMap(Writer &w, const Function &function,
                    const ParamNames &names, const Api &api, unsigned k,
                    unsigned a) {
  TensorMap map = function.kernels[k].args[a].tensorMap;
  completeTensorMap(function, map);
  const Param &tensor = function.params[map.tensor];
  std::string var = kernelArgVariable(function, names, k, a);
  auto cast64 = [&](const std::vector<std::string> &exprs) {
    std::vector<std::string> out;
    for (const std::string &e : exprs)
      out.push_back("static_cast<cuuint64_t>(" + rewriteExpr(e, names.symbols) +
                    ")");
    return list(out);
  };
  auto numbers = [](const std::vector<unsigned> &values) {
    std::vector<std::string> out;
    for (unsigned v : values)
      out.push_back(std::to_string(v));
    return list(out);
  };
  size_t rank = map.globalDims.size();
  w.line("// TMA descriptor of `" + names.cNames[map.tensor] + "` for kernel " +
         std::to_string(k) + ", argument " + std::to_string(a) + ".");
  w.line("CUtensorMap " + var + ";");
  w.line("{");
  w.indent();
  w.line("const cuuint64_t tilec_dims[" + std::to_string(rank) + "] = {" +
         cast64(map.globalDims) + "};");
  if (rank > 1)
    w.line("const cuuint64_t tilec_strides[" + std::to_string(rank - 1) +
           "] = {" + cast64(map.globalStrides) + "};");
  else
    w.line("const cuuint64_t *tilec_strides = nullptr;");
  w.line("const cuuint32_t tilec_box[" + std::to_string(rank) + "] = {" +
         numbers(map.boxDims) + "};");
  w.line("const cuuint32_t tilec_elementStrides[" + std::to_string(rank) +
         "] = {" + numbers(map.elementStrides) + "};");
  w.line("tilec_err = cuTensorMapEncodeTiled(");
  w.line("    &" + var + ", CU_TENSOR_MAP_DATA_TYPE_" +
         std::string(lookupDType(tensor.dtype)->tmaType) + ", " +
         std::to_string(rank) + ",");
  w.line("    reinterpret_cast<void *>(" + names.cNames[map.tensor] +
         "), tilec_dims, tilec_strides, tilec_box,");
  w.line("    tilec_elementStrides, " +
         std::string(interleaveName(map.interleave)) + ",");
  w.line("    " + std::string(swizzleName(map.swizzle)) + ",");
  w.line("    " + std::string(l2Name(map.l2Promotion)) + ", " +
         (map.oobFillNaN ? "CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA"
                         : "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE") +
         ");");
  w.line("if (tilec_err != CUDA_SUCCESS)");
  w.line("  " + runtimeErrorStatement(api, function,
                                      "cuTensorMapEncodeTiled for `" +
                                          names.cNames[map.tensor] + "`"));
  w.dedent();
  w.line("}");
}

void writeLaunch(Writer &w, const Function &function, const ParamNames &names,
                 const Api &api, const EntryTable &entries, unsigned k) {
  const KernelLaunch &kernel = function.kernels[k];
  std::string ks = std::to_string(k);
  std::string grid = "tilec_grid" + ks;
  std::string fn =
      "tilec_fn[" + std::to_string(entries.indexOf(kernel.entry)) + "]";
  auto dim = [&](unsigned d) {
    return "static_cast<unsigned>(" + grid + "[" + std::to_string(d) + "])";
  };
  std::string block = std::to_string(kernel.block[0]) + ", " +
                      std::to_string(kernel.block[1]) + ", " +
                      std::to_string(kernel.block[2]);
  w.line("// Kernel " + ks + ": " + commentText(kernel.entry) + ".");
  writeKernelArgArray(w, function, names, k);
  if (kernel.persistentBlocksPerSM) {
    // A persistent kernel computes every block of its grid whatever grid
    // it is launched with: launch as many as the device holds at once.
    std::string pgrid = "tilec_pgrid" + ks;
    w.line("std::int64_t " + pgrid + "[3] = {" + grid + "[0] * " + grid +
           "[1] * " + grid + "[2], 1, 1};");
    w.line("{");
    w.indent();
    w.line("CUdevice tilec_dev;");
    w.line("int tilec_sms = 0;");
    w.line("if (cuCtxGetDevice(&tilec_dev) == CUDA_SUCCESS &&");
    w.line("    cuDeviceGetAttribute(&tilec_sms, "
           "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, tilec_dev) == "
           "CUDA_SUCCESS &&");
    w.line("    tilec_sms > 0 && " + pgrid +
           "[0] > std::int64_t(tilec_sms) * " +
           std::to_string(kernel.persistentBlocksPerSM) + ")");
    w.line("  " + pgrid + "[0] = std::int64_t(tilec_sms) * " +
           std::to_string(kernel.persistentBlocksPerSM) + ";");
    w.dedent();
    w.line("}");
    grid = pgrid;
  }
  if (kernel.cooperative) {
    // A grid barrier (T.sync_grid) waits for every block: they must all be
    // resident at once, which the driver checks too, but with an error
    // that does not say how many fit.
    std::string total = grid + "[0] * " + grid + "[1] * " + grid + "[2]";
    w.line("{");
    w.indent();
    w.line("CUdevice tilec_dev;");
    w.line("int tilec_sms = 0, tilec_per_sm = 0;");
    w.line("tilec_err = cuCtxGetDevice(&tilec_dev);");
    w.line("if (tilec_err == CUDA_SUCCESS)");
    w.line("  tilec_err = cuDeviceGetAttribute(&tilec_sms, "
           "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, tilec_dev);");
    w.line("if (tilec_err == CUDA_SUCCESS)");
    w.line("  tilec_err = cuOccupancyMaxActiveBlocksPerMultiprocessor(");
    w.line("      &tilec_per_sm, " + fn + ", " +
           std::to_string(kernel.block[0] * kernel.block[1] * kernel.block[2]) +
           ", " + std::to_string(kernel.dynamicSharedBytes) + "u);");
    w.line("if (tilec_err != CUDA_SUCCESS)");
    w.line("  " + runtimeErrorStatement(api, function,
                                        "counting the co-resident blocks of "
                                        "cooperative kernel `" +
                                            kernel.entry + "`"));
    w.line("if (" + total + " > std::int64_t(tilec_sms) * tilec_per_sm)");
    w.line("  " +
           rejectStatement(
               api, function,
               "kernel `" + kernel.entry +
                   "` synchronizes its grid (T.sync_grid) and needs "
                   "all %lld blocks resident at once, but only %d fit "
                   "(%d per multiprocessor x %d multiprocessors)",
               {"static_cast<long long>(" + total + ")",
                "tilec_sms * tilec_per_sm", "tilec_per_sm", "tilec_sms"}));
    w.dedent();
    w.line("}");
    w.line("tilec_err = cuLaunchCooperativeKernel(");
    w.line("    " + fn + ",");
    for (unsigned d = 0; d < 3; ++d)
      w.line("    " + dim(d) + ",");
    w.line("    " + block + ", " + std::to_string(kernel.dynamicSharedBytes) +
           "u, stream, tilec_args" + ks + ");");
  } else if (kernel.cluster == std::array<unsigned, 3>{1, 1, 1}) {
    w.line("tilec_err = cuLaunchKernel(");
    w.line("    " + fn + ",");
    for (unsigned d = 0; d < 3; ++d)
      w.line("    " + dim(d) + ",");
    w.line("    " + block + ", " + std::to_string(kernel.dynamicSharedBytes) +
           "u, stream, tilec_args" + ks + ", nullptr);");
  } else {
    w.line("{");
    w.indent();
    w.line("CUlaunchAttribute tilec_cluster[1] = {};");
    w.line("tilec_cluster[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;");
    w.line("tilec_cluster[0].value.clusterDim.x = " +
           std::to_string(kernel.cluster[0]) + ";");
    w.line("tilec_cluster[0].value.clusterDim.y = " +
           std::to_string(kernel.cluster[1]) + ";");
    w.line("tilec_cluster[0].value.clusterDim.z = " +
           std::to_string(kernel.cluster[2]) + ";");
    w.line("CUlaunchConfig tilec_config = {};");
    w.line("tilec_config.gridDimX = " + dim(0) + ";");
    w.line("tilec_config.gridDimY = " + dim(1) + ";");
    w.line("tilec_config.gridDimZ = " + dim(2) + ";");
    w.line("tilec_config.blockDimX = " + std::to_string(kernel.block[0]) + ";");
    w.line("tilec_config.blockDimY = " + std::to_string(kernel.block[1]) + ";");
    w.line("tilec_config.blockDimZ = " + std::to_string(kernel.block[2]) + ";");
    w.line("tilec_config.sharedMemBytes = " +
           std::to_string(kernel.dynamicSharedBytes) + "u;");
    w.line("tilec_config.hStream = stream;");
    w.line("tilec_config.attrs = tilec_cluster;");
    w.line("tilec_config.numAttrs = 1;");
    w.line("tilec_err = cuLaunchKernelEx(&tilec_config, " + fn +
           ", tilec_args" + ks + ", nullptr);");
    w.dedent();
    w.line("}");
  }
  w.line("if (tilec_err != CUDA_SUCCESS)");
  w.line("  " + runtimeErrorStatement(
                    api, function, "launching kernel `" + kernel.entry + "`"));
}

void writeFunction(Writer &w, const Function &function, const Api &api,
                   const EntryTable &entries) {
  ParamNames names = nameParams(function);
  writeFunctionDoc(w, function, names, api);
  w.line("inline " + launchSignature(function, names, api) + " {");
  w.indent();
  writeArgumentChecks(w, function, names, api);
  for (unsigned k = 0; k < function.kernels.size(); ++k)
    writeGrid(w, function, k, names, api);
  writeDeviceValues(w, function, names, api);
  w.line("CUfunction tilec_fn[detail::kNumEntries];");
  w.line("CUresult tilec_err = detail::functions(tilec_fn);");
  w.line("if (tilec_err != CUDA_SUCCESS)");
  w.line("  " + runtimeErrorStatement(api, function,
                                      "loading the image (loadLog() has the "
                                      "JIT log)"));
  for (unsigned k = 0; k < function.kernels.size(); ++k)
    for (unsigned a = 0; a < function.kernels[k].args.size(); ++a)
      if (function.kernels[k].args[a].kind == KernelArg::Kind::TensorMap)
        writeTensorMap(w, function, names, api, k, a);
  for (unsigned k = 0; k < function.kernels.size(); ++k)
    writeLaunch(w, function, names, api, entries, k);
  w.line("return " + api.status + "succeed();");
  w.dedent();
  w.line("}");
}

// The module table and its helpers, inside `namespace detail`.
void writeRuntime(Writer &w, const EntryTable &entries, const Api &api,
                  bool ptxFallback) {
  std::string n = std::to_string(entries.entries.size());
  std::vector<std::string> quoted, shared, clusters;
  for (size_t i = 0; i < entries.entries.size(); ++i) {
    quoted.push_back(quote(entries.entries[i]));
    shared.push_back(std::to_string(entries.maxDynamicShared[i]) + "u");
    clusters.push_back(std::to_string(entries.maxClusterSize[i]) + "u");
  }
  w.line("inline constexpr unsigned kNumEntries = " + n + ";");
  w.line("inline constexpr const char *const kEntries[kNumEntries] = {");
  for (const std::string &q : quoted)
    w.line("    " + q + ",");
  w.line("};");
  w.line("// Dynamic shared bytes per entry: above 48 KB needs an opt-in.");
  w.line("inline constexpr unsigned kDynamicShared[kNumEntries] = {" +
         list(shared) + "};");
  w.line("// Cluster size per entry: above 8 needs an opt-in.");
  w.line("inline constexpr unsigned kClusterSize[kNumEntries] = {" +
         list(clusters) + "};");
  static const char kRuntime[] = R"cpp(
// The image loaded into one context. A list, as a process has a few
// contexts at most; nodes live until unload() or process exit.
struct Module {
  CUcontext context;
  unsigned long long contextId;
  CUmodule module;
  CUfunction functions[kNumEntries];
  Module *next;
};

struct State {
  std::mutex mutex; // guards everything below
  Module *modules = nullptr;
  char log[4096] = {}; // JIT error log of the last failed load
};
inline State state;

// The current context, and an id that tells a new context apart from a
// destroyed one whose handle it reuses.
inline CUresult currentContext(CUcontext &context, unsigned long long &id) {
  CUresult err = cuCtxGetCurrent(&context);
  if (err != CUDA_SUCCESS)
    return err;
  if (context == nullptr)
    return CUDA_ERROR_INVALID_CONTEXT;
  id = 0;
#if CUDA_VERSION >= 12000
  err = cuCtxGetId(context, &id);
#endif
  return err;
}

// Loads the image into the current context and looks up every entry.
// Called with state.mutex held.
inline CUresult loadModule(Module &loaded) {
  CUjit_option options[2] = {CU_JIT_ERROR_LOG_BUFFER,
                             CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[2] = {state.log, reinterpret_cast<void *>(
                                    static_cast<std::uintptr_t>(sizeof state.log))};
  state.log[0] = '\0';
  CUresult err = cuModuleLoadDataEx(&loaded.module, kImage, 2, options, values);
#if TILEC_PTX_FALLBACK
  // No cubin for this chip: the PTX, JIT-compiled by the driver.
  if (err == CUDA_ERROR_NO_BINARY_FOR_GPU) {
    state.log[0] = '\0';
    err = cuModuleLoadDataEx(&loaded.module, kPtx, 2, options, values);
  }
#endif
  if (err != CUDA_SUCCESS)
    return err;
  for (unsigned i = 0; i < kNumEntries; ++i) {
    err = cuModuleGetFunction(&loaded.functions[i], loaded.module, kEntries[i]);
    // Static and dynamic shared memory share the 48 KiB default: a kernel
    // with 48 KiB of dynamic and any static shared memory already needs the
    // opt-in, so it is raised whenever there is dynamic shared memory.
    if (err == CUDA_SUCCESS && kDynamicShared[i] > 0u)
      err = cuFuncSetAttribute(loaded.functions[i],
                               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               static_cast<int>(kDynamicShared[i]));
#if CUDA_VERSION >= 12000
    if (err == CUDA_SUCCESS && kClusterSize[i] > 8u)
      err = cuFuncSetAttribute(
          loaded.functions[i],
          CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
#endif
    if (err != CUDA_SUCCESS) {
      (void)cuModuleUnload(loaded.module);
      return err;
    }
  }
  return CUDA_SUCCESS;
}

// The current context's functions, loading the image on first use there.
inline CUresult functions(CUfunction (&out)[kNumEntries]) {
  CUcontext context;
  unsigned long long id;
  CUresult err = currentContext(context, id);
  if (err != CUDA_SUCCESS)
    return err;
  std::lock_guard<std::mutex> lock(state.mutex);
  Module *stale = nullptr;
  for (Module *m = state.modules; m != nullptr; m = m->next) {
    if (m->context != context)
      continue;
    if (m->contextId != id) {
      stale = m; // that context was destroyed, and its module with it
      break;
    }
    for (unsigned i = 0; i < kNumEntries; ++i)
      out[i] = m->functions[i];
    return CUDA_SUCCESS;
  }
  Module loaded = {};
  err = loadModule(loaded);
  if (err != CUDA_SUCCESS)
    return err;
  loaded.context = context;
  loaded.contextId = id;
  if (stale != nullptr) {
    loaded.next = stale->next;
    *stale = loaded;
  } else {
    Module *node = new (std::nothrow) Module(loaded);
    if (node == nullptr) {
      (void)cuModuleUnload(loaded.module);
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    node->next = state.modules;
    state.modules = node;
  }
  for (unsigned i = 0; i < kNumEntries; ++i)
    out[i] = loaded.functions[i];
  return CUDA_SUCCESS;
}

} // namespace detail

/// Loads the image into the current context now rather than on the first
/// launch (to keep JIT time out of a timed region, say). Thread-safe.
inline CUresult load() {
  CUfunction functions[detail::kNumEntries];
  CUresult err = detail::functions(functions);
  return err == CUDA_SUCCESS ? STATUS::succeed()
                             : STATUS::runtimeError(err, "load()");
}

/// Unloads the image from the current context if it is loaded there; the
/// next launch in that context loads it again. Launches in flight must have
/// finished. A context's module also goes when the context is destroyed:
/// calling this first is not required.
inline CUresult unload() {
  CUcontext context;
  unsigned long long id;
  CUresult err = detail::currentContext(context, id);
  if (err != CUDA_SUCCESS)
    return err;
  std::lock_guard<std::mutex> lock(detail::state.mutex);
  for (detail::Module **link = &detail::state.modules; *link != nullptr;
       link = &(*link)->next) {
    detail::Module *m = *link;
    if (m->context != context || m->contextId != id)
      continue;
    *link = m->next;
    err = cuModuleUnload(m->module);
    delete m;
    return err == CUDA_SUCCESS ? STATUS::succeed()
                               : STATUS::runtimeError(err, "unload()");
  }
  return STATUS::succeed();
}

/// Copies the JIT error log of the last failed load (empty if none) into
/// `buffer` of `size` bytes, NUL-terminated and truncated to fit; returns
/// the log's full length.
inline std::size_t loadLog(char *buffer, std::size_t size) {
  std::lock_guard<std::mutex> lock(detail::state.mutex);
  std::size_t length = std::strlen(detail::state.log);
  if (buffer != nullptr && size > 0) {
    std::size_t n = length < size - 1 ? length : size - 1;
    std::memcpy(buffer, detail::state.log, n);
    buffer[n] = '\0';
  }
  return length;
})cpp";
  // The status helpers' namespace, and the fallback to PTX only where a
  // PTX is embedded.
  std::string text(kRuntime);
  for (size_t at; (at = text.find("STATUS::")) != std::string::npos;)
    text.replace(at, 8, api.status);
  const std::string begin = "#if TILEC_PTX_FALLBACK\n", end = "#endif\n";
  size_t at = text.find(begin);
  size_t stop = text.find(end, at);
  if (ptxFallback)
    text.erase(stop, end.size()).erase(at, begin.size());
  else
    text.erase(at, stop + end.size() - at);
  w.line(text);
}

} // namespace

void detail::writeCuda12Check(Writer &w) {
  w.line();
  w.line("#if CUDA_VERSION < 12000");
  w.line("#error \"these kernels use TMA or clusters: they need CUDA 12 or "
         "later\"");
  w.line("#endif");
}

bool detail::needsCuda12(const Unit &unit) {
  for (const Function &function : unit.functions)
    for (const KernelLaunch &kernel : function.kernels) {
      if (kernel.cluster != std::array<unsigned, 3>{1, 1, 1})
        return true;
      for (const KernelArg &arg : kernel.args)
        if (arg.kind == KernelArg::Kind::TensorMap)
          return true;
    }
  return false;
}

const Api detail::cudaApi = {
    "CUresult",    "CUDA_SUCCESS",  "CUDA_ERROR_INVALID_VALUE",
    "CUdeviceptr", "CUstream",      true,
    "detail::",    "cuGetErrorName"};

void detail::writeCudaBody(Writer &w, const Unit &unit, const Api &api,
                           const BodyOptions &options) {
  EntryTable entries = collectEntries(unit);
  bool ptx = unit.image.kind == ImageKind::PTX;
  bool fallback = !options.ptxFallback.empty();
  w.line("/// The architecture the image was compiled for.");
  w.line("inline constexpr char kTarget[] = " + quote(unit.image.target) + ";");
  w.line(ptx ? "/// Size of the embedded image in bytes (without the NUL that "
               "ends PTX)."
             : "/// Size of the embedded image in bytes.");
  w.line("inline constexpr std::size_t kImageSize = " +
         std::to_string(unit.image.bytes.size()) + ";");
  w.line();
  w.line("namespace detail {");
  w.line();
  w.line(ptx ? "// The PTX, NUL-terminated for cuModuleLoadDataEx."
             : "// The cubin.");
  w.line("alignas(64) inline constexpr unsigned char kImage[" +
         std::to_string(unit.image.bytes.size() + (ptx ? 1 : 0)) + "] = {");
  w.indent();
  w.indent();
  writeImageBytes(w, unit.image.bytes, ptx);
  w.dedent();
  w.dedent();
  w.line("};");
  if (fallback) {
    w.line();
    w.line("// The PTX the cubin was assembled from, NUL-terminated: the "
           "driver");
    w.line("// JIT-compiles it for a newer chip the cubin does not run on.");
    w.line("alignas(64) inline constexpr unsigned char kPtx[" +
           std::to_string(options.ptxFallback.size() + 1) + "] = {");
    w.indent();
    w.indent();
    writeImageBytes(w, options.ptxFallback, true);
    w.dedent();
    w.dedent();
    w.line("};");
  }
  w.line();
  writeCommonHelpers(w, unit, "65535");
  if (!options.multiTarget) {
    w.line();
    writeStatusHelpers(w, api);
  }
  w.line();
  writeRuntime(w, entries, api, fallback);
  for (const Function &function : unit.functions) {
    w.line();
    writeFunction(w, function, api, entries);
  }
}

std::string renderCudaHeader(const Unit &unit) {
  if (std::string error = validate(unit, Flavor::CUDA); !error.empty())
    throw HeaderError(error);
  std::vector<std::string> parts = namespaceParts(unit);
  std::string guard = includeGuard(unit, "CUDA_H");

  Writer w;
  writeBanner(w, unit,
              {"// Uses the CUDA driver API (cuda.h): build as C++17 or later "
               "and link",
               "// with -lcuda (CMake: CUDA::cuda_driver)."});
  w.line("#ifndef " + guard);
  w.line("#define " + guard);
  w.line();
  w.line("#include <cuda.h>");
  w.line();
  for (const char *include :
       {"cstdarg", "cstddef", "cstdint", "cstdio", "cstring", "mutex", "new"})
    w.line("#include <" + std::string(include) + ">");
  if (needsCuda12(unit))
    writeCuda12Check(w);
  w.line();
  for (const std::string &part : parts)
    w.line("namespace " + part + " {");
  w.line();
  writeCudaBody(w, unit, cudaApi, {});
  w.line();
  writeStatusApi(w, cudaApi);
  w.line();
  for (size_t i = parts.size(); i-- > 0;)
    w.line("} // namespace " + parts[i]);
  w.line();
  w.line("#endif // " + guard);
  return w.take();
}

} // namespace tilec::header
