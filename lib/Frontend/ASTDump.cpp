//===- ASTDump.cpp - Textual dump of a .tile syntax tree ------------------===//
//
// The format, by example:
//
//   Module
//     Assign 3:1
//       target: Name 3:1 x
//       value: BinOp 3:5 +
//         lhs: Int 3:5 1
//         rhs: Name 3:9 y
//
// Every line is `[label: ]Kind line:col [payload]`. Statement lists print
// under a `body:` / `else:` header; each `for` clause of a comprehension
// prints as a `for line:col` line over its target, iter and `if`s. Recursion
// depth is bounded by the parser's nesting and height limits.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/ASTDump.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace tilec;
using namespace tilec::ast;

std::string tilec::formatFloat(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  // Shortest digits that read back exactly, then Python's repr layout:
  // positional for exponents in [-4, 16), scientific otherwise.
  char buf[64];
  for (int precision = 0; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision, value);
    if (std::strtod(buf, nullptr) == value)
      break;
  }
  llvm::StringRef text(buf);
  std::string sign;
  if (text.consume_front("-"))
    sign = "-";
  auto [mantissa, expText] = text.split('e');
  int exp = 0;
  expText.consume_front("+");
  expText.getAsInteger(10, exp);
  std::string digits;
  for (char c : mantissa)
    if (c != '.')
      digits.push_back(c);
  while (digits.size() > 1 && digits.back() == '0')
    digits.pop_back();

  std::string out = sign;
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      std::string whole =
          digits.substr(0, std::min<size_t>(digits.size(), exp + 1));
      whole.append(exp + 1 - whole.size(), '0');
      std::string frac = digits.size() > static_cast<size_t>(exp + 1)
                             ? digits.substr(exp + 1)
                             : "0";
      out += whole + "." + frac;
    } else {
      out += "0." + std::string(-exp - 1, '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1)
    out += "." + digits.substr(1);
  char expBuf[16];
  std::snprintf(expBuf, sizeof(expBuf), "e%c%02d", exp < 0 ? '-' : '+',
                exp < 0 ? -exp : exp);
  return out + expBuf;
}

namespace {

class Dumper {
public:
  Dumper(const Module &module, llvm::raw_ostream &os)
      : module(module), os(os) {}

  void dumpModule() {
    os << "Module\n";
    for (const StmtPtr &stmt : module.getBody())
      dumpStmt(*stmt, 1);
  }

  void dumpStmt(const Stmt &stmt, unsigned indent);
  void dumpExpr(const Expr &expr, unsigned indent, llvm::StringRef label = "");

private:
  /// Starts a node line: indentation, label, kind and position.
  llvm::raw_ostream &line(unsigned indent, llvm::StringRef label,
                          llvm::StringRef kind, llvm::SMLoc loc) {
    os.indent(indent * 2);
    if (!label.empty())
      os << label << ": ";
    os << kind;
    if (loc.isValid()) {
      auto [lineNo, col] = module.getLineCol(loc);
      os << ' ' << lineNo << ':' << col;
    }
    return os;
  }
  void header(unsigned indent, llvm::StringRef label) {
    os.indent(indent * 2) << label << ":\n";
  }
  void dumpBody(llvm::ArrayRef<StmtPtr> body, unsigned indent,
                llvm::StringRef label = "body") {
    header(indent, label);
    for (const StmtPtr &stmt : body)
      dumpStmt(*stmt, indent + 1);
  }
  void dumpOptional(const Expr *expr, unsigned indent, llvm::StringRef label) {
    if (expr)
      dumpExpr(*expr, indent, label);
  }
  void dumpParams(llvm::ArrayRef<Param> params, unsigned indent) {
    for (const Param &param : params) {
      line(indent, "", "param", param.nameRange.Start)
          << ' ' << param.name << '\n';
      dumpOptional(param.annotation.get(), indent + 1, "annotation");
      dumpOptional(param.defaultValue.get(), indent + 1, "default");
    }
  }
  void dumpAliases(llvm::ArrayRef<ImportAlias> names, unsigned indent) {
    for (const ImportAlias &alias : names) {
      line(indent, "", "alias", alias.nameRange.Start) << ' ' << alias.name;
      if (!alias.asName.empty())
        os << " as " << alias.asName;
      os << '\n';
    }
  }

  const Module &module;
  llvm::raw_ostream &os;
};

} // namespace

void Dumper::dumpExpr(const Expr &expr, unsigned indent,
                      llvm::StringRef label) {
  line(indent, label, getKindName(expr.getKind()), expr.getLoc());
  unsigned in = indent + 1;
  switch (expr.getKind()) {
  case Expr::Kind::Name:
    os << ' ' << llvm::cast<NameExpr>(expr).getName() << '\n';
    return;
  case Expr::Kind::Int:
    os << ' '
       << llvm::toString(llvm::cast<IntExpr>(expr).getValue(), 10,
                         /*Signed=*/false)
       << '\n';
    return;
  case Expr::Kind::Float:
    os << ' ' << formatFloat(llvm::cast<FloatExpr>(expr).getValue()) << '\n';
    return;
  case Expr::Kind::String: {
    const auto &str = llvm::cast<StringExpr>(expr);
    os << ' ' << (str.isBytes() ? "b\"" : "\"");
    llvm::printEscapedString(str.getValue(), os);
    os << "\"\n";
    return;
  }
  case Expr::Kind::Bool:
    os << (llvm::cast<BoolExpr>(expr).getValue() ? " True\n" : " False\n");
    return;
  case Expr::Kind::None:
    os << '\n';
    return;
  case Expr::Kind::Attribute: {
    const auto &attr = llvm::cast<AttributeExpr>(expr);
    os << ' ' << attr.getAttr() << '\n';
    dumpExpr(*attr.getValue(), in, "value");
    return;
  }
  case Expr::Kind::Call: {
    const auto &call = llvm::cast<CallExpr>(expr);
    os << '\n';
    dumpExpr(*call.getCallee(), in, "callee");
    for (const ExprPtr &arg : call.getArgs())
      dumpExpr(*arg, in, "arg");
    for (const Keyword &keyword : call.getKeywords()) {
      line(in, "", "keyword", keyword.range.Start)
          << ' ' << (keyword.isDoubleStar() ? "**" : keyword.name) << '\n';
      dumpExpr(*keyword.value, in + 1, "value");
    }
    return;
  }
  case Expr::Kind::Subscript: {
    const auto &sub = llvm::cast<SubscriptExpr>(expr);
    os << (sub.isTupleIndex() ? " tuple\n" : "\n");
    dumpExpr(*sub.getValue(), in, "value");
    for (const ExprPtr &index : sub.getIndices())
      dumpExpr(*index, in, "index");
    return;
  }
  case Expr::Kind::Slice: {
    const auto &slice = llvm::cast<SliceExpr>(expr);
    os << '\n';
    dumpOptional(slice.getLower(), in, "lower");
    dumpOptional(slice.getUpper(), in, "upper");
    dumpOptional(slice.getStep(), in, "step");
    return;
  }
  case Expr::Kind::Tuple:
    os << '\n';
    for (const ExprPtr &elt : llvm::cast<TupleExpr>(expr).getElts())
      dumpExpr(*elt, in, "elt");
    return;
  case Expr::Kind::List:
    os << (llvm::cast<ListExpr>(expr).isSet() ? " set\n" : "\n");
    for (const ExprPtr &elt : llvm::cast<ListExpr>(expr).getElts())
      dumpExpr(*elt, in, "elt");
    return;
  case Expr::Kind::Dict: {
    const auto &dict = llvm::cast<DictExpr>(expr);
    os << '\n';
    for (auto [key, value] : llvm::zip(dict.getKeys(), dict.getValues())) {
      dumpExpr(*key, in, "key");
      dumpExpr(*value, in, "value");
    }
    return;
  }
  case Expr::Kind::BinOp: {
    const auto &bin = llvm::cast<BinOpExpr>(expr);
    os << ' ' << getSpelling(bin.getOp()) << '\n';
    dumpExpr(*bin.getLHS(), in, "lhs");
    dumpExpr(*bin.getRHS(), in, "rhs");
    return;
  }
  case Expr::Kind::UnaryOp: {
    const auto &un = llvm::cast<UnaryOpExpr>(expr);
    os << ' ' << getSpelling(un.getOp()) << '\n';
    dumpExpr(*un.getOperand(), in, "operand");
    return;
  }
  case Expr::Kind::BoolOp: {
    const auto &boolOp = llvm::cast<BoolOpExpr>(expr);
    os << ' ' << getSpelling(boolOp.getOp()) << '\n';
    for (const ExprPtr &value : boolOp.getValues())
      dumpExpr(*value, in, "value");
    return;
  }
  case Expr::Kind::Compare: {
    const auto &cmp = llvm::cast<CompareExpr>(expr);
    os << '\n';
    dumpExpr(*cmp.getLeft(), in, "left");
    for (auto [op, comparator] : llvm::zip(cmp.getOps(), cmp.getComparators()))
      dumpExpr(*comparator, in, getSpelling(op));
    return;
  }
  case Expr::Kind::IfExp: {
    const auto &ifExp = llvm::cast<IfExpExpr>(expr);
    os << '\n';
    dumpExpr(*ifExp.getTest(), in, "test");
    dumpExpr(*ifExp.getBody(), in, "body");
    dumpExpr(*ifExp.getOrElse(), in, "orelse");
    return;
  }
  case Expr::Kind::Lambda: {
    const auto &lambda = llvm::cast<LambdaExpr>(expr);
    os << '\n';
    dumpParams(lambda.getParams(), in);
    dumpExpr(*lambda.getBody(), in, "body");
    return;
  }
  case Expr::Kind::Starred:
    os << '\n';
    dumpExpr(*llvm::cast<StarredExpr>(expr).getValue(), in, "value");
    return;
  case Expr::Kind::ListComp: {
    const auto &comp = llvm::cast<ListCompExpr>(expr);
    os << (comp.isGenerator() ? " generator\n"
           : comp.getValue()  ? " dict\n"
           : comp.isSet()     ? " set\n"
                              : "\n");
    dumpExpr(*comp.getElt(), in, comp.getValue() ? "key" : "elt");
    if (comp.getValue())
      dumpExpr(*comp.getValue(), in, "value");
    for (const Comprehension &clause : comp.getGenerators()) {
      line(in, "", "for", clause.range.Start) << '\n';
      dumpExpr(*clause.target, in + 1, "target");
      dumpExpr(*clause.iter, in + 1, "iter");
      for (const ExprPtr &cond : clause.ifs)
        dumpExpr(*cond, in + 1, "if");
    }
    return;
  }
  }
  llvm_unreachable("unknown expression kind");
}

void Dumper::dumpStmt(const Stmt &stmt, unsigned indent) {
  line(indent, "", getKindName(stmt.getKind()), stmt.getLoc());
  unsigned in = indent + 1;
  switch (stmt.getKind()) {
  case Stmt::Kind::Import:
    os << '\n';
    dumpAliases(llvm::cast<ImportStmt>(stmt).getNames(), in);
    return;
  case Stmt::Kind::ImportFrom: {
    const auto &from = llvm::cast<ImportFromStmt>(stmt);
    os << ' ' << std::string(from.getLevel(), '.') << from.getModule()
       << (from.isWildcard() ? " *\n" : "\n");
    dumpAliases(from.getNames(), in);
    return;
  }
  case Stmt::Kind::FunctionDef: {
    const auto &def = llvm::cast<FunctionDefStmt>(stmt);
    os << ' ' << def.getName() << '\n';
    for (const ExprPtr &decorator : def.getDecorators())
      dumpExpr(*decorator, in, "decorator");
    dumpParams(def.getParams(), in);
    dumpOptional(def.getReturns(), in, "returns");
    dumpBody(def.getBody(), in);
    return;
  }
  case Stmt::Kind::Return:
    os << '\n';
    dumpOptional(llvm::cast<ReturnStmt>(stmt).getValue(), in, "value");
    return;
  case Stmt::Kind::Assign: {
    const auto &assign = llvm::cast<AssignStmt>(stmt);
    os << '\n';
    for (const ExprPtr &target : assign.getTargets())
      dumpExpr(*target, in, "target");
    dumpExpr(*assign.getValue(), in, "value");
    return;
  }
  case Stmt::Kind::AugAssign: {
    const auto &aug = llvm::cast<AugAssignStmt>(stmt);
    os << ' ' << getSpelling(aug.getOp()) << "=\n";
    dumpExpr(*aug.getTarget(), in, "target");
    dumpExpr(*aug.getValue(), in, "value");
    return;
  }
  case Stmt::Kind::AnnAssign: {
    const auto &ann = llvm::cast<AnnAssignStmt>(stmt);
    os << '\n';
    dumpExpr(*ann.getTarget(), in, "target");
    dumpExpr(*ann.getAnnotation(), in, "annotation");
    dumpOptional(ann.getValue(), in, "value");
    return;
  }
  case Stmt::Kind::ExprStmt:
    os << '\n';
    dumpExpr(*llvm::cast<ExprStmt>(stmt).getValue(), in, "value");
    return;
  case Stmt::Kind::If: {
    const auto &ifStmt = llvm::cast<IfStmt>(stmt);
    os << '\n';
    bool first = true;
    for (const IfBranch &branch : ifStmt.getBranches()) {
      line(in, "", first ? "if" : "elif", branch.keywordLoc) << '\n';
      first = false;
      dumpExpr(*branch.test, in + 1, "test");
      dumpBody(branch.body, in + 1);
    }
    if (ifStmt.hasElse()) {
      line(in, "", "else", ifStmt.getElseLoc()) << '\n';
      dumpBody(ifStmt.getElseBody(), in + 1);
    }
    return;
  }
  case Stmt::Kind::For: {
    const auto &forStmt = llvm::cast<ForStmt>(stmt);
    os << '\n';
    dumpExpr(*forStmt.getTarget(), in, "target");
    dumpExpr(*forStmt.getIter(), in, "iter");
    dumpBody(forStmt.getBody(), in);
    return;
  }
  case Stmt::Kind::While: {
    const auto &whileStmt = llvm::cast<WhileStmt>(stmt);
    os << '\n';
    dumpExpr(*whileStmt.getTest(), in, "test");
    dumpBody(whileStmt.getBody(), in);
    return;
  }
  case Stmt::Kind::With: {
    const auto &with = llvm::cast<WithStmt>(stmt);
    os << '\n';
    for (const WithItem &item : with.getItems()) {
      line(in, "", "item", item.context->getLoc()) << '\n';
      dumpExpr(*item.context, in + 1, "context");
      dumpOptional(item.target.get(), in + 1, "as");
    }
    dumpBody(with.getBody(), in);
    return;
  }
  case Stmt::Kind::Pass:
  case Stmt::Kind::Break:
  case Stmt::Kind::Continue:
    os << '\n';
    return;
  case Stmt::Kind::Assert: {
    const auto &assertStmt = llvm::cast<AssertStmt>(stmt);
    os << '\n';
    dumpExpr(*assertStmt.getTest(), in, "test");
    dumpOptional(assertStmt.getMsg(), in, "msg");
    return;
  }
  case Stmt::Kind::Raise:
    os << '\n';
    dumpOptional(llvm::cast<RaiseStmt>(stmt).getExc(), in, "exc");
    return;
  case Stmt::Kind::ClassDef: {
    const auto &def = llvm::cast<ClassDefStmt>(stmt);
    os << ' ' << def.getName() << '\n';
    for (const ExprPtr &base : def.getBases())
      dumpExpr(*base, in, "base");
    dumpBody(def.getBody(), in);
    return;
  }
  }
  llvm_unreachable("unknown statement kind");
}

void tilec::dumpAST(const Module &module, llvm::raw_ostream &os) {
  Dumper(module, os).dumpModule();
}

void tilec::dumpAST(const Module &module, const Expr &expr,
                    llvm::raw_ostream &os, unsigned indent) {
  Dumper(module, os).dumpExpr(expr, indent);
}

void tilec::dumpAST(const Module &module, const Stmt &stmt,
                    llvm::raw_ostream &os, unsigned indent) {
  Dumper(module, os).dumpStmt(stmt, indent);
}
