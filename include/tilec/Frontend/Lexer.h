//===- Lexer.h - Python-rules tokenizer for .tile files ---------*- C++ -*-===//
//
// Turns one SourceMgr buffer into Python tokens on demand, including the
// layout tokens: NEWLINE ends a logical line, INDENT/DEDENT come from an
// indentation stack (tabs advance to the next multiple of 8, and the same
// "inconsistent tabs and spaces" check as CPython), and lines are joined
// implicitly inside (), [], {} and explicitly by a trailing backslash.
//
// The first lexical error is reported through the DiagnosticEngine and turns
// the lexer into an Error-token source: parsing stops there, which is also
// what bounds the work done on binary garbage.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_LEXER_H
#define TILEC_FRONTEND_LEXER_H

#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/Token.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>

namespace tilec {

class Lexer {
public:
  /// Nesting limits, as CPython's tokenizer has them: beyond these a located
  /// error is reported instead of growing the stacks without bound.
  static constexpr unsigned kMaxBracketDepth = 200;
  static constexpr unsigned kMaxIndentDepth = 200;

  Lexer(llvm::SourceMgr &sourceMgr, unsigned bufferId, DiagnosticEngine &diag);
  /// Lexes [begin, end) of a buffer as if inside brackets (newlines join, no
  /// indentation): the expression of an f-string's replacement field.
  Lexer(DiagnosticEngine &diag, const char *begin, const char *end);

  /// Produce the next token. After EndOfFile it keeps returning EndOfFile;
  /// after an error it keeps returning Error.
  Token lex();

  /// Whether a lexical error has been reported.
  bool hadError() const { return failed; }

  /// Current parenthesis / bracket / brace nesting depth.
  unsigned getBracketDepth() const { return bracketDepth; }

private:
  /// Measure the indentation of the next non-blank line, skipping blank and
  /// comment-only lines. Returns true and sets `tok` when the line opens with
  /// an INDENT or DEDENT (or a lexical error); false when it is an ordinary
  /// continuation of the current block.
  bool lexLineStart(Token &tok);
  Token lexToken();
  Token lexIdentifierOrString();
  Token lexNumber();
  Token lexString(const char *tokStart, bool raw, bool bytes);
  Token lexPunctuator();
  Token lexBadCharacter();
  Token lexEndOfFile();

  /// Skip a `#` comment up to (not including) the line ending. Returns false
  /// after reporting an error (bad bytes inside the comment).
  bool skipComment();

  /// Validates the UTF-8 sequence at `p`; returns its length, or 0 after
  /// reporting an error.
  unsigned checkUTF8(const char *p, uint32_t &codePoint);

  Token makeToken(TokenKind kind, const char *start) {
    return Token(kind, llvm::StringRef(start, cur - start));
  }
  /// Reports `msg` at `loc` and returns the sticky Error token.
  Token error(const char *loc, const llvm::Twine &msg);
  Token error(const char *start, const char *end, const llvm::Twine &msg);

  DiagnosticEngine &diag;
  const char *bufStart;
  const char *bufEnd;
  const char *cur;

  /// Indentation stack in columns (tabs to multiples of 8) and the same in
  /// "alternate" columns (tab = 1) used to detect tab/space ambiguity.
  llvm::SmallVector<unsigned, 16> indents{0};
  llvm::SmallVector<unsigned, 16> altIndents{0};
  unsigned pendingDedents = 0;
  const char *dedentLoc = nullptr;

  unsigned bracketDepth = 0;
  /// True at the beginning of a logical line (outside brackets).
  bool atLineStart = true;
  bool failed = false;
};

} // namespace tilec

#endif // TILEC_FRONTEND_LEXER_H
