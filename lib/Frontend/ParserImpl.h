//===- ParserImpl.h - The parser's class, shared by its sources -*- C++ -*-===//
//
// Private to lib/Frontend. The recursive-descent parser is one class whose
// member functions are split by grammar section: Parser.cpp has the token
// stream helpers, diagnostics and the file rule, ParseStmt.cpp the
// statements, ParseExpr.cpp the expressions (comprehensions included). The
// split only keeps each file readable; the class is the unit.
//
// Every parse function returns null (or false) after an error; the first
// error wins and everything unwinds without further messages, so there is
// no error recovery to get wrong.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_FRONTEND_PARSERIMPL_H
#define TILEC_LIB_FRONTEND_PARSERIMPL_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/Lexer.h"
#include "tilec/Frontend/Parser.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilec::detail {

class Parser {
public:
  Parser(llvm::SourceMgr &sourceMgr, unsigned bufferId, DiagnosticEngine &diag)
      : lexer(sourceMgr, bufferId, diag), diag(diag), sourceMgr(sourceMgr),
        bufferId(bufferId) {
    tok = lexer.lex();
    prevEnd = tok.getLoc();
  }
  /// A parser of the expression in [begin, end) of buffer `bufferId` (an
  /// f-string's replacement field); locations stay those of the buffer.
  Parser(llvm::SourceMgr &sourceMgr, unsigned bufferId, DiagnosticEngine &diag,
         const char *begin, const char *end)
      : lexer(diag, begin, end), diag(diag), sourceMgr(sourceMgr),
        bufferId(bufferId) {
    tok = lexer.lex();
    prevEnd = tok.getLoc();
  }

  std::unique_ptr<ast::Module> parseFile();
  /// The whole input as one expression (the sub-parser of an f-string field).
  ast::ExprPtr parseFieldExpression();

private:
  using Expr = ast::Expr;
  using ExprPtr = ast::ExprPtr;
  using StmtPtr = ast::StmtPtr;
  using StmtList = ast::StmtList;

  //===--------------------------------------------------------------------===//
  // Token stream
  //===--------------------------------------------------------------------===//

  void consume() {
    prevEnd = tok.getEndLoc();
    if (ahead) {
      tok = std::move(*ahead);
      ahead.reset();
    } else {
      tok = lexer.lex();
    }
  }
  const Token &peek() {
    if (!ahead)
      ahead = lexer.lex();
    return *ahead;
  }
  bool consumeIf(TokenKind kind) {
    if (tok.isNot(kind))
      return false;
    consume();
    return true;
  }
  /// Range from `start` to the end of the last consumed token.
  llvm::SMRange rangeFrom(llvm::SMLoc start) const { return {start, prevEnd}; }

  //===--------------------------------------------------------------------===//
  // Diagnostics (Parser.cpp)
  //===--------------------------------------------------------------------===//

  /// Reports the first error only (and nothing after a lexical error, which
  /// the lexer already reported). Returns whether it was shown, so that a
  /// caller adds its notes only to a shown error.
  bool emitError(llvm::SMLoc loc, const llvm::Twine &msg,
                 llvm::SMRange range = {});
  bool emitErrorAtTok(const llvm::Twine &msg) {
    return emitError(tok.getLoc(), msg, tok.getRange());
  }
  /// How a token reads in "found ..." messages.
  static std::string describe(const Token &t);
  static std::string quote(TokenKind kind) {
    return ("`" + getTokenKindSpelling(kind) + "`").str();
  }
  /// "expected X <context>, found Y" (or "`(` was never closed" at the end
  /// of the file inside a bracket).
  std::nullptr_t errorExpected(const llvm::Twine &what,
                               const llvm::Twine &context = "");
  bool expect(TokenKind kind, const llvm::Twine &context) {
    if (consumeIf(kind))
      return true;
    errorExpected(quote(kind), context);
    return false;
  }
  /// Expects the closer of `opener`, with a note pointing at the opener.
  bool expectClosing(TokenKind closer, const Token &opener,
                     const llvm::Twine &what);
  /// "<what> not supported in .tile files" at the current token.
  std::nullptr_t unsupported(const llvm::Twine &what) {
    emitErrorAtTok(what + " not supported in .tile files");
    return nullptr;
  }
  /// Rejects expression trees taller than kMaxExprHeight.
  ExprPtr checkHeight(ExprPtr e);

  /// Counts one level of expression nesting for as long as it lives.
  class NestingGuard {
  public:
    explicit NestingGuard(Parser &parser);
    ~NestingGuard() { --parser.nesting; }
    NestingGuard(const NestingGuard &) = delete;
    NestingGuard &operator=(const NestingGuard &) = delete;
    bool tooDeep = false;

  private:
    Parser &parser;
  };

  /// Records an opening bracket for as long as its contents are parsed, so
  /// that reaching the end of the file inside it can name the bracket.
  class OpenBracket {
  public:
    OpenBracket(Parser &parser, const Token &opener) : parser(parser) {
      parser.openBrackets.push_back({opener.getKind(), opener.getRange()});
    }
    ~OpenBracket() { parser.openBrackets.pop_back(); }
    OpenBracket(const OpenBracket &) = delete;
    OpenBracket &operator=(const OpenBracket &) = delete;

  private:
    Parser &parser;
  };

  unsigned lineOf(llvm::SMLoc loc) const { return diag.lineCol(loc).first; }

  /// Whether `t` can begin an expression (used for optional operands such as
  /// `return`'s value, slice bounds, and trailing commas).
  static bool startsExpression(const Token &t) {
    return t.isAny(TokenKind::Identifier, TokenKind::Integer, TokenKind::Float,
                   TokenKind::String, TokenKind::LParen, TokenKind::LSquare,
                   TokenKind::LBrace, TokenKind::Minus, TokenKind::Plus,
                   TokenKind::Tilde, TokenKind::Star, TokenKind::KwNot,
                   TokenKind::KwLambda, TokenKind::KwTrue, TokenKind::KwFalse,
                   TokenKind::KwNone, TokenKind::Ellipsis, TokenKind::KwAwait,
                   TokenKind::KwYield);
  }

  //===--------------------------------------------------------------------===//
  // Statements (ParseStmt.cpp)
  //===--------------------------------------------------------------------===//

  bool parseStatement(StmtList &out);
  bool parseSimpleStmts(StmtList &out);
  StmtPtr parseSimpleStmt();
  StmtPtr parseAssignmentOrExpression();
  StmtPtr parseReturnStmt();
  StmtPtr parseImportName();
  StmtPtr parseImportFrom();
  bool parseDottedName(std::string &name, llvm::SMRange &range,
                       const llvm::Twine &context);
  bool parseImportAlias(ast::ImportAlias &alias, bool dotted,
                        const llvm::Twine &context);
  StmtPtr parseAssertStmt();
  StmtPtr parseRaiseStmt();
  StmtPtr parseDecorated();
  StmtPtr parseFunctionDef(std::vector<ExprPtr> decorators);
  StmtPtr parseClassDef();
  bool parseParams(std::vector<ast::Param> &params, const Token &lparen);
  StmtPtr parseIfStmt();
  StmtPtr parseForStmt();
  StmtPtr parseWhileStmt();
  StmtPtr parseWithStmt();
  bool parseBlock(StmtList &body, const llvm::Twine &header,
                  llvm::SMLoc headerLoc);
  bool checkTarget(const Expr *target, bool allowTuple);

  //===--------------------------------------------------------------------===//
  // Expressions (ParseExpr.cpp)
  //===--------------------------------------------------------------------===//

  ExprPtr parseStarExpressions();
  ExprPtr parseStarExpression();
  ExprPtr parseStarTargets();
  ExprPtr parseStarTarget();
  ExprPtr parseExpression();
  ExprPtr parseLambdef();
  ExprPtr parseDisjunction();
  ExprPtr parseConjunction();
  ExprPtr parseInversion();
  ExprPtr parseComparison();
  ExprPtr parseBitwiseOr();
  ExprPtr parseBitwiseXor();
  ExprPtr parseBitwiseAnd();
  ExprPtr parseShiftExpr();
  ExprPtr parseSum();
  ExprPtr parseTerm();
  ExprPtr parseFactor();
  ExprPtr parsePower();
  ExprPtr parsePrimary();
  ExprPtr parseArguments(ExprPtr callee);
  ExprPtr parseSlices(ExprPtr value);
  ExprPtr parseSlice();
  ExprPtr parseAtom();
  ExprPtr parseStrings();
  /// Adds the f-string token `t` to `template` (a str.format template) and
  /// its replacement fields' expressions to `args` (ParseFString.cpp).
  bool parseFString(const Token &t, std::string &templ,
                    std::vector<ExprPtr> &args);
  ExprPtr parseNumber();
  ExprPtr parseTupleOrGroup();
  ExprPtr parseList();
  ExprPtr parseDict();
  ExprPtr parseSetDisplay(const Token &lbrace, llvm::SMLoc start,
                          ExprPtr first);

  /// Shared loop of the left-associative binary levels.
  ExprPtr parseLeftAssoc(ExprPtr (Parser::*operand)(),
                         std::optional<ast::BinOpKind> (*opFor)(TokenKind));

  /// for_if_clauses: one or more `for ... in ... [if ...]*` clauses after
  /// the element `elt` of a comprehension, which starts at `start`. Builds
  /// a ListCompExpr (a generator expression when `generator`) whose range
  /// runs from `start` to the end of the last clause; a caller with
  /// brackets widens it to them.
  ExprPtr parseComprehension(ExprPtr elt, llvm::SMLoc start, bool generator);
  /// Rejects `*x` as the element of a comprehension (Python does too).
  bool checkComprehensionElt(const Expr &elt);
  /// Reports "a tuple element of a comprehension needs parentheses" when a
  /// `for` follows the second or later element of a display.
  bool rejectBareTupleComprehension();
  /// Reports a dict or set comprehension (`what`) if one starts here.
  bool rejectDictOrSetComprehension(llvm::StringRef what) {
    if (tok.isAny(TokenKind::KwFor, TokenKind::KwAsync)) {
      unsupported(what + " comprehensions are");
      return true;
    }
    return false;
  }

  Lexer lexer;
  DiagnosticEngine &diag;
  const llvm::SourceMgr &sourceMgr;
  unsigned bufferId;
  Token tok;
  std::optional<Token> ahead;
  llvm::SMLoc prevEnd;
  bool failed = false;
  unsigned nesting = 0;
  llvm::SmallVector<std::pair<TokenKind, llvm::SMRange>, 8> openBrackets;
  /// Enclosing `def`s and loops of the current statement (loops reset at
  /// each `def`), for `return` / `break` / `continue` placement checks.
  unsigned functionDepth = 0;
  unsigned loopDepth = 0;
};

} // namespace tilec::detail

#endif // TILEC_LIB_FRONTEND_PARSERIMPL_H
