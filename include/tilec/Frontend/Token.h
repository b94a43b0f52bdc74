//===- Token.h - Tokens of the .tile language -------------------*- C++ -*-===//
//
// A `.tile` file is tokenized with Python's rules, so the token set is
// Python's: names, numbers, strings, every operator and delimiter, keywords,
// and the layout tokens NEWLINE / INDENT / DEDENT. Every token remembers the
// bytes it came from (a StringRef into the SourceMgr buffer), which is also
// its location.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_TOKEN_H
#define TILEC_FRONTEND_TOKEN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <string>
#include <utility>

namespace tilec {

// Operators and delimiters: X(Name, spelling).
#define TILEC_PUNCTUATORS(X)                                                   \
  X(LParen, "(")                                                               \
  X(RParen, ")")                                                               \
  X(LSquare, "[")                                                              \
  X(RSquare, "]")                                                              \
  X(LBrace, "{")                                                               \
  X(RBrace, "}")                                                               \
  X(Colon, ":")                                                                \
  X(Comma, ",")                                                                \
  X(Semi, ";")                                                                 \
  X(Dot, ".")                                                                  \
  X(Ellipsis, "...")                                                           \
  X(Plus, "+")                                                                 \
  X(Minus, "-")                                                                \
  X(Star, "*")                                                                 \
  X(DoubleStar, "**")                                                          \
  X(Slash, "/")                                                                \
  X(DoubleSlash, "//")                                                         \
  X(Percent, "%")                                                              \
  X(At, "@")                                                                   \
  X(VBar, "|")                                                                 \
  X(Amper, "&")                                                                \
  X(Circumflex, "^")                                                           \
  X(Tilde, "~")                                                                \
  X(LeftShift, "<<")                                                           \
  X(RightShift, ">>")                                                          \
  X(Less, "<")                                                                 \
  X(Greater, ">")                                                              \
  X(LessEqual, "<=")                                                           \
  X(GreaterEqual, ">=")                                                        \
  X(EqEqual, "==")                                                             \
  X(NotEqual, "!=")                                                            \
  X(Equal, "=")                                                                \
  X(RArrow, "->")                                                              \
  X(ColonEqual, ":=")                                                          \
  X(PlusEqual, "+=")                                                           \
  X(MinusEqual, "-=")                                                          \
  X(StarEqual, "*=")                                                           \
  X(SlashEqual, "/=")                                                          \
  X(DoubleSlashEqual, "//=")                                                   \
  X(PercentEqual, "%=")                                                        \
  X(AtEqual, "@=")                                                             \
  X(AmperEqual, "&=")                                                          \
  X(VBarEqual, "|=")                                                           \
  X(CircumflexEqual, "^=")                                                     \
  X(LeftShiftEqual, "<<=")                                                     \
  X(RightShiftEqual, ">>=")                                                    \
  X(DoubleStarEqual, "**=")

// Python's hard keywords: X(Name, spelling). Soft keywords (`match`, `case`,
// `type`, `_`) are ordinary names.
#define TILEC_KEYWORDS(X)                                                      \
  X(KwFalse, "False")                                                          \
  X(KwNone, "None")                                                            \
  X(KwTrue, "True")                                                            \
  X(KwAnd, "and")                                                              \
  X(KwAs, "as")                                                                \
  X(KwAssert, "assert")                                                        \
  X(KwAsync, "async")                                                          \
  X(KwAwait, "await")                                                          \
  X(KwBreak, "break")                                                          \
  X(KwClass, "class")                                                          \
  X(KwContinue, "continue")                                                    \
  X(KwDef, "def")                                                              \
  X(KwDel, "del")                                                              \
  X(KwElif, "elif")                                                            \
  X(KwElse, "else")                                                            \
  X(KwExcept, "except")                                                        \
  X(KwFinally, "finally")                                                      \
  X(KwFor, "for")                                                              \
  X(KwFrom, "from")                                                            \
  X(KwGlobal, "global")                                                        \
  X(KwIf, "if")                                                                \
  X(KwImport, "import")                                                        \
  X(KwIn, "in")                                                                \
  X(KwIs, "is")                                                                \
  X(KwLambda, "lambda")                                                        \
  X(KwNonlocal, "nonlocal")                                                    \
  X(KwNot, "not")                                                              \
  X(KwOr, "or")                                                                \
  X(KwPass, "pass")                                                            \
  X(KwRaise, "raise")                                                          \
  X(KwReturn, "return")                                                        \
  X(KwTry, "try")                                                              \
  X(KwWhile, "while")                                                          \
  X(KwWith, "with")                                                            \
  X(KwYield, "yield")

enum class TokenKind : unsigned char {
  /// A lexical error was reported; the lexer produces nothing else after it.
  Error,
  EndOfFile,
  Newline,
  Indent,
  Dedent,
  Identifier,
  Integer,
  Float,
  String,
#define TILEC_TOKEN_ENUM(Name, Spelling) Name,
  TILEC_PUNCTUATORS(TILEC_TOKEN_ENUM) TILEC_KEYWORDS(TILEC_TOKEN_ENUM)
#undef TILEC_TOKEN_ENUM
};

/// The fixed spelling of a punctuator or keyword ("**", "lambda"), or a
/// short description of the other kinds ("newline", "identifier").
llvm::StringRef getTokenKindSpelling(TokenKind kind);

/// True for Python's hard keywords.
bool isKeyword(TokenKind kind);

/// The keyword kind spelled `text`, or TokenKind::Identifier.
TokenKind getKeywordKind(llvm::StringRef text);

class Token {
public:
  Token() = default;
  Token(TokenKind kind, llvm::StringRef spelling)
      : kind(kind), spelling(spelling) {}

  TokenKind getKind() const { return kind; }
  bool is(TokenKind k) const { return kind == k; }
  bool isNot(TokenKind k) const { return kind != k; }
  template <typename... Ks> bool isAny(Ks... ks) const {
    return ((kind == ks) || ...);
  }
  bool isKeyword() const { return tilec::isKeyword(kind); }

  /// The exact source bytes. Empty (but still located) for synthesized
  /// NEWLINE at end of file, INDENT, DEDENT and EndOfFile.
  llvm::StringRef getSpelling() const { return spelling; }

  llvm::SMLoc getLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data());
  }
  llvm::SMLoc getEndLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data() + spelling.size());
  }
  llvm::SMRange getRange() const { return {getLoc(), getEndLoc()}; }

  /// For String tokens: the decoded value (escapes applied, prefix and
  /// quotes removed). Bytes literals keep their raw byte values.
  const std::string &getStringValue() const { return stringValue; }
  void setStringValue(std::string value) { stringValue = std::move(value); }
  /// For String tokens: whether it was a `b"..."` literal.
  bool isBytes() const { return bytes; }
  void setBytes(bool isBytes) { bytes = isBytes; }
  /// For String tokens: whether it was an f-string (`f"..."`); the parser
  /// reads its replacement fields from the spelling.
  bool isFormat() const { return format; }
  void setFormat(bool isFormat) { format = isFormat; }

private:
  TokenKind kind = TokenKind::Error;
  bool bytes = false;
  bool format = false;
  llvm::StringRef spelling;
  std::string stringValue;
};

} // namespace tilec

#endif // TILEC_FRONTEND_TOKEN_H
