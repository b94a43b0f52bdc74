//===- ValueArith.h - Many-step formulas over frontend values --*- C++ -*-===//
//
// Builtins that expand into a formula of many steps (T.Persistent's tile
// walk, T.im2col's output extents and gather indices) combine compile-time
// and runtime values the way the kernel's own Python would. Checking every
// step's FailureOr would bury the formula; instead each step goes through
// ValueArith, which folds what it can, emits the rest, and after the first
// failure (already reported at the builtin's range) makes every later step
// a no-op returning a placeholder, so the caller tests failed() once before
// it uses a result.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_MLIRGEN_VALUEARITH_H
#define TILEC_MLIRGEN_VALUEARITH_H

#include "Elaborator.h"

#include <algorithm>

namespace tilec::mlirgen {

class ValueArith {
public:
  ValueArith(Elaborator &e, llvm::SMRange range) : e(e), range(range) {}

  /// `a op c` as Python evaluates it (folded when both are known).
  Value bin(ast::BinOpKind op, const Value &a, const Value &c) {
    if (bad)
      return Value::integer(0);
    mlir::FailureOr<Value> v = e.evalBinary(op, a, c, range);
    if (mlir::failed(v)) {
      bad = true;
      return Value::integer(0);
    }
    return *v;
  }

  /// A comparison, `and` / `or`, `min` / `max`: folded when both operands
  /// are compile-time integers, else the runtime operation.
  Value op(BinaryOpLike op, const Value &a, const Value &c) {
    if (bad)
      return Value::integer(0);
    if (a.isIntLike() && c.isIntLike())
      if (std::optional<Value> folded = fold(op, a.getInt(), c.getInt()))
        return *folded;
    mlir::FailureOr<Value> v = e.runtimeBinary(op, a, c, range);
    if (mlir::failed(v)) {
      bad = true;
      return Value::integer(0);
    }
    return *v;
  }

  /// ceil(a / c) for positive c.
  Value ceilDiv(const Value &a, const Value &c) {
    using K = ast::BinOpKind;
    return bin(K::FloorDiv, bin(K::Sub, bin(K::Add, a, c), Value::integer(1)),
               c);
  }

  /// Records a failure the caller found itself (already reported).
  void fail() { bad = true; }
  bool failed() const { return bad; }

private:
  static std::optional<Value> fold(BinaryOpLike op, int64_t a, int64_t c) {
    switch (op) {
    case BinaryOpLike::Min:
      return Value::integer(std::min(a, c));
    case BinaryOpLike::Max:
      return Value::integer(std::max(a, c));
    case BinaryOpLike::Lt:
      return Value::boolean(a < c);
    case BinaryOpLike::Le:
      return Value::boolean(a <= c);
    case BinaryOpLike::Gt:
      return Value::boolean(a > c);
    case BinaryOpLike::Ge:
      return Value::boolean(a >= c);
    default:
      return std::nullopt;
    }
  }

  Elaborator &e;
  llvm::SMRange range;
  bool bad = false;
};

} // namespace tilec::mlirgen

#endif // TILEC_MLIRGEN_VALUEARITH_H
