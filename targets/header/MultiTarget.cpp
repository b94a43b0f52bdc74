//===- MultiTarget.cpp - One header holding an image per chip -------------===//
//
// `tilec --target sm_80,sm_90a` compiles once per chip; this renders the
// results into one header, as a fatbin would hold them. Each chip's
// single-target body (its image, module table and launch functions) goes
// into a namespace named after the chip; the outer namespace holds the one
// per-thread status and launch functions with the usual signatures that
// pick the chip's namespace from the current device, once per device:
//
// - CUDA: a cubin built for exactly the device's compute capability when
//   it is arch-specific (sm_90a runs only on 9.0); else the newest cubin of
//   the device's major version not newer than it (an sm_80 cubin runs on
//   8.6); else the newest non-arch-specific chip's image, whose loader
//   falls back to its PTX, JIT-compiled by the driver for a newer chip.
// - HIP: the code object whose gfx name is the device's (code objects do
//   not run on another chip).
//
// One namespace per chip, not one per call site, means sm_80 and sm_90a
// code of one kernel can be in one program without an ODR clash.
//
//===----------------------------------------------------------------------===//

#include "Support.h"

#include <nlohmann/json.hpp>

namespace tilec::header {

using namespace detail;

namespace {

/// "sm_90a" -> {90, true}; {-1, false} for a name that is not sm_<digits>.
std::pair<int, bool> computeCapability(const std::string &chip) {
  if (chip.rfind("sm_", 0) != 0)
    return {-1, false};
  std::string digits = chip.substr(3);
  bool archSpecific = !digits.empty() && digits.back() == 'a';
  if (archSpecific)
    digits.pop_back();
  if (digits.empty() || digits.size() > 3 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return {-1, false};
  return {std::stoi(digits), archSpecific};
}

std::string joinTargets(const MultiUnit &multi) {
  std::string out;
  for (const Unit &unit : multi.units)
    out += (out.empty() ? "" : ", ") + unit.image.target;
  return out;
}

bool sameParams(const Function &a, const Function &b) {
  if (a.params.size() != b.params.size())
    return false;
  for (size_t p = 0; p < a.params.size(); ++p) {
    const Param &x = a.params[p], &y = b.params[p];
    if (x.kind != y.kind || x.name != y.name || x.dtype != y.dtype ||
        x.shape != y.shape || x.alignment != y.alignment)
      return false;
  }
  return true;
}

/// The unit whose PTX is embedded for newer chips: the newest
/// non-arch-specific CUDA chip with PTX, or -1.
int ptxUnit(const MultiUnit &multi) {
  int best = -1, bestCC = -1;
  for (size_t i = 0; i < multi.units.size(); ++i) {
    auto [cc, archSpecific] = computeCapability(multi.units[i].image.target);
    if (cc < 0 || archSpecific || i >= multi.ptx.size() ||
        multi.ptx[i].empty())
      continue;
    if (cc > bestCC) {
      best = static_cast<int>(i);
      bestCC = cc;
    }
  }
  return best;
}

std::string fullNamespace(const Unit &unit) {
  std::string ns;
  for (const std::string &part : namespaceParts(unit))
    ns += "::" + part;
  return ns;
}

/// `text` with NS and TARGETS replaced.
std::string substitute(std::string text, const std::string &ns,
                       const std::string &targets) {
  for (auto [key, value] : {std::pair<std::string, const std::string &>{
                                "NS", ns},
                            {"TARGETS", targets}})
    for (size_t at = 0; (at = text.find(key, at)) != std::string::npos;
         at += value.size())
      text.replace(at, key.size(), value);
  return text;
}

void writeCudaChooser(Writer &w, const MultiUnit &multi, int ptx,
                      const std::string &ns, const std::string &targets) {
  std::vector<std::string> ccs, specific;
  for (const Unit &unit : multi.units) {
    auto [cc, archSpecific] = computeCapability(unit.image.target);
    ccs.push_back(std::to_string(cc));
    specific.push_back(archSpecific ? "true" : "false");
  }
  std::string n = std::to_string(multi.units.size());
  auto list = [](const std::vector<std::string> &items) {
    std::string out;
    for (const std::string &item : items)
      out += (out.empty() ? "" : ", ") + item;
    return out;
  };
  w.line("// 10 * major + minor of each image's chip, whether it runs only "
         "on that");
  w.line("// chip (sm_90a), and the image whose PTX a newer chip can JIT.");
  w.line("inline constexpr int kCapability[" + n + "] = {" + list(ccs) + "};");
  w.line("inline constexpr bool kArchSpecific[" + n + "] = {" + list(specific) +
         "};");
  w.line("inline constexpr int kPtxImage = " + std::to_string(ptx) + ";");
  w.line(substitute(R"cpp(
// The image for a device of compute capability `cc`, or -1.
inline int chooseImage(int cc) {
  for (int i = 0; i < kNumImages; ++i)
    if (kArchSpecific[i] && kCapability[i] == cc)
      return i;
  int best = -1;
  for (int i = 0; i < kNumImages; ++i)
    if (!kArchSpecific[i] && kCapability[i] / 10 == cc / 10 &&
        kCapability[i] <= cc && (best < 0 || kCapability[i] > kCapability[best]))
      best = i;
  if (best < 0 && kPtxImage >= 0 && kCapability[kPtxImage] <= cc)
    best = kPtxImage;
  return best;
}

// Image chosen per device ordinal, plus one; 0: not chosen yet.
inline std::atomic<int> chosen[64];

// The image for the current context's device.
inline CUresult selectImage(int &image) {
  CUdevice device;
  CUresult err = cuCtxGetDevice(&device);
  if (err != CUDA_SUCCESS)
    return runtimeError(err, "NS: cuCtxGetDevice (no current context?)");
  bool cache = device >= 0 && device < 64;
  if (cache && (image = chosen[device].load(std::memory_order_relaxed) - 1) >= 0)
    return CUDA_SUCCESS;
  int major = 0, minor = 0;
  err = cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                             device);
  if (err == CUDA_SUCCESS)
    err = cuDeviceGetAttribute(
        &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  if (err != CUDA_SUCCESS)
    return runtimeError(err, "NS: cuDeviceGetAttribute");
  image = chooseImage(10 * major + minor);
  if (image < 0)
    return fail(CUDA_ERROR_NO_BINARY_FOR_GPU,
                "NS: no image for compute capability %d.%d (compiled for "
                "TARGETS)", major, minor);
  if (cache)
    chosen[device].store(image + 1, std::memory_order_relaxed);
  return CUDA_SUCCESS;
})cpp",
                    ns, targets));
}

void writeHipChooser(Writer &w, const std::string &ns,
                     const std::string &targets) {
  w.line(substitute(R"cpp(
// Image chosen per device ordinal, plus one; 0: not chosen yet.
inline std::atomic<int> chosen[64];

// The image for the current device: the one for its gfx chip.
inline hipError_t selectImage(int &image) {
  int device = 0;
  hipError_t err = hipGetDevice(&device);
  if (err != hipSuccess)
    return runtimeError(err, "NS: hipGetDevice");
  bool cache = device >= 0 && device < 64;
  if (cache && (image = chosen[device].load(std::memory_order_relaxed) - 1) >= 0)
    return hipSuccess;
  hipDeviceProp_t props;
  err = hipGetDeviceProperties(&props, device);
  if (err != hipSuccess)
    return runtimeError(err, "NS: hipGetDeviceProperties");
  // gcnArchName reads "gfx942:sramecc+:xnack-": the chip precedes the ':'.
  std::size_t length = std::strcspn(props.gcnArchName, ":");
  image = -1;
  for (int i = 0; i < kNumImages; ++i)
    if (std::strlen(kTargets[i]) == length &&
        std::strncmp(props.gcnArchName, kTargets[i], length) == 0)
      image = i;
  if (image < 0)
    return fail(hipErrorNoBinaryForGpu,
                "NS: no image for %.*s (compiled for TARGETS)",
                static_cast<int>(length), props.gcnArchName);
  if (cache)
    chosen[device].store(image + 1, std::memory_order_relaxed);
  return hipSuccess;
})cpp",
                    ns, targets));
}

} // namespace

std::string validate(const MultiUnit &multi, Flavor flavor) {
  if (multi.units.size() < 2)
    return "a multi-target header needs at least two targets";
  const Unit &first = multi.units.front();
  for (size_t i = 0; i < multi.units.size(); ++i) {
    const Unit &unit = multi.units[i];
    const std::string &chip = unit.image.target;
    if (std::string error = validate(unit, flavor); !error.empty())
      return chip + ": " + error;
    if (!isIdentifier(chip) || sanitizeIdentifier(chip) != chip)
      return "target `" + chip + "` cannot name a C++ namespace";
    bool cuda = flavor == Flavor::CUDA;
    if (cuda != (unit.image.kind == ImageKind::Cubin))
      return chip + ": a multi-target " + std::string(cuda ? "CUDA" : "HIP") +
             " header embeds " + (cuda ? "cubins" : "HSACO code objects") +
             ", not " + std::string(imageKindName(unit.image.kind));
    if (cuda && computeCapability(chip).first < 0)
      return "target `" + chip + "` is not an sm_<number> chip";
    for (size_t j = 0; j < i; ++j)
      if (multi.units[j].image.target == chip)
        return "target `" + chip + "` is given twice";
    if (fullNamespace(unit) != fullNamespace(first))
      return "the targets' namespaces differ";
    if (unit.functions.size() != first.functions.size())
      return chip + " has " + std::to_string(unit.functions.size()) +
             " launch functions, " + first.image.target + " " +
             std::to_string(first.functions.size());
    for (size_t f = 0; f < unit.functions.size(); ++f) {
      if (unit.functions[f].name != first.functions[f].name)
        return chip + "'s function " + std::to_string(f) + " is `" +
               unit.functions[f].name + "`, " + first.image.target + "'s `" +
               first.functions[f].name + "`";
      if (!sameParams(unit.functions[f], first.functions[f]))
        return "function `" + first.functions[f].name +
               "` has other parameters for " + chip + " than for " +
               first.image.target;
      if (functionName(unit.functions[f]) == chip)
        return "function `" + chip + "` has the name of a target";
    }
  }
  return "";
}

std::string renderMultiTargetHeader(const MultiUnit &multi, Flavor flavor) {
  if (std::string error = validate(multi, flavor); !error.empty())
    throw HeaderError(error);
  bool cuda = flavor == Flavor::CUDA;
  const Unit &first = multi.units.front();
  std::vector<std::string> parts = namespaceParts(first);
  std::string ns = fullNamespace(first);
  std::string targets = joinTargets(multi);
  std::string guard = includeGuard(first, cuda ? "CUDA_H" : "HIP_H");
  Api api = cuda ? cudaApi : hipApi;
  Api inner = api;
  inner.status = ns + "::detail::";
  int ptx = cuda ? ptxUnit(multi) : -1;

  Writer w;
  // The banner gives every target and the bytes of all embedded images.
  Unit banner = first;
  banner.image.target = targets;
  banner.image.bytes.clear();
  for (const Unit &unit : multi.units)
    banner.image.bytes += unit.image.bytes;
  if (ptx >= 0)
    banner.image.bytes += multi.ptx[ptx];
  writeBanner(
      w, banner,
      cuda ? std::vector<std::string_view>{
                 "// Uses the CUDA driver API (cuda.h): build as C++17 or "
                 "later and link",
                 "// with -lcuda (CMake: CUDA::cuda_driver)."}
           : std::vector<std::string_view>{
                 "// Uses the HIP module API: build as C++17 or later with",
                 "// -D__HIP_PLATFORM_AMD__ and link with -lamdhip64 (CMake: "
                 "hip::host)."});
  w.line("// One image per target, in a namespace named after it; the launch");
  w.line("// functions below pick one for the current device (docs/header.md).");
  w.line("#ifndef " + guard);
  w.line("#define " + guard);
  w.line();
  w.line(cuda ? "#include <cuda.h>" : "#include <hip/hip_runtime_api.h>");
  w.line();
  for (const char *include : {"atomic", "cstdarg", "cstddef", "cstdint",
                              "cstdio", "cstring", "mutex", "new"})
    w.line("#include <" + std::string(include) + ">");
  bool cuda12 = false;
  for (const Unit &unit : multi.units)
    cuda12 |= cuda && needsCuda12(unit);
  if (cuda12)
    writeCuda12Check(w);
  w.line();
  for (const std::string &part : parts)
    w.line("namespace " + part + " {");
  w.line();
  std::string n = std::to_string(multi.units.size());
  w.line("/// The targets of the images, in the order they were given.");
  w.line("inline constexpr int kNumImages = " + n + ";");
  w.line("inline constexpr const char *const kTargets[kNumImages] = {");
  for (const Unit &unit : multi.units)
    w.line("    " + quote(unit.image.target) + ",");
  w.line("};");
  w.line();
  w.line("namespace detail {");
  w.line();
  writeStatusHelpers(w, api);
  w.line();
  w.line("} // namespace detail");
  for (size_t i = 0; i < multi.units.size(); ++i) {
    const Unit &unit = multi.units[i];
    w.line();
    w.line("namespace " + unit.image.target + " {");
    w.line();
    BodyOptions options;
    options.multiTarget = true;
    if (static_cast<int>(i) == ptx)
      options.ptxFallback = multi.ptx[i];
    if (cuda)
      writeCudaBody(w, unit, inner, options);
    else
      writeHipBody(w, unit, inner, options);
    w.line();
    w.line("} // namespace " + unit.image.target);
  }
  w.line();
  w.line("namespace detail {");
  // The chooser's messages name the namespace and the targets.
  if (cuda)
    writeCudaChooser(w, multi, ptx, ns.substr(2), targets);
  else
    writeHipChooser(w, ns.substr(2), targets);
  w.line();
  w.line("} // namespace detail");
  w.line();
  std::string text = w.take();
  Writer tail;
  writeStatusApi(tail, api);
  std::string result(api.result), success(api.success);
  auto writeSwitch = [&](Writer &out, const std::string &call,
                         const std::string &onError) {
    out.line("int tilec_image = 0;");
    out.line(result + " tilec_err = detail::selectImage(tilec_image);");
    out.line("if (tilec_err != " + success + ")");
    out.line("  return " + onError + ";");
    out.line("switch (tilec_image) {");
    for (size_t i = 0; i < multi.units.size(); ++i) {
      out.line(i + 1 == multi.units.size() ? std::string("default:")
                                           : "case " + std::to_string(i) + ":");
      out.line("  return " + multi.units[i].image.target + "::" + call + ";");
    }
    out.line("}");
  };
  tail.line();
  tail.line("/// The target of the image used on the current device (nullptr "
            "if none");
  tail.line("/// fits; statusString() says why).");
  tail.line("inline const char *target() {");
  tail.indent();
  tail.line("int tilec_image = 0;");
  tail.line("return detail::selectImage(tilec_image) == " + success +
            " ? kTargets[tilec_image] : nullptr;");
  tail.dedent();
  tail.line("}");
  tail.line();
  tail.line("/// Loads the current device's image now rather than on the first "
            "launch.");
  tail.line("inline " + result + " load() {");
  tail.indent();
  writeSwitch(tail, "load()", "tilec_err");
  tail.dedent();
  tail.line("}");
  tail.line();
  tail.line("/// Unloads every image loaded in the current " +
            std::string(cuda ? "context" : "device") + ".");
  tail.line("inline " + result + " unload() {");
  tail.indent();
  for (const Unit &unit : multi.units) {
    tail.line("if (" + unit.image.target + "::unload() != " + success + ")");
    tail.line("  return lastError();");
  }
  tail.line("return " + success + ";");
  tail.dedent();
  tail.line("}");
  if (cuda) {
    tail.line();
    tail.line("/// The JIT log of the current device's image's last failed "
              "load (see the");
    tail.line("/// single-target loadLog()); 0 if no image fits the device.");
    tail.line("inline std::size_t loadLog(char *buffer, std::size_t size) {");
    tail.indent();
    tail.line("if (buffer != nullptr && size > 0)");
    tail.line("  buffer[0] = '\\0';");
    writeSwitch(tail, "loadLog(buffer, size)", "0");
    tail.dedent();
    tail.line("}");
  }
  for (const Function &function : first.functions) {
    ParamNames names = nameParams(function);
    std::string call = functionName(function) + "(";
    for (const std::string &name : names.cNames)
      call += name + ", ";
    call += "stream)";
    tail.line();
    tail.line(commentText("/// Launches `" + function.name + "` with the image "
                          "for the current device: see " +
                          multi.units.front().image.target + "::" +
                          functionName(function) + " for the arguments,"));
    tail.line("/// checks and kernels (the same for every target).");
    tail.line("inline " + launchSignature(function, names, api) + " {");
    tail.indent();
    // The arguments are checked before the device is asked for anything,
    // as in a single-target header (the target's function checks again,
    // with its own grid).
    writeArgumentChecks(tail, function, names, api);
    writeSwitch(tail, call, "tilec_err");
    tail.dedent();
    tail.line("}");
  }
  tail.line();
  for (size_t i = parts.size(); i-- > 0;)
    tail.line("} // namespace " + parts[i]);
  tail.line();
  tail.line("#endif // " + guard);
  return text + tail.take();
}

std::string renderMetadataJSON(const MultiUnit &multi) {
  using Json = nlohmann::ordered_json;
  Json doc = Json::parse(renderMetadataJSON(multi.units.front()));
  Json targets = Json::array();
  for (const Unit &unit : multi.units) {
    Json one = Json::parse(renderMetadataJSON(unit));
    targets.push_back(Json{{"image", one["image"]},
                           {"functions", one["functions"]}});
  }
  doc["targets"] = std::move(targets);
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

} // namespace tilec::header
