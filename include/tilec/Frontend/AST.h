//===- AST.h - Syntax tree of a .tile file ----------------------*- C++ -*-===//
//
// A small, plain tree for the Python subset `.tile` files use. It mirrors
// Python's `ast` module closely (so that anyone who knows TileLang's Python
// frontend recognizes it) with a few simplifications that make later stages
// easier: `if/elif/else` is one node with a list of branches, comparisons and
// boolean operators are flat lists, and names point into the source buffer.
//
// Nodes own their children through std::unique_ptr; the Module owns the
// whole tree. Every node carries its source range (SMRange into the
// SourceMgr buffer it was parsed from, which must outlive the tree). Kinds
// give LLVM-style RTTI: `llvm::isa<ast::CallExpr>(e)`, `llvm::dyn_cast`.
//
// The parser bounds the height of expression trees (see Parser.h), so
// recursive walks over this tree cannot run out of stack.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_AST_H
#define TILEC_FRONTEND_AST_H

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilec::ast {

class Expr;
class Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

/// Base of every node: a source range.
class Node {
public:
  llvm::SMRange getRange() const { return range; }
  llvm::SMLoc getLoc() const { return range.Start; }
  llvm::SMLoc getEndLoc() const { return range.End; }
  void setRange(llvm::SMRange newRange) { range = newRange; }

protected:
  explicit Node(llvm::SMRange range) : range(range) {}

private:
  llvm::SMRange range;
};

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

enum class BinOpKind {
  Add,      // +
  Sub,      // -
  Mul,      // *
  MatMul,   // @
  Div,      // /
  FloorDiv, // //
  Mod,      // %
  Pow,      // **
  LShift,   // <<
  RShift,   // >>
  BitOr,    // |
  BitXor,   // ^
  BitAnd,   // &
};
enum class UnaryOpKind { Neg, Pos, Invert, Not };
enum class BoolOpKind { And, Or };
enum class CmpOpKind { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

/// Python spelling of an operator: "//", "-", "and", "not in".
llvm::StringRef getSpelling(BinOpKind op);
llvm::StringRef getSpelling(UnaryOpKind op);
llvm::StringRef getSpelling(BoolOpKind op);
llvm::StringRef getSpelling(CmpOpKind op);

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr : public Node {
public:
  enum class Kind {
    Name,
    Int,
    Float,
    String,
    Bool,
    None,
    Attribute,
    Call,
    Subscript,
    Slice,
    Tuple,
    List,
    Dict,
    BinOp,
    UnaryOp,
    BoolOp,
    Compare,
    IfExp,
    Lambda,
    Starred,
    ListComp,
  };

  virtual ~Expr();
  Kind getKind() const { return kind; }
  /// Longest path from this node to a leaf, counting nodes (a leaf is 1).
  unsigned getHeight() const { return height; }

protected:
  Expr(Kind kind, llvm::SMRange range, unsigned height = 1)
      : Node(range), kind(kind), height(height) {}

  /// 1 + the tallest of `children` (null entries ignored).
  static unsigned heightOver(std::initializer_list<const Expr *> children);
  static unsigned heightOver(llvm::ArrayRef<ExprPtr> children,
                             unsigned atLeast = 0);

private:
  Kind kind;
  unsigned height;
};

/// Name of an expression kind ("Name", "Call", ...).
llvm::StringRef getKindName(Expr::Kind kind);

/// An identifier: `x`, `T`, `block_M`.
class NameExpr : public Expr {
public:
  NameExpr(llvm::SMRange range, llvm::StringRef name)
      : Expr(Kind::Name, range), name(name) {}
  llvm::StringRef getName() const { return name; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Name; }

private:
  llvm::StringRef name;
};

/// An integer literal. Python integers are unbounded; the value is kept as
/// an unsigned APInt wide enough for it (at least 64 bits).
class IntExpr : public Expr {
public:
  IntExpr(llvm::SMRange range, llvm::APInt value)
      : Expr(Kind::Int, range), value(std::move(value)) {}
  const llvm::APInt &getValue() const { return value; }
  /// The value when it fits in int64_t.
  std::optional<int64_t> getInt64() const {
    if (value.getActiveBits() > 63)
      return std::nullopt;
    return static_cast<int64_t>(value.getZExtValue());
  }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Int; }

private:
  llvm::APInt value;
};

/// A float literal (IEEE double, as in Python).
class FloatExpr : public Expr {
public:
  FloatExpr(llvm::SMRange range, double value)
      : Expr(Kind::Float, range), value(value) {}
  double getValue() const { return value; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Float; }

private:
  double value;
};

/// A string literal, adjacent literals already concatenated, escapes decoded.
class StringExpr : public Expr {
public:
  StringExpr(llvm::SMRange range, std::string value, bool bytes)
      : Expr(Kind::String, range), value(std::move(value)), bytes(bytes) {}
  llvm::StringRef getValue() const { return value; }
  bool isBytes() const { return bytes; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::String; }

private:
  std::string value;
  bool bytes;
};

/// `True` or `False`.
class BoolExpr : public Expr {
public:
  BoolExpr(llvm::SMRange range, bool value)
      : Expr(Kind::Bool, range), value(value) {}
  bool getValue() const { return value; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Bool; }

private:
  bool value;
};

/// `None`.
class NoneExpr : public Expr {
public:
  explicit NoneExpr(llvm::SMRange range) : Expr(Kind::None, range) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::None; }
};

/// `value.attr`, e.g. `T.alloc_shared`.
class AttributeExpr : public Expr {
public:
  AttributeExpr(llvm::SMRange range, ExprPtr value, llvm::StringRef attr,
                llvm::SMRange attrRange)
      : Expr(Kind::Attribute, range, heightOver({value.get()})),
        value(std::move(value)), attr(attr), attrRange(attrRange) {}
  const Expr *getValue() const { return value.get(); }
  llvm::StringRef getAttr() const { return attr; }
  llvm::SMRange getAttrRange() const { return attrRange; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Attribute; }

private:
  ExprPtr value;
  llvm::StringRef attr;
  llvm::SMRange attrRange;
};

/// `name=value` in a call, or `**value` (empty name).
struct Keyword {
  llvm::StringRef name;
  llvm::SMRange nameRange;
  ExprPtr value;
  /// From the name (or `**`) to the end of the value.
  llvm::SMRange range;
  bool isDoubleStar() const { return name.empty(); }
};

/// `callee(args..., keywords...)`. Positional `*x` arguments appear in
/// `getArgs()` as StarredExpr.
class CallExpr : public Expr {
public:
  CallExpr(llvm::SMRange range, ExprPtr callee, std::vector<ExprPtr> args,
           std::vector<Keyword> keywords);
  const Expr *getCallee() const { return callee.get(); }
  llvm::ArrayRef<ExprPtr> getArgs() const { return args; }
  llvm::ArrayRef<Keyword> getKeywords() const { return keywords; }
  /// The keyword argument called `name`, or null.
  const Keyword *findKeyword(llvm::StringRef name) const;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Call; }

private:
  ExprPtr callee;
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
};

/// `value[i, j]`; each index may be a SliceExpr. `x[a]` has one index,
/// `x[a, b]` and `x[a,]` are tuple subscripts (`isTupleIndex()`).
class SubscriptExpr : public Expr {
public:
  SubscriptExpr(llvm::SMRange range, ExprPtr value,
                std::vector<ExprPtr> indices, bool tupleIndex)
      : Expr(Kind::Subscript, range,
             heightOver(indices, heightOver({value.get()}))),
        value(std::move(value)), indices(std::move(indices)),
        tupleIndex(tupleIndex) {}
  const Expr *getValue() const { return value.get(); }
  llvm::ArrayRef<ExprPtr> getIndices() const { return indices; }
  bool isTupleIndex() const { return tupleIndex; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Subscript; }

private:
  ExprPtr value;
  std::vector<ExprPtr> indices;
  bool tupleIndex;
};

/// `lower:upper:step` inside a subscript; each part may be null.
class SliceExpr : public Expr {
public:
  SliceExpr(llvm::SMRange range, ExprPtr lower, ExprPtr upper, ExprPtr step)
      : Expr(Kind::Slice, range,
             heightOver({lower.get(), upper.get(), step.get()})),
        lower(std::move(lower)), upper(std::move(upper)),
        step(std::move(step)) {}
  const Expr *getLower() const { return lower.get(); }
  const Expr *getUpper() const { return upper.get(); }
  const Expr *getStep() const { return step.get(); }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Slice; }

private:
  ExprPtr lower, upper, step;
};

/// `(a, b)`, `a, b`, `(a,)`, `()`.
class TupleExpr : public Expr {
public:
  TupleExpr(llvm::SMRange range, std::vector<ExprPtr> elts, bool parenthesized)
      : Expr(Kind::Tuple, range, heightOver(elts)), elts(std::move(elts)),
        parenthesized(parenthesized) {}
  llvm::ArrayRef<ExprPtr> getElts() const { return elts; }
  bool isParenthesized() const { return parenthesized; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Tuple; }

private:
  std::vector<ExprPtr> elts;
  bool parenthesized;
};

/// `[a, b]`, or the set display `{a, b}` (isSet()).
class ListExpr : public Expr {
public:
  ListExpr(llvm::SMRange range, std::vector<ExprPtr> elts, bool set = false)
      : Expr(Kind::List, range, heightOver(elts)), elts(std::move(elts)),
        set(set) {}
  llvm::ArrayRef<ExprPtr> getElts() const { return elts; }
  bool isSet() const { return set; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::List; }

private:
  std::vector<ExprPtr> elts;
  bool set;
};

/// `{k: v, ...}`; keys and values are parallel lists.
class DictExpr : public Expr {
public:
  DictExpr(llvm::SMRange range, std::vector<ExprPtr> keys,
           std::vector<ExprPtr> values)
      : Expr(Kind::Dict, range, heightOver(values, heightOver(keys))),
        keys(std::move(keys)), values(std::move(values)) {}
  llvm::ArrayRef<ExprPtr> getKeys() const { return keys; }
  llvm::ArrayRef<ExprPtr> getValues() const { return values; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Dict; }

private:
  std::vector<ExprPtr> keys, values;
};

/// `lhs op rhs`.
class BinOpExpr : public Expr {
public:
  BinOpExpr(llvm::SMRange range, BinOpKind op, llvm::SMRange opRange,
            ExprPtr lhs, ExprPtr rhs)
      : Expr(Kind::BinOp, range, heightOver({lhs.get(), rhs.get()})), op(op),
        opRange(opRange), lhs(std::move(lhs)), rhs(std::move(rhs)) {}
  BinOpKind getOp() const { return op; }
  llvm::SMRange getOpRange() const { return opRange; }
  const Expr *getLHS() const { return lhs.get(); }
  const Expr *getRHS() const { return rhs.get(); }
  static bool classof(const Expr *e) { return e->getKind() == Kind::BinOp; }

private:
  BinOpKind op;
  llvm::SMRange opRange;
  ExprPtr lhs, rhs;
};

/// `-x`, `+x`, `~x`, `not x`.
class UnaryOpExpr : public Expr {
public:
  UnaryOpExpr(llvm::SMRange range, UnaryOpKind op, ExprPtr operand)
      : Expr(Kind::UnaryOp, range, heightOver({operand.get()})), op(op),
        operand(std::move(operand)) {}
  UnaryOpKind getOp() const { return op; }
  const Expr *getOperand() const { return operand.get(); }
  static bool classof(const Expr *e) { return e->getKind() == Kind::UnaryOp; }

private:
  UnaryOpKind op;
  ExprPtr operand;
};

/// `a and b and c` / `a or b`: one node, two or more values.
class BoolOpExpr : public Expr {
public:
  BoolOpExpr(llvm::SMRange range, BoolOpKind op, std::vector<ExprPtr> values)
      : Expr(Kind::BoolOp, range, heightOver(values)), op(op),
        values(std::move(values)) {}
  BoolOpKind getOp() const { return op; }
  llvm::ArrayRef<ExprPtr> getValues() const { return values; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::BoolOp; }

private:
  BoolOpKind op;
  std::vector<ExprPtr> values;
};

/// `a < b <= c`: left operand, then one (op, comparator) pair per operator.
class CompareExpr : public Expr {
public:
  CompareExpr(llvm::SMRange range, ExprPtr left, std::vector<CmpOpKind> ops,
              std::vector<llvm::SMRange> opRanges,
              std::vector<ExprPtr> comparators)
      : Expr(Kind::Compare, range,
             heightOver(comparators, heightOver({left.get()}))),
        left(std::move(left)), ops(std::move(ops)),
        opRanges(std::move(opRanges)), comparators(std::move(comparators)) {}
  const Expr *getLeft() const { return left.get(); }
  llvm::ArrayRef<CmpOpKind> getOps() const { return ops; }
  llvm::ArrayRef<llvm::SMRange> getOpRanges() const { return opRanges; }
  llvm::ArrayRef<ExprPtr> getComparators() const { return comparators; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Compare; }

private:
  ExprPtr left;
  std::vector<CmpOpKind> ops;
  std::vector<llvm::SMRange> opRanges;
  std::vector<ExprPtr> comparators;
};

/// `body if test else orelse`.
class IfExpExpr : public Expr {
public:
  IfExpExpr(llvm::SMRange range, ExprPtr body, ExprPtr test, ExprPtr orelse)
      : Expr(Kind::IfExp, range,
             heightOver({body.get(), test.get(), orelse.get()})),
        body(std::move(body)), test(std::move(test)),
        orelse(std::move(orelse)) {}
  const Expr *getBody() const { return body.get(); }
  const Expr *getTest() const { return test.get(); }
  const Expr *getOrElse() const { return orelse.get(); }
  static bool classof(const Expr *e) { return e->getKind() == Kind::IfExp; }

private:
  ExprPtr body, test, orelse;
};

/// A parameter of a `def` or a `lambda`: `name[: annotation][= default]`.
struct Param {
  llvm::StringRef name;
  llvm::SMRange nameRange;
  ExprPtr annotation;   // null when absent (always null for lambdas)
  ExprPtr defaultValue; // null when absent
  llvm::SMRange range;
};

/// `lambda i, j: body` (TileLang layout functions).
class LambdaExpr : public Expr {
public:
  LambdaExpr(llvm::SMRange range, std::vector<Param> params, ExprPtr body);
  llvm::ArrayRef<Param> getParams() const { return params; }
  const Expr *getBody() const { return body.get(); }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Lambda; }

private:
  std::vector<Param> params;
  ExprPtr body;
};

/// `*value` in a call argument list, a tuple/list display or a target.
class StarredExpr : public Expr {
public:
  StarredExpr(llvm::SMRange range, ExprPtr value)
      : Expr(Kind::Starred, range, heightOver({value.get()})),
        value(std::move(value)) {}
  const Expr *getValue() const { return value.get(); }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Starred; }

private:
  ExprPtr value;
};

/// One `for target in iter [if cond]*` clause of a comprehension. `iter`
/// and each condition are disjunctions (no bare conditional expression or
/// lambda, as in Python); `range` runs from `for` to the end of the clause.
struct Comprehension {
  ExprPtr target;
  ExprPtr iter;
  std::vector<ExprPtr> ifs;
  llvm::SMRange range;
};

/// `[elt for t in it if c ...]`, and a generator expression
/// `(elt for ...)` / `f(elt for ...)` (isGenerator() true). Clauses are in
/// source order: the first is the outermost loop. A generator expression's
/// range includes its parentheses, except as the sole argument of a call,
/// where it runs from the element to the end of the last clause.
class ListCompExpr : public Expr {
public:
  ListCompExpr(llvm::SMRange range, ExprPtr elt,
               std::vector<Comprehension> generators, bool generator);
  const Expr *getElt() const { return elt.get(); }
  llvm::ArrayRef<Comprehension> getGenerators() const { return generators; }
  bool isGenerator() const { return generator; }
  /// `{elt for ...}`: a set comprehension.
  bool isSet() const { return set; }
  void setSet() { set = true; }
  /// `{elt: value for ...}`: a dict comprehension (elt is the key).
  const Expr *getValue() const { return value.get(); }
  void setDictValue(ExprPtr v) { value = std::move(v); }
  static bool classof(const Expr *e) { return e->getKind() == Kind::ListComp; }

private:
  ExprPtr elt;
  std::vector<Comprehension> generators;
  bool generator;
  bool set = false;
  ExprPtr value;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class Stmt : public Node {
public:
  enum class Kind {
    Import,
    ImportFrom,
    FunctionDef,
    Return,
    Assign,
    AugAssign,
    AnnAssign,
    ExprStmt,
    If,
    For,
    While,
    With,
    Pass,
    Break,
    Continue,
    Assert,
    Raise,
    ClassDef,
  };

  virtual ~Stmt();
  Kind getKind() const { return kind; }

protected:
  Stmt(Kind kind, llvm::SMRange range) : Node(range), kind(kind) {}

private:
  Kind kind;
};

/// Name of a statement kind ("FunctionDef", "If", ...).
llvm::StringRef getKindName(Stmt::Kind kind);

/// `a.b.c [as d]` in an import.
struct ImportAlias {
  std::string name; // dotted: "tilelang.language"
  llvm::SMRange nameRange;
  llvm::StringRef asName; // empty when there is no `as`
  llvm::SMRange asNameRange;
};

/// `import a.b as c, d`.
class ImportStmt : public Stmt {
public:
  ImportStmt(llvm::SMRange range, std::vector<ImportAlias> names)
      : Stmt(Kind::Import, range), names(std::move(names)) {}
  llvm::ArrayRef<ImportAlias> getNames() const { return names; }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Import; }

private:
  std::vector<ImportAlias> names;
};

/// `from [.]*module import a as b, c` or `from module import *`.
class ImportFromStmt : public Stmt {
public:
  ImportFromStmt(llvm::SMRange range, std::string module,
                 llvm::SMRange moduleRange, unsigned level,
                 std::vector<ImportAlias> names, bool wildcard)
      : Stmt(Kind::ImportFrom, range), module(std::move(module)),
        moduleRange(moduleRange), level(level), names(std::move(names)),
        wildcard(wildcard) {}
  /// Dotted module name without the leading dots (may be empty: `from .`).
  llvm::StringRef getModule() const { return module; }
  llvm::SMRange getModuleRange() const { return moduleRange; }
  /// Number of leading dots (relative import level).
  unsigned getLevel() const { return level; }
  llvm::ArrayRef<ImportAlias> getNames() const { return names; }
  bool isWildcard() const { return wildcard; }
  static bool classof(const Stmt *s) {
    return s->getKind() == Kind::ImportFrom;
  }

private:
  std::string module;
  llvm::SMRange moduleRange;
  unsigned level;
  std::vector<ImportAlias> names;
  bool wildcard;
};

/// `@decorators def name(params) -> returns: body`. The range starts at
/// `def`; decorators have their own ranges.
class FunctionDefStmt : public Stmt {
public:
  FunctionDefStmt(llvm::SMRange range, llvm::StringRef name,
                  llvm::SMRange nameRange, std::vector<ExprPtr> decorators,
                  std::vector<Param> params, ExprPtr returns, StmtList body);
  llvm::StringRef getName() const { return name; }
  llvm::SMRange getNameRange() const { return nameRange; }
  llvm::ArrayRef<ExprPtr> getDecorators() const { return decorators; }
  llvm::ArrayRef<Param> getParams() const { return params; }
  const Expr *getReturns() const { return returns.get(); }
  llvm::ArrayRef<StmtPtr> getBody() const { return body; }
  static bool classof(const Stmt *s) {
    return s->getKind() == Kind::FunctionDef;
  }

private:
  llvm::StringRef name;
  llvm::SMRange nameRange;
  std::vector<ExprPtr> decorators;
  std::vector<Param> params;
  ExprPtr returns;
  StmtList body;
};

/// `class Name[(bases)]: body`: a compile-time class (methods and class
/// attributes). The range starts at `class`.
class ClassDefStmt : public Stmt {
public:
  ClassDefStmt(llvm::SMRange range, llvm::StringRef name,
               llvm::SMRange nameRange, std::vector<ExprPtr> bases,
               StmtList body)
      : Stmt(Kind::ClassDef, range), name(name), nameRange(nameRange),
        bases(std::move(bases)), body(std::move(body)) {}
  llvm::StringRef getName() const { return name; }
  llvm::SMRange getNameRange() const { return nameRange; }
  llvm::ArrayRef<ExprPtr> getBases() const { return bases; }
  llvm::ArrayRef<StmtPtr> getBody() const { return body; }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::ClassDef; }

private:
  llvm::StringRef name;
  llvm::SMRange nameRange;
  std::vector<ExprPtr> bases;
  StmtList body;
};

/// `return [value]`.
class ReturnStmt : public Stmt {
public:
  ReturnStmt(llvm::SMRange range, ExprPtr value)
      : Stmt(Kind::Return, range), value(std::move(value)) {}
  const Expr *getValue() const { return value.get(); }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Return; }

private:
  ExprPtr value;
};

/// `t1 = t2 = value`: one or more targets (Name, Attribute, Subscript,
/// Tuple/List of targets, Starred).
class AssignStmt : public Stmt {
public:
  AssignStmt(llvm::SMRange range, std::vector<ExprPtr> targets, ExprPtr value)
      : Stmt(Kind::Assign, range), targets(std::move(targets)),
        value(std::move(value)) {}
  llvm::ArrayRef<ExprPtr> getTargets() const { return targets; }
  const Expr *getValue() const { return value.get(); }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Assign; }

private:
  std::vector<ExprPtr> targets;
  ExprPtr value;
};

/// `target op= value`.
class AugAssignStmt : public Stmt {
public:
  AugAssignStmt(llvm::SMRange range, ExprPtr target, BinOpKind op,
                llvm::SMRange opRange, ExprPtr value)
      : Stmt(Kind::AugAssign, range), target(std::move(target)), op(op),
        opRange(opRange), value(std::move(value)) {}
  const Expr *getTarget() const { return target.get(); }
  BinOpKind getOp() const { return op; }
  llvm::SMRange getOpRange() const { return opRange; }
  const Expr *getValue() const { return value.get(); }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::AugAssign; }

private:
  ExprPtr target;
  BinOpKind op;
  llvm::SMRange opRange;
  ExprPtr value;
};

/// `target: annotation [= value]`, e.g. `x: T.int32 = 0`.
class AnnAssignStmt : public Stmt {
public:
  AnnAssignStmt(llvm::SMRange range, ExprPtr target, ExprPtr annotation,
                ExprPtr value)
      : Stmt(Kind::AnnAssign, range), target(std::move(target)),
        annotation(std::move(annotation)), value(std::move(value)) {}
  const Expr *getTarget() const { return target.get(); }
  const Expr *getAnnotation() const { return annotation.get(); }
  const Expr *getValue() const { return value.get(); } // may be null
  static bool classof(const Stmt *s) { return s->getKind() == Kind::AnnAssign; }

private:
  ExprPtr target, annotation, value;
};

/// An expression used as a statement (calls like `T.clear(C)`, docstrings).
class ExprStmt : public Stmt {
public:
  ExprStmt(llvm::SMRange range, ExprPtr value)
      : Stmt(Kind::ExprStmt, range), value(std::move(value)) {}
  const Expr *getValue() const { return value.get(); }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::ExprStmt; }

private:
  ExprPtr value;
};

/// One `if` or `elif` arm.
struct IfBranch {
  llvm::SMLoc keywordLoc; // the `if` / `elif`
  ExprPtr test;
  StmtList body;
};

/// `if c1: ... elif c2: ... else: ...` as one node.
class IfStmt : public Stmt {
public:
  IfStmt(llvm::SMRange range, std::vector<IfBranch> branches,
         llvm::SMLoc elseLoc, StmtList orelse)
      : Stmt(Kind::If, range), branches(std::move(branches)), elseLoc(elseLoc),
        orelse(std::move(orelse)) {}
  /// The `if` arm first, then each `elif` in order.
  llvm::ArrayRef<IfBranch> getBranches() const { return branches; }
  bool hasElse() const { return elseLoc.isValid(); }
  llvm::SMLoc getElseLoc() const { return elseLoc; }
  llvm::ArrayRef<StmtPtr> getElseBody() const { return orelse; }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::If; }

private:
  std::vector<IfBranch> branches;
  llvm::SMLoc elseLoc;
  StmtList orelse;
};

/// `for target in iter: body`.
class ForStmt : public Stmt {
public:
  ForStmt(llvm::SMRange range, ExprPtr target, ExprPtr iter, StmtList body)
      : Stmt(Kind::For, range), target(std::move(target)),
        iter(std::move(iter)), body(std::move(body)) {}
  const Expr *getTarget() const { return target.get(); }
  const Expr *getIter() const { return iter.get(); }
  llvm::ArrayRef<StmtPtr> getBody() const { return body; }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::For; }

private:
  ExprPtr target, iter;
  StmtList body;
};

/// `while test: body`.
class WhileStmt : public Stmt {
public:
  WhileStmt(llvm::SMRange range, ExprPtr test, StmtList body)
      : Stmt(Kind::While, range), test(std::move(test)), body(std::move(body)) {
  }
  const Expr *getTest() const { return test.get(); }
  llvm::ArrayRef<StmtPtr> getBody() const { return body; }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::While; }

private:
  ExprPtr test;
  StmtList body;
};

/// `context [as target]` in a `with`.
struct WithItem {
  ExprPtr context;
  ExprPtr target; // null when there is no `as`
};

/// `with a as x, b: body`.
class WithStmt : public Stmt {
public:
  WithStmt(llvm::SMRange range, std::vector<WithItem> items, StmtList body)
      : Stmt(Kind::With, range), items(std::move(items)),
        body(std::move(body)) {}
  llvm::ArrayRef<WithItem> getItems() const { return items; }
  llvm::ArrayRef<StmtPtr> getBody() const { return body; }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::With; }

private:
  std::vector<WithItem> items;
  StmtList body;
};

class PassStmt : public Stmt {
public:
  explicit PassStmt(llvm::SMRange range) : Stmt(Kind::Pass, range) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Pass; }
};

class BreakStmt : public Stmt {
public:
  explicit BreakStmt(llvm::SMRange range) : Stmt(Kind::Break, range) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Break; }
};

class ContinueStmt : public Stmt {
public:
  explicit ContinueStmt(llvm::SMRange range) : Stmt(Kind::Continue, range) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Continue; }
};

/// `assert test[, msg]`.
class AssertStmt : public Stmt {
public:
  AssertStmt(llvm::SMRange range, ExprPtr test, ExprPtr msg)
      : Stmt(Kind::Assert, range), test(std::move(test)), msg(std::move(msg)) {}
  const Expr *getTest() const { return test.get(); }
  const Expr *getMsg() const { return msg.get(); } // may be null
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Assert; }

private:
  ExprPtr test, msg;
};

/// `raise [exc [from cause]]` (the cause is parsed and dropped).
class RaiseStmt : public Stmt {
public:
  RaiseStmt(llvm::SMRange range, ExprPtr exc)
      : Stmt(Kind::Raise, range), exc(std::move(exc)) {}
  const Expr *getExc() const { return exc.get(); } // may be null
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Raise; }

private:
  ExprPtr exc;
};

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

/// A parsed `.tile` file: its top-level statements. It remembers the
/// SourceMgr buffer it came from (which must outlive it), so that locations
/// can be turned into line:column pairs without other context.
class Module {
public:
  Module(const llvm::SourceMgr &sourceMgr, unsigned bufferId, StmtList body)
      : sourceMgr(&sourceMgr), bufferId(bufferId), body(std::move(body)) {}
  llvm::ArrayRef<StmtPtr> getBody() const { return body; }

  const llvm::SourceMgr &getSourceMgr() const { return *sourceMgr; }
  unsigned getBufferId() const { return bufferId; }
  /// The file name the buffer was registered with.
  llvm::StringRef getBufferIdentifier() const {
    return sourceMgr->getMemoryBuffer(bufferId)->getBufferIdentifier();
  }
  /// 1-based line and byte column of `loc` ({0, 0} if invalid).
  std::pair<unsigned, unsigned> getLineCol(llvm::SMLoc loc) const {
    if (!loc.isValid())
      return {0, 0};
    return sourceMgr->getLineAndColumn(loc, bufferId);
  }

private:
  const llvm::SourceMgr *sourceMgr;
  unsigned bufferId;
  StmtList body;
};

} // namespace tilec::ast

#endif // TILEC_FRONTEND_AST_H
