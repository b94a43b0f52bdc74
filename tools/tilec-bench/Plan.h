//===- Plan.h - A compiled kernel's launch, made concrete -------*- C++ -*-===//
//
// The metadata JSON describes a prim_func instance symbolically (shapes and
// grids over `T.dynamic` symbols). A Plan binds the symbols (`--dim`) and
// scalars, evaluates every shape, grid and argument, runs the host checks,
// and decides how each tensor is filled: everything tilec-bench needs
// before it touches a GPU, so all of it is testable without one.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_BENCH_PLAN_H
#define TILEC_BENCH_PLAN_H

#include "Expr.h"
#include "Fill.h"

#include "tilec/Target/Header.h"

#include <array>
#include <map>
#include <string>
#include <vector>

namespace tilec::bench {

struct TensorPlan {
  unsigned param = 0; ///< index into the function's params
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  size_t elements = 0;
  size_t bytes = 0;
  Distribution fill = Distribution::Auto;
};

/// One kernel argument: a tensor's pointer, or bytes passed by value.
struct ArgPlan {
  int tensor = -1; ///< index into Plan::tensors, or -1 for a value
  std::array<uint8_t, 8> value = {};
  size_t size = 0;
};

struct LaunchPlan {
  std::string entry;
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<unsigned, 3> block = {1, 1, 1};
  unsigned dynamicSharedBytes = 0;
  /// A persistent kernel (header::KernelLaunch): the runner launches
  /// min(blocks, this * multiprocessors) blocks along x.
  unsigned persistentBlocksPerSM = 0;
  std::vector<ArgPlan> args;
};

struct Plan {
  std::string function;
  std::vector<TensorPlan> tensors;
  std::vector<LaunchPlan> launches;
  /// What work formulas may name: the factory's numeric bindings, the
  /// symbols and scalars, and per tensor `X.numel`, `X.bytes`, `X.dim0`...
  Vars vars;
  size_t totalBytes() const;
};

struct PlanOptions {
  /// `--dim name=value`: symbols and scalar parameters.
  std::map<std::string, double> values;
  /// Default distribution; `--fill NAME=dist` per tensor.
  Distribution fill = Distribution::Auto;
  std::map<std::string, Distribution> fills;
};

/// Builds the plan of `fn`; false with `error` set when a symbol or scalar
/// has no value, an expression does not evaluate, a host check fails, a
/// dtype is unknown or an argument kind is not supported (TMA descriptors).
bool makePlan(const header::Function &fn, const PlanOptions &options,
              Plan &plan, std::string &error);

/// Parses `name=value` (value an integer or float); false if malformed.
bool parseBinding(const std::string &text, std::string &name, double &value);

} // namespace tilec::bench

#endif // TILEC_BENCH_PLAN_H
