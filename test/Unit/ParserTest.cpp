//===- ParserTest.cpp - Unit tests for the .tile parser and AST -----------===//
//
// Expression precedence (checked through a compact S-expression printer),
// every statement kind, the AST dump format, syntax errors with their
// positions and notes, robustness against hostile inputs, and speed.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Parser.h"
#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/ASTDump.h"
#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/Lexer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

using namespace tilec;
using namespace tilec::ast;

namespace {

struct CapturedDiag {
  DiagSeverity severity;
  unsigned line, col;
  std::string message;
};

/// A parsed in-memory file; keeps the SourceMgr alive with the AST.
struct Parsed {
  explicit Parsed(llvm::StringRef text) : diag(sm) {
    id = sm.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "test.tile"), llvm::SMLoc());
    diag.setHandler([this](const Diagnostic &d) {
      auto [line, col] = diag.lineCol(d.loc);
      diags.push_back({d.severity, line, col, d.message});
    });
    module = parseModule(sm, id, diag);
  }
  std::string dump() const {
    std::string out;
    llvm::raw_string_ostream os(out);
    dumpAST(*module, os);
    return out;
  }
  std::pair<unsigned, unsigned> lineCol(llvm::SMLoc loc) const {
    return diag.lineCol(loc);
  }
  const Stmt &stmt(unsigned i) const {
    REQUIRE(module);
    REQUIRE(module->getBody().size() > i);
    return *module->getBody()[i];
  }

  llvm::SourceMgr sm;
  unsigned id = 0;
  std::vector<CapturedDiag> diags;
  DiagnosticEngine diag;
  std::unique_ptr<Module> module;
};

std::string sexpr(const Expr *e);

std::string join(llvm::ArrayRef<ExprPtr> exprs) {
  std::string out;
  for (const ExprPtr &e : exprs)
    out += " " + sexpr(e.get());
  return out;
}

/// Compact, precedence-revealing spelling of an expression.
std::string sexpr(const Expr *e) {
  if (!e)
    return "_";
  switch (e->getKind()) {
  case Expr::Kind::Name:
    return llvm::cast<NameExpr>(e)->getName().str();
  case Expr::Kind::Int:
    return llvm::toString(llvm::cast<IntExpr>(e)->getValue(), 10, false);
  case Expr::Kind::Float:
    return formatFloat(llvm::cast<FloatExpr>(e)->getValue());
  case Expr::Kind::String:
    return (llvm::cast<StringExpr>(e)->isBytes() ? "b'" : "'") +
           llvm::cast<StringExpr>(e)->getValue().str() + "'";
  case Expr::Kind::Bool:
    return llvm::cast<BoolExpr>(e)->getValue() ? "True" : "False";
  case Expr::Kind::None:
    return "None";
  case Expr::Kind::Attribute: {
    const auto *a = llvm::cast<AttributeExpr>(e);
    return "(. " + sexpr(a->getValue()) + " " + a->getAttr().str() + ")";
  }
  case Expr::Kind::Call: {
    const auto *c = llvm::cast<CallExpr>(e);
    std::string out = "(call " + sexpr(c->getCallee()) + join(c->getArgs());
    for (const Keyword &k : c->getKeywords())
      out += " " + (k.isDoubleStar() ? std::string("**") : k.name.str() + "=") +
             sexpr(k.value.get());
    return out + ")";
  }
  case Expr::Kind::Subscript: {
    const auto *s = llvm::cast<SubscriptExpr>(e);
    return std::string(s->isTupleIndex() ? "([,] " : "([] ") +
           sexpr(s->getValue()) + join(s->getIndices()) + ")";
  }
  case Expr::Kind::Slice: {
    const auto *s = llvm::cast<SliceExpr>(e);
    return "(: " + sexpr(s->getLower()) + " " + sexpr(s->getUpper()) + " " +
           sexpr(s->getStep()) + ")";
  }
  case Expr::Kind::Tuple:
    return "(tuple" + join(llvm::cast<TupleExpr>(e)->getElts()) + ")";
  case Expr::Kind::List:
    return "(list" + join(llvm::cast<ListExpr>(e)->getElts()) + ")";
  case Expr::Kind::Dict: {
    const auto *d = llvm::cast<DictExpr>(e);
    std::string out = "(dict";
    for (size_t i = 0; i < d->getKeys().size(); ++i)
      out += " " + sexpr(d->getKeys()[i].get()) + ":" +
             sexpr(d->getValues()[i].get());
    return out + ")";
  }
  case Expr::Kind::BinOp: {
    const auto *b = llvm::cast<BinOpExpr>(e);
    return "(" + getSpelling(b->getOp()).str() + " " + sexpr(b->getLHS()) +
           " " + sexpr(b->getRHS()) + ")";
  }
  case Expr::Kind::UnaryOp: {
    const auto *u = llvm::cast<UnaryOpExpr>(e);
    const char *names[] = {"neg", "pos", "inv", "not"};
    return std::string("(") + names[static_cast<int>(u->getOp())] + " " +
           sexpr(u->getOperand()) + ")";
  }
  case Expr::Kind::BoolOp: {
    const auto *b = llvm::cast<BoolOpExpr>(e);
    return "(" + getSpelling(b->getOp()).str() + join(b->getValues()) + ")";
  }
  case Expr::Kind::Compare: {
    const auto *c = llvm::cast<CompareExpr>(e);
    std::string out = "(cmp " + sexpr(c->getLeft());
    for (size_t i = 0; i < c->getOps().size(); ++i)
      out += " " + getSpelling(c->getOps()[i]).str() + " " +
             sexpr(c->getComparators()[i].get());
    return out + ")";
  }
  case Expr::Kind::IfExp: {
    const auto *i = llvm::cast<IfExpExpr>(e);
    return "(if " + sexpr(i->getTest()) + " " + sexpr(i->getBody()) + " " +
           sexpr(i->getOrElse()) + ")";
  }
  case Expr::Kind::Lambda: {
    const auto *l = llvm::cast<LambdaExpr>(e);
    std::string params;
    for (const Param &p : l->getParams()) {
      if (!params.empty())
        params += " ";
      params += p.name.str();
      if (p.defaultValue)
        params += "=" + sexpr(p.defaultValue.get());
    }
    return "(lambda (" + params + ") " + sexpr(l->getBody()) + ")";
  }
  case Expr::Kind::Starred:
    return "(* " + sexpr(llvm::cast<StarredExpr>(e)->getValue()) + ")";
  case Expr::Kind::ListComp: {
    const auto *c = llvm::cast<ListCompExpr>(e);
    std::string out = std::string(c->isGenerator() ? "(gen " : "(listcomp ") +
                      sexpr(c->getElt());
    for (const Comprehension &clause : c->getGenerators()) {
      out += " (for " + sexpr(clause.target.get()) + " " +
             sexpr(clause.iter.get());
      for (const ExprPtr &cond : clause.ifs)
        out += " (if " + sexpr(cond.get()) + ")";
      out += ")";
    }
    return out + ")";
  }
  }
  return "?";
}

/// Parses `text` as one expression statement and prints it.
std::string expr(const std::string &text) {
  Parsed p(text + "\n");
  INFO(text);
  for (const CapturedDiag &d : p.diags)
    UNSCOPED_INFO(d.line << ":" << d.col << ": " << d.message);
  REQUIRE(p.module);
  REQUIRE(p.module->getBody().size() == 1);
  const auto *stmt = llvm::dyn_cast<ExprStmt>(p.module->getBody()[0].get());
  REQUIRE(stmt);
  return sexpr(stmt->getValue());
}

/// Parses `text`, which must fail with exactly one error; returns it.
CapturedDiag parseError(const std::string &text) {
  Parsed p(text);
  INFO(text);
  CHECK(p.module == nullptr);
  unsigned errors = 0;
  CapturedDiag first{};
  for (const CapturedDiag &d : p.diags) {
    if (d.severity != DiagSeverity::Error)
      continue;
    if (errors++ == 0)
      first = d;
  }
  CHECK(errors == 1);
  return first;
}

} // namespace

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

TEST_CASE("parser: arithmetic precedence and associativity", "[parser]") {
  CHECK(expr("a + b * c") == "(+ a (* b c))");
  CHECK(expr("a - b - c") == "(- (- a b) c)");
  CHECK(expr("(a - b) * c") == "(* (- a b) c)");
  CHECK(expr("a * b // c % d / e @ f") == "(@ (/ (% (// (* a b) c) d) e) f)");
  CHECK(expr("a | b ^ c & d << e + f") == "(| a (^ b (& c (<< d (+ e f)))))");
  CHECK(expr("a >> b << c") == "(<< (>> a b) c)");
  CHECK(expr("a | b | c") == "(| (| a b) c)");
}

TEST_CASE("parser: unary operators and power", "[parser]") {
  CHECK(expr("-a ** b") == "(neg (** a b))");
  CHECK(expr("a ** -b") == "(** a (neg b))");
  CHECK(expr("a ** b ** c") == "(** a (** b c))");
  CHECK(expr("-a ** -b ** c") == "(neg (** a (neg (** b c))))");
  CHECK(expr("~a + -b * +c") == "(+ (inv a) (* (neg b) (pos c)))");
  CHECK(expr("- - a") == "(neg (neg a))");
  CHECK(expr("2 ** f(x)[0].y") == "(** 2 (. ([] (call f x) 0) y))");
}

TEST_CASE("parser: boolean operators and comparisons", "[parser]") {
  CHECK(expr("not a and b or c") == "(or (and (not a) b) c)");
  CHECK(expr("a or b or c") == "(or a b c)");
  CHECK(expr("a and b and not not c") == "(and a b (not (not c)))");
  CHECK(expr("a < b == c") == "(cmp a < b == c)");
  CHECK(expr("a not in b is not c in d is e") ==
        "(cmp a not in b is not c in d is e)");
  CHECK(expr("not a < b") == "(not (cmp a < b))");
  CHECK(expr("a + 1 >= b | c") == "(cmp (+ a 1) >= (| b c))");
  CHECK(expr("a != b <= c > d") == "(cmp a != b <= c > d)");
}

TEST_CASE("parser: conditional expressions and lambdas", "[parser]") {
  CHECK(expr("a if b else c") == "(if b a c)");
  CHECK(expr("a if b else c if d else e") == "(if b a (if d c e))");
  CHECK(expr("a or b if c and d else e") == "(if (and c d) (or a b) e)");
  CHECK(expr("lambda i, j: i * 2 + j") == "(lambda (i j) (+ (* i 2) j))");
  CHECK(expr("lambda: 0") == "(lambda () 0)");
  CHECK(expr("lambda i, j=4,: i if j else -i") ==
        "(lambda (i j=4) (if j i (neg i)))");
  CHECK(expr("T.Fragment((4, 4), forward_fn=lambda i, j: (i % 2, j))") ==
        "(call (. T Fragment) (tuple 4 4) forward_fn=(lambda (i j) (tuple "
        "(% i 2) j)))");
}

TEST_CASE("parser: primaries, calls and subscripts", "[parser]") {
  CHECK(expr("a.b.c(d)(e)[f]") == "([] (call (call (. (. a b) c) d) e) f)");
  CHECK(expr("f()") == "(call f)");
  CHECK(expr("f(a, b, c=1, d=x + 1,)") == "(call f a b c=1 d=(+ x 1))");
  CHECK(expr("f(*a, b, *c, k=1, **kw)") == "(call f (* a) b (* c) k=1 **kw)");
  CHECK(expr("f(a=1, *b)") == "(call f (* b) a=1)");
  CHECK(expr("A[i, j]") == "([,] A i j)");
  CHECK(expr("A[i,]") == "([,] A i)");
  CHECK(expr("A[(i, j)]") == "([] A (tuple i j))");
  CHECK(expr("A[by * bm, ko * bk]") == "([,] A (* by bm) (* ko bk))");
  CHECK(expr("A[a:b, :, ::2, 1:, :n, a:b:c]") ==
        "([,] A (: a b _) (: _ _ _) (: _ _ 2) (: 1 _ _) (: _ n _) (: a b "
        "c))");
  CHECK(expr("A[-1]") == "([] A (neg 1))");
  CHECK(expr("x.astype(T.float32)") == "(call (. x astype) (. T float32))");
}

TEST_CASE("parser: displays and literals", "[parser]") {
  CHECK(expr("()") == "(tuple)");
  CHECK(expr("(a,)") == "(tuple a)");
  CHECK(expr("(a)") == "a");
  CHECK(expr("((a))") == "a");
  CHECK(expr("(a, b, *c)") == "(tuple a b (* c))");
  CHECK(expr("a, b") == "(tuple a b)");
  CHECK(expr("a,") == "(tuple a)");
  CHECK(expr("[]") == "(list)");
  CHECK(expr("[a, *b, c,]") == "(list a (* b) c)");
  CHECK(expr("{}") == "(dict)");
  CHECK(expr("{'a': 1, b: [2],}") == "(dict 'a':1 b:(list 2))");
  CHECK(expr("True, False, None") == "(tuple True False None)");
  CHECK(expr("'a' \"b\" '''c'''") == "'abc'");
  CHECK(expr("b'a' b'b'") == "b'ab'");
  CHECK(expr("0x_ff + 0o17 + 0b11 + 1_000") == "(+ (+ (+ 255 15) 3) 1000)");
  CHECK(expr("1e-30, .5, 1., 2.5e3, 1e400") ==
        "(tuple 1e-30 0.5 1.0 2500.0 inf)");
  CHECK(expr("123456789012345678901234567890") ==
        "123456789012345678901234567890");
}

TEST_CASE("parser: list comprehensions and generator expressions",
          "[parser][comprehension]") {
  CHECK(expr("[x * 2 for x in xs]") == "(listcomp (* x 2) (for x xs))");
  CHECK(expr("[x for x in xs if x > 0 if x < 9]") ==
        "(listcomp x (for x xs (if (cmp x > 0)) (if (cmp x < 9))))");
  CHECK(expr("[(i, j) for i in range(4) for j in range(i) if i != j]") ==
        "(listcomp (tuple i j) (for i (call range 4)) (for j (call range i) "
        "(if (cmp i != j))))");
  CHECK(expr("[k for k, v in items]") == "(listcomp k (for (tuple k v) "
                                         "items))");
  CHECK(expr("[a if c else b for a in xs]") ==
        "(listcomp (if c a b) (for a xs))");
  CHECK(expr("[x for x in a or b if not x]") ==
        "(listcomp x (for x (or a b) (if (not x))))");
  CHECK(expr("[[y for y in row] for row in m]") ==
        "(listcomp (listcomp y (for y row)) (for row m))");
  CHECK(expr("(x for x in xs)") == "(gen x (for x xs))");
  CHECK(expr("sum(x for x in xs)") == "(call sum (gen x (for x xs)))");
  CHECK(expr("max((x for x in xs), default=0)") ==
        "(call max (gen x (for x xs)) default=0)");
  CHECK(expr("f((x, y) for x, y in z)") ==
        "(call f (gen (tuple x y) (for (tuple x y) z)))");
  CHECK(expr("[x for x in (lambda: ys)()]") ==
        "(listcomp x (for x (call (lambda () ys))))");
  // The autotune configuration list of examples/autotune_gemm.tile.
  CHECK(expr("[{'bm': bm, 's': s} for bm in [64, 128] for s in [2, 3]]") ==
        "(listcomp (dict 'bm':bm 's':s) (for bm (list 64 128)) (for s (list "
        "2 3)))");
}

TEST_CASE("parser: comprehension ranges and dump", "[parser][comprehension]") {
  Parsed p("x = [a for a in b if a]\ny = f(c for c in d)\n"
           "z = (e for e in g)\n");
  REQUIRE(p.module);
  auto value = [&](unsigned i) {
    return llvm::cast<ListCompExpr>(
        llvm::cast<AssignStmt>(p.stmt(i)).getValue());
  };
  // A list comprehension spans its brackets; so does a parenthesized
  // generator; a bare generator argument spans element to last clause.
  CHECK(p.lineCol(value(0)->getLoc()) == std::make_pair(1u, 5u));
  CHECK(p.lineCol(value(0)->getEndLoc()) == std::make_pair(1u, 24u));
  CHECK_FALSE(value(0)->isGenerator());
  const Comprehension &clause = value(0)->getGenerators()[0];
  CHECK(p.lineCol(clause.range.Start) == std::make_pair(1u, 8u));
  CHECK(p.lineCol(clause.range.End) == std::make_pair(1u, 23u));
  const auto *call =
      llvm::cast<CallExpr>(llvm::cast<AssignStmt>(p.stmt(1)).getValue());
  const auto *gen = llvm::cast<ListCompExpr>(call->getArgs()[0].get());
  CHECK(gen->isGenerator());
  CHECK(p.lineCol(gen->getLoc()) == std::make_pair(2u, 7u));
  CHECK(p.lineCol(gen->getEndLoc()) == std::make_pair(2u, 19u));
  CHECK(value(2)->isGenerator());
  CHECK(p.lineCol(value(2)->getLoc()) == std::make_pair(3u, 5u));
  CHECK(p.lineCol(value(2)->getEndLoc()) == std::make_pair(3u, 19u));
  CHECK(p.dump().find("  Assign 1:1\n"
                      "    target: Name 1:1 x\n"
                      "    value: ListComp 1:5\n"
                      "      elt: Name 1:6 a\n"
                      "      for 1:8\n"
                      "        target: Name 1:12 a\n"
                      "        iter: Name 1:17 b\n"
                      "        if: Name 1:22 a\n"
                      "  Assign 2:1\n"
                      "    target: Name 2:1 y\n"
                      "    value: Call 2:5\n"
                      "      callee: Name 2:5 f\n"
                      "      arg: ListComp 2:7 generator\n") !=
        std::string::npos);
}

TEST_CASE("parser: comprehension errors", "[parser][comprehension][errors]") {
  struct Case {
    const char *text;
    unsigned line, col;
    const char *message;
  };
  const Case cases[] = {
      {"x = [*a for a in b]\n", 1, 6,
       "iterable unpacking cannot be used in a comprehension"},
      {"x = (*a for a in b)\n", 1, 6, "iterable unpacking cannot be used"},
      {"x = f(*a for a in b)\n", 1, 7, "iterable unpacking cannot be used"},
      {"x = [a, b for a in c]\n", 1, 11,
       "a tuple element of a comprehension needs parentheses"},
      {"x = (a, b for a in c)\n", 1, 11, "a tuple element of a comprehension"},
      {"x = f(a for a in b, 1)\n", 1, 7,
       "a generator expression must be parenthesized when it is not the sole "
       "argument of a call"},
      {"x = f(1, a for a in b)\n", 1, 10, "must be parenthesized"},
      {"x = f(a for a in b,)\n", 1, 7, "must be parenthesized"},
      {"x = f(k=a for a in b)\n", 1, 9,
       "must be parenthesized when it is the value of a keyword argument"},
      {"x = [a for a in b if c else d]\n", 1, 24,
       "expected `]` after the list comprehension, found `else`"},
      {"x = (a for a in b c)\n", 1, 19,
       "expected `)` after the generator expression, found `c`"},
      {"x = [a for 1 in b]\n", 1, 12, "cannot assign to a literal"},
      {"x = [a for f() in b]\n", 1, 12, "cannot assign to a function call"},
      {"x = [a for a b]\n", 1, 14,
       "expected `in` after the comprehension's `for` target, found `b`"},
      {"x = [a for a in b\n", 1, 5, "`[` was never closed"},
      {"x = (a for a in b\n", 1, 5, "`(` was never closed"},
      {"x = [a for a in lambda: b]\n", 1, 17, "expected an expression"},
      {"x = [a for a in b for]\n", 1, 22, "expected an expression, found `]`"},
      {"x = a for a in b\n", 1, 7, "expected `newline` or `;`"},
  };
  for (const Case &c : cases) {
    INFO(c.text);
    CapturedDiag d = parseError(c.text);
    CHECK(d.line == c.line);
    CHECK(d.col == c.col);
    INFO(d.message);
    CHECK(d.message.find(c.message) != std::string::npos);
  }
}

TEST_CASE("parser: integer values", "[parser]") {
  Parsed p("x = 9223372036854775807\ny = 9223372036854775808\nz = 0xFF\n");
  REQUIRE(p.module);
  auto value = [&](unsigned i) {
    return llvm::cast<IntExpr>(llvm::cast<AssignStmt>(p.stmt(i)).getValue());
  };
  CHECK(value(0)->getInt64() == INT64_MAX);
  CHECK_FALSE(value(1)->getInt64().has_value());
  CHECK(value(1)->getValue() == llvm::APInt(65, 1).shl(63));
  CHECK(value(2)->getInt64() == 255);
}

TEST_CASE("parser: source ranges", "[parser]") {
  Parsed p("x = foo(a, key=b + 1)[2]\n");
  const auto &assign = llvm::cast<AssignStmt>(p.stmt(0));
  CHECK(p.lineCol(assign.getLoc()) == std::make_pair(1u, 1u));
  CHECK(p.lineCol(assign.getEndLoc()) == std::make_pair(1u, 25u));
  const auto *sub = llvm::cast<SubscriptExpr>(assign.getValue());
  CHECK(p.lineCol(sub->getLoc()) == std::make_pair(1u, 5u));
  const auto *call = llvm::cast<CallExpr>(sub->getValue());
  CHECK(p.lineCol(call->getEndLoc()) == std::make_pair(1u, 22u));
  const Keyword &key = call->getKeywords()[0];
  CHECK(p.lineCol(key.nameRange.Start) == std::make_pair(1u, 12u));
  CHECK(p.lineCol(key.range.End) == std::make_pair(1u, 21u));
  CHECK(p.lineCol(key.value->getLoc()) == std::make_pair(1u, 16u));
  const auto *bin = llvm::cast<BinOpExpr>(key.value.get());
  CHECK(p.lineCol(bin->getOpRange().Start) == std::make_pair(1u, 18u));
  CHECK(call->findKeyword("key") == &key);
  CHECK(call->findKeyword("nope") == nullptr);
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

TEST_CASE("parser: imports", "[parser]") {
  Parsed p("import tilelang\nimport tilelang.language as T, os\n"
           "from tilelang import language as T\nfrom . import (a, b as c,)\n"
           "from ..x.y import *\nfrom ... import z\n");
  REQUIRE(p.module);
  const auto &imp = llvm::cast<ImportStmt>(p.stmt(1));
  REQUIRE(imp.getNames().size() == 2);
  CHECK(imp.getNames()[0].name == "tilelang.language");
  CHECK(imp.getNames()[0].asName == "T");
  CHECK(imp.getNames()[1].name == "os");
  CHECK(imp.getNames()[1].asName.empty());
  const auto &from = llvm::cast<ImportFromStmt>(p.stmt(2));
  CHECK(from.getModule() == "tilelang");
  CHECK(from.getLevel() == 0);
  CHECK(from.getNames()[0].name == "language");
  CHECK(from.getNames()[0].asName == "T");
  const auto &rel = llvm::cast<ImportFromStmt>(p.stmt(3));
  CHECK(rel.getLevel() == 1);
  CHECK(rel.getModule().empty());
  CHECK(rel.getNames().size() == 2);
  const auto &star = llvm::cast<ImportFromStmt>(p.stmt(4));
  CHECK(star.getLevel() == 2);
  CHECK(star.getModule() == "x.y");
  CHECK(star.isWildcard());
  CHECK(llvm::cast<ImportFromStmt>(p.stmt(5)).getLevel() == 3);
}

TEST_CASE("parser: function definitions and decorators", "[parser]") {
  Parsed p("@tilelang.jit(out_idx=[-1])\n@T.prim_func\n@simple\n"
           "def f(a, b: int, c=1, d: T.Tensor((M, N), 'float16') = None,)"
           " -> T.int32:\n"
           "    '''doc'''\n    return a\n"
           "def g(): return\n");
  REQUIRE(p.module);
  const auto &f = llvm::cast<FunctionDefStmt>(p.stmt(0));
  CHECK(f.getName() == "f");
  CHECK(p.lineCol(f.getLoc()) == std::make_pair(4u, 1u));
  CHECK(p.lineCol(f.getNameRange().Start) == std::make_pair(4u, 5u));
  REQUIRE(f.getDecorators().size() == 3);
  CHECK(sexpr(f.getDecorators()[0].get()) ==
        "(call (. tilelang jit) out_idx=(list (neg 1)))");
  CHECK(sexpr(f.getDecorators()[1].get()) == "(. T prim_func)");
  CHECK(sexpr(f.getDecorators()[2].get()) == "simple");
  REQUIRE(f.getParams().size() == 4);
  CHECK(f.getParams()[0].name == "a");
  CHECK(f.getParams()[0].annotation == nullptr);
  CHECK(sexpr(f.getParams()[1].annotation.get()) == "int");
  CHECK(sexpr(f.getParams()[2].defaultValue.get()) == "1");
  CHECK(sexpr(f.getParams()[3].annotation.get()) ==
        "(call (. T Tensor) (tuple M N) 'float16')");
  CHECK(sexpr(f.getParams()[3].defaultValue.get()) == "None");
  CHECK(sexpr(f.getReturns()) == "(. T int32)");
  REQUIRE(f.getBody().size() == 2);
  CHECK(llvm::isa<ExprStmt>(f.getBody()[0].get()));
  CHECK(llvm::isa<ReturnStmt>(f.getBody()[1].get()));
  const auto &g = llvm::cast<FunctionDefStmt>(p.stmt(1));
  REQUIRE(g.getBody().size() == 1);
  CHECK(llvm::cast<ReturnStmt>(g.getBody()[0].get())->getValue() == nullptr);
}

TEST_CASE("parser: assignments", "[parser]") {
  Parsed p("a = 1\na, b = b, a\n(c, [d, *e]) = f = g\nx: T.int32 = 0\n"
           "y: int\nA[i, j] = T.max(A[i, j], 0)\nobj.attr = 2\n"
           "s += 1; s -= 1; s *= 2; s /= 2; s //= 2; s %= 2; s **= 2\n"
           "s @= m; s &= 1; s |= 1; s ^= 1; s <<= 1; s >>= 1\n");
  REQUIRE(p.module);
  REQUIRE(p.module->getBody().size() == 20);
  const auto &swap = llvm::cast<AssignStmt>(p.stmt(1));
  CHECK(sexpr(swap.getTargets()[0].get()) == "(tuple a b)");
  CHECK(sexpr(swap.getValue()) == "(tuple b a)");
  const auto &chain = llvm::cast<AssignStmt>(p.stmt(2));
  REQUIRE(chain.getTargets().size() == 2);
  CHECK(sexpr(chain.getTargets()[0].get()) == "(tuple c (list d (* e)))");
  CHECK(sexpr(chain.getTargets()[1].get()) == "f");
  CHECK(sexpr(chain.getValue()) == "g");
  const auto &ann = llvm::cast<AnnAssignStmt>(p.stmt(3));
  CHECK(sexpr(ann.getTarget()) == "x");
  CHECK(sexpr(ann.getAnnotation()) == "(. T int32)");
  CHECK(sexpr(ann.getValue()) == "0");
  CHECK(llvm::cast<AnnAssignStmt>(p.stmt(4)).getValue() == nullptr);
  CHECK(sexpr(llvm::cast<AssignStmt>(p.stmt(5)).getTargets()[0].get()) ==
        "([,] A i j)");
  const BinOpKind ops[] = {
      BinOpKind::Add,   BinOpKind::Sub,      BinOpKind::Mul,
      BinOpKind::Div,   BinOpKind::FloorDiv, BinOpKind::Mod,
      BinOpKind::Pow,   BinOpKind::MatMul,   BinOpKind::BitAnd,
      BinOpKind::BitOr, BinOpKind::BitXor,   BinOpKind::LShift,
      BinOpKind::RShift};
  for (unsigned i = 0; i < 13; ++i) {
    const auto &aug = llvm::cast<AugAssignStmt>(p.stmt(7 + i));
    CHECK(aug.getOp() == ops[i]);
    CHECK(sexpr(aug.getTarget()) == "s");
  }
}

TEST_CASE("parser: control flow statements", "[parser]") {
  Parsed p("def k():\n"
           "    if a:\n        pass\n    elif b: x = 1\n    elif c:\n"
           "        y = 2\n    else:\n        z = 3\n"
           "    for i, j in T.Parallel(M, N):\n"
           "        if i: break\n        continue\n"
           "    for (k,) in range(3): pass\n"
           "    while n < 10:\n        n += 1\n"
           "    with T.Kernel(8, threads=128) as (bx, by), other, a as b:\n"
           "        assert bx < 8, 'msg'\n        assert by\n");
  REQUIRE(p.module);
  const auto &def = llvm::cast<FunctionDefStmt>(p.stmt(0));
  REQUIRE(def.getBody().size() == 5);
  const auto &ifs = llvm::cast<IfStmt>(*def.getBody()[0]);
  REQUIRE(ifs.getBranches().size() == 3);
  CHECK(sexpr(ifs.getBranches()[1].test.get()) == "b");
  CHECK(p.lineCol(ifs.getBranches()[1].keywordLoc) == std::make_pair(4u, 5u));
  CHECK(llvm::isa<AssignStmt>(ifs.getBranches()[1].body[0].get()));
  CHECK(ifs.hasElse());
  CHECK(ifs.getElseBody().size() == 1);
  const auto &loop = llvm::cast<ForStmt>(*def.getBody()[1]);
  CHECK(sexpr(loop.getTarget()) == "(tuple i j)");
  CHECK(sexpr(loop.getIter()) == "(call (. T Parallel) M N)");
  REQUIRE(loop.getBody().size() == 2);
  CHECK(llvm::isa<ContinueStmt>(loop.getBody()[1].get()));
  CHECK(sexpr(llvm::cast<ForStmt>(*def.getBody()[2]).getTarget()) ==
        "(tuple k)");
  const auto &wh = llvm::cast<WhileStmt>(*def.getBody()[3]);
  CHECK(sexpr(wh.getTest()) == "(cmp n < 10)");
  const auto &with = llvm::cast<WithStmt>(*def.getBody()[4]);
  REQUIRE(with.getItems().size() == 3);
  CHECK(sexpr(with.getItems()[0].target.get()) == "(tuple bx by)");
  CHECK(with.getItems()[1].target == nullptr);
  CHECK(sexpr(with.getItems()[2].target.get()) == "b");
  const auto &as = llvm::cast<AssertStmt>(*with.getBody()[0]);
  CHECK(sexpr(as.getMsg()) == "'msg'");
  CHECK(llvm::cast<AssertStmt>(*with.getBody()[1]).getMsg() == nullptr);
  // The whole `def` spans to the end of its last statement.
  CHECK(p.lineCol(def.getEndLoc()) == std::make_pair(17u, 18u));
}

TEST_CASE("parser: simple statements separated by semicolons", "[parser]") {
  Parsed p("a = 1; b = 2;\nif a: c = 3; pass\n");
  REQUIRE(p.module);
  CHECK(p.module->getBody().size() == 3);
  CHECK(llvm::cast<IfStmt>(p.stmt(2)).getBranches()[0].body.size() == 2);
  // Ranges stop at the last token, not at the line break.
  CHECK(p.lineCol(p.stmt(1).getEndLoc()) == std::make_pair(1u, 13u));
  CHECK(p.lineCol(p.stmt(2).getEndLoc()) == std::make_pair(2u, 18u));
}

TEST_CASE("parser: the GEMM example", "[parser]") {
  const char *source = R"(import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M=128, block_N=128, block_K=32, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = T.max(C_local[i, j], 0)
            T.copy(C_local, C[by * block_M, bx * block_N])
    return main
)";
  Parsed p(source);
  REQUIRE(p.module);
  CHECK(p.diags.empty());
  std::string dump = p.dump();
  CHECK(dump.find("  FunctionDef 5:1 matmul\n"
                  "    decorator: Call 4:2\n"
                  "      callee: Attribute 4:2 jit\n"
                  "        value: Name 4:2 tilelang\n"
                  "      keyword 4:15 out_idx\n"
                  "        value: List 4:23\n"
                  "          elt: UnaryOp 4:24 -\n"
                  "            operand: Int 4:25 1\n") != std::string::npos);
  CHECK(dump.find("          With 8:9\n"
                  "            item 8:14\n") != std::string::npos);
  CHECK(dump.find("              as: Tuple 8:85\n"
                  "                elt: Name 8:86 bx\n"
                  "                elt: Name 8:90 by\n") != std::string::npos);
  CHECK(dump.find("                iter: Call 12:23\n") != std::string::npos);
  CHECK(dump.find("                      arg: Subscript 13:24 tuple\n") !=
        std::string::npos);
  CHECK(dump.find("      Return 18:5\n        value: Name 18:12 main\n") !=
        std::string::npos);
}

TEST_CASE("parser: AST dump format", "[parser][dump]") {
  Parsed p("x: T.f32 = -a[1:] if b else 2.0\n"
           "for i in T.serial(4):\n    y = lambda q=1: q\nelse_ = {}\n");
  REQUIRE(p.module);
  CHECK(p.dump() == "Module\n"
                    "  AnnAssign 1:1\n"
                    "    target: Name 1:1 x\n"
                    "    annotation: Attribute 1:4 f32\n"
                    "      value: Name 1:4 T\n"
                    "    value: IfExp 1:12\n"
                    "      test: Name 1:22 b\n"
                    "      body: UnaryOp 1:12 -\n"
                    "        operand: Subscript 1:13\n"
                    "          value: Name 1:13 a\n"
                    "          index: Slice 1:15\n"
                    "            lower: Int 1:15 1\n"
                    "      orelse: Float 1:29 2.0\n"
                    "  For 2:1\n"
                    "    target: Name 2:5 i\n"
                    "    iter: Call 2:10\n"
                    "      callee: Attribute 2:10 serial\n"
                    "        value: Name 2:10 T\n"
                    "      arg: Int 2:19 4\n"
                    "    body:\n"
                    "      Assign 3:5\n"
                    "        target: Name 3:5 y\n"
                    "        value: Lambda 3:9\n"
                    "          param 3:16 q\n"
                    "            default: Int 3:18 1\n"
                    "          body: Name 3:21 q\n"
                    "  Assign 4:1\n"
                    "    target: Name 4:1 else_\n"
                    "    value: Dict 4:9\n");
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_CASE("parser: syntax errors and their positions", "[parser][errors]") {
  struct Case {
    const char *text;
    unsigned line, col;
    const char *message;
  };
  const Case cases[] = {
      {"for i in range(3)\n    pass\n", 1, 18,
       "expected `:` after `for` clause, found `newline`"},
      {"for i in x:\npass\n", 2, 1,
       "expected an indented block after `for` statement on line 1"},
      {"def f():\n", 2, 1,
       "expected an indented block after function definition on line 1"},
      {"if x:\n    a = 1\n  else:\n    pass\n", 3, 3,
       "unindent does not match any outer indentation level"},
      {"x = 1\n    y = 2\n", 2, 5, "unexpected indent"},
      {"x = (1, 2\n", 1, 5, "`(` was never closed"},
      {"x = (\n", 1, 5, "`(` was never closed"},
      {"x = [a[\n", 1, 7, "`[` was never closed"},
      {"def f(a,\n", 1, 6, "`(` was never closed"},
      {"def f():\n  x = {\n", 2, 7, "`{` was never closed"},
      {"x = f(a, b]\n", 1, 11, "expected `,` or `)` in call, found `]`"},
      {"x = [1, 2\ny = 3\n", 2, 1, "expected `,` or `]` in list, found `y`"},
      {"x = 1 2\n", 1, 7, "expected `newline` or `;` after statement"},
      {"x = \n", 1, 5, "expected an expression, found `newline`"},
      {"x = a if b\n", 1, 11,
       "expected `else` in conditional expression, found `newline`"},
      {"f() = 3\n", 1, 1, "cannot assign to a function call"},
      {"a + 1 = 3\n", 1, 1, "cannot assign to an expression"},
      {"None = 1\n", 1, 1, "cannot assign to `None`"},
      {"(a, 1) = x\n", 1, 5, "cannot assign to a literal"},
      {"a, *b, *c = x\n", 1, 8, "multiple starred expressions"},
      {"for f() in x: pass\n", 1, 5, "cannot assign to a function call"},
      {"with a as 1: pass\n", 1, 11, "cannot assign to a literal"},
      {"a, b += 1\n", 1, 1, "the target of `+=` must be a single name"},
      {"a, b: int = 1\n", 1, 1, "only a single name"},
      {"*a\n", 1, 1, "can't use starred expression here"},
      {"x = a.\n", 1, 7, "expected an attribute name after `.`"},
      {"x = a[]\n", 1, 7, "expected an index or slice, found `]`"},
      {"def (x): pass\n", 1, 5, "expected a function name after `def`"},
      {"def f(a=1, b): pass\n", 1, 12,
       "parameter without a default follows a parameter with a default"},
      {"def f(a, a): pass\n", 1, 10, "duplicate parameter `a`"},
      {"def f(a b): pass\n", 1, 9, "expected `,` or `)` in parameter list"},
      {"f(a=1, b)\n", 1, 8, "positional argument follows keyword argument"},
      {"f(**k, *a)\n", 1, 8, "iterable argument unpacking follows"},
      {"f(a=1, a=2)\n", 1, 8, "keyword argument `a` repeated"},
      {"f(a.b=1)\n", 1, 3, "did you mean `==`?"},
      {"x = {'a': 1, 'b'}\n", 1, 17, "expected `:` after dict key"},
      {"import\n", 1, 7, "expected a module name after `import`"},
      {"from x import\n", 1, 14, "expected a name in `from` import"},
      {"from x\n", 1, 7, "expected `import` after the module name"},
      {"@dec\nx = 1\n", 2, 1, "expected `def` after decorator, found `x`"},
      {"return 1\n", 1, 1, "`return` outside of a function"},
      {"break\n", 1, 1, "`break` outside of a loop"},
      {"while x:\n  def f():\n    continue\n", 3, 5,
       "`continue` outside of a loop"},
      {"else:\n  pass\n", 1, 1, "unexpected `else`"},
      {"if x: for y in z: pass\n", 1, 7,
       "a compound statement cannot follow `:`"},
      {"x = 'a' b'b'\n", 1, 9, "cannot mix bytes and non-bytes"},
      {"assert\n", 1, 7, "expected an expression"},
      {"lambda *a: 0\n", 1, 8, "not supported in .tile files"},
  };
  for (const Case &c : cases) {
    INFO(c.text);
    CapturedDiag d = parseError(c.text);
    CHECK(d.line == c.line);
    CHECK(d.col == c.col);
    INFO(d.message);
    CHECK(d.message.find(c.message) != std::string::npos);
  }
}

TEST_CASE("parser: unsupported Python is named clearly", "[parser][errors]") {
  struct Case {
    const char *text;
    unsigned line, col;
    const char *message;
  };
  const Case cases[] = {
      {"class A(metaclass=M):\n  pass\n", 1, 9,
       "class keyword arguments (metaclasses) are not supported in .tile files"},
      {"@d\nclass A: pass\n", 2, 1,
       "decorated `class` definitions are not supported"},
      {"global x\n", 1, 1, "`global` declarations are not supported"},
      {"def f():\n  nonlocal x\n", 2, 3, "`nonlocal` declarations are not"},
      {"try:\n  pass\nexcept E:\n  pass\n", 1, 1,
       "`try` statements and exception handlers are not supported"},
      {"async def f(): pass\n", 1, 1, "`async` is not supported"},
      {"def f():\n  yield 1\n", 2, 3, "`yield` is not supported"},
      {"def f():\n  x = await g()\n", 2, 7, "`await` is not supported"},
      {"del x\n", 1, 1, "`del` statements are not supported"},
      {"x := 1\n", 1, 3, "assignment expressions (`:=`) are not supported"},
      {"f((x := 1))\n", 1, 6, "assignment expressions (`:=`) are not"},
      {"def f(*args): pass\n", 1, 7, "`*args` parameters are not supported"},
      {"def f(**kw): pass\n", 1, 7, "`**kwargs` parameters are not"},
      {"def f(a, *, b): pass\n", 1, 10, "keyword-only marker `*` is not"},
      {"def f(a, /): pass\n", 1, 10, "positional-only marker `/` is not"},
      {"x = [i async for i in y]\n", 1, 8,
       "asynchronous comprehensions are not supported"},
      {"x = {**a}\n", 1, 6, "dict unpacking with `**` is not supported"},
      {"for x in y:\n  pass\nelse:\n  pass\n", 3, 1,
       "`else` clauses on loops are not supported"},
      {"x = f'{a'\n", 1, 7, "`{` in an f-string was never closed"},
      {"x = f'a}'\n", 1, 8, "single `}` is not allowed in an f-string"},
      {"x = f'{a b}'\n", 1, 10, "expected `}` after the f-string's expression"},
      {"x = f'{}'\n", 1, 8, "expected an expression in the f-string's `{}`"},
      {"x = f'{a!z}'\n", 1, 9, "an f-string conversion must be `!r`"},
      {"x = {1, 2 for a in b}\n", 1, 11, "a tuple element of a comprehension"},
      {"with (a as b, c as d):\n  pass\n", 1, 9,
       "parenthesized `with` items are not supported"},
  };
  for (const Case &c : cases) {
    INFO(c.text);
    CapturedDiag d = parseError(c.text);
    CHECK(d.line == c.line);
    CHECK(d.col == c.col);
    INFO(d.message);
    CHECK(d.message.find(c.message) != std::string::npos);
  }
}

TEST_CASE("parser: notes point at the opening bracket", "[parser][errors]") {
  Parsed p("x = T.copy(A[0, 1], B\ny = 2\n");
  CHECK(p.module == nullptr);
  REQUIRE(p.diags.size() == 2);
  CHECK(p.diags[0].severity == DiagSeverity::Error);
  CHECK(p.diags[0].line == 2);
  CHECK(p.diags[0].col == 1);
  CHECK(p.diags[0].message == "expected `,` or `)` in call, found `y`");
  CHECK(p.diags[1].severity == DiagSeverity::Note);
  CHECK(p.diags[1].line == 1);
  CHECK(p.diags[1].col == 11);
  CHECK(p.diags[1].message == "to match this `(`");
}

TEST_CASE("parser: printed errors use clang's format", "[parser][errors]") {
  llvm::SourceMgr sm;
  unsigned id =
      sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(
                                "for i in range(3)\n    pass\n", "gemm.tile"),
                            llvm::SMLoc());
  std::string out;
  llvm::raw_string_ostream os(out);
  DiagnosticEngine diag(sm, os);
  diag.setShowColors(false);
  CHECK(parseModule(sm, id, diag) == nullptr);
  CHECK(out == "gemm.tile:1:18: error: expected `:` after `for` clause, "
               "found `newline`\n"
               "for i in range(3)\n"
               "                 ^\n");
  CHECK(diag.errorCount() == 1);
}

TEST_CASE("parser: a lexical error stops parsing", "[parser][errors]") {
  // The syntax error on line 2 is never reached.
  Parsed p("x = 1 $\ny = (\n");
  CHECK(p.module == nullptr);
  REQUIRE(p.diags.size() == 1);
  CHECK(p.diags[0].message == "unexpected character `$`");
  CHECK(p.diags[0].line == 1);
}

//===----------------------------------------------------------------------===//
// Robustness and speed
//===----------------------------------------------------------------------===//

TEST_CASE("parser: 20,000 nested parentheses", "[parser][robustness]") {
  for (const char *open : {"(", "[", "{"}) {
    std::string closeStr = open[0] == '(' ? ")" : open[0] == '[' ? "]" : "}";
    std::string text = "x = ";
    for (int i = 0; i < 20000; ++i)
      text += open;
    text += "1";
    for (int i = 0; i < 20000; ++i)
      text += closeStr;
    text += "\n";
    CapturedDiag d = parseError(text);
    CHECK(d.line == 1);
    CHECK(d.message.find("nested") != std::string::npos);
  }
}

TEST_CASE("parser: 5,000 nested blocks", "[parser][robustness]") {
  std::string text;
  for (int i = 0; i < 5000; ++i)
    text += std::string(i, ' ') + "if x:\n";
  text += std::string(5000, ' ') + "pass\n";
  CapturedDiag d = parseError(text);
  CHECK(d.message.find("too many levels of indentation") == 0);

  // The same with tabs, and with `def`s.
  text.clear();
  for (int i = 0; i < 5000; ++i)
    text += std::string(i, '\t') + "def f():\n";
  text += std::string(5000, '\t') + "pass\n";
  d = parseError(text);
  CHECK(d.message.find("too many levels of indentation") == 0);

  // 150 levels are fine.
  text.clear();
  for (int i = 0; i < 150; ++i)
    text += std::string(i, ' ') + "while x:\n";
  text += std::string(150, ' ') + "break\n";
  Parsed ok(text);
  CHECK(ok.module != nullptr);
}

TEST_CASE("parser: long elif chains", "[parser][robustness]") {
  auto chain = [](unsigned elifs) {
    std::string text = "if x == 0:\n    pass\n";
    for (unsigned i = 1; i <= elifs; ++i)
      text += "elif x == " + std::to_string(i) + ":\n    pass\n";
    return text + "else:\n    pass\n";
  };
  // 200 `elif` arms are fine; the 201st is reported where it starts.
  Parsed ok(chain(kMaxElifBranches));
  REQUIRE(ok.module);
  CHECK(llvm::cast<IfStmt>(ok.stmt(0)).getBranches().size() ==
        kMaxElifBranches + 1);
  CapturedDiag d = parseError(chain(100000));
  CHECK(d.line == 2 * (kMaxElifBranches + 1) + 1);
  CHECK(d.col == 1);
  CHECK(d.message == "too many `elif` branches in one `if` statement (the "
                     "limit is 200)");
}

TEST_CASE("parser: deep chains without brackets", "[parser][robustness]") {
  auto repeat = [](const std::string &s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i)
      out += s;
    return out;
  };
  // Recursive rules hit the nesting limit...
  for (const std::string &text :
       {"x = " + repeat("-", 20000) + "1\n",
        "x = " + repeat("not ", 20000) + "a\n",
        "x = " + repeat("~", 20000) + "a\n",
        "x = " + repeat("lambda: ", 20000) + "0\n",
        "x = " + repeat("a if b else ", 20000) + "c\n",
        "x = " + repeat("a ** ", 20000) + "b\n"}) {
    CapturedDiag d = parseError(text);
    CHECK(d.message.find("nested too deeply") != std::string::npos);
  }
  // ...and loops that build left-deep trees hit the height limit.
  for (const std::string &text : {"x = a" + repeat(" + a", 100000) + "\n",
                                  "x = a" + repeat(".b", 100000) + "\n",
                                  "x = f" + repeat("()", 100000) + "\n",
                                  "x = a" + repeat("[0]", 100000) + "\n"}) {
    CapturedDiag d = parseError(text);
    CHECK(d.message.find("too deeply nested or too long") != std::string::npos);
  }
  // Flat lists of any length are fine.
  Parsed wide("x = [" + repeat("1, ", 100000) + "]\ny = a" +
              repeat(" and a", 10000) + "\n");
  CHECK(wide.module != nullptr);
  // Sums below the limit are fine too.
  Parsed sum("x = a" + repeat(" + a", 500) + "\n");
  CHECK(sum.module != nullptr);
  // Every `for` clause of a comprehension is one more level: 100,000 of them
  // hit the height limit, while 500 (with any number of `if`s) are fine.
  CapturedDiag d = parseError("x = [a" + repeat(" for a in b", 100000) + "]\n");
  CHECK(d.message.find("too deeply nested or too long") != std::string::npos);
  Parsed clauses("x = [a" + repeat(" for a in b", 500) +
                 repeat(" if a", 100000) + "]\n");
  CHECK(clauses.module != nullptr);
  // Nested comprehensions recurse through brackets: the nesting limit.
  d = parseError("x = " + repeat("[", 20000) + "a" +
                 repeat(" for a in b]", 20000) + "\n");
  CHECK(d.message.find("nested") != std::string::npos);
}

TEST_CASE("parser: empty files and odd endings", "[parser][robustness]") {
  for (const char *text :
       {"", "\n", "# c", "   ", "\n\n\n", "x = 1", "if x:\n  y = 1",
        "if x:\r\n  y = 1\r\nelse:\r\n  z = 2\r\n", "\xEF\xBB\xBFpass\n",
        "def f():\n    pass\n    # trailing comment"}) {
    INFO(text);
    Parsed p(text);
    CHECK(p.module != nullptr);
    CHECK(p.diags.empty());
  }
  CapturedDiag d = parseError("x = 1\r");
  CHECK(d.message.find("lone carriage return") == 0);
  d = parseError("if x:\ry\n");
  CHECK(d.col == 6);
  d = parseError(std::string("x = 1\n\0", 7));
  CHECK(d.line == 2);
}

TEST_CASE("parser: 1,000 lines take milliseconds", "[parser][perf]") {
  std::string text = "import tilelang.language as T\n\n"
                     "def factory(M, N, K, bm=128, bn=128, bk=32):\n";
  int lines = 3;
  for (int k = 0; lines < 1000; ++k) {
    text += "    @T.prim_func\n"
            "    def kernel" +
            std::to_string(k) +
            "(A: T.Tensor((M, K), 'float16'), C: T.Tensor((M, N), "
            "'float')):\n"
            "        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), "
            "threads=128) as (bx, by):\n"
            "            A_s = T.alloc_shared((bm, bk), 'float16')\n"
            "            C_l = T.alloc_fragment((bm, bn), 'float')\n"
            "            T.clear(C_l)\n"
            "            for ko in T.Pipelined(T.ceildiv(K, bk), "
            "num_stages=3):\n"
            "                T.copy(A[by * bm, ko * bk], A_s)\n"
            "                T.gemm(A_s, A_s, C_l, transpose_B=True)\n"
            "            for i, j in T.Parallel(bm, bn):\n"
            "                C_l[i, j] = T.max(C_l[i, j], 0) if i > 0 else "
            "-C_l[i, j] ** 2\n"
            "            T.copy(C_l, C[by * bm, bx * bn])\n";
    lines += 12;
  }
  text += "    return kernel0\n";
  auto start = std::chrono::steady_clock::now();
  Parsed p(text);
  auto elapsed = std::chrono::steady_clock::now() - start;
  REQUIRE(p.module != nullptr);
  double ms = std::chrono::duration<double, std::milli>(elapsed).count();
  INFO("parsed " << lines << " lines in " << ms << " ms");
  // Typically 1-3 ms in a release build; the bound leaves room for debug
  // and sanitizer builds on a loaded machine.
  CHECK(ms < 250.0);
}
