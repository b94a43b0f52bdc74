//===- Parser.cpp - Recursive-descent parser for .tile files --------------===//
//
// The entry point, the `file` rule, and the parser's diagnostics helpers.
// The grammar's rules are split between ParseStmt.cpp and ParseExpr.cpp,
// one function per rule of grammar/tile.ebnf, named after it; the class
// itself is in ParserImpl.h.
//
// Syntax errors say what was expected and what was found, in the project's
// style (lower case, code in backticks), and at the end of the file inside
// a bracket they point at the bracket that was never closed.
//
//===----------------------------------------------------------------------===//

#include "ParserImpl.h"

#include "llvm/ADT/SmallString.h"

using namespace tilec;
using namespace tilec::ast;
using tilec::detail::Parser;

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

bool Parser::emitError(llvm::SMLoc loc, const llvm::Twine &msg,
                       llvm::SMRange range) {
  bool show = !failed && !lexer.hadError() && tok.isNot(TokenKind::Error);
  failed = true;
  if (!show)
    return false;
  if (range.isValid() && range.Start != range.End)
    diag.error(loc, msg, range);
  else
    diag.error(loc, msg);
  return true;
}

std::string Parser::describe(const Token &t) {
  switch (t.getKind()) {
  case TokenKind::EndOfFile:
    return "end of file";
  case TokenKind::Newline:
    return "`newline`";
  case TokenKind::Indent:
    return "an indent";
  case TokenKind::Dedent:
    return "the end of the block";
  case TokenKind::String:
    return "a string literal";
  case TokenKind::Error:
    return "an invalid token";
  default:
    break;
  }
  llvm::StringRef spelling = t.getSpelling();
  if (spelling.size() > 24)
    return ("`" + spelling.take_front(21) + "...`").str();
  return ("`" + spelling + "`").str();
}

std::nullptr_t Parser::errorExpected(const llvm::Twine &what,
                                     const llvm::Twine &context) {
  if (tok.is(TokenKind::EndOfFile) && !openBrackets.empty()) {
    auto [kind, range] = openBrackets.back();
    emitError(range.Start, quote(kind) + " was never closed", range);
    return nullptr;
  }
  llvm::SmallString<64> ctx;
  context.toVector(ctx);
  emitErrorAtTok("expected " + what + (ctx.empty() ? "" : " ") + ctx +
                 ", found " + describe(tok));
  return nullptr;
}

bool Parser::expectClosing(TokenKind closer, const Token &opener,
                           const llvm::Twine &what) {
  if (consumeIf(closer))
    return true;
  // At end of file the opener is the useful place to point at.
  if (tok.is(TokenKind::EndOfFile)) {
    emitError(opener.getLoc(), quote(opener.getKind()) + " was never closed",
              opener.getRange());
    return false;
  }
  llvm::SmallString<64> text;
  what.toVector(text);
  if (emitErrorAtTok("expected " + text + ", found " + describe(tok)))
    diag.note(opener.getLoc(), "to match this " + quote(opener.getKind()));
  return false;
}

Parser::ExprPtr Parser::checkHeight(ExprPtr e) {
  if (e && e->getHeight() > kMaxExprHeight) {
    emitError(e->getLoc(),
              "expression is too deeply nested or too long (the limit is " +
                  llvm::Twine(kMaxExprHeight) + " levels)");
    return nullptr;
  }
  return e;
}

Parser::NestingGuard::NestingGuard(Parser &parser) : parser(parser) {
  if (++parser.nesting > kMaxExprNesting) {
    parser.emitErrorAtTok("expression is nested too deeply (the limit is " +
                          llvm::Twine(kMaxExprNesting) + " levels)");
    tooDeep = true;
  }
}

//===----------------------------------------------------------------------===//
// file
//===----------------------------------------------------------------------===//

/// file: { NEWLINE | statement } ENDMARKER
std::unique_ptr<Module> Parser::parseFile() {
  StmtList body;
  while (tok.isNot(TokenKind::EndOfFile) && !failed) {
    if (tok.is(TokenKind::Error)) {
      failed = true;
      break;
    }
    if (consumeIf(TokenKind::Newline))
      continue;
    if (!parseStatement(body))
      break;
  }
  if (failed || lexer.hadError())
    return nullptr;
  return std::make_unique<Module>(sourceMgr, bufferId, std::move(body));
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

std::unique_ptr<Module> tilec::parseModule(llvm::SourceMgr &sourceMgr,
                                           unsigned bufferId,
                                           DiagnosticEngine &diag) {
  Parser parser(sourceMgr, bufferId, diag);
  return parser.parseFile();
}
