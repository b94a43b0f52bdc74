//===- Validate.cpp - Is a Unit renderable? -------------------------------===//
//
// The renderers trust their input, so everything that would make the
// generated header fail to compile, or launch something other than what was
// described, is rejected here with a message that names the function,
// kernel and argument. A message here is a compiler bug or a limit, never
// the user's C++ build failing later on a generated file.
//
//===----------------------------------------------------------------------===//

#include "Support.h"

#include <cstdint>

namespace tilec::header {

using namespace detail;

namespace {

bool isPowerOfTwo(unsigned x) { return x && !(x & (x - 1)); }

std::string checkTensorMap(const Function &function, const TensorMap &given,
                           const std::set<std::string> &symbols) {
  if (given.tensor >= function.params.size() ||
      function.params[given.tensor].kind != Param::Kind::Tensor)
    return "tensor map refers to parameter " + std::to_string(given.tensor) +
           ", which is not a tensor";
  const Param &tensor = function.params[given.tensor];
  if (tensor.alignment < 16)
    return "tensor map of `" + tensor.name +
           "` needs the tensor 16-byte aligned, it is declared " +
           std::to_string(tensor.alignment);
  TensorMap map = given;
  completeTensorMap(function, map);
  size_t rank = map.globalDims.size();
  if (rank < 1 || rank > 5)
    return "tensor map of `" + tensor.name + "` has rank " +
           std::to_string(rank) + "; TMA takes 1 to 5";
  if (map.boxDims.size() != rank || map.elementStrides.size() != rank ||
      map.globalStrides.size() != rank - 1)
    return "tensor map of `" + tensor.name +
           "`: box, element strides and global strides must match rank " +
           std::to_string(rank);
  for (const std::string &e : given.globalDims)
    if (std::string error = checkExpr(e, symbols); !error.empty())
      return "tensor map of `" + tensor.name + "`: " + error;
  for (const std::string &e : given.globalStrides)
    if (std::string error = checkExpr(e, symbols); !error.empty())
      return "tensor map of `" + tensor.name + "`: " + error;
  for (unsigned box : map.boxDims)
    if (box < 1 || box > 256)
      return "tensor map of `" + tensor.name + "`: box dimension " +
             std::to_string(box) + " is outside [1, 256]";
  for (unsigned stride : map.elementStrides)
    if (stride < 1 || stride > 8)
      return "tensor map of `" + tensor.name + "`: element stride " +
             std::to_string(stride) + " is outside [1, 8]";
  unsigned innerBytes = map.boxDims[0] * lookupDType(tensor.dtype)->bytes;
  if (map.interleave == TensorMap::Interleave::None && innerBytes % 16 != 0)
    return "tensor map of `" + tensor.name + "`: the inner box dimension is " +
           std::to_string(innerBytes) + " bytes, not a multiple of 16";
  static const unsigned swizzleSpan[] = {0, 32, 64, 128};
  unsigned span = swizzleSpan[static_cast<int>(map.swizzle)];
  if (span && map.interleave == TensorMap::Interleave::None &&
      innerBytes > span)
    return "tensor map of `" + tensor.name + "`: the inner box dimension is " +
           std::to_string(innerBytes) + " bytes, more than the " +
           std::to_string(span) + "-byte swizzle span";
  return "";
}

std::string checkKernel(const Function &function, const KernelLaunch &kernel,
                        const std::set<std::string> &symbols, Flavor flavor) {
  if (kernel.entry.empty())
    return "a kernel has no entry name";
  for (const std::string &g : kernel.grid)
    if (std::string error = checkExpr(g, symbols); !error.empty())
      return "grid: " + error;
  uint64_t threads = 1;
  for (unsigned b : kernel.block) {
    if (b == 0)
      return "block dimension 0";
    threads *= b;
  }
  if (threads > 1024)
    return "block of " + std::to_string(threads) + " threads; at most 1024";
  if (kernel.block[2] > 64)
    return "block z dimension " + std::to_string(kernel.block[2]) +
           " is more than 64";
  uint64_t clusterSize = 1;
  for (unsigned c : kernel.cluster) {
    if (c == 0)
      return "cluster dimension 0";
    clusterSize *= c;
  }
  if (clusterSize > 1 && flavor == Flavor::HIP)
    return "thread-block clusters need CUDA";
  if (clusterSize > 16)
    return "cluster of " + std::to_string(clusterSize) + " blocks; at most 16";
  if (kernel.cooperative && flavor == Flavor::HIP)
    return "cooperative launches (T.sync_grid) need CUDA in this version";
  if (kernel.cooperative && (clusterSize > 1 || kernel.persistentBlocksPerSM))
    return "a cooperative launch cannot also be a cluster or persistent one";
  for (size_t a = 0; a < kernel.args.size(); ++a) {
    const KernelArg &arg = kernel.args[a];
    std::string where = "argument " + std::to_string(a) + ": ";
    switch (arg.kind) {
    case KernelArg::Kind::Param:
      if (arg.param >= function.params.size())
        return where + "parameter index " + std::to_string(arg.param) +
               " out of range";
      break;
    case KernelArg::Kind::Value:
      if (arg.dtype != "int32" && arg.dtype != "int64" &&
          arg.dtype != "uint32" && arg.dtype != "uint64")
        return where + "value of type `" + arg.dtype +
               "`; int32, int64, uint32 or uint64 expected";
      if (std::string error = checkExpr(arg.expr, symbols); !error.empty())
        return where + error;
      break;
    case KernelArg::Kind::TensorMap:
      if (flavor == Flavor::HIP)
        return where + "tensor maps (TMA) need CUDA";
      if (std::string error = checkTensorMap(function, arg.tensorMap, symbols);
          !error.empty())
        return where + error;
      break;
    }
  }
  return "";
}

std::string checkFunction(const Function &function, Flavor flavor) {
  if (function.kernels.empty())
    return "launches no kernel";
  std::set<std::string> symbols;
  std::set<std::string> names;
  for (const Param &param : function.params) {
    if (!names.insert(param.name).second)
      return "two parameters named `" + param.name + "`";
    if (param.kind == Param::Kind::Symbol) {
      if (!isIdentifier(param.name))
        return "symbol `" + param.name + "` is not an identifier";
      if (!param.dtype.empty() && canonicalDType(param.dtype) != "int32" &&
          canonicalDType(param.dtype) != "int64")
        return "symbol `" + param.name + "` has dtype `" + param.dtype +
               "`; symbols are int32 or int64";
      symbols.insert(param.name);
    }
  }
  for (const Param &param : function.params) {
    std::string what = "parameter `" + param.name + "`: ";
    if (param.output && param.kind != Param::Kind::Tensor)
      return what + "only a tensor can be an output";
    if (param.kind == Param::Kind::Symbol)
      continue;
    if (!lookupDType(param.dtype))
      return what + "unknown dtype `" + param.dtype + "`";
    if (param.kind == Param::Kind::Tensor) {
      if (!isPowerOfTwo(param.alignment))
        return what + "alignment " + std::to_string(param.alignment) +
               " is not a power of two";
      for (const std::string &dim : param.shape)
        if (std::string error = checkExpr(dim, symbols); !error.empty())
          return what + "shape: " + error;
    }
  }
  for (const SymbolCheck &check : function.checks)
    if (std::string error = checkExpr(check.condition, symbols); !error.empty())
      return "check: " + error;
  // Grids may also be computed from integer scalar arguments (a
  // `max_seqlen: T.int32` parameter of a varlen kernel).
  std::set<std::string> gridNames = symbols;
  for (const Param &param : function.params)
    if (param.kind == Param::Kind::Scalar && isIntegerDType(param.dtype))
      gridNames.insert(param.name);
  for (size_t k = 0; k < function.kernels.size(); ++k)
    if (std::string error =
            checkKernel(function, function.kernels[k], gridNames, flavor);
        !error.empty())
      return "kernel " + std::to_string(k) + " (`" + function.kernels[k].entry +
             "`): " + error;
  return "";
}

} // namespace

std::string validate(const Unit &unit, Flavor flavor) {
  if (unit.image.bytes.empty())
    return "the image is empty";
  bool hipImage = unit.image.kind == ImageKind::HSACO;
  if (hipImage != (flavor == Flavor::HIP))
    return std::string("a ") + std::string(imageKindName(unit.image.kind)) +
           " image cannot be loaded through " +
           (flavor == Flavor::HIP ? "HIP" : "CUDA");
  if (unit.image.kind == ImageKind::PTX &&
      unit.image.bytes.find('\0') != std::string::npos)
    return "the PTX image contains a NUL byte";
  if (unit.functions.empty())
    return "no function to launch";
  std::set<std::string> functionNames;
  for (const Function &function : unit.functions) {
    std::string name = functionName(function);
    if (!functionNames.insert(name).second)
      return "two functions are named `" + name +
             "` in C++; give the instances distinct names";
    if (std::string error = checkFunction(function, flavor); !error.empty())
      return "function `" + function.name + "`: " + error;
  }
  if (!unit.nameSpace.empty()) {
    std::string_view rest = unit.nameSpace;
    while (true) {
      size_t sep = rest.find("::");
      if (sep == 0 || rest.empty())
        return "namespace `" + unit.nameSpace + "` has an empty component";
      if (sep == std::string_view::npos)
        break;
      rest = rest.substr(sep + 2);
    }
  }
  return "";
}

std::string_view imageKindName(ImageKind kind) {
  switch (kind) {
  case ImageKind::PTX:
    return "ptx";
  case ImageKind::Cubin:
    return "cubin";
  case ImageKind::HSACO:
    return "hsaco";
  }
  return "?";
}

KernelArg KernelArg::ofParam(unsigned index) {
  KernelArg arg;
  arg.kind = Kind::Param;
  arg.param = index;
  return arg;
}

KernelArg KernelArg::ofValue(std::string dtype, std::string expr) {
  KernelArg arg;
  arg.kind = Kind::Value;
  arg.dtype = std::move(dtype);
  arg.expr = std::move(expr);
  return arg;
}

KernelArg KernelArg::ofTensorMap(header::TensorMap map) {
  KernelArg arg;
  arg.kind = Kind::TensorMap;
  arg.tensorMap = std::move(map);
  return arg;
}

} // namespace tilec::header
