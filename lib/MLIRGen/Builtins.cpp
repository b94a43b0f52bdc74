//===- Builtins.cpp - Python built-ins, math and T.* scalar functions -----===//
//
// The callables a .tile program has without defining them: Python's
// built-ins (range, min, max, len, ...), `math` and `itertools.product`, and
// TileLang's scalar functions (T.exp, T.max, T.if_then_else, T.cast, ...).
// Each folds on compile-time values and emits arith/math ops on runtime ones.
// The tile-level primitives (T.copy, T.gemm, ...) live in Primitives.cpp.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

using namespace mlir;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace tilec::mlirgen {

FailureOr<std::vector<std::optional<Arg>>>
Elaborator::bindArgs(CallArgs &args, llvm::ArrayRef<StringRef> names,
                     unsigned numRequired) {
  std::vector<std::optional<Arg>> out(names.size());
  if (args.positional.size() > names.size()) {
    error(args.positional[names.size()].range,
          "`" + args.callee + "` takes at most " + Twine(names.size()) +
              " argument" + (names.size() == 1 ? "" : "s") + " but " +
              Twine(args.positional.size()) + " were given");
    return failure();
  }
  for (size_t k = 0; k < args.positional.size(); ++k)
    out[k] = args.positional[k];
  for (auto &[name, arg] : args.keywords) {
    auto it = llvm::find(names, StringRef(name));
    if (it == names.end()) {
      std::string expected;
      for (StringRef n : names)
        expected += (expected.empty() ? "`" : ", `") + n.str() + "`";
      error(arg.range, "`" + args.callee + "` got an unexpected keyword "
                       "argument `" + name + "` (expected " + expected + ")");
      return failure();
    }
    size_t idx = it - names.begin();
    if (out[idx]) {
      error(arg.range, "`" + args.callee + "` got multiple values for `" +
                           name + "`");
      return failure();
    }
    out[idx] = arg;
  }
  for (unsigned k = 0; k < numRequired; ++k)
    if (!out[k]) {
      error(args.range, "`" + args.callee + "` is missing its argument `" +
                            names[k] + "`");
      return failure();
    }
  return out;
}

FailureOr<int64_t> Elaborator::requireInt(const Arg &arg, StringRef what) {
  if (arg.value.isIntLike())
    return arg.value.getInt();
  error(arg.range, what + " must be a compile-time integer, got " +
                       (arg.value.isConstant() ? "`" + arg.value.repr() + "`"
                                               : "a runtime value") +
                       constHint(arg.value));
  return failure();
}

FailureOr<DType> Elaborator::requireDType(const Arg &arg) {
  if (std::optional<DType> dt = toDType(arg.value))
    return *dt;
  if (std::optional<DType> ptr = pointerTableDType(arg.value);
      ptr && ptr->isPointer()) {
    error(arg.range, "`T.ptr` is the element type of a pointer-table kernel "
                     "parameter (`T.Tensor([n], T.ptr)`) only; here a data "
                     "dtype is expected");
    return failure();
  }
  if (arg.value.is(Value::Str) && isSubByteDType(arg.value.getStr()))
    error(arg.range, "dtype \"" + arg.value.getStr() +
                         "\" is not supported yet by tilec: it needs packed "
                         "sub-byte storage (see docs/language.md, section 11)");
  else if (arg.value.is(Value::Str))
    error(arg.range, "unknown dtype \"" + arg.value.getStr() +
                         "\" (expected float16, bfloat16, float32, "
                         "float8_e4m3, int8, int32, ...)");
  else
    error(arg.range, "expected a dtype, got `" + arg.value.repr() + "`");
  return failure();
}

FailureOr<Value> Elaborator::callBuiltin(StringRef name, CallArgs &args) {
  if (name.starts_with("py."))
    return callPythonBuiltin(name.drop_front(3), args);
  if (name.starts_with("math.") || name.starts_with("itertools."))
    return callMath(name, args);
  if (name == "tilelang.jit" || name == "tilelang.autotune" ||
      name == "tilelang.autotuner.autotune" || name == "T.prim_func" ||
      name == "T.macro")
    return Value::builtin(name.str()); // a configured decorator
  if (name == "T.const" || name == "T.empty")
    return callEagerPrimitive(name, args);
  if (name.starts_with("T."))
    return callPrimitive(name, args);
  if (name.starts_with("functools."))
    return callFunctools(name, args);
  if (name.starts_with("tilelang."))
    return callTileLang(name, args);
  error(args.range, "`" + name + "` is not available in .tile files");
  return failure();
}

//===----------------------------------------------------------------------===//
// Python built-ins
//===----------------------------------------------------------------------===//

FailureOr<Value> Elaborator::callPythonBuiltin(StringRef name, CallArgs &args) {
  auto &pos = args.positional;
  if (name == "range") {
    if (!args.keywords.empty() || pos.empty() || pos.size() > 3) {
      error(args.range, "`range` takes 1 to 3 positional arguments");
      return failure();
    }
    Value start = pos.size() > 1 ? pos[0].value : Value::integer(0);
    Value stop = pos.size() > 1 ? pos[1].value : pos[0].value;
    Value step = pos.size() > 2 ? pos[2].value : Value::integer(1);
    if (traced && kernelDepth > 0) {
      // In a kernel, `range` is a device loop (T.serial), as in TileLang.
      auto spec = std::make_shared<sema::LoopSpec>();
      spec->kind = sema::LoopSpec::Serial;
      spec->start = start;
      spec->stop = stop;
      spec->step = step;
      // As T.serial's: a constant step must be positive (a device loop
      // counts up; `range(10, 0, -1)` ran 0 times), and constant bounds past
      // the 32-bit loop index count in 64 bits.
      if (step.isIntLike() && step.getInt() <= 0) {
        error(pos.back().range, step.getInt() == 0
                                    ? "`range` step must not be zero"
                                    : "`range` in a kernel needs a positive "
                                      "step (a device loop counts up)");
        return failure();
      }
      if (std::optional<int64_t> trips = wideLoopTrips(*spec)) {
        if (*trips > kMaxWideTrips) {
          error(args.range, "`range` of " + Twine(*trips) +
                                " iterations is more than the " +
                                Twine(kMaxWideTrips) + " tilec can count");
          return failure();
        }
        spec->wide = true;
      }
      return Value::loop(spec);
    }
    for (const Arg &a : pos)
      if (!a.value.isIntLike()) {
        error(a.range, "`range` needs integers, got `" + a.value.repr() + "`");
        return failure();
      }
    int64_t s = start.getInt(), e = stop.getInt(), st = step.getInt();
    if (st == 0) {
      error(pos.back().range, "`range` step must not be zero");
      return failure();
    }
    std::vector<Value> out;
    for (int64_t i = s; st > 0 ? i < e : i > e; i += st) {
      if (out.size() >= (1u << 20)) {
        error(args.range, "`range` is too long for compile-time iteration");
        return failure();
      }
      out.push_back(Value::integer(i));
    }
    return Value::list(out);
  }
  if (name == "min" || name == "max") {
    std::vector<Arg> items = pos;
    if (items.size() == 1 && items[0].value.isSequence()) {
      items.clear();
      for (const Value &v : pos[0].value.getElements())
        items.push_back(Arg{v, pos[0].range});
    }
    if (items.empty()) {
      error(args.range, "`" + name + "` needs at least one argument");
      return failure();
    }
    Value acc = items[0].value;
    for (size_t k = 1; k < items.size(); ++k) {
      const Value &v = items[k].value;
      if (acc.isConstant() && v.isConstant() && !acc.is(Value::Symbol) &&
          !v.is(Value::Symbol)) {
        sema::FoldResult r = sema::foldBinary(sema::BinaryOp::Lt, v, acc);
        if (!r.value) {
          error(items[k].range, r.error);
          return failure();
        }
        bool less = r.value->truthy();
        if ((name == "min") == less)
          acc = v;
        continue;
      }
      FailureOr<Value> r = runtimeBinary(
          name == "min" ? BinaryOpLike::Min : BinaryOpLike::Max, acc, v, args.range);
      if (failed(r))
        return failure();
      acc = *r;
    }
    return acc;
  }
  if (name == "abs") {
    if (pos.size() != 1) {
      error(args.range, "`abs` takes one argument");
      return failure();
    }
    return callPrimitive("T.abs", args);
  }
  if (name == "len") {
    if (pos.size() != 1) {
      error(args.range, "`len` takes one argument");
      return failure();
    }
    const Value &v = pos[0].value;
    if (v.isSequence())
      return Value::integer(v.getElements().size());
    if (v.is(Value::Str))
      return Value::integer(v.getStr().size());
    if (v.is(Value::Dict))
      return Value::integer(v.getItems().size());
    if (v.is(Value::Buffer) && !v.getBuffer().shape.empty())
      return v.getBuffer().shape[0];
    error(pos[0].range, "`" + v.typeName() + "` has no length");
    return failure();
  }
  if (name == "int" || name == "float" || name == "bool" || name == "str") {
    if (pos.size() != 1) {
      error(args.range, "`" + name + "` takes one argument");
      return failure();
    }
    const Value &v = pos[0].value;
    if (!v.isConstant()) {
      DType to = name == "int" ? DType::Int32 : name == "float" ? DType::Float32
                                                               : DType::Bool;
      return castTo(v, to, args.range);
    }
    if (name == "str")
      return Value::string(pyStr(v)); // str(T.float16) is "float16"
    if (name == "bool")
      return Value::boolean(v.truthy());
    if (v.is(Value::Str)) {
      StringRef t = StringRef(v.getStr()).trim();
      int64_t i;
      double d;
      if (name == "int" && !t.getAsInteger(10, i))
        return Value::integer(i);
      if (name == "float" && !t.getAsDouble(d))
        return Value::floating(d);
      error(pos[0].range, "cannot convert " + v.repr() + " to `" + name + "`");
      return failure();
    }
    if (!v.isNumber()) {
      error(pos[0].range, "cannot convert a `" + v.typeName() + "` to `" + name + "`");
      return failure();
    }
    if (name == "int") {
      double d = v.getFloat();
      if (v.is(Value::Float) && (!std::isfinite(d) || std::fabs(d) > 9.2e18)) {
        error(pos[0].range, "cannot convert " + v.repr() + " to `int`");
        return failure();
      }
      return Value::integer(v.is(Value::Float) ? int64_t(d) : v.getInt());
    }
    return Value::floating(v.getFloat());
  }
  if (name == "dict" || name == "set")
    return callCollection(name, args);
  if (name == "tuple" || name == "list") {
    std::vector<Value> elts;
    if (pos.size() == 1) {
      if (!pos[0].value.isSequence()) {
        error(pos[0].range, "`" + name + "` needs a sequence");
        return failure();
      }
      elts = pos[0].value.getElements();
    }
    return name == "tuple" ? Value::tuple(elts) : Value::list(elts);
  }
  if (name == "sum") {
    if (pos.empty() || !pos[0].value.isSequence()) {
      error(args.range, "`sum` needs a sequence");
      return failure();
    }
    Value acc = pos.size() > 1 ? pos[1].value : Value::integer(0);
    for (const Value &v : pos[0].value.getElements()) {
      FailureOr<Value> r = evalBinary(ast::BinOpKind::Add, acc, v, args.range);
      if (failed(r))
        return failure();
      acc = *r;
    }
    return acc;
  }
  if (name == "enumerate" || name == "zip" || name == "reversed" ||
      name == "sorted" || name == "any" || name == "all") {
    // A dict iterates over its keys, as in Python.
    for (Arg &a : pos)
      if (a.value.is(Value::Dict)) {
        std::vector<Value> keys;
        for (const auto &kv : a.value.getItems())
          keys.push_back(kv.first);
        a.value = Value::list(std::move(keys));
      }
    for (const Arg &a : pos)
      if (!a.value.isSequence()) {
        error(a.range, "`" + name + "` needs a tuple or list");
        return failure();
      }
    if (pos.empty()) {
      error(args.range, "`" + name + "` needs an argument");
      return failure();
    }
    const std::vector<Value> &first = pos[0].value.getElements();
    std::vector<Value> out;
    if (name == "enumerate") {
      for (size_t k = 0; k < first.size(); ++k)
        out.push_back(Value::tuple({Value::integer(k), first[k]}));
    } else if (name == "zip") {
      size_t n = first.size();
      for (const Arg &a : pos)
        n = std::min(n, a.value.getElements().size());
      for (size_t k = 0; k < n; ++k) {
        std::vector<Value> t;
        for (const Arg &a : pos)
          t.push_back(a.value.getElements()[k]);
        out.push_back(Value::tuple(t));
      }
    } else if (name == "reversed") {
      out.assign(first.rbegin(), first.rend());
    } else if (name == "any" || name == "all") {
      bool any = llvm::any_of(first, [](const Value &v) { return v.truthy(); });
      bool all = llvm::all_of(first, [](const Value &v) { return v.truthy(); });
      return Value::boolean(name == "any" ? any : all);
    } else {
      out = first;
      bool bad = false;
      // Insertion sort: stable like Python's, and the lists are short.
      for (size_t i = 1; i < out.size() && !bad; ++i)
        for (size_t j = i; j > 0; --j) {
          sema::FoldResult r =
              sema::foldBinary(sema::BinaryOp::Lt, out[j], out[j - 1]);
          if (!r.value) {
            bad = true;
            break;
          }
          if (!r.value->truthy())
            break;
          std::swap(out[j], out[j - 1]);
        }
      if (bad) {
        error(pos[0].range, "`sorted` needs comparable elements");
        return failure();
      }
    }
    return Value::list(out);
  }
  if (name == "round" || name == "pow" || name == "divmod") {
    if (pos.size() < 1 || !llvm::all_of(pos, [](const Arg &a) { return a.value.isNumber(); })) {
      error(args.range, "`" + name + "` needs compile-time numbers");
      return failure();
    }
    if (name == "round")
      return Value::integer(int64_t(std::nearbyint(pos[0].value.getFloat())));
    if (pos.size() != 2) {
      error(args.range, "`" + name + "` takes two arguments");
      return failure();
    }
    if (name == "pow") {
      sema::FoldResult r = sema::foldBinary(sema::BinaryOp::Pow, pos[0].value, pos[1].value);
      if (!r.value) {
        error(args.range, r.error);
        return failure();
      }
      return *r.value;
    }
    sema::FoldResult q = sema::foldBinary(sema::BinaryOp::FloorDiv, pos[0].value, pos[1].value);
    sema::FoldResult m = sema::foldBinary(sema::BinaryOp::Mod, pos[0].value, pos[1].value);
    if (!q.value || !m.value) {
      error(args.range, q.value ? m.error : q.error);
      return failure();
    }
    return Value::tuple({*q.value, *m.value});
  }
  if (name == "isinstance") {
    // On compile-time values, with the built-in types and compile-time
    // classes; a run-time value's type is its dtype (`x.dtype`).
    if (pos.size() != 2 || !args.keywords.empty()) {
      error(args.range, "`isinstance` takes an object and a type or a tuple "
                        "of types");
      return failure();
    }
    const Value &x = pos[0].value;
    if (!x.isConstant()) {
      error(pos[0].range, "`isinstance` of a run-time value is not supported "
                          "in .tile files; compare its `dtype`");
      return failure();
    }
    std::vector<Value> types = pos[1].value.is(Value::Tuple)
                                   ? pos[1].value.getElements()
                                   : std::vector<Value>{pos[1].value};
    bool result = false;
    for (const Value &t : types) {
      if (t.is(Value::Class)) {
        result |=
            x.is(Value::Instance) && x.getInstance().cls == t.getClassPtr();
        continue;
      }
      StringRef ty = t.is(Value::Builtin) ? StringRef(t.getBuiltin()) : "";
      if (ty == "py.int")
        result |= x.isIntLike(); // bool is an int, as in Python
      else if (ty == "py.bool")
        result |= x.is(Value::Bool);
      else if (ty == "py.float")
        result |= x.is(Value::Float);
      else if (ty == "py.str")
        result |= x.is(Value::Str);
      else if (ty == "py.tuple")
        result |= x.is(Value::Tuple);
      else if (ty == "py.list")
        result |= x.is(Value::List);
      else if (ty == "py.dict")
        result |= x.is(Value::Dict);
      else {
        error(pos[1].range, "`isinstance` with `" + t.repr() +
                                "` is not supported in .tile files (int, "
                                "float, bool, str, tuple, list, dict or a "
                                "class)");
        return failure();
      }
    }
    return Value::boolean(result);
  }
  if (name == "print") {
    // In a kernel body print would run on the device: that is T.print.
    if (kernelDepth > 0) {
      error(args.range, "`print` is host code; use T.print inside a kernel");
      return failure();
    }
    // Factory code runs at compile time in tilec, where TileLang runs it
    // when the kernel is built (`print(main)` after the prim_func): the
    // line goes to stderr, stdout being an output (`-o -`).
    std::string line, sep = " ", end = "\n";
    for (const auto &[key, kw] : args.keywords) {
      if ((key != "sep" && key != "end") || !kw.value.is(Value::Str)) {
        error(kw.range, "`print` takes the keywords `sep` and `end` (strings) "
                        "at compile time");
        return failure();
      }
      (key == "sep" ? sep : end) = kw.value.getStr();
    }
    for (size_t i = 0; i < pos.size(); ++i)
      line += (i ? sep : "") + pyStr(pos[i].value);
    llvm::errs() << line << end;
    return Value::none();
  }
  error(args.range, "`" + name + "` is not available in .tile files");
  return failure();
}

//===----------------------------------------------------------------------===//
// math and itertools (compile time only)
//===----------------------------------------------------------------------===//

FailureOr<Value> Elaborator::callMath(StringRef name, CallArgs &args) {
  auto &pos = args.positional;
  if (name == "itertools.product") {
    // product(*seqs, repeat=n) is product of the sequences repeated n times.
    int64_t repeat = 1;
    for (auto &[kw, a] : args.keywords) {
      if (kw != "repeat") {
        error(a.range, "`itertools.product` got an unexpected keyword "
                       "argument `" +
                           kw + "`");
        return failure();
      }
      FailureOr<int64_t> n = requireInt(a, "`repeat` of `itertools.product`");
      if (failed(n))
        return failure();
      if (*n < 0 || *n > 64) {
        error(a.range, "`repeat` of `itertools.product` must be between 0 "
                       "and 64, got " +
                           Twine(*n));
        return failure();
      }
      repeat = *n;
    }
    std::vector<Arg> seqs;
    for (int64_t r = 0; r < repeat; ++r)
      seqs.insert(seqs.end(), pos.begin(), pos.end());
    std::vector<std::vector<Value>> result = {{}};
    for (const Arg &a : seqs) {
      if (!a.value.isSequence()) {
        error(a.range, "`itertools.product` needs tuples or lists");
        return failure();
      }
      std::vector<std::vector<Value>> next;
      for (const auto &prefix : result)
        for (const Value &v : a.value.getElements()) {
          next.push_back(prefix);
          next.back().push_back(v);
          if (next.size() > (1u << 16)) {
            error(args.range, "`itertools.product` is too large");
            return failure();
          }
        }
      result = std::move(next);
    }
    std::vector<Value> out;
    for (auto &t : result)
      out.push_back(Value::tuple(t));
    return Value::list(out);
  }
  StringRef fn = name.drop_front(5);
  for (const Arg &a : pos)
    if (!a.value.isNumber()) {
      if (!a.value.isConstant()) {
        // math.exp on a runtime value behaves as T.exp.
        return callPrimitive(("T." + fn).str(), args);
      }
      error(a.range, "`" + name + "` needs numbers, got `" + a.value.repr() + "`");
      return failure();
    }
  if (pos.empty()) {
    error(args.range, "`" + name + "` needs an argument");
    return failure();
  }
  double x = pos[0].value.getFloat();
  double r;
  if (fn == "log2") r = std::log2(x);
  else if (fn == "log") r = pos.size() > 1 ? std::log(x) / std::log(pos[1].value.getFloat()) : std::log(x);
  else if (fn == "log10") r = std::log10(x);
  else if (fn == "exp") r = std::exp(x);
  else if (fn == "exp2") r = std::exp2(x);
  else if (fn == "sqrt") r = std::sqrt(x);
  else if (fn == "tanh") r = std::tanh(x);
  else if (fn == "sin") r = std::sin(x);
  else if (fn == "cos") r = std::cos(x);
  else if (fn == "pow" && pos.size() > 1) r = std::pow(x, pos[1].value.getFloat());
  else if (fn == "ceil" || fn == "floor" || fn == "trunc") {
    double v = fn == "ceil" ? std::ceil(x) : fn == "floor" ? std::floor(x) : std::trunc(x);
    return Value::integer(int64_t(v));
  } else if (fn == "gcd" && pos.size() == 2 && pos[0].value.isIntLike() &&
             pos[1].value.isIntLike()) {
    return Value::integer(std::gcd(pos[0].value.getInt(), pos[1].value.getInt()));
  } else if (fn == "prod" && pos[0].value.isSequence()) {
    Value acc = Value::integer(1);
    for (const Value &v : pos[0].value.getElements()) {
      sema::FoldResult f = sema::foldBinary(sema::BinaryOp::Mul, acc, v);
      if (!f.value) {
        error(args.range, f.error);
        return failure();
      }
      acc = *f.value;
    }
    return acc;
  } else {
    error(args.range, "`" + name + "` is not available in .tile files");
    return failure();
  }
  if (std::isnan(r) && !std::isnan(x)) {
    error(args.range, "math domain error in `" + name + "`");
    return failure();
  }
  return Value::floating(r);
}

} // namespace tilec::mlirgen
