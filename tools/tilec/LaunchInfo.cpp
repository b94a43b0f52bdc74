//===- LaunchInfo.cpp - What the launch header needs, read from the IR ----===//

#include "LaunchInfo.h"

#include "tilec/Dialect/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <nlohmann/json.hpp>

using namespace mlir;

namespace tilec {

static std::string dtypeName(Type t) {
  if (t.isF16())
    return "float16";
  if (t.isBF16())
    return "bfloat16";
  if (t.isF32())
    return "float32";
  if (t.isF64())
    return "float64";
  if (isa<Float8E4M3FNType>(t))
    return "float8_e4m3";
  if (isa<Float8E5M2Type>(t))
    return "float8_e5m2";
  if (t.isInteger(1))
    return "bool";
  if (t.isInteger(8))
    return "int8";
  if (t.isInteger(16))
    return "int16";
  if (t.isInteger(32))
    return "int32";
  if (t.isInteger(64))
    return "int64";
  return "";
}

/// A factory parameter's value (MLIRGen's `tile.params`) as JSON text.
static std::string bindingJSON(Attribute value) {
  nlohmann::ordered_json j;
  if (auto b = dyn_cast<BoolAttr>(value))
    j = b.getValue();
  else if (auto i = dyn_cast<IntegerAttr>(value))
    j = i.getInt();
  else if (auto f = dyn_cast<FloatAttr>(value))
    j = f.getValueAsDouble();
  else if (auto s = dyn_cast<StringAttr>(value))
    j = s.str();
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

LogicalResult collectLaunchInfo(ModuleOp module,
                                const std::vector<KernelResources> &resources,
                                header::Unit &unit) {
  // gpu.func kernels by name.
  llvm::StringMap<gpu::GPUFuncOp> kernels;
  module.walk([&](gpu::GPUFuncOp f) {
    if (f.isKernel())
      kernels[f.getName()] = f;
  });
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr(tile::TileDialect::getKernelFuncAttrName()))
      continue;
    header::Function fn;
    fn.name = func.getName().str();
    if (auto loc = dyn_cast<FileLineColLoc>(func.getLoc()))
      fn.location =
          (loc.getFilename().str() + ":" + std::to_string(loc.getLine()));
    if (auto factory = func->getAttrOfType<StringAttr>("tile.factory"))
      fn.factory = factory.str();
    if (auto params = func->getAttrOfType<DictionaryAttr>("tile.params"))
      for (NamedAttribute param : params)
        fn.bindings.emplace_back(param.getName().str(),
                                 bindingJSON(param.getValue()));
    for (unsigned k = 0; k < func.getNumArguments(); ++k) {
      header::Param p;
      Type t = func.getArgument(k).getType();
      auto name = func.getArgAttrOfType<StringAttr>(k, "tile.name");
      auto symbol = func.getArgAttrOfType<StringAttr>(k, "tile.symbol");
      if (auto mt = dyn_cast<MemRefType>(t)) {
        p.kind = header::Param::Kind::Tensor;
        p.dtype = dtypeName(mt.getElementType());
        // A T.ptr table: 64-bit device addresses, read one at a time (8-byte
        // aligned suffices; an int64 tensor slice may be no more).
        if (auto dt = func.getArgAttrOfType<StringAttr>(k, "tile.dtype");
            dt && dt.getValue() == "ptr") {
          p.dtype = "ptr";
          p.alignment = 8;
        }
        p.output = bool(func.getArgAttr(k, "tile.output"));
        if (auto shape = func.getArgAttrOfType<ArrayAttr>(k, "tile.shape")) {
          for (Attribute d : shape)
            p.shape.push_back(cast<StringAttr>(d).str());
        } else {
          for (int64_t d : mt.getShape())
            p.shape.push_back(std::to_string(d));
        }
      } else if (symbol) {
        p.kind = header::Param::Kind::Symbol;
        p.dtype = func.getArgAttr(k, "tile.symbol_bits") ? "int64" : "int32";
      } else {
        p.kind = header::Param::Kind::Scalar;
        p.dtype = dtypeName(t);
      }
      p.name = symbol ? symbol.str()
               : name ? name.str()
                      : "arg" + std::to_string(k);
      if (p.dtype.empty())
        return func.emitError() << "parameter `" << p.name
                                << "` has a type the launch header cannot "
                                   "pass: "
                                << t;
      fn.params.push_back(std::move(p));
    }
    // Conditions on the symbols, as (symbol, condition) pairs: the ones the
    // kernels' 32-bit index arithmetic needs (lib/MLIRGen/IndexLimits.cpp)
    // and `assert`s outside the kernel, whose check is documented under the
    // first symbol it names.
    if (auto checks = func->getAttrOfType<ArrayAttr>("tile.checks"))
      for (Attribute a : checks) {
        auto pair = cast<ArrayAttr>(a);
        std::string symbol = cast<StringAttr>(pair[0]).str();
        std::string cond = cast<StringAttr>(pair[1]).str();
        for (const header::Param &p : fn.params)
          if (symbol.empty() && p.kind == header::Param::Kind::Symbol &&
              cond.find(p.name) != std::string::npos) {
            symbol = p.name;
            break;
          }
        fn.checks.push_back({symbol, cond});
      }
    auto launched = func->getAttrOfType<ArrayAttr>("tile.kernels");
    if (!launched)
      return func.emitError() << "internal: prim_func `" << fn.name
                              << "` has no `tile.kernels` after lowering";
    for (Attribute a : launched) {
      StringRef entry;
      if (auto ref = dyn_cast<SymbolRefAttr>(a))
        entry = ref.getLeafReference().getValue();
      else if (auto str = dyn_cast<StringAttr>(a))
        entry = str.getValue();
      auto it = kernels.find(entry);
      if (it == kernels.end())
        return func.emitError() << "internal: kernel `" << entry
                                << "` is missing after lowering";
      gpu::GPUFuncOp k = it->second;
      header::KernelLaunch launch;
      launch.entry = entry.str();
      if (auto grid = k->getAttrOfType<ArrayAttr>("tile.grid_host"))
        for (unsigned d = 0; d < grid.size() && d < 3; ++d)
          launch.grid[d] = cast<StringAttr>(grid[d]).str();
      // tile-plan-warp-specialize's persistent decision (one block per
      // multiprocessor: its blocks are the warp-specialized kind).
      if (k->hasAttr("tile.persistent"))
        launch.persistentBlocksPerSM = 1;
      launch.cooperative = k->hasAttr("tile.cooperative");
      if (auto threads = k->getAttrOfType<IntegerAttr>("tile.threads"))
        launch.block = {unsigned(threads.getInt()), 1, 1};
      if (auto shared =
              k->getAttrOfType<IntegerAttr>("tile.dynamic_shared_bytes"))
        launch.dynamicSharedBytes = unsigned(shared.getInt());
      for (unsigned p = 0; p < fn.params.size(); ++p)
        launch.args.push_back(header::KernelArg::ofParam(p));
      // Arguments past the prim_func's: TMA descriptors the lowering
      // appended (passes/PipelineTma.cpp), built by the header.
      for (unsigned i = fn.params.size(); i < k.getNumArguments(); ++i) {
        auto desc = k.getArgAttrOfType<DictionaryAttr>(i, "tile.tensor_map");
        auto tensor = desc ? desc.getAs<IntegerAttr>("tensor") : IntegerAttr();
        auto box = desc ? dyn_cast_or_null<DenseI64ArrayAttr>(desc.get("box"))
                        : DenseI64ArrayAttr();
        auto swizzle =
            desc ? desc.getAs<IntegerAttr>("swizzle") : IntegerAttr();
        if (!tensor || !box || !swizzle ||
            tensor.getInt() >= int64_t(fn.params.size()))
          return k.emitError() << "internal: kernel argument " << i
                               << " is neither a parameter nor a tensor map";
        header::TensorMap map;
        map.tensor = unsigned(tensor.getInt());
        for (int64_t d : box.asArrayRef())
          map.boxDims.push_back(unsigned(d));
        switch (swizzle.getInt()) {
        case 32:
          map.swizzle = header::TensorMap::Swizzle::B32;
          break;
        case 64:
          map.swizzle = header::TensorMap::Swizzle::B64;
          break;
        case 128:
          map.swizzle = header::TensorMap::Swizzle::B128;
          break;
        default:
          map.swizzle = header::TensorMap::Swizzle::None;
        }
        launch.args.push_back(header::KernelArg::ofTensorMap(std::move(map)));
      }
      for (const KernelResources &r : resources)
        if (r.name == entry) {
          launch.resources.registers = r.registers;
          launch.resources.accumRegisters = r.accumRegisters;
          launch.resources.scalarRegisters = r.scalarRegisters;
          launch.resources.spillStoreBytes = r.spillStoreBytes;
          launch.resources.spillLoadBytes = r.spillLoadBytes;
          launch.resources.spilledVectorRegisters = r.spilledVectorRegisters;
          launch.resources.spilledScalarRegisters = r.spilledScalarRegisters;
          launch.resources.stackBytes = r.stackBytes;
          launch.resources.staticSharedBytes = r.sharedBytes;
        }
      fn.kernels.push_back(std::move(launch));
    }
    unit.functions.push_back(std::move(fn));
  }
  return success();
}

} // namespace tilec
