//===- Metadata.cpp - The kernel metadata JSON ----------------------------===//
//
// `tilec --json k.json` writes the whole launch description (everything but
// the image bytes) so that build scripts, benchmark runners and bindings
// generators can read what a .tile file compiled to without parsing C++,
// and so that a header can be rendered again later (tilec-header). Keys come
// in a fixed order (nlohmann::ordered_json), so the file is byte-identical
// for identical input.
//
//===----------------------------------------------------------------------===//

#include "Support.h"

#include <nlohmann/json.hpp>

namespace tilec::header {

using namespace detail;
using Json = nlohmann::ordered_json;

namespace {

constexpr int formatVersion = 1;

const char *paramKindName(Param::Kind kind) {
  switch (kind) {
  case Param::Kind::Tensor:
    return "tensor";
  case Param::Kind::Scalar:
    return "scalar";
  case Param::Kind::Symbol:
    return "symbol";
  }
  return "?";
}

// Enumerator <-> JSON spelling tables, shared by the writer and the reader.
template <typename E> struct Names {
  E value;
  const char *name;
};
const Names<TensorMap::Swizzle> swizzles[] = {
    {TensorMap::Swizzle::None, "none"},
    {TensorMap::Swizzle::B32, "32b"},
    {TensorMap::Swizzle::B64, "64b"},
    {TensorMap::Swizzle::B128, "128b"}};
const Names<TensorMap::Interleave> interleaves[] = {
    {TensorMap::Interleave::None, "none"},
    {TensorMap::Interleave::B16, "16b"},
    {TensorMap::Interleave::B32, "32b"}};
const Names<TensorMap::L2Promotion> l2Promotions[] = {
    {TensorMap::L2Promotion::None, "none"},
    {TensorMap::L2Promotion::B64, "64b"},
    {TensorMap::L2Promotion::B128, "128b"},
    {TensorMap::L2Promotion::B256, "256b"}};
const Names<Param::Kind> paramKinds[] = {{Param::Kind::Tensor, "tensor"},
                                         {Param::Kind::Scalar, "scalar"},
                                         {Param::Kind::Symbol, "symbol"}};
const Names<ImageKind> imageKinds[] = {{ImageKind::PTX, "ptx"},
                                       {ImageKind::Cubin, "cubin"},
                                       {ImageKind::HSACO, "hsaco"}};

template <typename E, size_t N>
const char *nameOf(const Names<E> (&table)[N], E value) {
  for (const auto &entry : table)
    if (entry.value == value)
      return entry.name;
  return "?";
}

template <typename E, size_t N>
E valueOf(const Names<E> (&table)[N], const Json &json, const char *what) {
  std::string name = json.get<std::string>();
  for (const auto &entry : table)
    if (name == entry.name)
      return entry.value;
  throw HeaderError(std::string("unknown ") + what + " `" + name + "`");
}

Json resourceJson(int value) { return value < 0 ? Json() : Json(value); }

Json tensorMapJson(const TensorMap &map) {
  Json j;
  j["tensor"] = map.tensor;
  j["global_dims"] = map.globalDims;
  j["global_strides"] = map.globalStrides;
  j["box_dims"] = map.boxDims;
  j["element_strides"] = map.elementStrides;
  j["swizzle"] = nameOf(swizzles, map.swizzle);
  j["interleave"] = nameOf(interleaves, map.interleave);
  j["l2_promotion"] = nameOf(l2Promotions, map.l2Promotion);
  j["oob_fill"] = map.oobFillNaN ? "nan" : "zero";
  return j;
}

Json kernelJson(const Function &function, const KernelLaunch &kernel) {
  Json j;
  j["entry"] = kernel.entry;
  j["grid"] = kernel.grid;
  j["block"] = kernel.block;
  j["cluster"] = kernel.cluster;
  if (kernel.persistentBlocksPerSM)
    j["persistent_blocks_per_sm"] = kernel.persistentBlocksPerSM;
  if (kernel.cooperative)
    j["cooperative"] = true;
  j["dynamic_shared_bytes"] = kernel.dynamicSharedBytes;
  Json args = Json::array();
  for (const KernelArg &arg : kernel.args) {
    Json a;
    switch (arg.kind) {
    case KernelArg::Kind::Param:
      a["kind"] = "param";
      a["param"] = arg.param;
      if (arg.param < function.params.size())
        a["name"] = function.params[arg.param].name;
      break;
    case KernelArg::Kind::Value:
      a["kind"] = "value";
      a["dtype"] = arg.dtype;
      a["expr"] = arg.expr;
      break;
    case KernelArg::Kind::TensorMap:
      a["kind"] = "tensor_map";
      a["tensor_map"] = tensorMapJson(arg.tensorMap);
      break;
    }
    args.push_back(std::move(a));
  }
  j["args"] = std::move(args);
  const Resources &r = kernel.resources;
  Json resources;
  resources["registers"] = resourceJson(r.registers);
  resources["accum_registers"] = resourceJson(r.accumRegisters);
  resources["scalar_registers"] = resourceJson(r.scalarRegisters);
  resources["spill_store_bytes"] = resourceJson(r.spillStoreBytes);
  resources["spill_load_bytes"] = resourceJson(r.spillLoadBytes);
  resources["spilled_vector_registers"] =
      resourceJson(r.spilledVectorRegisters);
  resources["spilled_scalar_registers"] =
      resourceJson(r.spilledScalarRegisters);
  resources["stack_bytes"] = resourceJson(r.stackBytes);
  resources["static_shared_bytes"] = resourceJson(r.staticSharedBytes);
  j["resources"] = std::move(resources);
  return j;
}

Json functionJson(const Function &function) {
  ParamNames names = nameParams(function);
  Json j;
  j["name"] = function.name;
  j["cpp_name"] = functionName(function);
  j["location"] = function.location;
  if (!function.factory.empty()) {
    // Every factory parameter's value (docs/language.md, section 4.3).
    j["factory"] = function.factory;
    Json bindings = Json::object();
    for (const auto &[name, value] : function.bindings)
      bindings[name] = Json::parse(value, nullptr, /*allow_exceptions=*/false);
    j["bindings"] = std::move(bindings);
  }
  Json params = Json::array();
  std::vector<std::string> symbols;
  for (size_t p = 0; p < function.params.size(); ++p) {
    const Param &param = function.params[p];
    Json q;
    q["name"] = param.name;
    q["cpp_name"] = names.cNames[p];
    q["kind"] = paramKindName(param.kind);
    q["dtype"] = param.kind == Param::Kind::Symbol && param.dtype.empty()
                     ? std::string("int32")
                     : param.dtype;
    if (param.kind == Param::Kind::Tensor) {
      q["shape"] = param.shape;
      q["alignment"] = param.alignment;
      // Written only when set, so that files without outputs read back
      // byte-identical.
      if (param.output)
        q["output"] = true;
    }
    if (param.kind == Param::Kind::Symbol)
      symbols.push_back(param.name);
    params.push_back(std::move(q));
  }
  j["params"] = std::move(params);
  j["symbols"] = symbols;
  Json checks = Json::array();
  for (const SymbolCheck &check : function.checks)
    checks.push_back(
        Json{{"symbol", check.symbol}, {"condition", check.condition}});
  j["checks"] = std::move(checks);
  Json kernels = Json::array();
  for (const KernelLaunch &kernel : function.kernels)
    kernels.push_back(kernelJson(function, kernel));
  j["kernels"] = std::move(kernels);
  return j;
}

// Reader helpers: a missing key or a wrong type becomes a HeaderError that
// names the key.
const Json &at(const Json &j, const char *key) {
  if (!j.is_object() || !j.contains(key))
    throw HeaderError(std::string("missing key `") + key + "`");
  return j.at(key);
}

template <typename T> T get(const Json &j, const char *key) {
  try {
    return at(j, key).get<T>();
  } catch (const nlohmann::json::exception &) {
    throw HeaderError(std::string("key `") + key + "` has the wrong type");
  }
}

template <typename T> T getOr(const Json &j, const char *key, T fallback) {
  if (!j.is_object() || !j.contains(key) || j.at(key).is_null())
    return fallback;
  return get<T>(j, key);
}

TensorMap parseTensorMap(const Json &j) {
  TensorMap map;
  map.tensor = get<unsigned>(j, "tensor");
  map.globalDims = getOr<std::vector<std::string>>(j, "global_dims", {});
  map.globalStrides = getOr<std::vector<std::string>>(j, "global_strides", {});
  map.boxDims = get<std::vector<unsigned>>(j, "box_dims");
  map.elementStrides = getOr<std::vector<unsigned>>(j, "element_strides", {});
  map.swizzle = valueOf(swizzles, at(j, "swizzle"), "swizzle");
  map.interleave = valueOf(interleaves, at(j, "interleave"), "interleave");
  map.l2Promotion =
      valueOf(l2Promotions, at(j, "l2_promotion"), "l2 promotion");
  std::string fill = get<std::string>(j, "oob_fill");
  if (fill != "zero" && fill != "nan")
    throw HeaderError("unknown oob fill `" + fill + "`");
  map.oobFillNaN = fill == "nan";
  return map;
}

KernelLaunch parseKernel(const Json &j) {
  KernelLaunch kernel;
  kernel.entry = get<std::string>(j, "entry");
  kernel.grid = get<std::array<std::string, 3>>(j, "grid");
  kernel.block = get<std::array<unsigned, 3>>(j, "block");
  kernel.cluster = getOr<std::array<unsigned, 3>>(j, "cluster", {1, 1, 1});
  kernel.persistentBlocksPerSM =
      getOr<unsigned>(j, "persistent_blocks_per_sm", 0);
  kernel.cooperative = getOr<bool>(j, "cooperative", false);
  kernel.dynamicSharedBytes = get<unsigned>(j, "dynamic_shared_bytes");
  for (const Json &a : at(j, "args")) {
    std::string kind = get<std::string>(a, "kind");
    if (kind == "param")
      kernel.args.push_back(KernelArg::ofParam(get<unsigned>(a, "param")));
    else if (kind == "value")
      kernel.args.push_back(KernelArg::ofValue(get<std::string>(a, "dtype"),
                                               get<std::string>(a, "expr")));
    else if (kind == "tensor_map")
      kernel.args.push_back(
          KernelArg::ofTensorMap(parseTensorMap(at(a, "tensor_map"))));
    else
      throw HeaderError("unknown kernel argument kind `" + kind + "`");
  }
  if (j.contains("resources")) {
    const Json &r = j.at("resources");
    kernel.resources.registers = getOr<int>(r, "registers", -1);
    kernel.resources.accumRegisters = getOr<int>(r, "accum_registers", -1);
    kernel.resources.scalarRegisters = getOr<int>(r, "scalar_registers", -1);
    kernel.resources.spillStoreBytes = getOr<int>(r, "spill_store_bytes", -1);
    kernel.resources.spillLoadBytes = getOr<int>(r, "spill_load_bytes", -1);
    kernel.resources.spilledVectorRegisters =
        getOr<int>(r, "spilled_vector_registers", -1);
    kernel.resources.spilledScalarRegisters =
        getOr<int>(r, "spilled_scalar_registers", -1);
    kernel.resources.stackBytes = getOr<int>(r, "stack_bytes", -1);
    kernel.resources.staticSharedBytes =
        getOr<int>(r, "static_shared_bytes", -1);
  }
  return kernel;
}

Function parseFunction(const Json &j) {
  Function function;
  function.name = get<std::string>(j, "name");
  function.location = getOr<std::string>(j, "location", "");
  function.factory = getOr<std::string>(j, "factory", "");
  if (j.contains("bindings") && j.at("bindings").is_object())
    for (const auto &[name, value] : j.at("bindings").items())
      function.bindings.emplace_back(name, value.dump());
  for (const Json &q : at(j, "params")) {
    Param param;
    param.name = get<std::string>(q, "name");
    param.kind = valueOf(paramKinds, at(q, "kind"), "parameter kind");
    param.dtype = get<std::string>(q, "dtype");
    param.shape = getOr<std::vector<std::string>>(q, "shape", {});
    param.alignment = getOr<unsigned>(q, "alignment", 16);
    param.output = getOr<bool>(q, "output", false);
    function.params.push_back(std::move(param));
  }
  for (const Json &c : getOr<Json>(j, "checks", Json::array()))
    function.checks.push_back(
        {get<std::string>(c, "symbol"), get<std::string>(c, "condition")});
  for (const Json &k : at(j, "kernels"))
    function.kernels.push_back(parseKernel(k));
  return function;
}

} // namespace

std::string renderMetadataJSON(const Unit &unit) {
  Json j;
  j["format"] = "tilec-kernels";
  j["format_version"] = formatVersion;
  j["source"] = unit.sourceFile;
  j["compiler_version"] = unit.compilerVersion;
  std::string ns;
  for (const std::string &part : namespaceParts(unit))
    ns += (ns.empty() ? "" : "::") + part;
  j["namespace"] = ns;
  j["image"] = Json{{"kind", nameOf(imageKinds, unit.image.kind)},
                    {"target", unit.image.target},
                    {"size", unit.image.bytes.size()}};
  Json functions = Json::array();
  for (const Function &function : unit.functions)
    functions.push_back(functionJson(function));
  j["functions"] = std::move(functions);
  // Invalid UTF-8 in a name must not make the compiler throw.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Unit parseMetadataJSON(std::string_view text, std::string imageBytes) {
  Json j;
  try {
    j = Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error &e) {
    throw HeaderError(std::string("not valid JSON: ") + e.what());
  }
  if (get<std::string>(j, "format") != "tilec-kernels")
    throw HeaderError("not a tilec metadata file (`format` is not "
                      "\"tilec-kernels\")");
  int version = get<int>(j, "format_version");
  if (version != formatVersion)
    throw HeaderError("metadata format version " + std::to_string(version) +
                      "; this tilec reads version " +
                      std::to_string(formatVersion));
  Unit unit;
  unit.sourceFile = get<std::string>(j, "source");
  unit.compilerVersion = getOr<std::string>(j, "compiler_version", "");
  unit.nameSpace = getOr<std::string>(j, "namespace", "");
  const Json &image = at(j, "image");
  unit.image.kind = valueOf(imageKinds, at(image, "kind"), "image kind");
  unit.image.target = get<std::string>(image, "target");
  size_t size = get<size_t>(image, "size");
  if (size != imageBytes.size())
    throw HeaderError("the image has " + std::to_string(imageBytes.size()) +
                      " bytes; the metadata says " + std::to_string(size));
  unit.image.bytes = std::move(imageBytes);
  for (const Json &f : at(j, "functions"))
    unit.functions.push_back(parseFunction(f));
  return unit;
}

} // namespace tilec::header
