//===- Plan.cpp - A compiled kernel's launch, made concrete ---------------===//

#include "Plan.h"

#include <algorithm>
#include <cstring>

namespace tilec::bench {

size_t Plan::totalBytes() const {
  size_t n = 0;
  for (const TensorPlan &t : tensors)
    n += t.bytes;
  return n;
}

bool parseBinding(const std::string &text, std::string &name, double &value) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return false;
  name = text.substr(0, eq);
  std::string rest = text.substr(eq + 1);
  try {
    size_t used = 0;
    value = std::stod(rest, &used);
    return used == rest.size();
  } catch (const std::logic_error &) {
    return false;
  }
}

namespace {
/// `v` as `dtype`'s bytes (the header ABI: 16-bit floats as their bits).
bool encodeScalar(const std::string &dtype, double v, ArgPlan &arg) {
  std::optional<DType> t = parseDType(dtype);
  if (!t)
    return false;
  arg.size = dtypeBytes(*t);
  storeElement(arg.value.data(), *t, 0, v);
  return true;
}
} // namespace

bool makePlan(const header::Function &fn, const PlanOptions &options,
              Plan &plan, std::string &error) {
  plan = Plan();
  plan.function = fn.name;
  // Numeric bindings first: symbols and scalars given with --dim win.
  for (const auto &[name, json] : fn.bindings) {
    if (json == "true" || json == "false") {
      plan.vars[name] = json == "true";
      continue;
    }
    try {
      size_t used = 0;
      double v = std::stod(json, &used);
      if (used == json.size())
        plan.vars[name] = v;
    } catch (const std::logic_error &) {
    }
  }
  std::map<std::string, double> used;
  for (const header::Param &p : fn.params) {
    if (p.kind == header::Param::Kind::Tensor)
      continue;
    auto it = options.values.find(p.name);
    if (it == options.values.end()) {
      error = std::string(p.kind == header::Param::Kind::Symbol
                              ? "dynamic dimension `"
                              : "scalar parameter `") +
              p.name + "` of `" + fn.name + "` has no value: give --dim " +
              p.name + "=VALUE";
      return false;
    }
    if (p.kind == header::Param::Kind::Symbol &&
        (it->second < 1 || it->second > 2147483647.0 ||
         it->second != double(int64_t(it->second)))) {
      error = "--dim " + p.name +
              ": a dynamic dimension is an integer in [1, "
              "2147483647]";
      return false;
    }
    plan.vars[p.name] = it->second;
    used[p.name] = it->second;
  }
  for (const auto &[name, value] : options.values)
    if (!used.count(name) && !plan.vars.count(name)) {
      std::string known;
      for (const header::Param &p : fn.params)
        if (p.kind != header::Param::Kind::Tensor)
          known += (known.empty() ? "" : ", ") + p.name;
      error = "--dim " + name + ": `" + fn.name +
              "` has no dynamic dimension or scalar of that name" +
              (known.empty() ? " (it has none)" : " (it has " + known + ")");
      return false;
    }

  for (const header::SymbolCheck &check : fn.checks) {
    std::optional<int64_t> ok = evalInt(check.condition, plan.vars, error);
    if (!ok)
      return false;
    if (!*ok) {
      error = "`" + fn.name + "` requires " + check.condition +
              " (the kernel was compiled for it)";
      return false;
    }
  }

  std::vector<int> tensorOfParam(fn.params.size(), -1);
  for (unsigned k = 0; k < fn.params.size(); ++k) {
    const header::Param &p = fn.params[k];
    if (p.kind != header::Param::Kind::Tensor)
      continue;
    TensorPlan t;
    t.param = k;
    t.name = p.name;
    std::optional<DType> dtype = parseDType(p.dtype);
    if (!dtype) {
      error = "tensor `" + p.name + "` has dtype `" + p.dtype +
              "`, which tilec-bench cannot fill";
      return false;
    }
    t.dtype = *dtype;
    t.elements = 1;
    for (const std::string &dim : p.shape) {
      std::optional<int64_t> d = evalInt(dim, plan.vars, error);
      if (!d)
        return false;
      if (*d < 0) {
        error = "tensor `" + p.name + "` has a negative extent " + dim;
        return false;
      }
      t.shape.push_back(*d);
      t.elements *= size_t(*d);
    }
    t.bytes = t.elements * dtypeBytes(t.dtype);
    t.fill = options.fill;
    if (auto it = options.fills.find(p.name); it != options.fills.end())
      t.fill = it->second;
    tensorOfParam[k] = int(plan.tensors.size());
    plan.vars[p.name + ".numel"] = double(t.elements);
    plan.vars[p.name + ".bytes"] = double(t.bytes);
    for (size_t d = 0; d < t.shape.size(); ++d)
      plan.vars[p.name + ".dim" + std::to_string(d)] = double(t.shape[d]);
    plan.tensors.push_back(std::move(t));
  }
  for (const auto &[name, dist] : options.fills)
    if (std::none_of(plan.tensors.begin(), plan.tensors.end(),
                     [&](const TensorPlan &t) { return t.name == name; })) {
      error =
          "--fill " + name + ": `" + fn.name + "` has no tensor of that name";
      return false;
    }

  for (const header::KernelLaunch &k : fn.kernels) {
    LaunchPlan launch;
    launch.entry = k.entry;
    for (unsigned d = 0; d < 3; ++d) {
      std::optional<int64_t> g = evalInt(k.grid[d], plan.vars, error);
      if (!g)
        return false;
      if (*g < 1 || *g > (d == 0 ? 2147483647 : 65535)) {
        error = "kernel `" + k.entry + "`: grid dimension " +
                std::to_string(d) + " is " + std::to_string(*g) + " (" +
                k.grid[d] + ")";
        return false;
      }
      launch.grid[d] = *g;
    }
    launch.block = k.block;
    launch.dynamicSharedBytes = k.dynamicSharedBytes;
    launch.persistentBlocksPerSM = k.persistentBlocksPerSM;
    if (k.cluster != std::array<unsigned, 3>{1, 1, 1}) {
      error = "kernel `" + k.entry +
              "` is launched in thread-block clusters, "
              "which tilec-bench does not do yet";
      return false;
    }
    for (const header::KernelArg &a : k.args) {
      ArgPlan arg;
      switch (a.kind) {
      case header::KernelArg::Kind::Param: {
        if (a.param >= fn.params.size()) {
          error = "kernel `" + k.entry + "` names parameter " +
                  std::to_string(a.param) + ", which does not exist";
          return false;
        }
        const header::Param &p = fn.params[a.param];
        if (p.kind == header::Param::Kind::Tensor) {
          arg.tensor = tensorOfParam[a.param];
          arg.size = 8;
        } else if (!encodeScalar(p.kind == header::Param::Kind::Symbol
                                     ? std::string("int32")
                                     : p.dtype,
                                 plan.vars[p.name], arg)) {
          error = "parameter `" + p.name + "` has dtype `" + p.dtype +
                  "`, which tilec-bench cannot pass";
          return false;
        }
        break;
      }
      case header::KernelArg::Kind::Value: {
        std::optional<int64_t> v = evalInt(a.expr, plan.vars, error);
        if (!v)
          return false;
        if (!encodeScalar(a.dtype, double(*v), arg)) {
          error = "kernel `" + k.entry + "` takes a value of dtype `" +
                  a.dtype + "`";
          return false;
        }
        break;
      }
      case header::KernelArg::Kind::TensorMap:
        error = "kernel `" + k.entry +
                "` takes a TMA descriptor, which "
                "tilec-bench does not build yet";
        return false;
      }
      launch.args.push_back(arg);
    }
    plan.launches.push_back(std::move(launch));
  }
  return true;
}

} // namespace tilec::bench
