//===- Value.cpp - Compile-time values and Python's operator semantics ----===//
//
// Folding follows Python 3 exactly where kernels can observe it: `//` and
// `%` round toward negative infinity, `/` is true division, `**` of ints
// stays an int for non-negative exponents, bools are ints, and sequence
// `+`/`*` concatenate and repeat. Python ints never wrap, so an int64
// overflow is reported instead of producing a wrong shape.
//
//===----------------------------------------------------------------------===//

#include "tilec/Sema/Objects.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace llvm;

namespace tilec::sema {

//===----------------------------------------------------------------------===//
// Construction and inspection
//===----------------------------------------------------------------------===//

Value Value::boolean(bool b) {
  Value v;
  v.kind = Bool;
  v.i = b;
  return v;
}
Value Value::integer(int64_t x) {
  Value v;
  v.kind = Int;
  v.i = x;
  return v;
}
Value Value::floating(double x) {
  Value v;
  v.kind = Float;
  v.d = x;
  return v;
}
Value Value::string(std::string s) {
  Value v;
  v.kind = Str;
  v.str = std::make_shared<std::string>(std::move(s));
  return v;
}
Value Value::dtype(DType t) {
  Value v;
  v.kind = DTypeV;
  v.i = t.getKind();
  return v;
}
Value Value::tuple(std::vector<Value> e) {
  Value v;
  v.kind = Tuple;
  v.elts = std::make_shared<std::vector<Value>>(std::move(e));
  return v;
}
Value Value::list(std::vector<Value> e) {
  Value v = tuple(std::move(e));
  v.kind = List;
  return v;
}
Value Value::dict(std::vector<std::pair<Value, Value>> it) {
  Value v;
  v.kind = Dict;
  v.items = std::make_shared<std::vector<std::pair<Value, Value>>>(std::move(it));
  return v;
}
Value Value::symbol(std::shared_ptr<SymbolObject> s) {
  Value v;
  v.kind = Symbol;
  v.sym = std::move(s);
  return v;
}
Value Value::tensorType(std::shared_ptr<TensorTypeObject> t) {
  Value v;
  v.kind = TensorType;
  v.tensor = std::move(t);
  return v;
}
Value Value::enumMember(std::string enumName, std::string member) {
  Value v;
  v.kind = Enum;
  v.enm = std::make_shared<EnumObject>(
      EnumObject{std::move(enumName), std::move(member)});
  return v;
}
Value Value::layout(std::shared_ptr<LayoutObject> l) {
  Value v;
  v.kind = Layout;
  v.lay = std::move(l);
  return v;
}
Value Value::function(std::shared_ptr<FunctionObject> f) {
  Value v;
  v.kind = Function;
  v.fn = std::move(f);
  return v;
}
Value Value::builtin(std::string name) {
  Value v;
  v.kind = Builtin;
  v.str = std::make_shared<std::string>(std::move(name));
  return v;
}
Value Value::buffer(std::shared_ptr<BufferObject> b) {
  Value v;
  v.kind = Buffer;
  v.buf = std::move(b);
  return v;
}
Value Value::runtime(std::shared_ptr<RuntimeObject> r) {
  Value v;
  v.kind = Runtime;
  v.rt = std::move(r);
  return v;
}
Value Value::subscript(std::shared_ptr<SubscriptObject> s) {
  Value v;
  v.kind = Subscript;
  v.sub = std::move(s);
  return v;
}
Value Value::loop(std::shared_ptr<LoopSpec> l) {
  Value v;
  v.kind = Loop;
  v.loopSpec = std::move(l);
  return v;
}
Value Value::classObject(std::shared_ptr<ClassObject> c) {
  Value v;
  v.kind = Class;
  v.cls = std::move(c);
  return v;
}
Value Value::instance(std::shared_ptr<InstanceObject> o) {
  Value v;
  v.kind = Instance;
  v.obj = std::move(o);
  return v;
}
Value Value::slice(std::optional<Value> lo, std::optional<Value> hi,
                   std::optional<Value> step) {
  Value v;
  v.kind = Slice;
  v.sliceParts = std::make_shared<std::vector<std::optional<Value>>>(
      std::vector<std::optional<Value>>{std::move(lo), std::move(hi),
                                        std::move(step)});
  return v;
}

bool Value::isConstant() const {
  switch (kind) {
  case Buffer:
  case Runtime:
  case Subscript:
  case Loop:
    return false;
  case Tuple:
  case List:
    return llvm::all_of(*elts, [](const Value &e) { return e.isConstant(); });
  default:
    return true;
  }
}

bool Value::truthy() const {
  switch (kind) {
  case None: return false;
  case Bool:
  case Int: return i != 0;
  case Float: return d != 0.0;
  case Str: return !str->empty();
  case Tuple:
  case List: return !elts->empty();
  case Dict: return !items->empty();
  default: return true;
  }
}

StringRef Value::typeName() const {
  switch (kind) {
  case None: return "NoneType";
  case Bool: return "bool";
  case Int: return "int";
  case Float: return "float";
  case Str: return "str";
  case DTypeV: return "dtype";
  case Tuple: return "tuple";
  case List: return "list";
  case Dict: return "dict";
  case Symbol: return "T.dynamic symbol";
  case TensorType: return "T.Tensor type";
  case Enum: return "enum member";
  case Layout: return "layout";
  case Function: return "function";
  case Builtin: return "built-in";
  case Buffer: return "buffer";
  case Runtime: return "runtime value";
  case Subscript: return "buffer subscript";
  case Loop: return "loop range";
  case Slice: return "slice";
  case Class:
    return "type";
  case Instance:
    return obj->cls->name;
  }
  return "value";
}

static std::string formatFloat(double x) {
  if (std::isinf(x))
    return x > 0 ? "inf" : "-inf";
  if (std::isnan(x))
    return "nan";
  std::string s;
  raw_string_ostream os(s);
  // Shortest text that reads back to the same double, like Python's repr.
  for (int prec = 1; prec <= 17; ++prec) {
    s.clear();
    os << format("%.*g", prec, x);
    if (std::strtod(s.c_str(), nullptr) == x)
      break;
  }
  if (s.find_first_of(".eninf") == std::string::npos)
    s += ".0";
  return s;
}

std::string Value::repr() const {
  switch (kind) {
  case None: return "None";
  case Bool: return i ? "True" : "False";
  case Int: return std::to_string(i);
  case Float: return formatFloat(d);
  case Str: return "\"" + *str + "\"";
  case DTypeV: return "T." + getDType().name().str();
  case Tuple:
  case List: {
    std::string s = kind == Tuple ? "(" : "[";
    for (size_t k = 0; k < elts->size(); ++k)
      s += (k ? ", " : "") + (*elts)[k].repr();
    if (kind == Tuple && elts->size() == 1)
      s += ",";
    return s + (kind == Tuple ? ")" : "]");
  }
  case Dict: {
    std::string s = "{";
    for (size_t k = 0; k < items->size(); ++k)
      s += (k ? ", " : "") + (*items)[k].first.repr() + ": " +
           (*items)[k].second.repr();
    return s + "}";
  }
  case Symbol:
    return (sym->fromConst ? "T.const(\"" : "T.dynamic(\"") + sym->name + "\")";
  case TensorType: {
    std::string s = "T.Tensor((";
    for (size_t k = 0; k < tensor->shape.size(); ++k)
      s += (k ? ", " : "") + tensor->shape[k].repr();
    return s + "), " + tensor->dtype.name().str() + ")";
  }
  case Enum: return enm->enumName + "." + enm->member;
  case Layout: return lay->constructor + "(...)";
  case Function: return "<function>";
  case Builtin: return *str;
  case Buffer: return buf->name;
  case Runtime: return "<runtime " + rt->dtype.name().str() + ">";
  case Subscript: return sub->base.repr() + "[...]";
  case Loop: return "<loop>";
  case Slice: return "<slice>";
  case Class:
    return "<class '" + cls->name + "'>";
  case Instance:
    return "<" + obj->cls->name + " object>";
  }
  return "?";
}

bool operator==(const Value &a, const Value &b) {
  if (a.isNumber() && b.isNumber()) {
    if (a.kind == Value::Float || b.kind == Value::Float)
      return a.getFloat() == b.getFloat();
    return a.i == b.i;
  }
  // TileLang's dtype objects compare equal to their spellings
  // (`T.float16 == "float16"`, `"int8" in [T.float16, T.int8]`): a dtype
  // given by -D or a string default arrives here as a string.
  if ((a.kind == Value::DTypeV && b.kind == Value::Str) ||
      (a.kind == Value::Str && b.kind == Value::DTypeV)) {
    const Value &d = a.kind == Value::DTypeV ? a : b;
    const Value &s = a.kind == Value::Str ? a : b;
    std::optional<DType> parsed = DType::parse(*s.str);
    return parsed && *parsed == d.getDType();
  }
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case Value::None: return true;
  case Value::Str: return *a.str == *b.str;
  case Value::DTypeV: return a.i == b.i;
  case Value::Tuple:
  case Value::List: return *a.elts == *b.elts;
  case Value::Dict:
    // Python: equal when they hold the same keys with equal values, in
    // whatever order.
    return a.items->size() == b.items->size() &&
           llvm::all_of(*a.items, [&](const auto &kv) {
             return llvm::any_of(*b.items, [&](const auto &other) {
               return other.first == kv.first && other.second == kv.second;
             });
           });
  case Value::Enum:
    return a.enm->enumName == b.enm->enumName && a.enm->member == b.enm->member;
  case Value::Symbol: return a.sym == b.sym;
  case Value::Function: return a.fn == b.fn;
  case Value::Builtin: return *a.str == *b.str;
  case Value::Buffer: return a.buf == b.buf;
  case Value::Class:
    return a.cls == b.cls;
  case Value::Instance:
    return a.obj == b.obj;
  default: return false;
  }
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

StringRef spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::FloorDiv: return "//";
  case BinaryOp::Mod: return "%";
  case BinaryOp::Pow: return "**";
  case BinaryOp::MatMul: return "@";
  case BinaryOp::LShift: return "<<";
  case BinaryOp::RShift: return ">>";
  case BinaryOp::BitAnd: return "&";
  case BinaryOp::BitOr: return "|";
  case BinaryOp::BitXor: return "^";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  case BinaryOp::In: return "in";
  case BinaryOp::NotIn: return "not in";
  case BinaryOp::Is: return "is";
  case BinaryOp::IsNot: return "is not";
  }
  return "?";
}

StringRef spelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg: return "-";
  case UnaryOp::Pos: return "+";
  case UnaryOp::Invert: return "~";
  case UnaryOp::Not: return "not";
  }
  return "?";
}

static std::string unsupported(BinaryOp op, const Value &l, const Value &r) {
  return ("unsupported operand types for `" + spelling(op) + "`: `" +
          l.typeName() + "` and `" + r.typeName() + "`")
      .str();
}

static FoldResult overflow() {
  return FoldResult::fail("integer overflow in compile-time arithmetic");
}

static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

static FoldResult foldInt(BinaryOp op, int64_t a, int64_t b) {
  int64_t r;
  switch (op) {
  case BinaryOp::Add:
    if (AddOverflow(a, b, r))
      return overflow();
    return FoldResult::ok(Value::integer(r));
  case BinaryOp::Sub:
    if (SubOverflow(a, b, r))
      return overflow();
    return FoldResult::ok(Value::integer(r));
  case BinaryOp::Mul:
    if (MulOverflow(a, b, r))
      return overflow();
    return FoldResult::ok(Value::integer(r));
  case BinaryOp::Div:
    if (b == 0)
      return FoldResult::fail("division by zero");
    return FoldResult::ok(Value::floating(double(a) / double(b)));
  case BinaryOp::FloorDiv:
    if (b == 0)
      return FoldResult::fail("integer division by zero");
    if (a == INT64_MIN && b == -1)
      return overflow();
    return FoldResult::ok(Value::integer(floorDiv(a, b)));
  case BinaryOp::Mod:
    if (b == 0)
      return FoldResult::fail("integer modulo by zero");
    if (b == -1)
      return FoldResult::ok(Value::integer(0));
    return FoldResult::ok(Value::integer(a - floorDiv(a, b) * b));
  case BinaryOp::Pow: {
    if (b < 0)
      return FoldResult::ok(Value::floating(std::pow(double(a), double(b))));
    int64_t acc = 1;
    for (int64_t k = 0; k < b; ++k) {
      if (MulOverflow(acc, a, acc))
        return overflow();
      if (acc == 0 || acc == 1)
        break;
    }
    return FoldResult::ok(Value::integer(acc));
  }
  case BinaryOp::LShift:
    if (b < 0)
      return FoldResult::fail("negative shift count");
    if (b >= 63 || (a != 0 && (a << b) >> b != a))
      return a == 0 ? FoldResult::ok(Value::integer(0)) : overflow();
    return FoldResult::ok(Value::integer(a << b));
  case BinaryOp::RShift:
    if (b < 0)
      return FoldResult::fail("negative shift count");
    return FoldResult::ok(Value::integer(b >= 63 ? (a < 0 ? -1 : 0) : a >> b));
  case BinaryOp::BitAnd: return FoldResult::ok(Value::integer(a & b));
  case BinaryOp::BitOr: return FoldResult::ok(Value::integer(a | b));
  case BinaryOp::BitXor: return FoldResult::ok(Value::integer(a ^ b));
  case BinaryOp::Lt: return FoldResult::ok(Value::boolean(a < b));
  case BinaryOp::Le: return FoldResult::ok(Value::boolean(a <= b));
  case BinaryOp::Gt: return FoldResult::ok(Value::boolean(a > b));
  case BinaryOp::Ge: return FoldResult::ok(Value::boolean(a >= b));
  default: return FoldResult::fail("");
  }
}

static FoldResult foldFloat(BinaryOp op, double a, double b) {
  switch (op) {
  case BinaryOp::Add: return FoldResult::ok(Value::floating(a + b));
  case BinaryOp::Sub: return FoldResult::ok(Value::floating(a - b));
  case BinaryOp::Mul: return FoldResult::ok(Value::floating(a * b));
  case BinaryOp::Div:
    if (b == 0)
      return FoldResult::fail("float division by zero");
    return FoldResult::ok(Value::floating(a / b));
  case BinaryOp::FloorDiv:
    if (b == 0)
      return FoldResult::fail("float floor division by zero");
    return FoldResult::ok(Value::floating(std::floor(a / b)));
  case BinaryOp::Mod: {
    if (b == 0)
      return FoldResult::fail("float modulo by zero");
    double m = std::fmod(a, b);
    if (m != 0 && ((m < 0) != (b < 0)))
      m += b;
    return FoldResult::ok(Value::floating(m));
  }
  case BinaryOp::Pow: return FoldResult::ok(Value::floating(std::pow(a, b)));
  case BinaryOp::Lt: return FoldResult::ok(Value::boolean(a < b));
  case BinaryOp::Le: return FoldResult::ok(Value::boolean(a <= b));
  case BinaryOp::Gt: return FoldResult::ok(Value::boolean(a > b));
  case BinaryOp::Ge: return FoldResult::ok(Value::boolean(a >= b));
  default: return FoldResult::fail("");
  }
}

static FoldResult foldSequence(BinaryOp op, const Value &l, const Value &r) {
  bool lSeq = l.isSequence() || l.is(Value::Str);
  // Concatenation of two sequences of one kind.
  if (op == BinaryOp::Add && lSeq && l.getKind() == r.getKind()) {
    size_t total = l.is(Value::Str)
                       ? l.getStr().size() + r.getStr().size()
                       : l.getElements().size() + r.getElements().size();
    if (total > kMaxSequenceLength)
      return FoldResult::fail("sequence concatenation is too large (" +
                              std::to_string(total) + " elements; the limit "
                              "is " + std::to_string(kMaxSequenceLength) + ")");
    if (l.is(Value::Str))
      return FoldResult::ok(Value::string(l.getStr() + r.getStr()));
    std::vector<Value> out = l.getElements();
    out.insert(out.end(), r.getElements().begin(), r.getElements().end());
    return FoldResult::ok(l.is(Value::Tuple) ? Value::tuple(std::move(out))
                                             : Value::list(std::move(out)));
  }
  // Repetition: seq * n or n * seq.
  if (op == BinaryOp::Mul && (lSeq != (r.isSequence() || r.is(Value::Str)))) {
    const Value &seq = lSeq ? l : r;
    const Value &count = lSeq ? r : l;
    if (!count.isIntLike())
      return FoldResult::fail(unsupported(op, l, r));
    int64_t n = std::max<int64_t>(0, count.getInt());
    size_t len = seq.is(Value::Str) ? seq.getStr().size()
                                    : seq.getElements().size();
    if (n > 0 && len > kMaxSequenceLength / size_t(n))
      return FoldResult::fail("sequence repetition is too large (the limit "
                              "is " + std::to_string(kMaxSequenceLength) +
                              " elements)");
    if (seq.is(Value::Str)) {
      std::string s;
      for (int64_t k = 0; k < n; ++k)
        s += seq.getStr();
      return FoldResult::ok(Value::string(std::move(s)));
    }
    std::vector<Value> out;
    for (int64_t k = 0; k < n; ++k)
      out.insert(out.end(), seq.getElements().begin(), seq.getElements().end());
    return FoldResult::ok(seq.is(Value::Tuple) ? Value::tuple(std::move(out))
                                               : Value::list(std::move(out)));
  }
  // Lexicographic comparison of sequences (and strings).
  bool isOrder = op == BinaryOp::Lt || op == BinaryOp::Le ||
                 op == BinaryOp::Gt || op == BinaryOp::Ge;
  if (isOrder && l.getKind() == r.getKind() && l.is(Value::Str)) {
    int c = l.getStr().compare(r.getStr());
    return foldInt(op, c, 0);
  }
  return FoldResult::fail(unsupported(op, l, r));
}

FoldResult foldBinary(BinaryOp op, const Value &l, const Value &r) {
  switch (op) {
  case BinaryOp::Eq: return FoldResult::ok(Value::boolean(l == r));
  case BinaryOp::Ne: return FoldResult::ok(Value::boolean(!(l == r)));
  case BinaryOp::Is:
  case BinaryOp::IsNot: {
    // `is` on constants: identity of None/bools/enums, equality otherwise
    // (CPython interns the small values kernels compare this way).
    bool same = l.getKind() == r.getKind() && l == r;
    return FoldResult::ok(Value::boolean(op == BinaryOp::Is ? same : !same));
  }
  case BinaryOp::In:
  case BinaryOp::NotIn: {
    bool found = false;
    if (r.isSequence())
      found = llvm::is_contained(r.getElements(), l);
    else if (r.is(Value::Dict))
      found = llvm::any_of(r.getItems(),
                           [&](const auto &kv) { return kv.first == l; });
    else if (r.is(Value::Str) && l.is(Value::Str))
      found = r.getStr().find(l.getStr()) != std::string::npos;
    else
      return FoldResult::fail(("argument of type `" + r.typeName() +
                               "` is not iterable")
                                  .str());
    return FoldResult::ok(Value::boolean(op == BinaryOp::In ? found : !found));
  }
  default:
    break;
  }
  if (l.isNumber() && r.isNumber()) {
    FoldResult res = (l.is(Value::Float) || r.is(Value::Float))
                         ? foldFloat(op, l.getFloat(), r.getFloat())
                         : foldInt(op, l.getInt(), r.getInt());
    if (!res.value && res.error.empty())
      return FoldResult::fail(unsupported(op, l, r));
    return res;
  }
  return foldSequence(op, l, r);
}

FoldResult foldUnary(UnaryOp op, const Value &v) {
  if (op == UnaryOp::Not)
    return FoldResult::ok(Value::boolean(!v.truthy()));
  if (v.is(Value::Float)) {
    if (op == UnaryOp::Neg)
      return FoldResult::ok(Value::floating(-v.getFloat()));
    if (op == UnaryOp::Pos)
      return FoldResult::ok(v);
  } else if (v.isIntLike()) {
    int64_t x = v.getInt();
    if (op == UnaryOp::Neg) {
      if (x == INT64_MIN)
        return overflow();
      return FoldResult::ok(Value::integer(-x));
    }
    if (op == UnaryOp::Pos)
      return FoldResult::ok(Value::integer(x));
    return FoldResult::ok(Value::integer(~x));
  }
  return FoldResult::fail(("bad operand type for unary `" + spelling(op) +
                           "`: `" + v.typeName() + "`")
                              .str());
}

//===----------------------------------------------------------------------===//
// -D values
//===----------------------------------------------------------------------===//

static std::optional<Value> parseScalarLiteral(StringRef t, std::string *why) {
  t = t.trim();
  if (t == "True" || t == "true")
    return Value::boolean(true);
  if (t == "False" || t == "false")
    return Value::boolean(false);
  if (t == "None")
    return Value::none();
  if (t.size() >= 2 && ((t.front() == '"' && t.back() == '"') ||
                        (t.front() == '\'' && t.back() == '\'')))
    return Value::string(t.drop_front().drop_back().str());
  int64_t iv;
  if (!t.getAsInteger(0, iv))
    return Value::integer(iv);
  // Digits that overflow int64 are an integer too large, not a float.
  StringRef digits = t;
  if (digits.consume_front("-") || digits.consume_front("+")) {
  }
  StringRef body = digits;
  bool prefixed = body.consume_front_insensitive("0x") ||
                  body.consume_front_insensitive("0o") ||
                  body.consume_front_insensitive("0b");
  if (!body.empty() &&
      llvm::all_of(body, [&](char c) { return prefixed ? isHexDigit(c) : isDigit(c); })) {
    if (why)
      *why = "integer `" +
             (digits.size() > 40 ? t.take_front(40).str() + "..." : t.str()) +
             "` does not fit in 64 bits";
    return std::nullopt;
  }
  double dv;
  if (!t.empty() && !t.getAsDouble(dv))
    return Value::floating(dv);
  return std::nullopt;
}

/// Splits at top-level commas (not inside nested brackets or quotes).
static std::optional<SmallVector<StringRef>> splitTopLevel(StringRef t) {
  SmallVector<StringRef> parts;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'')
      quote = c;
    else if (c == '(' || c == '[')
      ++depth;
    else if (c == ')' || c == ']') {
      if (--depth < 0)
        return std::nullopt;
    } else if (c == ',' && depth == 0) {
      parts.push_back(t.slice(start, i));
      start = i + 1;
    }
  }
  if (depth != 0 || quote)
    return std::nullopt;
  parts.push_back(t.substr(start));
  return parts;
}

/// The deepest nesting of brackets in `t`, outside quotes.
static unsigned bracketDepth(StringRef t) {
  unsigned depth = 0, deepest = 0;
  char quote = 0;
  for (char c : t) {
    if (quote) {
      if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ')' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

std::optional<Value> parseDefineValue(StringRef text, std::string *why) {
  // Each level recurses: deep nesting would exhaust the stack.
  if (bracketDepth(text) > kMaxLiteralDepth) {
    if (why)
      *why = "brackets nested more than " + std::to_string(kMaxLiteralDepth) +
             " levels deep (the limit is " + std::to_string(kMaxLiteralDepth) +
             ")";
    return std::nullopt;
  }
  StringRef t = text.trim();
  bool isTuple = t.starts_with("(") && t.ends_with(")");
  bool isList = t.starts_with("[") && t.ends_with("]");
  if (isTuple || isList) {
    std::optional<SmallVector<StringRef>> parts =
        splitTopLevel(t.drop_front().drop_back());
    if (!parts)
      return std::nullopt;
    std::vector<Value> elts;
    for (size_t k = 0; k < parts->size(); ++k) {
      StringRef p = (*parts)[k].trim();
      if (p.empty() && k + 1 == parts->size())
        break; // trailing comma
      std::optional<Value> v = parseDefineValue(p, why);
      if (!v)
        return std::nullopt;
      elts.push_back(*v);
    }
    return isTuple ? Value::tuple(std::move(elts)) : Value::list(std::move(elts));
  }
  if (std::optional<Value> v = parseScalarLiteral(t, why))
    return *v;
  if (why && !why->empty())
    return std::nullopt;
  // A bare word is a string (`-D dtype=float16`); anything else is a typo.
  if (!t.empty() && (isAlpha(t[0]) || t[0] == '_') &&
      llvm::all_of(t, [](char c) { return isAlnum(c) || c == '_' || c == '.'; }))
    return Value::string(t.str());
  return std::nullopt;
}

StringRef spelling(MemScope scope) {
  switch (scope) {
  case MemScope::Global: return "global";
  case MemScope::Shared: return "shared";
  case MemScope::Fragment: return "fragment";
  case MemScope::Local: return "local";
  case MemScope::Var: return "var";
  }
  return "?";
}

} // namespace tilec::sema
