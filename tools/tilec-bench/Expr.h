//===- Expr.h - Evaluating launch and work expressions ----------*- C++ -*-===//
//
// tilec's metadata writes shapes, grid sizes, kernel-argument values and
// host checks as C++ expressions over the `T.dynamic` symbols ("(m + 127) /
// 128", "std::max<int64_t>(n, 1)", "k % 8 == 0"); `--flops` and `--bytes`
// are the same kind of expression over the factory's bindings and the
// symbols ("2 * M * N * K"). One small evaluator serves both: integer mode
// follows C++ int64 semantics (division truncates), real mode computes in
// double (so "2*M*N*K" cannot overflow and "/" is exact).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_BENCH_EXPR_H
#define TILEC_BENCH_EXPR_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace tilec::bench {

/// Names an expression may use -> their values.
using Vars = std::map<std::string, double>;

/// Evaluates `text` in int64 (C++ semantics; a value that is not an integer
/// is an error). Operators: + - * / % << >> < <= > >= == != && || ! ?: and
/// parentheses; functions min, max (also std::min<T>, std::max<T>),
/// ceildiv. On failure returns nullopt and sets `error` (it names the
/// unknown name or the position of the syntax error).
std::optional<int64_t> evalInt(const std::string &text, const Vars &vars,
                               std::string &error);

/// The same grammar in double: "/" divides exactly, `**` is a power.
std::optional<double> evalReal(const std::string &text, const Vars &vars,
                               std::string &error);

} // namespace tilec::bench

#endif // TILEC_BENCH_EXPR_H
