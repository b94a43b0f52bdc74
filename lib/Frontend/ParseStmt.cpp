//===- ParseStmt.cpp - Statements of the .tile grammar --------------------===//
//
// The statement rules of grammar/tile.ebnf, in the grammar's order: simple
// statements (assignments, imports, assert, return), then `def`, blocks and
// the compound statements. Placement rules that Python's compiler checks
// (`return` outside a function, `break` outside a loop) are checked here
// too, so that they are reported as syntax errors with the same position.
//
//===----------------------------------------------------------------------===//

#include "ParserImpl.h"

#include "llvm/ADT/StringSet.h"

using namespace tilec;
using namespace tilec::ast;
using tilec::detail::Parser;

//===----------------------------------------------------------------------===//
// statement, simple_stmts
//===----------------------------------------------------------------------===//

bool Parser::parseStatement(StmtList &out) {
  StmtPtr stmt;
  switch (tok.getKind()) {
  case TokenKind::Indent:
    emitErrorAtTok("unexpected indent");
    return false;
  case TokenKind::At:
    stmt = parseDecorated();
    break;
  case TokenKind::KwDef:
    stmt = parseFunctionDef({});
    break;
  case TokenKind::KwIf:
    stmt = parseIfStmt();
    break;
  case TokenKind::KwFor:
    stmt = parseForStmt();
    break;
  case TokenKind::KwWhile:
    stmt = parseWhileStmt();
    break;
  case TokenKind::KwWith:
    stmt = parseWithStmt();
    break;
  case TokenKind::KwClass:
    stmt = parseClassDef();
    break;
  case TokenKind::KwTry:
  case TokenKind::KwExcept:
  case TokenKind::KwFinally:
    unsupported("`try` statements and exception handlers are");
    return false;
  case TokenKind::KwAsync:
    unsupported("`async` is");
    return false;
  case TokenKind::KwElif:
  case TokenKind::KwElse:
    emitErrorAtTok("unexpected " + describe(tok) +
                   "; it must follow an `if` block at the same indentation");
    return false;
  default:
    return parseSimpleStmts(out);
  }
  if (!stmt)
    return false;
  out.push_back(std::move(stmt));
  return true;
}

bool Parser::parseSimpleStmts(StmtList &out) {
  while (true) {
    StmtPtr stmt = parseSimpleStmt();
    if (!stmt)
      return false;
    out.push_back(std::move(stmt));
    if (!consumeIf(TokenKind::Semi))
      break;
    if (tok.isAny(TokenKind::Newline, TokenKind::EndOfFile))
      break;
  }
  // Statement ranges end at their last token, not at the line break.
  llvm::SMLoc end = prevEnd;
  if (consumeIf(TokenKind::Newline) || tok.is(TokenKind::EndOfFile)) {
    prevEnd = end;
    return true;
  }
  if (tok.is(TokenKind::ColonEqual)) {
    unsupported("assignment expressions (`:=`) are");
    return false;
  }
  errorExpected("`newline` or `;`", "after statement");
  return false;
}

StmtPtr Parser::parseSimpleStmt() {
  llvm::SMLoc start = tok.getLoc();
  switch (tok.getKind()) {
  case TokenKind::KwReturn:
    return parseReturnStmt();
  case TokenKind::KwImport:
    return parseImportName();
  case TokenKind::KwFrom:
    return parseImportFrom();
  case TokenKind::KwAssert:
    return parseAssertStmt();
  case TokenKind::KwPass:
    consume();
    return std::make_unique<PassStmt>(rangeFrom(start));
  case TokenKind::KwBreak:
  case TokenKind::KwContinue: {
    bool isBreak = tok.is(TokenKind::KwBreak);
    if (loopDepth == 0) {
      emitErrorAtTok(describe(tok) + " outside of a loop");
      return nullptr;
    }
    consume();
    if (isBreak)
      return std::make_unique<BreakStmt>(rangeFrom(start));
    return std::make_unique<ContinueStmt>(rangeFrom(start));
  }
  case TokenKind::KwDel:
    return unsupported("`del` statements are");
  case TokenKind::KwRaise:
    return parseRaiseStmt();
  case TokenKind::KwGlobal:
    return unsupported("`global` declarations are");
  case TokenKind::KwNonlocal:
    return unsupported("`nonlocal` declarations are");
  case TokenKind::KwDef:
  case TokenKind::KwIf:
  case TokenKind::KwFor:
  case TokenKind::KwWhile:
  case TokenKind::KwWith:
  case TokenKind::KwClass:
  case TokenKind::KwTry:
  case TokenKind::At:
    // Only reachable after `;` or a block's `:` on the same line.
    emitErrorAtTok("a compound statement cannot follow `:` or `;` on the "
                   "same line; start " +
                   describe(tok) + " on a new line");
    return nullptr;
  default:
    return parseAssignmentOrExpression();
  }
}

/// Augmented-assignment operator of a token, if it is one.
static std::optional<BinOpKind> augAssignOp(TokenKind kind) {
  switch (kind) {
  case TokenKind::PlusEqual:
    return BinOpKind::Add;
  case TokenKind::MinusEqual:
    return BinOpKind::Sub;
  case TokenKind::StarEqual:
    return BinOpKind::Mul;
  case TokenKind::AtEqual:
    return BinOpKind::MatMul;
  case TokenKind::SlashEqual:
    return BinOpKind::Div;
  case TokenKind::DoubleSlashEqual:
    return BinOpKind::FloorDiv;
  case TokenKind::PercentEqual:
    return BinOpKind::Mod;
  case TokenKind::DoubleStarEqual:
    return BinOpKind::Pow;
  case TokenKind::LeftShiftEqual:
    return BinOpKind::LShift;
  case TokenKind::RightShiftEqual:
    return BinOpKind::RShift;
  case TokenKind::VBarEqual:
    return BinOpKind::BitOr;
  case TokenKind::CircumflexEqual:
    return BinOpKind::BitXor;
  case TokenKind::AmperEqual:
    return BinOpKind::BitAnd;
  default:
    return std::nullopt;
  }
}

/// assignment | star_expressions
StmtPtr Parser::parseAssignmentOrExpression() {
  llvm::SMLoc start = tok.getLoc();
  ExprPtr first = parseStarExpressions();
  if (!first)
    return nullptr;

  // Annotated assignment: `x: T.int32 = 0`.
  if (tok.is(TokenKind::Colon)) {
    if (!llvm::isa<NameExpr, AttributeExpr, SubscriptExpr>(first.get())) {
      emitError(first->getLoc(),
                "only a single name, attribute or subscript can be "
                "annotated",
                first->getRange());
      return nullptr;
    }
    consume();
    ExprPtr annotation = parseExpression();
    if (!annotation)
      return nullptr;
    ExprPtr value;
    if (consumeIf(TokenKind::Equal)) {
      value = parseStarExpressions();
      if (!value)
        return nullptr;
    }
    return std::make_unique<AnnAssignStmt>(rangeFrom(start), std::move(first),
                                           std::move(annotation),
                                           std::move(value));
  }

  // Augmented assignment: `acc += x`.
  if (std::optional<BinOpKind> op = augAssignOp(tok.getKind())) {
    if (!llvm::isa<NameExpr, AttributeExpr, SubscriptExpr>(first.get())) {
      emitError(first->getLoc(),
                "the target of " + describe(tok) +
                    " must be a single name, attribute or subscript",
                first->getRange());
      return nullptr;
    }
    llvm::SMRange opRange = tok.getRange();
    consume();
    ExprPtr value = parseStarExpressions();
    if (!value)
      return nullptr;
    return std::make_unique<AugAssignStmt>(rangeFrom(start), std::move(first),
                                           *op, opRange, std::move(value));
  }

  // Plain (possibly chained) assignment: `a = b = value`.
  if (tok.is(TokenKind::Equal)) {
    std::vector<ExprPtr> targets;
    targets.push_back(std::move(first));
    while (consumeIf(TokenKind::Equal)) {
      ExprPtr next = parseStarExpressions();
      if (!next)
        return nullptr;
      targets.push_back(std::move(next));
    }
    ExprPtr value = std::move(targets.back());
    targets.pop_back();
    for (const ExprPtr &target : targets)
      if (!checkTarget(target.get(), /*allowTuple=*/true))
        return nullptr;
    return std::make_unique<AssignStmt>(rangeFrom(start), std::move(targets),
                                        std::move(value));
  }

  return std::make_unique<ExprStmt>(rangeFrom(start), std::move(first));
}

/// What an expression that cannot be assigned to is, for the message.
static llvm::StringRef describeNonTarget(const Expr *e) {
  switch (e->getKind()) {
  case Expr::Kind::Call:
    return "a function call";
  case Expr::Kind::Int:
  case Expr::Kind::Float:
  case Expr::Kind::String:
    return "a literal";
  case Expr::Kind::Bool:
    return llvm::cast<BoolExpr>(e)->getValue() ? "`True`" : "`False`";
  case Expr::Kind::None:
    return "`None`";
  case Expr::Kind::Compare:
    return "a comparison";
  case Expr::Kind::IfExp:
    return "a conditional expression";
  case Expr::Kind::Lambda:
    return "a lambda";
  case Expr::Kind::Dict:
    return "a dict display";
  case Expr::Kind::Slice:
    return "a slice";
  default:
    return "an expression";
  }
}

bool Parser::checkTarget(const Expr *target, bool allowTuple) {
  switch (target->getKind()) {
  case Expr::Kind::Name:
  case Expr::Kind::Attribute:
  case Expr::Kind::Subscript:
    return true;
  case Expr::Kind::Starred:
    return checkTarget(llvm::cast<StarredExpr>(target)->getValue(),
                       /*allowTuple=*/true);
  case Expr::Kind::Tuple:
  case Expr::Kind::List: {
    if (!allowTuple)
      break;
    llvm::ArrayRef<ExprPtr> elts =
        llvm::isa<TupleExpr>(target) ? llvm::cast<TupleExpr>(target)->getElts()
                                     : llvm::cast<ListExpr>(target)->getElts();
    bool seenStar = false;
    for (const ExprPtr &elt : elts) {
      if (llvm::isa<StarredExpr>(elt.get())) {
        if (seenStar) {
          emitError(elt->getLoc(),
                    "multiple starred expressions in "
                    "assignment",
                    elt->getRange());
          return false;
        }
        seenStar = true;
      }
      if (!checkTarget(elt.get(), /*allowTuple=*/true))
        return false;
    }
    return true;
  }
  default:
    break;
  }
  std::string msg = ("cannot assign to " + describeNonTarget(target)).str();
  if (llvm::isa<CompareExpr>(target) || llvm::isa<CallExpr>(target))
    msg += "; did you mean `==`?";
  emitError(target->getLoc(), msg, target->getRange());
  return false;
}

StmtPtr Parser::parseReturnStmt() {
  llvm::SMLoc start = tok.getLoc();
  if (functionDepth == 0) {
    emitErrorAtTok("`return` outside of a function");
    return nullptr;
  }
  consume();
  ExprPtr value;
  if (startsExpression(tok)) {
    value = parseStarExpressions();
    if (!value)
      return nullptr;
  }
  return std::make_unique<ReturnStmt>(rangeFrom(start), std::move(value));
}

//===----------------------------------------------------------------------===//
// import_stmt
//===----------------------------------------------------------------------===//

bool Parser::parseDottedName(std::string &name, llvm::SMRange &range,
                             const llvm::Twine &context) {
  if (tok.isNot(TokenKind::Identifier)) {
    errorExpected("a module name", context);
    return false;
  }
  llvm::SMLoc start = tok.getLoc();
  name = tok.getSpelling().str();
  consume();
  while (consumeIf(TokenKind::Dot)) {
    if (tok.isNot(TokenKind::Identifier)) {
      errorExpected("a name", "after `.` in a module name");
      return false;
    }
    name += ".";
    name += tok.getSpelling();
    consume();
  }
  range = rangeFrom(start);
  return true;
}

/// dotted_as_name: dotted_name ['as' NAME]   (dotted = true)
/// import_as_name: NAME ['as' NAME]          (dotted = false)
bool Parser::parseImportAlias(ImportAlias &alias, bool dotted,
                              const llvm::Twine &context) {
  if (dotted) {
    if (!parseDottedName(alias.name, alias.nameRange, context))
      return false;
  } else {
    if (tok.isNot(TokenKind::Identifier)) {
      errorExpected("a name", context);
      return false;
    }
    alias.name = tok.getSpelling().str();
    alias.nameRange = tok.getRange();
    consume();
  }
  if (consumeIf(TokenKind::KwAs)) {
    if (tok.isNot(TokenKind::Identifier)) {
      errorExpected("a name", "after `as`");
      return false;
    }
    alias.asName = tok.getSpelling();
    alias.asNameRange = tok.getRange();
    consume();
  }
  return true;
}

/// import_name: 'import' dotted_as_name (',' dotted_as_name)*
StmtPtr Parser::parseImportName() {
  llvm::SMLoc start = tok.getLoc();
  consume();
  std::vector<ImportAlias> names;
  do {
    ImportAlias alias;
    if (!parseImportAlias(alias, /*dotted=*/true, "after `import`"))
      return nullptr;
    names.push_back(std::move(alias));
  } while (consumeIf(TokenKind::Comma));
  return std::make_unique<ImportStmt>(rangeFrom(start), std::move(names));
}

/// import_from: 'from' ('.' | '...')* dotted_name 'import' targets
///            | 'from' ('.' | '...')+ 'import' targets
StmtPtr Parser::parseImportFrom() {
  llvm::SMLoc start = tok.getLoc();
  consume();
  unsigned level = 0;
  while (tok.isAny(TokenKind::Dot, TokenKind::Ellipsis)) {
    level += tok.is(TokenKind::Dot) ? 1 : 3;
    consume();
  }
  std::string module;
  llvm::SMRange moduleRange(tok.getLoc(), tok.getLoc());
  if (level == 0 || tok.isNot(TokenKind::KwImport))
    if (!parseDottedName(module, moduleRange, "after `from`"))
      return nullptr;
  if (!expect(TokenKind::KwImport, "after the module name in `from` import"))
    return nullptr;

  std::vector<ImportAlias> names;
  if (consumeIf(TokenKind::Star))
    return std::make_unique<ImportFromStmt>(
        rangeFrom(start), module, moduleRange, level, std::move(names), true);
  std::optional<Token> lparen;
  if (tok.is(TokenKind::LParen)) {
    lparen = tok;
    consume();
  }
  do {
    if (lparen && tok.is(TokenKind::RParen) && !names.empty())
      break; // Trailing comma inside parentheses.
    ImportAlias alias;
    if (!parseImportAlias(alias, /*dotted=*/false, "in `from` import"))
      return nullptr;
    names.push_back(std::move(alias));
  } while (consumeIf(TokenKind::Comma));
  if (lparen && !expectClosing(TokenKind::RParen, *lparen, "`,` or `)`"))
    return nullptr;
  return std::make_unique<ImportFromStmt>(rangeFrom(start), module, moduleRange,
                                          level, std::move(names), false);
}

/// raise_stmt: 'raise' [expression ['from' expression]]
StmtPtr Parser::parseRaiseStmt() {
  llvm::SMLoc start = tok.getLoc();
  consume();
  ExprPtr exc;
  if (startsExpression(tok)) {
    exc = parseExpression();
    if (!exc)
      return nullptr;
    if (consumeIf(TokenKind::KwFrom) && !parseExpression())
      return nullptr;
  }
  return std::make_unique<RaiseStmt>(rangeFrom(start), std::move(exc));
}

/// assert_stmt: 'assert' expression [',' expression]
StmtPtr Parser::parseAssertStmt() {
  llvm::SMLoc start = tok.getLoc();
  consume();
  ExprPtr test = parseExpression();
  if (!test)
    return nullptr;
  ExprPtr msg;
  if (consumeIf(TokenKind::Comma)) {
    msg = parseExpression();
    if (!msg)
      return nullptr;
  }
  return std::make_unique<AssertStmt>(rangeFrom(start), std::move(test),
                                      std::move(msg));
}

//===----------------------------------------------------------------------===//
// function_def
//===----------------------------------------------------------------------===//

/// decorators: ('@' expression NEWLINE)+ ; then a function_def.
StmtPtr Parser::parseDecorated() {
  std::vector<ExprPtr> decorators;
  while (tok.is(TokenKind::At)) {
    consume();
    ExprPtr decorator = parseExpression();
    if (!decorator)
      return nullptr;
    if (!expect(TokenKind::Newline, "after decorator"))
      return nullptr;
    decorators.push_back(std::move(decorator));
  }
  if (tok.is(TokenKind::KwClass))
    return unsupported("decorated `class` definitions are");
  if (tok.is(TokenKind::KwAsync))
    return unsupported("`async` is");
  if (tok.isNot(TokenKind::KwDef))
    return errorExpected("`def`", "after decorator");
  return parseFunctionDef(std::move(decorators));
}

/// function_def: 'def' NAME '(' [params] ')' ['->' expression] ':' block
StmtPtr Parser::parseFunctionDef(std::vector<ExprPtr> decorators) {
  llvm::SMLoc start = tok.getLoc();
  consume();
  if (tok.isNot(TokenKind::Identifier))
    return errorExpected("a function name", "after `def`");
  llvm::StringRef name = tok.getSpelling();
  llvm::SMRange nameRange = tok.getRange();
  consume();
  if (tok.isNot(TokenKind::LParen))
    return errorExpected("`(`", "after the function name");
  Token lparen = tok;
  consume();
  std::vector<Param> params;
  if (!parseParams(params, lparen))
    return nullptr;
  ExprPtr returns;
  if (consumeIf(TokenKind::RArrow)) {
    returns = parseExpression();
    if (!returns)
      return nullptr;
  }
  if (!expect(TokenKind::Colon, "after function signature"))
    return nullptr;

  // A `def` body is a new scope for `break`/`continue`.
  unsigned savedLoops = loopDepth;
  loopDepth = 0;
  ++functionDepth;
  StmtList body;
  bool ok = parseBlock(body, "function definition", start);
  --functionDepth;
  loopDepth = savedLoops;
  if (!ok)
    return nullptr;
  return std::make_unique<FunctionDefStmt>(
      rangeFrom(start), name, nameRange, std::move(decorators),
      std::move(params), std::move(returns), std::move(body));
}

/// class_def: 'class' NAME ['(' [expression (',' expression)* [',']] ')']
/// ':' block. Keyword arguments (metaclasses) are not accepted.
StmtPtr Parser::parseClassDef() {
  llvm::SMLoc start = tok.getLoc();
  consume();
  if (tok.isNot(TokenKind::Identifier))
    return errorExpected("a class name", "after `class`");
  llvm::StringRef name = tok.getSpelling();
  llvm::SMRange nameRange = tok.getRange();
  consume();
  std::vector<ExprPtr> bases;
  if (tok.is(TokenKind::LParen)) {
    Token lparen = tok;
    consume();
    OpenBracket open(*this, lparen);
    while (tok.isNot(TokenKind::RParen)) {
      if (tok.is(TokenKind::Identifier) && peek().is(TokenKind::Equal))
        return unsupported("class keyword arguments (metaclasses) are");
      ExprPtr base = parseExpression();
      if (!base)
        return nullptr;
      bases.push_back(std::move(base));
      if (!consumeIf(TokenKind::Comma))
        break;
    }
    if (!expectClosing(TokenKind::RParen, lparen,
                       "`,` or `)` in the base classes"))
      return nullptr;
  }
  if (!expect(TokenKind::Colon, "after the class name"))
    return nullptr;
  unsigned savedLoops = loopDepth;
  loopDepth = 0;
  StmtList body;
  bool ok = parseBlock(body, "class definition", start);
  loopDepth = savedLoops;
  if (!ok)
    return nullptr;
  return std::make_unique<ClassDefStmt>(rangeFrom(start), name, nameRange,
                                        std::move(bases), std::move(body));
}

/// params: param (',' param)* [','] ; param: NAME [':' expression]
/// ['=' expression]
bool Parser::parseParams(std::vector<Param> &params, const Token &lparen) {
  OpenBracket open(*this, lparen);
  llvm::StringSet<> seen;
  bool seenDefault = false;
  while (tok.isNot(TokenKind::RParen)) {
    if (tok.is(TokenKind::Star)) {
      if (peek().is(TokenKind::Identifier))
        unsupported("variadic `*args` parameters are");
      else
        unsupported("the keyword-only marker `*` is");
      return false;
    }
    if (tok.is(TokenKind::DoubleStar)) {
      unsupported("variadic `**kwargs` parameters are");
      return false;
    }
    if (tok.is(TokenKind::Slash)) {
      unsupported("the positional-only marker `/` is");
      return false;
    }
    if (tok.isNot(TokenKind::Identifier)) {
      if (params.empty())
        errorExpected("a parameter name or `)`");
      else
        errorExpected("a parameter name");
      return false;
    }
    Param param;
    param.name = tok.getSpelling();
    param.nameRange = tok.getRange();
    if (!seen.insert(param.name).second) {
      emitErrorAtTok("duplicate parameter `" + param.name +
                     "` in function definition");
      return false;
    }
    consume();
    if (consumeIf(TokenKind::Colon)) {
      param.annotation = parseExpression();
      if (!param.annotation)
        return false;
    }
    if (consumeIf(TokenKind::Equal)) {
      param.defaultValue = parseExpression();
      if (!param.defaultValue)
        return false;
      seenDefault = true;
    } else if (seenDefault) {
      emitError(param.nameRange.Start,
                "parameter without a default follows a parameter with a "
                "default",
                param.nameRange);
      return false;
    }
    param.range = rangeFrom(param.nameRange.Start);
    params.push_back(std::move(param));
    if (!consumeIf(TokenKind::Comma))
      break;
  }
  return expectClosing(TokenKind::RParen, lparen,
                       "`,` or `)` in parameter list");
}

//===----------------------------------------------------------------------===//
// Compound statements
//===----------------------------------------------------------------------===//

/// block: NEWLINE INDENT statement+ DEDENT | simple_stmts
bool Parser::parseBlock(StmtList &body, const llvm::Twine &header,
                        llvm::SMLoc headerLoc) {
  if (tok.isNot(TokenKind::Newline)) {
    if (tok.is(TokenKind::EndOfFile)) {
      errorExpected("an indented block", "after " + header + " on line " +
                                             llvm::Twine(lineOf(headerLoc)));
      return false;
    }
    return parseSimpleStmts(body);
  }
  consume();
  if (tok.isNot(TokenKind::Indent)) {
    emitErrorAtTok("expected an indented block after " + header + " on line " +
                   llvm::Twine(lineOf(headerLoc)));
    return false;
  }
  consume();
  while (tok.isNot(TokenKind::Dedent)) {
    if (tok.isAny(TokenKind::EndOfFile, TokenKind::Error)) {
      failed = true; // Only reachable after a lexical error.
      return false;
    }
    if (!parseStatement(body))
      return false;
  }
  consume();
  // The block (and so its header statement) ends where its last statement
  // does, not at the DEDENT.
  if (!body.empty())
    prevEnd = body.back()->getEndLoc();
  return true;
}

/// if_stmt: 'if' expression ':' block ('elif' expression ':' block)*
///          ['else' ':' block]
StmtPtr Parser::parseIfStmt() {
  llvm::SMLoc start = tok.getLoc();
  std::vector<IfBranch> branches;
  do {
    bool isElif = tok.is(TokenKind::KwElif);
    if (isElif && branches.size() > kMaxElifBranches) {
      emitErrorAtTok("too many `elif` branches in one `if` statement (the "
                     "limit is " +
                     llvm::Twine(kMaxElifBranches) + ")");
      return nullptr;
    }
    IfBranch branch;
    branch.keywordLoc = tok.getLoc();
    consume();
    branch.test = parseExpression();
    if (!branch.test)
      return nullptr;
    if (!expect(TokenKind::Colon,
                isElif ? "after `elif` condition" : "after `if` condition"))
      return nullptr;
    if (!parseBlock(branch.body, isElif ? "`elif` statement" : "`if` statement",
                    branch.keywordLoc))
      return nullptr;
    branches.push_back(std::move(branch));
  } while (tok.is(TokenKind::KwElif));

  llvm::SMLoc elseLoc;
  StmtList orelse;
  if (tok.is(TokenKind::KwElse)) {
    elseLoc = tok.getLoc();
    consume();
    if (!expect(TokenKind::Colon, "after `else`"))
      return nullptr;
    if (!parseBlock(orelse, "`else` statement", elseLoc))
      return nullptr;
  }
  return std::make_unique<IfStmt>(rangeFrom(start), std::move(branches),
                                  elseLoc, std::move(orelse));
}

/// for_stmt: 'for' star_targets 'in' star_expressions ':' block
StmtPtr Parser::parseForStmt() {
  llvm::SMLoc start = tok.getLoc();
  consume();
  ExprPtr target = parseStarTargets();
  if (!target)
    return nullptr;
  if (!expect(TokenKind::KwIn, "after `for` target"))
    return nullptr;
  ExprPtr iter = parseStarExpressions();
  if (!iter)
    return nullptr;
  if (!expect(TokenKind::Colon, "after `for` clause"))
    return nullptr;
  StmtList body;
  ++loopDepth;
  bool ok = parseBlock(body, "`for` statement", start);
  --loopDepth;
  if (!ok)
    return nullptr;
  if (tok.is(TokenKind::KwElse))
    return unsupported("`else` clauses on loops are");
  return std::make_unique<ForStmt>(rangeFrom(start), std::move(target),
                                   std::move(iter), std::move(body));
}

/// while_stmt: 'while' expression ':' block
StmtPtr Parser::parseWhileStmt() {
  llvm::SMLoc start = tok.getLoc();
  consume();
  ExprPtr test = parseExpression();
  if (!test)
    return nullptr;
  if (!expect(TokenKind::Colon, "after `while` condition"))
    return nullptr;
  StmtList body;
  ++loopDepth;
  bool ok = parseBlock(body, "`while` statement", start);
  --loopDepth;
  if (!ok)
    return nullptr;
  if (tok.is(TokenKind::KwElse))
    return unsupported("`else` clauses on loops are");
  return std::make_unique<WhileStmt>(rangeFrom(start), std::move(test),
                                     std::move(body));
}

/// with_stmt: 'with' with_item (',' with_item)* ':' block
/// with_item: expression ['as' star_target]
StmtPtr Parser::parseWithStmt() {
  llvm::SMLoc start = tok.getLoc();
  consume();
  std::vector<WithItem> items;
  do {
    WithItem item;
    item.context = parseExpression();
    if (!item.context)
      return nullptr;
    if (consumeIf(TokenKind::KwAs)) {
      item.target = parseStarTarget();
      if (!item.target || !checkTarget(item.target.get(), true))
        return nullptr;
    }
    items.push_back(std::move(item));
  } while (consumeIf(TokenKind::Comma));
  if (!expect(TokenKind::Colon, "after `with` items"))
    return nullptr;
  StmtList body;
  if (!parseBlock(body, "`with` statement", start))
    return nullptr;
  return std::make_unique<WithStmt>(rangeFrom(start), std::move(items),
                                    std::move(body));
}
