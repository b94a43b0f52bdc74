//===- AST.cpp - Syntax tree of a .tile file ------------------------------===//
//
// Out-of-line pieces of the AST: anchors for the virtual destructors, node
// heights (which the parser uses to bound recursion in every later walk),
// and operator / kind spellings shared by the dumper and diagnostics.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/AST.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

using namespace tilec;
using namespace tilec::ast;

Expr::~Expr() = default;
Stmt::~Stmt() = default;

unsigned Expr::heightOver(std::initializer_list<const Expr *> children) {
  unsigned tallest = 0;
  for (const Expr *child : children)
    if (child)
      tallest = std::max(tallest, child->getHeight());
  return tallest + 1;
}

unsigned Expr::heightOver(llvm::ArrayRef<ExprPtr> children, unsigned atLeast) {
  unsigned tallest = 0;
  for (const ExprPtr &child : children)
    if (child)
      tallest = std::max(tallest, child->getHeight());
  return std::max(atLeast, tallest + 1);
}

/// Height of a node over a list of parameters (annotations and defaults).
static unsigned paramsHeight(llvm::ArrayRef<Param> params) {
  unsigned tallest = 0;
  for (const Param &param : params) {
    if (param.annotation)
      tallest = std::max(tallest, param.annotation->getHeight());
    if (param.defaultValue)
      tallest = std::max(tallest, param.defaultValue->getHeight());
  }
  return tallest;
}

static unsigned keywordsHeight(llvm::ArrayRef<Keyword> keywords) {
  unsigned tallest = 0;
  for (const Keyword &keyword : keywords)
    if (keyword.value)
      tallest = std::max(tallest, keyword.value->getHeight());
  return tallest;
}

CallExpr::CallExpr(llvm::SMRange range, ExprPtr callee,
                   std::vector<ExprPtr> args, std::vector<Keyword> keywords)
    : Expr(Kind::Call, range,
           heightOver(args, std::max(heightOver({callee.get()}),
                                     keywordsHeight(keywords) + 1))),
      callee(std::move(callee)), args(std::move(args)),
      keywords(std::move(keywords)) {}

const Keyword *CallExpr::findKeyword(llvm::StringRef name) const {
  for (const Keyword &keyword : keywords)
    if (!keyword.isDoubleStar() && keyword.name == name)
      return &keyword;
  return nullptr;
}

LambdaExpr::LambdaExpr(llvm::SMRange range, std::vector<Param> params,
                       ExprPtr body)
    : Expr(Kind::Lambda, range,
           std::max(heightOver({body.get()}), paramsHeight(params) + 1)),
      params(std::move(params)), body(std::move(body)) {}

/// A comprehension nests one loop per `for` clause, so each clause adds a
/// level to the height on top of its tallest part: later stages may
/// evaluate the clauses recursively, and the height bound must cover that.
static unsigned comprehensionHeight(const Expr *elt,
                                    llvm::ArrayRef<Comprehension> generators) {
  unsigned tallest = elt ? elt->getHeight() : 0;
  for (const Comprehension &gen : generators) {
    for (const Expr *part : {gen.target.get(), gen.iter.get()})
      if (part)
        tallest = std::max(tallest, part->getHeight());
    for (const ExprPtr &cond : gen.ifs)
      if (cond)
        tallest = std::max(tallest, cond->getHeight());
  }
  return tallest + static_cast<unsigned>(generators.size()) + 1;
}

ListCompExpr::ListCompExpr(llvm::SMRange range, ExprPtr elt,
                           std::vector<Comprehension> generators,
                           bool generator)
    : Expr(Kind::ListComp, range, comprehensionHeight(elt.get(), generators)),
      elt(std::move(elt)), generators(std::move(generators)),
      generator(generator) {}

FunctionDefStmt::FunctionDefStmt(llvm::SMRange range, llvm::StringRef name,
                                 llvm::SMRange nameRange,
                                 std::vector<ExprPtr> decorators,
                                 std::vector<Param> params, ExprPtr returns,
                                 StmtList body)
    : Stmt(Kind::FunctionDef, range), name(name), nameRange(nameRange),
      decorators(std::move(decorators)), params(std::move(params)),
      returns(std::move(returns)), body(std::move(body)) {}

llvm::StringRef ast::getSpelling(BinOpKind op) {
  switch (op) {
  case BinOpKind::Add:
    return "+";
  case BinOpKind::Sub:
    return "-";
  case BinOpKind::Mul:
    return "*";
  case BinOpKind::MatMul:
    return "@";
  case BinOpKind::Div:
    return "/";
  case BinOpKind::FloorDiv:
    return "//";
  case BinOpKind::Mod:
    return "%";
  case BinOpKind::Pow:
    return "**";
  case BinOpKind::LShift:
    return "<<";
  case BinOpKind::RShift:
    return ">>";
  case BinOpKind::BitOr:
    return "|";
  case BinOpKind::BitXor:
    return "^";
  case BinOpKind::BitAnd:
    return "&";
  }
  llvm_unreachable("unknown binary operator");
}

llvm::StringRef ast::getSpelling(UnaryOpKind op) {
  switch (op) {
  case UnaryOpKind::Neg:
    return "-";
  case UnaryOpKind::Pos:
    return "+";
  case UnaryOpKind::Invert:
    return "~";
  case UnaryOpKind::Not:
    return "not";
  }
  llvm_unreachable("unknown unary operator");
}

llvm::StringRef ast::getSpelling(BoolOpKind op) {
  return op == BoolOpKind::And ? "and" : "or";
}

llvm::StringRef ast::getSpelling(CmpOpKind op) {
  switch (op) {
  case CmpOpKind::Eq:
    return "==";
  case CmpOpKind::NotEq:
    return "!=";
  case CmpOpKind::Lt:
    return "<";
  case CmpOpKind::LtE:
    return "<=";
  case CmpOpKind::Gt:
    return ">";
  case CmpOpKind::GtE:
    return ">=";
  case CmpOpKind::Is:
    return "is";
  case CmpOpKind::IsNot:
    return "is not";
  case CmpOpKind::In:
    return "in";
  case CmpOpKind::NotIn:
    return "not in";
  }
  llvm_unreachable("unknown comparison operator");
}

llvm::StringRef ast::getKindName(Expr::Kind kind) {
  switch (kind) {
  case Expr::Kind::Name:
    return "Name";
  case Expr::Kind::Int:
    return "Int";
  case Expr::Kind::Float:
    return "Float";
  case Expr::Kind::String:
    return "String";
  case Expr::Kind::Bool:
    return "Bool";
  case Expr::Kind::None:
    return "None";
  case Expr::Kind::Attribute:
    return "Attribute";
  case Expr::Kind::Call:
    return "Call";
  case Expr::Kind::Subscript:
    return "Subscript";
  case Expr::Kind::Slice:
    return "Slice";
  case Expr::Kind::Tuple:
    return "Tuple";
  case Expr::Kind::List:
    return "List";
  case Expr::Kind::Dict:
    return "Dict";
  case Expr::Kind::BinOp:
    return "BinOp";
  case Expr::Kind::UnaryOp:
    return "UnaryOp";
  case Expr::Kind::BoolOp:
    return "BoolOp";
  case Expr::Kind::Compare:
    return "Compare";
  case Expr::Kind::IfExp:
    return "IfExp";
  case Expr::Kind::Lambda:
    return "Lambda";
  case Expr::Kind::Starred:
    return "Starred";
  case Expr::Kind::ListComp:
    return "ListComp";
  }
  llvm_unreachable("unknown expression kind");
}

llvm::StringRef ast::getKindName(Stmt::Kind kind) {
  switch (kind) {
  case Stmt::Kind::Import:
    return "Import";
  case Stmt::Kind::ImportFrom:
    return "ImportFrom";
  case Stmt::Kind::FunctionDef:
    return "FunctionDef";
  case Stmt::Kind::Return:
    return "Return";
  case Stmt::Kind::Assign:
    return "Assign";
  case Stmt::Kind::AugAssign:
    return "AugAssign";
  case Stmt::Kind::AnnAssign:
    return "AnnAssign";
  case Stmt::Kind::ExprStmt:
    return "ExprStmt";
  case Stmt::Kind::If:
    return "If";
  case Stmt::Kind::For:
    return "For";
  case Stmt::Kind::While:
    return "While";
  case Stmt::Kind::With:
    return "With";
  case Stmt::Kind::Pass:
    return "Pass";
  case Stmt::Kind::Break:
    return "Break";
  case Stmt::Kind::Continue:
    return "Continue";
  case Stmt::Kind::Assert:
    return "Assert";
  case Stmt::Kind::Raise:
    return "Raise";
  case Stmt::Kind::ClassDef:
    return "ClassDef";
  }
  llvm_unreachable("unknown statement kind");
}
