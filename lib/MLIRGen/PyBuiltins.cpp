//===- PyBuiltins.cpp - More of the Python subset kernels' factories use --===//
//
// The Python that TileLang factories run at JIT time around their kernels:
// `raise`, `dict(...)` and `set(...)`, dict and set comprehensions and set
// displays, the methods of lists (`append`, `extend`, ...), strings
// (`format`, which f-strings are parsed into, `join`, ...), dicts and ints,
// and item assignment into lists and dicts. Lists and dicts are shared
// payloads, so mutating one through a name is seen through every other name
// bound to it, as in Python.
//
// Sets are lists without duplicates: kernels only build them, test
// membership and iterate. Iteration follows insertion order, except that a
// set of non-negative integers iterates in increasing order, which is what
// CPython does for small integers.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace tilec::mlirgen {

Value makeSet(std::vector<Value> elts) {
  std::vector<Value> out;
  for (Value &v : elts)
    if (llvm::none_of(out, [&](const Value &o) { return o == v; }))
      out.push_back(std::move(v));
  if (llvm::all_of(out, [](const Value &v) {
        return v.is(Value::Int) && v.getInt() >= 0;
      }))
    llvm::sort(out, [](const Value &a, const Value &b) {
      return a.getInt() < b.getInt();
    });
  return Value::list(std::move(out));
}

/// The items an iterable value yields at compile time, or nullopt.
static std::optional<std::vector<Value>> iterate(const Value &v) {
  if (v.isSequence())
    return v.getElements();
  if (v.is(Value::Dict)) {
    std::vector<Value> keys;
    for (const auto &kv : v.getItems())
      keys.push_back(kv.first);
    return keys;
  }
  if (v.is(Value::Str)) {
    std::vector<Value> chars;
    for (char c : v.getStr())
      chars.push_back(Value::string(std::string(1, c)));
    return chars;
  }
  return std::nullopt;
}

static void dictSet(std::vector<std::pair<Value, Value>> &items,
                    const Value &key, const Value &value) {
  for (auto &kv : items)
    if (kv.first == key) {
      kv.second = value;
      return;
    }
  items.push_back({key, value});
}

//===----------------------------------------------------------------------===//
// raise
//===----------------------------------------------------------------------===//

Flow Elaborator::execRaise(const ast::RaiseStmt &s, Frame &frame) {
  // At compile time a raise stops the build, with the kernel's message.
  std::string what = "an exception";
  std::string msg;
  if (const ast::Expr *exc = s.getExc()) {
    if (auto *call = llvm::dyn_cast<ast::CallExpr>(exc)) {
      if (auto *n = llvm::dyn_cast<ast::NameExpr>(call->getCallee()))
        what = n->getName().str();
      FailureOr<CallArgs> args = evalCallArgs(*call, frame);
      if (failed(args))
        return Flow::Error;
      for (const Arg &a : args->positional)
        msg += (msg.empty() ? "" : ", ") + pyStr(a.value);
    } else if (auto *n = llvm::dyn_cast<ast::NameExpr>(exc)) {
      what = n->getName().str();
    }
  }
  error(s.getRange(), what + (msg.empty() ? "" : ": " + msg));
  return Flow::Error;
}

//===----------------------------------------------------------------------===//
// Displays and comprehensions
//===----------------------------------------------------------------------===//

FailureOr<Value> Elaborator::evalDictOrSetComp(const ast::ListCompExpr &lc,
                                               Frame &frame) {
  Frame inner{std::make_shared<Scope>(frame.scope), Value(), frame.functionName};
  std::vector<Value> keys, values;
  if (failed(evalComprehension(lc, 0, inner, keys,
                               lc.getValue() ? &values : nullptr)))
    return failure();
  if (lc.isSet())
    return makeSet(std::move(keys));
  std::vector<std::pair<Value, Value>> items;
  for (size_t k = 0; k < keys.size() && k < values.size(); ++k)
    dictSet(items, keys[k], values[k]);
  return Value::dict(std::move(items));
}

//===----------------------------------------------------------------------===//
// dict(...), set(...)
//===----------------------------------------------------------------------===//

FailureOr<Value> Elaborator::callCollection(StringRef name, CallArgs &args) {
  auto &pos = args.positional;
  if (pos.size() > 1) {
    error(pos[1].range, "`" + name + "` takes at most one positional argument");
    return failure();
  }
  std::vector<Value> from;
  if (!pos.empty()) {
    std::optional<std::vector<Value>> items = iterate(pos[0].value);
    if (!items) {
      error(pos[0].range, "`" + name + "` needs an iterable, not a `" +
                              pos[0].value.typeName() + "`");
      return failure();
    }
    from = *items;
  }
  if (name == "set") {
    if (!args.keywords.empty()) {
      error(args.keywords[0].second.range, "`set` takes no keyword arguments");
      return failure();
    }
    return makeSet(std::move(from));
  }
  std::vector<std::pair<Value, Value>> items;
  if (!pos.empty() && pos[0].value.is(Value::Dict)) {
    items = pos[0].value.getItems();
  } else {
    for (const Value &kv : from) {
      if (!kv.isSequence() || kv.getElements().size() != 2) {
        error(pos[0].range, "`dict` needs (key, value) pairs, got `" +
                                kv.repr() + "`");
        return failure();
      }
      dictSet(items, kv.getElements()[0], kv.getElements()[1]);
    }
  }
  for (auto &[k, a] : args.keywords)
    dictSet(items, Value::string(k), a.value);
  return Value::dict(std::move(items));
}

//===----------------------------------------------------------------------===//
// str(), str.format
//===----------------------------------------------------------------------===//

std::string Elaborator::pyStr(const Value &v) {
  if (v.is(Value::Str))
    return v.getStr();
  if (v.is(Value::DTypeV))
    return v.getDType().name().str();
  return v.repr();
}

/// Formats `v` with a format spec: [[fill]align][sign][#][0][width][,][.prec]
/// [type]. Returns false on a spec tilec does not implement.
static bool formatSpec(const Value &v, StringRef spec, std::string str,
                       std::string &out) {
  size_t i = 0;
  char fill = ' ', align = 0;
  if (spec.size() >= 2 && StringRef("<>^=").contains(spec[1])) {
    fill = spec[0];
    align = spec[1];
    i = 2;
  } else if (!spec.empty() && StringRef("<>^=").contains(spec[0])) {
    align = spec[0];
    i = 1;
  }
  char sign = 0;
  if (i < spec.size() && StringRef("+- ").contains(spec[i]))
    sign = spec[i++];
  if (i < spec.size() && spec[i] == '0' && !align) {
    fill = '0';
    align = '=';
    ++i;
  }
  size_t width = 0;
  while (i < spec.size() && llvm::isDigit(spec[i]))
    width = width * 10 + (spec[i++] - '0');
  bool comma = i < spec.size() && spec[i] == ',' && (++i, true);
  int prec = -1;
  if (i < spec.size() && spec[i] == '.') {
    prec = 0;
    ++i;
    while (i < spec.size() && llvm::isDigit(spec[i]))
      prec = prec * 10 + (spec[i++] - '0');
  }
  char type = i < spec.size() ? spec[i++] : 0;
  if (i != spec.size())
    return false;

  std::string body;
  bool numeric = v.isNumber();
  if (type == 0 && prec < 0 && !comma) {
    body = str;
  } else if (numeric && (type == 'd' || type == 'x' || type == 'X' ||
                         type == 'b' || type == 'o' ||
                         (type == 0 && v.isIntLike() && prec < 0))) {
    if (!v.isIntLike())
      return false;
    int64_t n = v.getInt();
    uint64_t mag = n < 0 ? uint64_t(0) - uint64_t(n) : uint64_t(n);
    unsigned radix = type == 'x' || type == 'X' ? 16 : type == 'b' ? 2
                     : type == 'o'              ? 8
                                                : 10;
    std::string digits;
    do {
      unsigned d = mag % radix;
      digits.insert(digits.begin(),
                    d < 10 ? char('0' + d) : char((type == 'X' ? 'A' : 'a') + d - 10));
      mag /= radix;
    } while (mag);
    if (comma && radix == 10)
      for (int k = int(digits.size()) - 3; k > 0; k -= 3)
        digits.insert(digits.begin() + k, ',');
    body = (n < 0 ? "-" : sign == '+' ? "+" : sign == ' ' ? " " : "") + digits;
  } else if (numeric && (type == 'f' || type == 'F' || type == 'e' ||
                         type == 'E' || type == 'g' || type == 'G' ||
                         type == '%' || type == 0)) {
    double d = v.getFloat();
    if (type == '%')
      d *= 100;
    char t = type == 0 || type == '%' ? (type == '%' ? 'f' : 'g') : type;
    int p = prec < 0 ? 6 : prec;
    char buf[64];
    std::string fmt = std::string("%") + (sign == '+' ? "+" : "") + "." +
                      std::to_string(p) + t;
    snprintf(buf, sizeof buf, fmt.c_str(), d);
    body = buf;
    if (type == '%')
      body += '%';
  } else {
    return false;
  }
  if (body.size() < width) {
    size_t pad = width - body.size();
    char a = align ? align : numeric ? '>' : '<';
    if (a == '<')
      body += std::string(pad, fill);
    else if (a == '^')
      body = std::string(pad / 2, fill) + body + std::string(pad - pad / 2, fill);
    else if (a == '=' && !body.empty() && StringRef("+- ").contains(body[0]))
      body = body.substr(0, 1) + std::string(pad, fill) + body.substr(1);
    else
      body = std::string(pad, fill) + body;
  }
  out += body;
  return true;
}

FailureOr<Value> Elaborator::formatString(StringRef templ, CallArgs &args) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < templ.size(); ++i) {
    char c = templ[i];
    if ((c == '{' || c == '}') && i + 1 < templ.size() && templ[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    size_t end = templ.find('}', i);
    if (end == StringRef::npos) {
      error(args.range, "`{` in a format string was never closed");
      return failure();
    }
    StringRef field = templ.slice(i + 1, end);
    i = end;
    StringRef spec, conv;
    if (size_t colon = field.find(':'); colon != StringRef::npos) {
      spec = field.substr(colon + 1);
      field = field.take_front(colon);
    }
    if (size_t bang = field.find('!'); bang != StringRef::npos) {
      conv = field.substr(bang + 1);
      field = field.take_front(bang);
    }
    const Value *v = nullptr;
    SMRange at = args.range;
    unsigned index;
    if (field.empty() || !field.getAsInteger(10, index)) {
      if (field.empty())
        index = next++;
      if (index >= args.positional.size()) {
        error(args.range, "the format string has more `{}` fields than "
                          "arguments");
        return failure();
      }
      v = &args.positional[index].value;
      at = args.positional[index].range;
    } else {
      for (auto &[k, a] : args.keywords)
        if (k == field) {
          v = &a.value;
          at = a.range;
        }
      if (!v) {
        error(args.range, "the format string names `" + field +
                              "`, which is not an argument");
        return failure();
      }
    }
    if (!v->isConstant()) {
      error(at, "a runtime value cannot be formatted into a string at "
                "compile time");
      return failure();
    }
    std::string text = conv == "r" || conv == "a" ? v->repr() : pyStr(*v);
    if (!formatSpec(*v, spec, text, out)) {
      error(at, "format spec `" + spec + "` is not supported for `" +
                    v->typeName() + "`");
      return failure();
    }
  }
  return Value::string(out);
}

//===----------------------------------------------------------------------===//
// Methods
//===----------------------------------------------------------------------===//

FailureOr<std::optional<Value>>
Elaborator::callMethod(const Value &self, StringRef m, CallArgs &args,
                       SMRange attrRange) {
  auto &pos = args.positional;
  auto want = [&](size_t lo, size_t hi) -> bool {
    if (pos.size() >= lo && pos.size() <= hi && args.keywords.empty())
      return true;
    error(args.range, "`" + self.typeName() + "." + m + "` takes " +
                          (lo == hi ? Twine(lo) : Twine(lo) + " to " + Twine(hi)) +
                          " positional argument" + (hi == 1 ? "" : "s"));
    return false;
  };
  using R = std::optional<Value>;
  if (self.is(Value::List)) {
    std::vector<Value> &elts = self.mutableElements();
    if (m == "append" || m == "extend" || m == "insert") {
      if (!want(m == "insert" ? 2 : 1, m == "insert" ? 2 : 1))
        return failure();
      if (m == "append") {
        elts.push_back(pos[0].value);
      } else if (m == "insert") {
        if (!pos[0].value.isIntLike()) {
          error(pos[0].range, "`list.insert` needs an integer index");
          return failure();
        }
        int64_t n = elts.size(), k = pos[0].value.getInt();
        k = std::clamp<int64_t>(k < 0 ? k + n : k, 0, n);
        elts.insert(elts.begin() + k, pos[1].value);
      } else {
        std::optional<std::vector<Value>> items = iterate(pos[0].value);
        if (!items) {
          error(pos[0].range, "`list.extend` needs an iterable, not a `" +
                                  pos[0].value.typeName() + "`");
          return failure();
        }
        elts.insert(elts.end(), items->begin(), items->end());
      }
      return R(Value::none());
    }
    if (m == "pop") {
      if (!want(0, 1))
        return failure();
      int64_t n = elts.size();
      int64_t k = pos.empty() ? n - 1
                  : pos[0].value.isIntLike() ? pos[0].value.getInt()
                                             : n;
      if (k < 0)
        k += n;
      if (k < 0 || k >= n) {
        error(args.range, "`list.pop` index out of range");
        return failure();
      }
      Value v = elts[k];
      elts.erase(elts.begin() + k);
      return R(v);
    }
  }
  if (self.isSequence() && (m == "index" || m == "count")) {
    if (!want(1, 1))
      return failure();
    const std::vector<Value> &elts = self.getElements();
    int64_t count = 0;
    for (size_t k = 0; k < elts.size(); ++k)
      if (elts[k] == pos[0].value) {
        if (m == "index")
          return R(Value::integer(k));
        ++count;
      }
    if (m == "count")
      return R(Value::integer(count));
    error(pos[0].range, pos[0].value.repr() + " is not in the " +
                            self.typeName());
    return failure();
  }
  if (self.is(Value::Dict) && (m == "update" || m == "setdefault" ||
                               m == "pop")) {
    std::vector<std::pair<Value, Value>> &items = self.mutableItems();
    if (m == "update") {
      CallArgs sub = args;
      FailureOr<Value> other = callCollection("dict", sub);
      if (failed(other))
        return failure();
      for (const auto &[k, v] : other->getItems())
        dictSet(items, k, v);
      return R(Value::none());
    }
    if (!want(1, 2))
      return failure();
    for (size_t k = 0; k < items.size(); ++k)
      if (items[k].first == pos[0].value) {
        Value v = items[k].second;
        if (m == "pop")
          items.erase(items.begin() + k);
        return R(v);
      }
    if (m == "pop" && pos.size() < 2) {
      error(pos[0].range, "key " + pos[0].value.repr() + " is not in the dict");
      return failure();
    }
    Value dflt = pos.size() > 1 ? pos[1].value : Value::none();
    if (m == "setdefault")
      items.push_back({pos[0].value, dflt});
    return R(dflt);
  }
  if (self.is(Value::Str)) {
    const std::string &s = self.getStr();
    if (m == "format") {
      FailureOr<Value> r = formatString(s, args);
      if (failed(r))
        return failure();
      return R(*r);
    }
    if (m == "join") {
      if (!want(1, 1))
        return failure();
      std::optional<std::vector<Value>> items = iterate(pos[0].value);
      if (!items) {
        error(pos[0].range, "`str.join` needs an iterable of strings");
        return failure();
      }
      std::string out;
      for (size_t k = 0; k < items->size(); ++k) {
        if (!(*items)[k].is(Value::Str)) {
          error(pos[0].range, "`str.join` needs strings, got `" +
                                  (*items)[k].repr() + "`");
          return failure();
        }
        out += (k ? s : "") + (*items)[k].getStr();
      }
      return R(Value::string(out));
    }
    if (m == "isdigit" || m == "isalpha") {
      if (!want(0, 0))
        return failure();
      bool all = !s.empty() && llvm::all_of(s, [&](char c) {
        return m == "isdigit" ? llvm::isDigit(c) : llvm::isAlpha(c);
      });
      return R(Value::boolean(all));
    }
    if (m == "upper" || m == "lower" || m == "strip") {
      if (!want(0, 0))
        return failure();
      StringRef r = s;
      return R(Value::string(m == "upper"   ? r.upper()
                             : m == "lower" ? r.lower()
                                            : r.trim().str()));
    }
    if (m == "startswith" || m == "endswith" || m == "replace") {
      if (!want(m == "replace" ? 2 : 1, m == "replace" ? 2 : 1))
        return failure();
      for (const Arg &a : pos)
        if (!a.value.is(Value::Str)) {
          error(a.range, "`str." + m + "` needs strings");
          return failure();
        }
      StringRef r = s, a = pos[0].value.getStr();
      if (m == "startswith")
        return R(Value::boolean(r.starts_with(a)));
      if (m == "endswith")
        return R(Value::boolean(r.ends_with(a)));
      std::string out;
      StringRef b = pos[1].value.getStr();
      if (a.empty())
        return R(self);
      while (true) {
        size_t k = r.find(a);
        if (k == StringRef::npos)
          break;
        out += r.take_front(k).str() + b.str();
        r = r.drop_front(k + a.size());
      }
      return R(Value::string(out + r.str()));
    }
  }
  if (self.isIntLike() && m == "bit_length") {
    if (!want(0, 0))
      return failure();
    uint64_t mag = self.getInt() < 0 ? uint64_t(0) - uint64_t(self.getInt())
                                     : uint64_t(self.getInt());
    int64_t bits = 0;
    while (mag) {
      ++bits;
      mag >>= 1;
    }
    return R(Value::integer(bits));
  }
  return R();
}

/// `l[i] = v`, `d[k] = v`: item assignment into a compile-time container.
/// An empty optional when the target is not one (a buffer store).
FailureOr<std::optional<Flow>>
Elaborator::assignItem(const ast::SubscriptExpr &target, const Value &value,
                       Frame &frame) {
  using R = std::optional<Flow>;
  FailureOr<Value> base = eval(*target.getValue(), frame);
  if (failed(base))
    return failure();
  if (!base->is(Value::List) && !base->is(Value::Dict))
    return R();
  if (target.getIndices().size() != 1 ||
      llvm::isa<ast::SliceExpr>(target.getIndices()[0].get())) {
    error(target.getRange(), "assign to one item of a `" + base->typeName() +
                                 "` at a time");
    return failure();
  }
  FailureOr<Value> key = eval(*target.getIndices()[0], frame);
  if (failed(key))
    return failure();
  if (base->is(Value::Dict)) {
    dictSet(base->mutableItems(), *key, value);
    return R(Flow::Normal);
  }
  std::vector<Value> &elts = base->mutableElements();
  int64_t n = elts.size();
  int64_t k = key->isIntLike() ? key->getInt() : n;
  if (k < 0)
    k += n;
  if (!key->isIntLike() || k < 0 || k >= n) {
    error(target.getIndices()[0]->getRange(),
          "list assignment index " + key->repr() + " is out of range (length " +
              Twine(n) + ")");
    return failure();
  }
  elts[k] = value;
  return R(Flow::Normal);
}

} // namespace tilec::mlirgen
