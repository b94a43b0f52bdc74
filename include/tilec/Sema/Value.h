//===- Value.h - Compile-time values of a .tile program ---------*- C++ -*-===//
//
// A .tile file is Python that TileLang runs at JIT time; tilec runs it at
// compile time. `Value` is what an expression evaluates to: plain Python
// values (None, bool, int, float, str, tuple, list, dict), TileLang's
// compile-time objects (dtypes, T.dynamic symbols, tensor types, enum
// members, functions and namespaces), and, inside a traced @T.prim_func,
// handles onto the IR being built (buffers, runtime scalars). Values are
// small and cheap to copy: aggregates share their payload.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SEMA_VALUE_H
#define TILEC_SEMA_VALUE_H

#include "tilec/Sema/DType.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilec::sema {

class Value;
struct FunctionObject;
struct ClassObject;
struct InstanceObject;
struct BufferObject;
struct RuntimeObject;
struct SubscriptObject;
struct LoopSpec;

/// A T.dynamic / T.symbolic runtime dimension.
struct SymbolObject {
  std::string name;
  DType dtype = DType::Int32;
  llvm::SMLoc loc;
  /// A `T.const` size of an eager-style factory that got no -D value: the
  /// kernel is compiled generic over it, and an error that needs its value
  /// at compile time says how to give one.
  bool fromConst = false;
};

/// The value of `T.Tensor(shape, dtype)` (or `T.Buffer`): a parameter type.
struct TensorTypeObject {
  std::vector<Value> shape; // ints or symbols
  DType dtype = DType::Float16;
};

/// A member of a TileLang enum (`T.GemmWarpPolicy.FullRow`).
struct EnumObject {
  std::string enumName;
  std::string member;
};

/// A layout written by the user (T.Layout / T.Fragment / swizzles): kept
/// as its constructor call; layout inference interprets it.
struct LayoutObject {
  std::string constructor;
  std::vector<Value> args;
};

class Value {
public:
  enum Kind : unsigned char {
    None,
    Bool,
    Int,
    Float,
    Str,
    DTypeV,
    Tuple,
    List,
    Dict,
    Symbol,
    TensorType,
    Enum,
    Layout,
    Function,  // a def: factory, prim_func, macro or helper
    Builtin,   // a built-in callable or namespace (`T`, `T.copy`, `min`)
    Buffer,    // an IR buffer (parameter tensor or allocation)
    Runtime,   // an IR scalar (block index, loop variable, loaded element)
    Subscript, // `A[i, j]` / `A[a:b, :]`: an element or a region of a buffer
    Loop,      // `T.Parallel(...)` & co, consumed by `for`
    Slice,     // `a:b:c` inside a subscript
    Class,     // a compile-time `class`
    Instance,  // an object of such a class
  };

  Value() : kind(None) {}
  static Value none() { return Value(); }
  static Value boolean(bool b);
  static Value integer(int64_t i);
  static Value floating(double d);
  static Value string(std::string s);
  static Value dtype(DType t);
  static Value tuple(std::vector<Value> elts);
  static Value list(std::vector<Value> elts);
  static Value dict(std::vector<std::pair<Value, Value>> items);
  static Value symbol(std::shared_ptr<SymbolObject> s);
  static Value tensorType(std::shared_ptr<TensorTypeObject> t);
  static Value enumMember(std::string enumName, std::string member);
  static Value layout(std::shared_ptr<LayoutObject> l);
  static Value function(std::shared_ptr<FunctionObject> f);
  static Value builtin(std::string qualifiedName);
  static Value buffer(std::shared_ptr<BufferObject> b);
  static Value runtime(std::shared_ptr<RuntimeObject> r);
  static Value subscript(std::shared_ptr<SubscriptObject> s);
  static Value loop(std::shared_ptr<LoopSpec> l);
  static Value slice(std::optional<Value> lo, std::optional<Value> hi,
                     std::optional<Value> step);
  static Value classObject(std::shared_ptr<ClassObject> c);
  static Value instance(std::shared_ptr<InstanceObject> o);

  Kind getKind() const { return kind; }
  bool is(Kind k) const { return kind == k; }
  bool isNone() const { return kind == None; }
  /// Python numbers (bool counts as int, as in Python).
  bool isNumber() const { return kind == Bool || kind == Int || kind == Float; }
  bool isIntLike() const { return kind == Bool || kind == Int; }
  bool isSequence() const { return kind == Tuple || kind == List; }
  /// Known at compile time (everything but IR handles).
  bool isConstant() const;

  bool getBool() const { return i != 0; }
  int64_t getInt() const { return i; }
  double getFloat() const { return kind == Float ? d : double(i); }
  const std::string &getStr() const { return *str; }
  DType getDType() const { return DType(DType::Kind(i)); }
  const std::vector<Value> &getElements() const { return *elts; }
  const std::vector<std::pair<Value, Value>> &getItems() const { return *items; }
  /// A list's or dict's payload, for `append`, `d[k] = v`, ...: shared by
  /// every copy of the value, as a Python object is by its names.
  std::vector<Value> &mutableElements() const { return *elts; }
  std::vector<std::pair<Value, Value>> &mutableItems() const { return *items; }
  SymbolObject &getSymbol() const { return *sym; }
  TensorTypeObject &getTensorType() const { return *tensor; }
  const EnumObject &getEnum() const { return *enm; }
  LayoutObject &getLayout() const { return *lay; }
  FunctionObject &getFunction() const { return *fn; }
  const std::string &getBuiltin() const { return *str; }
  BufferObject &getBuffer() const { return *buf; }
  RuntimeObject &getRuntime() const { return *rt; }
  std::shared_ptr<RuntimeObject> getRuntimePtr() const { return rt; }
  SubscriptObject &getSubscript() const { return *sub; }
  LoopSpec &getLoop() const { return *loopSpec; }
  std::shared_ptr<BufferObject> getBufferPtr() const { return buf; }
  ClassObject &getClass() const { return *cls; }
  std::shared_ptr<ClassObject> getClassPtr() const { return cls; }
  InstanceObject &getInstance() const { return *obj; }
  /// Slice parts (absent = omitted).
  const std::vector<std::optional<Value>> &getSliceParts() const {
    return *sliceParts;
  }

  /// Python truthiness for compile-time values.
  bool truthy() const;
  /// Python `repr`-like text, for messages and --emit=tile attributes.
  std::string repr() const;
  /// The Python type name (`int`, `tuple`, `T.Buffer`...), for messages.
  llvm::StringRef typeName() const;

  /// Python `==` on compile-time values.
  friend bool operator==(const Value &a, const Value &b);

private:
  Kind kind;
  int64_t i = 0;
  double d = 0;
  std::shared_ptr<std::string> str;
  std::shared_ptr<std::vector<Value>> elts;
  std::shared_ptr<std::vector<std::pair<Value, Value>>> items;
  std::shared_ptr<SymbolObject> sym;
  std::shared_ptr<TensorTypeObject> tensor;
  std::shared_ptr<EnumObject> enm;
  std::shared_ptr<LayoutObject> lay;
  std::shared_ptr<FunctionObject> fn;
  std::shared_ptr<BufferObject> buf;
  std::shared_ptr<RuntimeObject> rt;
  std::shared_ptr<SubscriptObject> sub;
  std::shared_ptr<LoopSpec> loopSpec;
  std::shared_ptr<std::vector<std::optional<Value>>> sliceParts;
  std::shared_ptr<ClassObject> cls;
  std::shared_ptr<InstanceObject> obj;
};

/// Binary operators of Python, as compile-time evaluation sees them.
enum class BinaryOp {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul,
  LShift, RShift, BitAnd, BitOr, BitXor,
  Eq, Ne, Lt, Le, Gt, Ge, In, NotIn, Is, IsNot,
};
enum class UnaryOp { Neg, Pos, Invert, Not };

llvm::StringRef spelling(BinaryOp op);
llvm::StringRef spelling(UnaryOp op);

/// Result of folding an operator on constants: a value, or the message of
/// the Python error it would raise (`division by zero`, ...).
struct FoldResult {
  std::optional<Value> value;
  std::string error;
  static FoldResult ok(Value v) { return {std::move(v), ""}; }
  static FoldResult fail(std::string msg) { return {std::nullopt, std::move(msg)}; }
};

/// Python semantics for constants: int/float promotion, floor division and
/// modulo rounding toward negative infinity, `**`, comparisons, sequence
/// concatenation and repetition, `in`. Integer overflow is an error rather
/// than silently wrapping (Python integers do not wrap).
FoldResult foldBinary(BinaryOp op, const Value &lhs, const Value &rhs);
FoldResult foldUnary(UnaryOp op, const Value &operand);

/// Parses a `-D name=value` right-hand side: Python literals (ints, floats,
/// True/False/None, quoted strings, tuples/lists of those); anything else is
/// taken as a bare string (`-D dtype=float16`) when it is a bare word;
/// nullopt for anything else (`6x4`, unbalanced brackets). When `why` is
/// given it receives the reason for the limits tilec sets: nesting deeper
/// than kMaxLiteralDepth, an integer that does not fit in 64 bits.
std::optional<Value> parseDefineValue(llvm::StringRef text,
                                      std::string *why = nullptr);

/// How deeply -D values and --instances files may nest brackets.
inline constexpr unsigned kMaxLiteralDepth = 64;
/// How many elements a compile-time sequence or string may grow to.
inline constexpr size_t kMaxSequenceLength = size_t(1) << 20;

} // namespace tilec::sema

#endif // TILEC_SEMA_VALUE_H
