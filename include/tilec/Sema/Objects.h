//===- Objects.h - Payloads of compile-time values --------------*- C++ -*-===//
//
// The objects behind Value's reference kinds: functions (with their
// closure), IR buffers and runtime scalars. Runtime integers carry an affine
// form over the IR values they are computed from, so extents such as
// `(bx + 1) * block_M - bx * block_M` fold to constants the way TVM's
// simplifier folds them for TileLang.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SEMA_OBJECTS_H
#define TILEC_SEMA_OBJECTS_H

#include "tilec/Sema/Value.h"

#include "mlir/IR/Value.h"

#include <map>

namespace tilec::ast {
class FunctionDefStmt;
class LambdaExpr;
class CallExpr;
} // namespace tilec::ast

namespace tilec::sema {

class Scope;
struct FunctionObject;

/// `functools.partial(f, *args, **kwargs)`: `callee` with arguments bound.
struct PartialObject {
  Value callee;
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> keywords;
};

/// A `def` evaluated in a scope: a factory, a @T.prim_func, a @T.macro or a
/// plain helper. Calling it runs its body in a new scope whose parent is
/// `closure` (Python's lexical scoping).
struct FunctionObject {
  const ast::FunctionDefStmt *def = nullptr;
  /// Set instead of `def` for a `lambda`.
  const ast::LambdaExpr *lambda = nullptr;
  std::shared_ptr<Scope> closure;
  bool isPrimFunc = false;
  bool isMacro = false;
  bool isJit = false;
  bool isAutotune = false;
  /// For @tilelang.autotune(configs=...): the configurations.
  std::optional<Value> autotuneConfigs;
  /// The @tilelang.autotune(...) call, for its other keywords (Autotune.cpp).
  const ast::CallExpr *autotuneDecorator = nullptr;
  /// The func.func this prim_func was traced into, once traced.
  std::string tracedName;
  /// Set instead of `def` for a `functools.partial` object.
  std::shared_ptr<PartialObject> partial;
  /// For @tilelang.jit(pass_configs=...): key string -> value, and where
  /// the configs were written.
  std::vector<std::pair<std::string, Value>> passConfigs;
  llvm::SMLoc passConfigsLoc;
};

/// A compile-time `class`: its name and the attributes its body bound
/// (methods and class variables), in definition order. Single inheritance
/// from `object` only.
struct ClassObject {
  std::string name;
  std::vector<std::pair<std::string, Value>> attrs;
  const Value *find(llvm::StringRef attr) const {
    for (const auto &[k, v] : attrs)
      if (k == attr)
        return &v;
    return nullptr;
  }
};

/// An object of a compile-time class: its own attributes (`self.x = ...`);
/// a name it does not have is looked up in its class.
struct InstanceObject {
  std::shared_ptr<ClassObject> cls;
  std::vector<std::pair<std::string, Value>> attrs;
  Value *find(llvm::StringRef attr) {
    for (auto &[k, v] : attrs)
      if (k == attr)
        return &v;
    return nullptr;
  }
};

enum class MemScope { Global, Shared, Fragment, Local, Var };
llvm::StringRef spelling(MemScope scope);

/// A buffer: a kernel parameter (Global) or an allocation.
struct BufferObject {
  std::string name;
  MemScope scope = MemScope::Global;
  DType dtype = DType::Float16;
  /// One entry per dimension: an Int, or a Symbol for T.dynamic extents.
  std::vector<Value> shape;
  mlir::Value memref;
  llvm::SMLoc loc; // where it was declared
  /// A global tensor's `T.Layout(shape, lambda)` from T.annotate_layout:
  /// the lambda, and the physical shape its outputs index (row-major).
  Value indexMap;
  std::vector<int64_t> physicalShape;
  /// Non-empty for a `T.reshape` view: `memref` is the viewed buffer's,
  /// of this (static) shape, and `shape` is the view's. Element indices are
  /// remapped through the row-major offset (remapIndices); tile operations
  /// refuse a view.
  std::vector<int64_t> storageShape;
  /// `X.data` of a tensor parameter: its storage, for a `T.Tensor` view.
  bool isData = false;
  /// Static extent of dimension `d`, if known.
  std::optional<int64_t> staticDim(unsigned d) const {
    if (d < shape.size() && shape[d].is(Value::Int))
      return shape[d].getInt();
    return std::nullopt;
  }
};

/// Linear combination of runtime IR values plus a constant.
struct Affine {
  std::map<const void *, int64_t> terms; // mlir::Value impl -> coefficient
  int64_t constant = 0;
  bool isConstant() const { return terms.empty(); }
};

/// A scalar computed at run time.
struct RuntimeObject {
  mlir::Value value;
  DType dtype = DType::Int32;
  /// Integer indices are `index` in the IR (the lowering narrows them).
  bool isIndex = false;
  std::optional<Affine> affine;
  /// A C++ expression computing this value on the host from the kernel's
  /// symbols (for grid sizes), when it can be computed there.
  std::string hostExpr;
};

/// `A[i, j]`, `A[a:b, :]` before it is used as an element or a region.
struct SubscriptObject {
  Value base; // a Buffer
  std::vector<Value> indices; // Int, Runtime or Slice per position
  std::vector<llvm::SMRange> indexRanges; // where each index was written
  llvm::SMLoc loc;
};

/// What a `for` iterates over when it is a device loop.
struct LoopSpec {
  enum Kind { Parallel, Pipelined, Serial, Unroll, Vectorized, Persistent };
  Kind kind = Serial;
  std::vector<int64_t> extents;   // Parallel
  Value start, stop, step;        // the others: Int or Runtime
  int64_t numStages = 0;          // Pipelined
  std::vector<int64_t> order, stage;
  std::vector<std::vector<int64_t>> group;
  llvm::SMLoc loc;
  /// Where `order` / `stage` / `group` were written (for the count checks
  /// made once the body is traced).
  llvm::SMRange orderRange, stageRange, groupRange;
  /// A T.serial loop with constant bounds past the 32-bit loop index: run
  /// as two nested loops with a 64-bit induction variable.
  bool wide = false;
  /// T.Persistent: the tile domain walked in waves of `waveSize` tiles, the
  /// block's `index` in a wave, and the grouping of the last dimension.
  std::vector<Value> domain;
  Value waveSize, index, groupSize;
};

} // namespace tilec::sema

#endif // TILEC_SEMA_OBJECTS_H
