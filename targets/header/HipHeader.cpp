//===- HipHeader.cpp - The launch header for the HIP module API -----------===//
//
// Renders the HIP flavour of the header: the same launch functions, with
// the same arguments and checks, as the CUDA one (see Common.cpp), over
// hipModuleLoadData / hipModuleGetFunction / hipModuleLaunchKernel. HIP
// modules belong to a device (contexts are deprecated in HIP), so the
// loaded modules are keyed by the current device ordinal. AMD GPUs need no
// opt-in for large dynamic LDS, and have no TMA or clusters: validate()
// rejects those for HIP.
//
//===----------------------------------------------------------------------===//

#include "Support.h"

#include <cctype>

namespace tilec::header {

using namespace detail;

namespace {

void writeLaunch(Writer &w, const Function &function, const ParamNames &names,
                 const Api &api, const EntryTable &entries, unsigned k) {
  const KernelLaunch &kernel = function.kernels[k];
  std::string ks = std::to_string(k);
  std::string grid = "tilec_grid" + ks;
  auto dim = [&](unsigned d) {
    return "static_cast<unsigned>(" + grid + "[" + std::to_string(d) + "])";
  };
  w.line("// Kernel " + ks + ": " + commentText(kernel.entry) + ".");
  writeKernelArgArray(w, function, names, k);
  w.line("tilec_err = hipModuleLaunchKernel(");
  w.line("    tilec_fn[" + std::to_string(entries.indexOf(kernel.entry)) +
         "],");
  for (unsigned d = 0; d < 3; ++d)
    w.line("    " + dim(d) + ",");
  w.line("    " + std::to_string(kernel.block[0]) + ", " +
         std::to_string(kernel.block[1]) + ", " +
         std::to_string(kernel.block[2]) + ", " +
         std::to_string(kernel.dynamicSharedBytes) + "u, stream, tilec_args" +
         ks + ", nullptr);");
  w.line("if (tilec_err != hipSuccess)");
  w.line("  " + runtimeErrorStatement(api, function,
                                      "launching kernel `" + kernel.entry +
                                          "`"));
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
  w.line("hipFunction_t tilec_fn[detail::kNumEntries];");
  w.line("hipError_t tilec_err = detail::functions(tilec_fn);");
  w.line("if (tilec_err != hipSuccess)");
  w.line("  " + runtimeErrorStatement(api, function, "loading the image"));
  for (unsigned k = 0; k < function.kernels.size(); ++k)
    writeLaunch(w, function, names, api, entries, k);
  w.line("return " + api.status + "succeed();");
  w.dedent();
  w.line("}");
}

void writeRuntime(Writer &w, const EntryTable &entries, const Api &api) {
  w.line("inline constexpr unsigned kNumEntries = " +
         std::to_string(entries.entries.size()) + ";");
  w.line("inline constexpr const char *const kEntries[kNumEntries] = {");
  for (const std::string &entry : entries.entries)
    w.line("    " + quote(entry) + ",");
  w.line("};");
  static const char kRuntime[] = R"cpp(
// The image loaded on one device. A list, as a process sees a few devices;
// nodes live until unload() or process exit.
struct Module {
  int device;
  hipModule_t module;
  hipFunction_t functions[kNumEntries];
  Module *next;
};

struct State {
  std::mutex mutex; // guards the list
  Module *modules = nullptr;
};
inline State state;

// The current device's functions, loading the image on first use there.
inline hipError_t functions(hipFunction_t (&out)[kNumEntries]) {
  int device = 0;
  hipError_t err = hipGetDevice(&device);
  if (err != hipSuccess)
    return err;
  std::lock_guard<std::mutex> lock(state.mutex);
  for (Module *m = state.modules; m != nullptr; m = m->next) {
    if (m->device != device)
      continue;
    for (unsigned i = 0; i < kNumEntries; ++i)
      out[i] = m->functions[i];
    return hipSuccess;
  }
  Module loaded = {};
  loaded.device = device;
  err = hipModuleLoadData(&loaded.module, kImage);
  if (err != hipSuccess)
    return err;
  for (unsigned i = 0; i < kNumEntries; ++i) {
    err = hipModuleGetFunction(&loaded.functions[i], loaded.module, kEntries[i]);
    if (err != hipSuccess) {
      (void)hipModuleUnload(loaded.module);
      return err;
    }
  }
  Module *node = new (std::nothrow) Module(loaded);
  if (node == nullptr) {
    (void)hipModuleUnload(loaded.module);
    return hipErrorOutOfMemory;
  }
  node->next = state.modules;
  state.modules = node;
  for (unsigned i = 0; i < kNumEntries; ++i)
    out[i] = loaded.functions[i];
  return hipSuccess;
}

} // namespace detail

/// Loads the image on the current device now rather than on the first
/// launch. Thread-safe.
inline hipError_t load() {
  hipFunction_t functions[detail::kNumEntries];
  hipError_t err = detail::functions(functions);
  return err == hipSuccess ? STATUS::succeed()
                           : STATUS::runtimeError(err, "load()");
}

/// Unloads the image from the current device if it is loaded there; the
/// next launch on that device loads it again. Launches in flight must have
/// finished. Call it before hipDeviceReset() if launches follow the reset.
inline hipError_t unload() {
  int device = 0;
  hipError_t err = hipGetDevice(&device);
  if (err != hipSuccess)
    return err;
  std::lock_guard<std::mutex> lock(detail::state.mutex);
  for (detail::Module **link = &detail::state.modules; *link != nullptr;
       link = &(*link)->next) {
    detail::Module *m = *link;
    if (m->device != device)
      continue;
    *link = m->next;
    err = hipModuleUnload(m->module);
    delete m;
    return err == hipSuccess ? STATUS::succeed()
                             : STATUS::runtimeError(err, "unload()");
  }
  return STATUS::succeed();
})cpp";
  std::string text(kRuntime);
  for (size_t at; (at = text.find("STATUS::")) != std::string::npos;)
    text.replace(at, 8, api.status);
  w.line(text);
}

} // namespace

const Api detail::hipApi = {"hipError_t",     "hipSuccess",
                            "hipErrorInvalidValue",
                            "hipDeviceptr_t", "hipStream_t",
                            false,            "detail::",
                            "hipGetErrorName"};

void detail::writeHipBody(Writer &w, const Unit &unit, const Api &api,
                          const BodyOptions &options) {
  EntryTable entries = collectEntries(unit);
  w.line("/// The architecture the image was compiled for.");
  w.line("inline constexpr char kTarget[] = " + quote(unit.image.target) + ";");
  w.line("/// Size of the embedded image in bytes.");
  w.line("inline constexpr std::size_t kImageSize = " +
         std::to_string(unit.image.bytes.size()) + ";");
  w.line();
  w.line("namespace detail {");
  w.line();
  w.line("// The HSACO code object.");
  w.line("alignas(64) inline constexpr unsigned char kImage[" +
         std::to_string(unit.image.bytes.size()) + "] = {");
  w.indent();
  w.indent();
  writeImageBytes(w, unit.image.bytes, false);
  w.dedent();
  w.dedent();
  w.line("};");
  w.line();
  writeCommonHelpers(w, unit, "INT32_MAX");
  if (!options.multiTarget) {
    w.line();
    writeStatusHelpers(w, api);
  }
  w.line();
  writeRuntime(w, entries, api);
  for (const Function &function : unit.functions) {
    w.line();
    writeFunction(w, function, api, entries);
  }
}

std::string renderHipHeader(const Unit &unit) {
  if (std::string error = validate(unit, Flavor::HIP); !error.empty())
    throw HeaderError(error);
  std::vector<std::string> parts = namespaceParts(unit);
  std::string guard = includeGuard(unit, "HIP_H");

  Writer w;
  writeBanner(w, unit,
              {"// Uses the HIP module API: build as C++17 or later with",
               "// -D__HIP_PLATFORM_AMD__ and link with -lamdhip64 (CMake: "
               "hip::host)."});
  w.line("#ifndef " + guard);
  w.line("#define " + guard);
  w.line();
  w.line("#include <hip/hip_runtime_api.h>");
  w.line();
  for (const char *include :
       {"cstdarg", "cstddef", "cstdint", "cstdio", "cstring", "mutex", "new"})
    w.line("#include <" + std::string(include) + ">");
  w.line();
  for (const std::string &part : parts)
    w.line("namespace " + part + " {");
  w.line();
  writeHipBody(w, unit, hipApi, {});
  w.line();
  writeStatusApi(w, hipApi);
  w.line();
  for (size_t i = parts.size(); i-- > 0;)
    w.line("} // namespace " + parts[i]);
  w.line();
  w.line("#endif // " + guard);
  return w.take();
}

std::string renderHeader(const Unit &unit, Flavor flavor) {
  return flavor == Flavor::CUDA ? renderCudaHeader(unit)
                                : renderHipHeader(unit);
}

} // namespace tilec::header
