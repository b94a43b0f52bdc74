//===- Common.cpp - Text shared by the CUDA and HIP headers ---------------===//
//
// The parts of a launch function that do not depend on the runtime: its
// documentation, its signature, the argument checks, the grid computation
// and the device-side values. Keeping them in one place is what guarantees
// that a kernel's CUDA and HIP launch functions have the same ABI.
//
//===----------------------------------------------------------------------===//

#include "Support.h"

#include <algorithm>
#include <cctype>

namespace tilec::header::detail {

namespace {

std::string join(const std::vector<std::string> &items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i)
      out += sep;
    out += items[i];
  }
  return out;
}

std::string padded(std::string text, size_t width) {
  if (text.size() < width)
    text.append(width - text.size(), ' ');
  return text;
}

/// A 64-bit T.dynamic size (`T.dynamic("n", "int64")`): in [1, 2^59] and
/// an int64 on the device; other symbols are in [1, INT32_MAX] and int32.
static bool wideSymbol(const Param &param) { return param.dtype == "int64"; }

std::string hostType(const Param &param, const Api &api) {
  switch (param.kind) {
  case Param::Kind::Tensor:
    // A T.ptr table is itself in device memory: CUDA's CUdeviceptr of it,
    // or for HIP the device pointer to the (device) pointers.
    if (param.dtype == "ptr" && !api.integerPointers)
      return "void *const *";
    return std::string(api.devicePtr);
  case Param::Kind::Symbol:
    return "std::int64_t";
  case Param::Kind::Scalar:
    return std::string(lookupDType(param.dtype)->hostType);
  }
  return "";
}

// Whether any kernel passes param `p` as a Param argument.
bool passedToKernel(const Function &function, unsigned p) {
  for (const KernelLaunch &kernel : function.kernels)
    for (const KernelArg &arg : kernel.args)
      if (arg.kind == KernelArg::Kind::Param && arg.param == p)
        return true;
  return false;
}

struct IntRange {
  std::string_view type, min, max;
};

// Value-argument types and the range their int64 value must lie in.
const IntRange *valueRange(std::string_view dtype) {
  static const IntRange ranges[] = {
      {"int32", "INT32_MIN", "INT32_MAX"},
      {"uint32", "0", "UINT32_MAX"},
      {"int64", "", ""},
      {"uint64", "0", ""},
  };
  for (const IntRange &range : ranges)
    if (range.type == dtype)
      return &range;
  return nullptr;
}

std::string resourceSummary(const Resources &r) {
  std::vector<std::string> parts;
  // AMD code objects report SGPRs; NVIDIA has one kind of register.
  bool amd = r.scalarRegisters >= 0 || r.accumRegisters >= 0 ||
             r.spilledVectorRegisters >= 0 || r.spilledScalarRegisters >= 0;
  if (r.registers >= 0)
    parts.push_back(std::to_string(r.registers) +
                    (amd ? " VGPRs" : " registers") +
                    (r.accumRegisters >= 0
                         ? " (" + std::to_string(r.accumRegisters) + " AGPRs)"
                         : ""));
  if (r.scalarRegisters >= 0)
    parts.push_back(std::to_string(r.scalarRegisters) + " SGPRs");
  if (r.spillStoreBytes >= 0 || r.spillLoadBytes >= 0)
    parts.push_back(
        std::to_string(std::max(r.spillStoreBytes, 0)) + " B spill stores, " +
        std::to_string(std::max(r.spillLoadBytes, 0)) + " B spill loads");
  if (r.spilledVectorRegisters >= 0 || r.spilledScalarRegisters >= 0)
    parts.push_back(std::to_string(std::max(r.spilledVectorRegisters, 0)) +
                    " VGPRs and " +
                    std::to_string(std::max(r.spilledScalarRegisters, 0)) +
                    " SGPRs spilled");
  if (r.stackBytes >= 0)
    parts.push_back(std::to_string(r.stackBytes) + " B stack");
  if (r.staticSharedBytes >= 0)
    parts.push_back(std::to_string(r.staticSharedBytes) + " B static shared");
  return join(parts, ", ");
}

} // namespace

Writer &Writer::line(std::string_view text) {
  if (!text.empty())
    out.append(depth, ' ');
  out += text;
  out += '\n';
  return *this;
}

std::string tileType(const Param &param) {
  switch (param.kind) {
  case Param::Kind::Tensor: {
    std::string shape = join(param.shape, ", ");
    if (param.shape.size() == 1)
      shape += ',';
    return "T.Tensor((" + shape + "), \"" + param.dtype + "\")";
  }
  case Param::Kind::Scalar:
    return "T." + param.dtype;
  case Param::Kind::Symbol:
    return "T.dynamic(\"" + param.name + "\"" +
           (wideSymbol(param) ? ", \"int64\")" : ")");
  }
  return "";
}

std::vector<std::string> tileSignature(const Function &function) {
  std::vector<std::string> lines;
  std::vector<std::string> params;
  for (const Param &param : function.params) {
    if (param.kind == Param::Kind::Symbol)
      lines.push_back(param.name + " = " + tileType(param));
    else
      params.push_back(param.name + ": " + tileType(param));
  }
  lines.push_back("@T.prim_func");
  std::string head = "def " + function.name + "(";
  if (params.empty()) {
    lines.push_back(head + "):");
    return lines;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    std::string prefix = i == 0 ? head : std::string(head.size(), ' ');
    lines.push_back(prefix + params[i] + (i + 1 == params.size() ? "):" : ","));
  }
  return lines;
}

void completeTensorMap(const Function &function, TensorMap &map) {
  const Param &tensor = function.params[map.tensor];
  if (map.globalDims.empty())
    map.globalDims.assign(tensor.shape.rbegin(), tensor.shape.rend());
  if (map.globalStrides.empty()) {
    std::string stride = "std::int64_t(" +
                         std::to_string(lookupDType(tensor.dtype)->bytes) + ")";
    for (size_t i = 1; i < map.globalDims.size(); ++i) {
      stride += " * (" + map.globalDims[i - 1] + ")";
      map.globalStrides.push_back(stride);
    }
  }
  if (map.elementStrides.empty())
    map.elementStrides.assign(map.globalDims.size(), 1);
}

void writeImageBytes(Writer &w, std::string_view bytes, bool nulTerminate) {
  static const char hex[] = "0123456789abcdef";
  std::string all(bytes);
  if (nulTerminate)
    all += '\0';
  for (size_t i = 0; i < all.size(); i += 16) {
    std::string text;
    for (size_t j = i; j < std::min(all.size(), i + 16); ++j) {
      unsigned char u = static_cast<unsigned char>(all[j]);
      if (j != i)
        text += ' ';
      text += "0x";
      text += hex[u >> 4];
      text += hex[u & 15];
      text += ',';
    }
    w.line(text);
  }
}

std::string launchSignature(const Function &function, const ParamNames &names,
                            const Api &api) {
  std::string head =
      std::string(api.result) + " " + functionName(function) + "(";
  std::vector<std::string> params;
  for (size_t p = 0; p < function.params.size(); ++p)
    params.push_back(hostType(function.params[p], api) + " " + names.cNames[p]);
  params.push_back(std::string(api.stream) + " stream = nullptr");
  std::string oneLine = head + join(params, ", ") + ")";
  // "inline " + signature + " {" on one line if it fits in 80 columns, else
  // one parameter per line aligned after the parenthesis.
  if (oneLine.size() + 9 <= 80)
    return oneLine;
  std::string indent(head.size() + 7, ' ');
  return head + join(params, ",\n" + indent) + ")";
}

void writeFunctionDoc(Writer &w, const Function &function,
                      const ParamNames &names, const Api &api) {
  std::string from =
      function.location.empty() ? "" : " (" + function.location + ")";
  w.line(commentText("/// Launches the kernels of `" + function.name + "`" +
                     from + ":"));
  w.line("///");
  for (const std::string &line : tileSignature(function))
    w.line(commentText("///   " + line));
  w.line("///");
  w.line("/// Arguments, in order:");
  size_t nameWidth = 6, typeWidth = api.stream.size();
  for (size_t p = 0; p < function.params.size(); ++p) {
    nameWidth = std::max(nameWidth, names.cNames[p].size());
    typeWidth = std::max(typeWidth, hostType(function.params[p], api).size());
  }
  for (size_t p = 0; p < function.params.size(); ++p) {
    const Param &param = function.params[p];
    std::string what;
    switch (param.kind) {
    case Param::Kind::Tensor:
      what = param.output ? "output (T.empty), not null" : "not null";
      if (param.dtype == "ptr")
        what = "device array of " + param.shape.front() +
               " device pointers (T.ptr), not null";
      if (param.alignment > 1)
        what += ", " + std::to_string(param.alignment) + "-byte aligned";
      break;
    case Param::Kind::Symbol:
      what = wideSymbol(param)
                 ? "1 <= " + names.cNames[p] + " <= 2^59; int64 on the device"
                 : "1 <= " + names.cNames[p] + " <= INT32_MAX; int32 on the device";
      break;
    case Param::Kind::Scalar: {
      const DTypeInfo *info = lookupDType(param.dtype);
      if (!info->convert.empty())
        what = "rounded to " + std::string(info->name) + " (nearest even)";
      else if (info->hostType != info->deviceType ||
               info->name == "float8_e4m3" || info->name == "float8_e5m2")
        what = "the " + std::string(info->name) + " bits";
      else
        what = std::string(info->name);
      break;
    }
    }
    w.line(commentText("///   " + padded(names.cNames[p], nameWidth) + "  " +
                       padded(hostType(param, api), typeWidth) + "  " + what));
  }
  w.line("///   " + padded("stream", nameWidth) + "  " +
         padded(std::string(api.stream), typeWidth) +
         "  the stream to launch on (default: the NULL stream)");
  for (const SymbolCheck &check : function.checks)
    w.line(commentText("/// Checked: " +
                       rewriteExpr(check.condition, names.symbols)));
  w.line("/// Launches, in order on `stream`:");
  for (const KernelLaunch &kernel : function.kernels) {
    std::vector<std::string> grid;
    for (const std::string &g : kernel.grid)
      grid.push_back(rewriteExpr(g, names.symbols));
    std::string launch = "///   " + kernel.entry + ": grid (" +
                         join(grid, ", ") + "), block (" +
                         std::to_string(kernel.block[0]) + ", " +
                         std::to_string(kernel.block[1]) + ", " +
                         std::to_string(kernel.block[2]) + ")";
    if (kernel.cluster != std::array<unsigned, 3>{1, 1, 1})
      launch += ", cluster (" + std::to_string(kernel.cluster[0]) + ", " +
                std::to_string(kernel.cluster[1]) + ", " +
                std::to_string(kernel.cluster[2]) + ")";
    if (kernel.cooperative)
      launch += ", cooperative (T.sync_grid: all blocks resident)";
    w.line(commentText(launch));
    std::string detail =
        std::to_string(kernel.dynamicSharedBytes) + " B dynamic shared";
    std::string resources = resourceSummary(kernel.resources);
    if (!resources.empty())
      detail += "; " + resources;
    w.line("///     " + detail);
  }
  w.line("/// Returns " + std::string(api.success) + "; " +
         std::string(api.invalid) + " without launching");
  w.line("/// anything if an argument is rejected; else the first error of the "
         "runtime.");
  w.line("/// lastError() and statusString() then say which check or call "
         "failed.");
}

std::string rejectStatement(const Api &api, const Function &function,
                            std::string_view format,
                            const std::vector<std::string> &args) {
  std::string call = "return " + api.status + "reject(" +
                     quote(functionName(function) + ": " + std::string(format));
  for (const std::string &arg : args)
    call += ", " + arg;
  return call + ");";
}

std::string runtimeErrorStatement(const Api &api, const Function &function,
                                  std::string_view what) {
  return "return " + api.status + "runtimeError(tilec_err, " +
         quote(functionName(function) + ": " + std::string(what)) + ");";
}

void writeArgumentChecks(Writer &w, const Function &function,
                         const ParamNames &names, const Api &api) {
  w.line("// Reject bad arguments before touching the runtime; each check");
  w.line("// says which argument and bound failed (statusString()).");
  for (size_t p = 0; p < function.params.size(); ++p) {
    const Param &param = function.params[p];
    const std::string &name = names.cNames[p];
    if (param.kind == Param::Kind::Tensor) {
      w.line("if (" + (api.integerPointers ? name + " == 0"
                                           : name + " == nullptr") +
             ")");
      w.line("  " + rejectStatement(api, function,
                                    "argument `" + name + "` is null"));
      if (param.alignment > 1) {
        std::string address =
            api.integerPointers
                ? name
                : "reinterpret_cast<std::uintptr_t>(" + name + ")";
        std::string align = std::to_string(param.alignment);
        w.line("if (" + address + " % " + align + " != 0)");
        w.line("  " + rejectStatement(
                          api, function,
                          "argument `" + name + "` (%#llx) is not " + align +
                              "-byte aligned",
                          {"static_cast<unsigned long long>(" + address +
                           ")"}));
      }
    } else if (param.kind == Param::Kind::Symbol) {
      bool wide = wideSymbol(param);
      w.line("if (" + name + " < 1 || " + name + " > " +
             (wide ? "576460752303423488LL" : "INT32_MAX") + ")");
      w.line("  " + rejectStatement(api, function,
                                    "argument `" + name + "` is %lld, outside [1, " +
                                        (wide ? "2^59" : "INT32_MAX") + "]",
                                    {"static_cast<long long>(" + name + ")"}));
    }
  }
  for (const SymbolCheck &check : function.checks) {
    std::string condition = rewriteExpr(check.condition, names.symbols);
    w.line("if (!(" + condition + "))");
    auto symbol = names.symbols.find(check.symbol);
    if (symbol != names.symbols.end())
      w.line("  " + rejectStatement(
                        api, function, "check `%s` failed (" + symbol->second +
                                           " = %lld)",
                        {quote(condition),
                         "static_cast<long long>(" + symbol->second + ")"}));
    else
      w.line("  " + rejectStatement(api, function, "check `%s` failed",
                                    {quote(condition)}));
  }
}

void writeGrid(Writer &w, const Function &function, unsigned k,
               const ParamNames &names, const Api &api) {
  const KernelLaunch &kernel = function.kernels[k];
  std::string grid = "tilec_grid" + std::to_string(k);
  std::vector<std::string> exprs;
  for (const std::string &g : kernel.grid)
    exprs.push_back(rewriteExpr(g, names.symbols));
  w.line("const std::int64_t " + grid + "[3] = {" + join(exprs, ", ") + "};");
  std::vector<std::string> values;
  for (unsigned d = 0; d < 3; ++d)
    values.push_back("static_cast<long long>(" + grid + "[" +
                     std::to_string(d) + "])");
  std::string what = "kernel `" + kernel.entry + "`: grid (%lld, %lld, %lld)";
  w.line("if (!detail::gridInRange(" + grid + "))");
  w.line("  " + rejectStatement(api, function,
                                what + " is outside the launch limits",
                                values));
  std::vector<std::string> conds;
  for (unsigned d = 0; d < 3; ++d)
    if (kernel.cluster[d] > 1)
      conds.push_back(grid + "[" + std::to_string(d) + "] % " +
                      std::to_string(kernel.cluster[d]) + " != 0");
  if (!conds.empty()) {
    w.line("if (" + join(conds, " || ") + ")");
    w.line("  " + rejectStatement(
                      api, function,
                      what + " is not a multiple of the cluster (" +
                          std::to_string(kernel.cluster[0]) + ", " +
                          std::to_string(kernel.cluster[1]) + ", " +
                          std::to_string(kernel.cluster[2]) + ")",
                      values));
  }
}

std::string kernelArgVariable(const Function &function, const ParamNames &names,
                              unsigned k, unsigned a) {
  const KernelArg &arg = function.kernels[k].args[a];
  switch (arg.kind) {
  case KernelArg::Kind::Param: {
    const Param &param = function.params[arg.param];
    const std::string &name = names.cNames[arg.param];
    if (param.kind == Param::Kind::Symbol)
      return "tilec_p_" + name;
    if (param.kind == Param::Kind::Scalar &&
        !lookupDType(param.dtype)->convert.empty())
      return "tilec_p_" + name;
    return name;
  }
  case KernelArg::Kind::Value:
    return "tilec_arg" + std::to_string(k) + "_" + std::to_string(a);
  case KernelArg::Kind::TensorMap:
    return "tilec_tmap" + std::to_string(k) + "_" + std::to_string(a);
  }
  return "";
}

void writeDeviceValues(Writer &w, const Function &function,
                       const ParamNames &names, const Api &api) {
  bool header = false;
  auto section = [&] {
    if (!header)
      w.line("// Values as the kernels take them.");
    header = true;
  };
  for (unsigned p = 0; p < function.params.size(); ++p) {
    const Param &param = function.params[p];
    const std::string &name = names.cNames[p];
    bool used = passedToKernel(function, p);
    if (param.kind == Param::Kind::Scalar && !used) {
      w.line("(void)" + name + ";");
      continue;
    }
    if (!used)
      continue;
    if (param.kind == Param::Kind::Symbol) {
      section();
      std::string type = wideSymbol(param) ? "std::int64_t" : "std::int32_t";
      w.line(type + " tilec_p_" + name + " = static_cast<" + type + ">(" +
             name + ");");
    } else if (param.kind == Param::Kind::Scalar) {
      const DTypeInfo *info = lookupDType(param.dtype);
      if (info->convert.empty())
        continue;
      section();
      w.line(std::string(info->deviceType) + " tilec_p_" + name +
             " = detail::" + std::string(info->convert) + "(" + name + ");");
    }
  }
  for (unsigned k = 0; k < function.kernels.size(); ++k) {
    const KernelLaunch &kernel = function.kernels[k];
    for (unsigned a = 0; a < kernel.args.size(); ++a) {
      const KernelArg &arg = kernel.args[a];
      if (arg.kind != KernelArg::Kind::Value)
        continue;
      section();
      const IntRange *range = valueRange(arg.dtype);
      std::string var = kernelArgVariable(function, names, k, a);
      std::string wide = var + "_wide";
      w.line("const std::int64_t " + wide + " = " +
             rewriteExpr(arg.expr, names.symbols) + ";");
      std::vector<std::string> conds;
      if (!range->min.empty())
        conds.push_back(wide + " < " + std::string(range->min));
      if (!range->max.empty())
        conds.push_back(wide + " > " + std::string(range->max));
      if (!conds.empty()) {
        w.line("if (" + join(conds, " || ") + ")");
        w.line("  " + rejectStatement(
                          api, function,
                          "kernel `" + kernel.entry + "`: argument " +
                              std::to_string(a) + " (`%s` = %lld) does not fit " +
                              arg.dtype,
                          {quote(rewriteExpr(arg.expr, names.symbols)),
                           "static_cast<long long>(" + wide + ")"}));
      }
      std::string type = std::string(lookupDType(arg.dtype)->deviceType);
      w.line(type + " " + var + " = static_cast<" + type + ">(" + wide + ");");
    }
  }
}

void writeKernelArgArray(Writer &w, const Function &function,
                         const ParamNames &names, unsigned k) {
  std::string array = "tilec_args" + std::to_string(k);
  const KernelLaunch &kernel = function.kernels[k];
  if (kernel.args.empty()) {
    w.line("void **" + array + " = nullptr;");
    return;
  }
  std::vector<std::string> addresses;
  for (unsigned a = 0; a < kernel.args.size(); ++a)
    addresses.push_back("&" + kernelArgVariable(function, names, k, a));
  w.line("void *" + array + "[] = {" + join(addresses, ", ") + "};");
}

void writeCommonHelpers(Writer &w, const Unit &unit,
                        std::string_view maxGridYZ) {
  w.line("// Whether a computed grid can be passed to the runtime: every");
  w.line("// dimension at least 1 and within the launch limits.");
  w.line("inline bool gridInRange(const std::int64_t (&grid)[3]) {");
  w.line("  return grid[0] >= 1 && grid[0] <= INT32_MAX && grid[1] >= 1 &&");
  w.line("         grid[1] <= " + std::string(maxGridYZ) +
         " && grid[2] >= 1 && grid[2] <= " + std::string(maxGridYZ) + ";");
  w.line("}");
  bool half = false, bf16 = false;
  for (const Function &function : unit.functions)
    for (const Param &param : function.params)
      if (param.kind == Param::Kind::Scalar) {
        std::string_view convert = lookupDType(param.dtype)->convert;
        half |= convert == "halfBits";
        bf16 |= convert == "bfloat16Bits";
      }
  if (half) {
    w.line();
    w.line("// IEEE binary16 bits of `value`, rounded to nearest even.");
    w.line("inline std::uint16_t halfBits(float value) {");
    w.line("  std::uint32_t x;");
    w.line("  std::memcpy(&x, &value, sizeof x);");
    w.line("  const std::uint32_t sign = (x >> 16) & 0x8000u;");
    w.line("  const std::uint32_t a = x & 0x7fffffffu;");
    w.line("  if (a > 0x7f800000u) // NaN: keep it quiet");
    w.line("    return static_cast<std::uint16_t>(sign | 0x7e00u);");
    w.line(
        "  if (a >= 0x38800000u) { // normal in half precision, or overflow");
    w.line("    std::uint32_t m = a - 0x38000000u; // rebias the exponent");
    w.line("    m = (m + 0x0fffu + ((m >> 13) & 1u)) >> 13;");
    w.line("    return static_cast<std::uint16_t>(sign | (m >= 0x7c00u ? "
           "0x7c00u : m));");
    w.line("  }");
    w.line("  if (a <= 0x33000000u) // at most half the smallest subnormal");
    w.line("    return static_cast<std::uint16_t>(sign);");
    w.line("  const unsigned shift = 126u - (a >> 23);");
    w.line("  const std::uint32_t mant = (a & 0x7fffffu) | 0x800000u;");
    w.line("  std::uint32_t r = mant >> shift;");
    w.line("  const std::uint32_t rest = mant & ((1u << shift) - 1u);");
    w.line("  const std::uint32_t tie = 1u << (shift - 1u);");
    w.line("  if (rest > tie || (rest == tie && (r & 1u)))");
    w.line("    ++r;");
    w.line("  return static_cast<std::uint16_t>(sign | r);");
    w.line("}");
  }
  if (bf16) {
    w.line();
    w.line("// bfloat16 bits of `value`, rounded to nearest even.");
    w.line("inline std::uint16_t bfloat16Bits(float value) {");
    w.line("  std::uint32_t x;");
    w.line("  std::memcpy(&x, &value, sizeof x);");
    w.line("  if ((x & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet");
    w.line("    return static_cast<std::uint16_t>((x >> 16) | 0x40u);");
    w.line("  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & "
           "1u)) >> 16);");
    w.line("}");
  }
}

std::string includeGuard(const Unit &unit, std::string_view suffix) {
  std::string guard;
  for (const std::string &part : namespaceParts(unit))
    guard += part + "_";
  for (char &c : guard)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "TILEC_GENERATED_" + guard + std::string(suffix);
}

void writeStatusHelpers(Writer &w, const Api &api) {
  std::string result(api.result), success(api.success),
      invalid(api.invalid), errorName(api.errorName);
  w.line("// What the last launch function called on this thread returned,");
  w.line("// and why (lastError(), statusString()).");
  w.line("struct Status {");
  w.line("  " + result + " result = " + success + ";");
  w.line("  char text[320] = \"ok\";");
  w.line("};");
  w.line("inline Status &status() {");
  w.line("  static thread_local Status current;");
  w.line("  return current;");
  w.line("}");
  w.line("inline " + result + " succeed() {");
  w.line("  Status &s = status();");
  w.line("  s.result = " + success + ";");
  w.line("  std::memcpy(s.text, \"ok\", 3);");
  w.line("  return " + success + ";");
  w.line("}");
  // The format attributes let -Wformat=2 check the generated calls (and
  // accept the non-literal format passed on to vsnprintf).
  auto format = [&](const char *index, const char *first) {
    w.line("#if defined(__GNUC__)");
    w.line(std::string("__attribute__((format(printf, ") + index + ", " +
           first + ")))");
    w.line("#endif");
  };
  format("2", "0");
  w.line("inline " + result + " vfail(" + result +
         " result, const char *format, std::va_list args) {");
  w.line("  Status &s = status();");
  w.line("  s.result = result;");
  w.line("  std::vsnprintf(s.text, sizeof s.text, format, args);");
  w.line("  return result;");
  w.line("}");
  format("2", "3");
  w.line("inline " + result + " fail(" + result +
         " result, const char *format, ...) {");
  w.line("  std::va_list args;");
  w.line("  va_start(args, format);");
  w.line("  (void)vfail(result, format, args);");
  w.line("  va_end(args);");
  w.line("  return result;");
  w.line("}");
  w.line("// An argument check failed: " + invalid + ", and the message.");
  format("1", "2");
  w.line("inline " + result + " reject(const char *format, ...) {");
  w.line("  std::va_list args;");
  w.line("  va_start(args, format);");
  w.line("  (void)vfail(" + invalid + ", format, args);");
  w.line("  va_end(args);");
  w.line("  return " + invalid + ";");
  w.line("}");
  w.line("// A runtime call failed: its error, named in the message.");
  w.line("inline " + result + " runtimeError(" + result +
         " error, const char *what) {");
  w.line("  Status &s = status();");
  w.line("  s.result = error;");
  if (api.integerPointers) { // CUDA: cuGetErrorName reports through a pointer
    w.line("  const char *name = nullptr;");
    w.line("  if (" + errorName + "(error, &name) != " + success +
           " || name == nullptr)");
    w.line("    name = \"unknown error\";");
  } else {
    w.line("  const char *name = " + errorName + "(error);");
  }
  w.line("  std::snprintf(s.text, sizeof s.text, \"%s: %s (%d)\", what, name,");
  w.line("                static_cast<int>(error));");
  w.line("  return error;");
  w.line("}");
}

void writeStatusApi(Writer &w, const Api &api) {
  std::string result(api.result);
  w.line("/// What the last launch function, load() or unload() called on this");
  w.line("/// thread returned (" + std::string(api.success) +
         " after a successful one).");
  w.line("inline " + result + " lastError() { return " + api.status +
         "status().result; }");
  w.line("/// Why, in words: \"ok\"; the argument and bound that a check");
  w.line("/// rejected (\"matmul: argument `A` (0x7f0001) is not 16-byte");
  w.line("/// aligned\"); or the runtime call that failed with the error's name.");
  w.line("/// Valid until the next call on this thread.");
  w.line("inline const char *statusString() { return " + api.status +
         "status().text; }");
}

void writeBanner(Writer &w, const Unit &unit,
                 const std::vector<std::string_view> &runtimeLines) {
  std::string version =
      unit.compilerVersion.empty() ? "" : " " + unit.compilerVersion;
  w.line(commentText("// Generated by tilec" + version + " from " +
                     unit.sourceFile + ". Do not edit."));
  w.line("//");
  w.line(commentText("// Launch functions for the kernels of " +
                     unit.sourceFile + ","));
  w.line(commentText("// compiled for " + unit.image.target + " (" +
                     std::string(imageKindName(unit.image.kind)) + ", " +
                     std::to_string(unit.image.bytes.size()) +
                     " bytes, embedded below)."));
  for (std::string_view line : runtimeLines)
    w.line(line);
  w.line(
      "// The image is loaded lazily, once per context/device, on its first");
  w.line("// launch there (or by load()). Every function is thread-safe and");
  w.line(
      "// reports errors by its return value: none throws, prints or exits.");
  w.line("// See tilec's docs/header.md for the ABI.");
}

} // namespace tilec::header::detail
