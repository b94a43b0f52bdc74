//===- Lexer.cpp - Python-rules tokenizer for .tile files -----------------===//
//
// Follows CPython's tokenizer closely enough that any file Python tokenizes
// the same way tokenizes the same way here, with two deliberate differences:
// non-ASCII characters may appear only in strings and comments (kernels never
// use Unicode names, and rejecting them turns pasted "smart quotes" into a
// clear error), and a lone carriage return is an error rather than a line
// ending (SourceMgr counts lines by '\n', so accepting it would make every
// later diagnostic point at the wrong line).
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Lexer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Unicode.h"

using namespace tilec;

//===----------------------------------------------------------------------===//
// Token kinds
//===----------------------------------------------------------------------===//

llvm::StringRef tilec::getTokenKindSpelling(TokenKind kind) {
  switch (kind) {
  case TokenKind::Error:
    return "error";
  case TokenKind::EndOfFile:
    return "end of file";
  case TokenKind::Newline:
    return "newline";
  case TokenKind::Indent:
    return "indent";
  case TokenKind::Dedent:
    return "dedent";
  case TokenKind::Identifier:
    return "identifier";
  case TokenKind::Integer:
    return "integer literal";
  case TokenKind::Float:
    return "float literal";
  case TokenKind::String:
    return "string literal";
#define TILEC_TOKEN_CASE(Name, Spelling)                                       \
  case TokenKind::Name:                                                        \
    return Spelling;
    TILEC_PUNCTUATORS(TILEC_TOKEN_CASE)
    TILEC_KEYWORDS(TILEC_TOKEN_CASE)
#undef TILEC_TOKEN_CASE
  }
  llvm_unreachable("unknown token kind");
}

bool tilec::isKeyword(TokenKind kind) {
  switch (kind) {
#define TILEC_TOKEN_CASE(Name, Spelling) case TokenKind::Name:
    TILEC_KEYWORDS(TILEC_TOKEN_CASE)
#undef TILEC_TOKEN_CASE
    return true;
  default:
    return false;
  }
}

TokenKind tilec::getKeywordKind(llvm::StringRef text) {
  return llvm::StringSwitch<TokenKind>(text)
#define TILEC_TOKEN_CASE(Name, Spelling) .Case(Spelling, TokenKind::Name)
      TILEC_KEYWORDS(TILEC_TOKEN_CASE)
#undef TILEC_TOKEN_CASE
          .Default(TokenKind::Identifier);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static bool isIdentStart(char c) { return llvm::isAlpha(c) || c == '_'; }
static bool isIdentChar(char c) { return llvm::isAlnum(c) || c == '_'; }

/// "U+00A0" style name of a code point.
static std::string codePointName(uint32_t cp) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "U+" << llvm::format_hex_no_prefix(cp, 4, /*Upper=*/true);
  return s;
}

Lexer::Lexer(llvm::SourceMgr &sourceMgr, unsigned bufferId,
             DiagnosticEngine &diag)
    : diag(diag) {
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(bufferId);
  bufStart = buffer->getBufferStart();
  bufEnd = buffer->getBufferEnd();
  cur = bufStart;
  // A UTF-8 byte order mark is allowed (and ignored) at the very start, as
  // Python allows it.
  if (llvm::StringRef(bufStart, bufEnd - bufStart).starts_with("\xEF\xBB\xBF"))
    cur += 3;
}

Lexer::Lexer(DiagnosticEngine &diag, const char *begin, const char *end)
    : diag(diag), bufStart(begin), bufEnd(end), cur(begin),
      bracketDepth(1), atLineStart(false) {}

Token Lexer::error(const char *loc, const llvm::Twine &msg) {
  return error(loc, loc, msg);
}

Token Lexer::error(const char *start, const char *end, const llvm::Twine &msg) {
  if (!failed) {
    llvm::SMLoc begin = llvm::SMLoc::getFromPointer(start);
    if (end > start)
      diag.error(llvm::SMRange(begin, llvm::SMLoc::getFromPointer(end)), msg);
    else
      diag.error(begin, msg);
  }
  failed = true;
  // Park the lexer so that every later call returns this same Error token.
  cur = start;
  return Token(TokenKind::Error, llvm::StringRef(start, 0));
}

unsigned Lexer::checkUTF8(const char *p, uint32_t &codePoint) {
  auto *src = reinterpret_cast<const llvm::UTF8 *>(p);
  auto *end = reinterpret_cast<const llvm::UTF8 *>(bufEnd);
  unsigned len = llvm::getNumBytesForUTF8(*src);
  if (len == 0 || len > static_cast<unsigned>(end - src) ||
      !llvm::isLegalUTF8Sequence(src, src + len)) {
    error(p, p + 1,
          "invalid UTF-8 byte `0x" +
              llvm::utohexstr(static_cast<unsigned char>(*p)) +
              "`; .tile files must be UTF-8");
    return 0;
  }
  llvm::UTF32 cp = 0;
  const llvm::UTF8 *from = src;
  llvm::UTF32 *to = &cp;
  (void)llvm::ConvertUTF8toUTF32(&from, src + len, &to, to + 1,
                                 llvm::strictConversion);
  codePoint = cp;
  return len;
}

//===----------------------------------------------------------------------===//
// Layout: indentation and line endings
//===----------------------------------------------------------------------===//

bool Lexer::skipComment() {
  // Comments may hold any UTF-8 (kernels copied from the seeds carry Arabic
  // and Cyrillic comments) but not bytes that are not text.
  while (cur != bufEnd) {
    unsigned char c = *cur;
    if (c == '\n' || c == '\r')
      return true;
    if (c == 0) {
      error(cur, cur + 1, "source file contains a null byte");
      return false;
    }
    if (c < 0x80) {
      ++cur;
      continue;
    }
    uint32_t cp;
    unsigned len = checkUTF8(cur, cp);
    if (len == 0)
      return false;
    cur += len;
  }
  return true;
}

bool Lexer::lexLineStart(Token &tok) {
  while (true) {
    unsigned col = 0, altCol = 0;
    while (cur != bufEnd) {
      if (*cur == ' ') {
        ++col;
        ++altCol;
      } else if (*cur == '\t') {
        col = (col / 8 + 1) * 8;
        ++altCol;
      } else if (*cur == '\f') {
        col = altCol = 0;
      } else {
        break;
      }
      ++cur;
    }
    if (cur == bufEnd)
      return false; // lexToken emits the final DEDENTs and EndOfFile.

    // Blank and comment-only lines produce no tokens at all.
    if (*cur == '#') {
      if (!skipComment()) {
        tok = Token(TokenKind::Error, llvm::StringRef(cur, 0));
        return true;
      }
      if (cur == bufEnd)
        return false;
    }
    if (*cur == '\n') {
      ++cur;
      continue;
    }
    if (*cur == '\r') {
      if (cur + 1 != bufEnd && cur[1] == '\n') {
        cur += 2;
        continue;
      }
      tok = error(cur, cur + 1,
                  "lone carriage return (`\\r`) is not a valid line ending; "
                  "use `\\n` or `\\r\\n`");
      return true;
    }

    atLineStart = false;
    const char *lineLoc = cur;
    auto tabError = [&] {
      tok = error(lineLoc, "inconsistent use of tabs and spaces in "
                           "indentation");
      return true;
    };
    if (col == indents.back()) {
      if (altCol != altIndents.back())
        return tabError();
      return false;
    }
    if (col > indents.back()) {
      if (altCol <= altIndents.back())
        return tabError();
      if (indents.size() > kMaxIndentDepth) {
        tok = error(lineLoc, "too many levels of indentation (the limit is " +
                                 llvm::Twine(kMaxIndentDepth) + ")");
        return true;
      }
      indents.push_back(col);
      altIndents.push_back(altCol);
      tok = Token(TokenKind::Indent, llvm::StringRef(lineLoc, 0));
      return true;
    }
    unsigned dedents = 0;
    while (indents.size() > 1 && col < indents.back()) {
      indents.pop_back();
      altIndents.pop_back();
      ++dedents;
    }
    if (col != indents.back()) {
      tok =
          error(lineLoc, "unindent does not match any outer indentation level");
      return true;
    }
    if (altCol != altIndents.back())
      return tabError();
    pendingDedents = dedents - 1;
    dedentLoc = lineLoc;
    tok = Token(TokenKind::Dedent, llvm::StringRef(lineLoc, 0));
    return true;
  }
}

Token Lexer::lexEndOfFile() {
  // A last line without '\n' still ends with NEWLINE, as in Python; inside
  // open brackets the parser reports the unclosed bracket instead.
  if (bracketDepth != 0)
    return Token(TokenKind::EndOfFile, llvm::StringRef(cur, 0));
  if (!atLineStart) {
    atLineStart = true;
    return Token(TokenKind::Newline, llvm::StringRef(cur, 0));
  }
  if (indents.size() > 1) {
    pendingDedents = indents.size() - 2;
    dedentLoc = cur;
    indents.resize(1);
    altIndents.resize(1);
    return Token(TokenKind::Dedent, llvm::StringRef(cur, 0));
  }
  return Token(TokenKind::EndOfFile, llvm::StringRef(cur, 0));
}

//===----------------------------------------------------------------------===//
// Tokens
//===----------------------------------------------------------------------===//

Token Lexer::lex() {
  if (failed)
    return Token(TokenKind::Error, llvm::StringRef(cur, 0));
  if (pendingDedents != 0) {
    --pendingDedents;
    return Token(TokenKind::Dedent, llvm::StringRef(dedentLoc, 0));
  }
  if (atLineStart && bracketDepth == 0) {
    Token tok;
    if (lexLineStart(tok))
      return tok;
  }
  return lexToken();
}

Token Lexer::lexToken() {
  while (true) {
    while (cur != bufEnd && (*cur == ' ' || *cur == '\t' || *cur == '\f'))
      ++cur;
    if (cur == bufEnd)
      return lexEndOfFile();

    const char *start = cur;
    char c = *cur;
    switch (c) {
    case '#':
      if (!skipComment())
        return Token(TokenKind::Error, llvm::StringRef(cur, 0));
      continue;
    case '\r':
      if (cur + 1 == bufEnd || cur[1] != '\n')
        return error(cur, cur + 1,
                     "lone carriage return (`\\r`) is not a valid line "
                     "ending; use `\\n` or `\\r\\n`");
      ++cur;
      [[fallthrough]];
    case '\n':
      ++cur;
      if (bracketDepth != 0)
        continue; // Implicit line joining.
      atLineStart = true;
      return makeToken(TokenKind::Newline, start);
    case '\\':
      // Explicit line joining: a backslash must end the physical line.
      ++cur;
      if (cur != bufEnd && *cur == '\n') {
        ++cur;
        continue;
      }
      if (cur + 1 < bufEnd && cur[0] == '\r' && cur[1] == '\n') {
        cur += 2;
        continue;
      }
      if (cur == bufEnd)
        return error(start, "unexpected end of file after line "
                            "continuation character `\\`");
      return error(start, "unexpected character after line continuation "
                          "character `\\`");
    case '"':
    case '\'':
      return lexString(start, /*raw=*/false, /*bytes=*/false);
    case '.':
      if (cur + 1 != bufEnd && llvm::isDigit(cur[1]))
        return lexNumber();
      return lexPunctuator();
    default:
      break;
    }
    if (isIdentStart(c))
      return lexIdentifierOrString();
    if (llvm::isDigit(c))
      return lexNumber();
    return lexPunctuator();
  }
}

Token Lexer::lexIdentifierOrString() {
  const char *start = cur;
  while (cur != bufEnd && isIdentChar(*cur))
    ++cur;
  llvm::StringRef text(start, cur - start);

  // String prefixes: r, u, b, f and their legal combinations.
  if (cur != bufEnd && (*cur == '"' || *cur == '\'') && text.size() <= 2) {
    std::string lower = text.lower();
    bool raw = llvm::StringRef(lower).contains('r');
    bool bytes = llvm::StringRef(lower).contains('b');
    bool format = llvm::StringRef(lower).contains('f');
    bool valid = llvm::is_contained(
        {"r", "u", "b", "f", "br", "rb", "fr", "rf"}, llvm::StringRef(lower));
    if (valid) {
      Token t = lexString(start, raw, bytes);
      t.setFormat(format && t.is(TokenKind::String));
      return t;
    }
  }

  if (cur != bufEnd && static_cast<unsigned char>(*cur) >= 0x80)
    return lexBadCharacter();
  return Token(getKeywordKind(text), text);
}

Token Lexer::lexNumber() {
  const char *start = cur;
  auto isDigitIn = [](char c, unsigned radix) {
    if (radix == 16)
      return llvm::isHexDigit(c);
    return c >= '0' && c < static_cast<char>('0' + radix);
  };
  // digit (['_'] digit)*: one underscore between digits, never trailing.
  // Returns false after reporting a misplaced underscore.
  auto scanDigits = [&](unsigned radix, llvm::StringRef what) -> bool {
    while (cur != bufEnd) {
      if (isDigitIn(*cur, radix)) {
        ++cur;
        continue;
      }
      if (*cur == '_') {
        if (cur + 1 != bufEnd && isDigitIn(cur[1], radix)) {
          cur += 2;
          continue;
        }
        error(start, cur + 1, "invalid " + what + " literal");
        return false;
      }
      break;
    }
    return true;
  };
  auto finish = [&](TokenKind kind, llvm::StringRef what) -> Token {
    if (cur != bufEnd && (*cur == 'j' || *cur == 'J')) {
      ++cur;
      return error(start, cur,
                   "imaginary literals are not supported in .tile files");
    }
    if (cur != bufEnd &&
        (isIdentChar(*cur) || static_cast<unsigned char>(*cur) >= 0x80))
      return error(start, cur + 1, "invalid " + what + " literal");
    return makeToken(kind, start);
  };

  if (*cur == '0' && cur + 1 != bufEnd &&
      llvm::StringRef("xXoObB").contains(cur[1])) {
    char letter = static_cast<char>(llvm::toLower(cur[1]));
    unsigned radix = letter == 'x' ? 16 : letter == 'o' ? 8 : 2;
    llvm::StringRef what = letter == 'x'   ? "hexadecimal"
                           : letter == 'o' ? "octal"
                                           : "binary";
    cur += 2;
    if (cur != bufEnd && *cur == '_')
      ++cur;
    if (cur == bufEnd || !isDigitIn(*cur, radix)) {
      if (cur != bufEnd && llvm::isDigit(*cur))
        return error(cur, cur + 1,
                     "invalid digit `" + llvm::Twine(*cur) + "` in " + what +
                         " literal");
      return error(start, cur, "invalid " + what + " literal");
    }
    if (!scanDigits(radix, what))
      return Token(TokenKind::Error, llvm::StringRef(cur, 0));
    if (cur != bufEnd && llvm::isDigit(*cur))
      return error(cur, cur + 1,
                   "invalid digit `" + llvm::Twine(*cur) + "` in " + what +
                       " literal");
    return finish(TokenKind::Integer, what);
  }

  bool isFloat = false;
  if (*cur != '.') {
    if (!scanDigits(10, "decimal"))
      return Token(TokenKind::Error, llvm::StringRef(cur, 0));
  }
  const char *intEnd = cur;
  if (cur != bufEnd && *cur == '.') {
    isFloat = true;
    ++cur;
    if (cur != bufEnd && llvm::isDigit(*cur) && !scanDigits(10, "decimal"))
      return Token(TokenKind::Error, llvm::StringRef(cur, 0));
  }
  if (cur != bufEnd && (*cur == 'e' || *cur == 'E')) {
    const char *exp = cur;
    ++cur;
    if (cur != bufEnd && (*cur == '+' || *cur == '-'))
      ++cur;
    if (cur == bufEnd || !llvm::isDigit(*cur)) {
      cur = exp;
      return error(start, exp + 1,
                   "invalid float literal: exponent has no "
                   "digits");
    }
    isFloat = true;
    if (!scanDigits(10, "decimal"))
      return Token(TokenKind::Error, llvm::StringRef(cur, 0));
  }
  if (!isFloat) {
    // "0"+ is fine; any other decimal integer may not start with 0.
    llvm::StringRef digits(start, intEnd - start);
    if (digits.size() > 1 && digits[0] == '0' &&
        digits.find_first_not_of("0_") != llvm::StringRef::npos)
      return error(start, intEnd,
                   "leading zeros in decimal integer literals are not "
                   "permitted; use an `0o` prefix for octal integers");
    return finish(TokenKind::Integer, "decimal");
  }
  return finish(TokenKind::Float, "float");
}

/// Appends code point `cp` to `out` as UTF-8.
static bool appendUTF8(uint32_t cp, std::string &out) {
  char buf[4];
  char *p = buf;
  if (!llvm::ConvertCodePointToUTF8(cp, p))
    return false;
  out.append(buf, p);
  return true;
}

Token Lexer::lexString(const char *tokStart, bool raw, bool bytes) {
  char quote = *cur;
  const char *quoteLoc = cur;
  bool triple = cur + 2 < bufEnd && cur[1] == quote && cur[2] == quote;
  cur += triple ? 3 : 1;
  std::string value;

  auto unterminated = [&] {
    return error(tokStart, quoteLoc + (triple ? 3 : 1),
                 triple ? "unterminated triple-quoted string literal"
                        : "unterminated string literal");
  };

  while (true) {
    if (cur == bufEnd)
      return unterminated();
    char c = *cur;
    if (c == quote) {
      if (!triple) {
        ++cur;
        break;
      }
      if (cur + 2 < bufEnd && cur[1] == quote && cur[2] == quote) {
        cur += 3;
        break;
      }
    }
    if (c == '\n' || c == '\r') {
      if (c == '\r' && (cur + 1 == bufEnd || cur[1] != '\n'))
        return error(cur, cur + 1,
                     "lone carriage return (`\\r`) is not a valid line "
                     "ending; use `\\n` or `\\r\\n`");
      if (!triple)
        return unterminated();
      // Python reads sources with universal newlines: CRLF becomes '\n'.
      cur += c == '\r' ? 2 : 1;
      value.push_back('\n');
      continue;
    }
    if (c == 0)
      return error(cur, cur + 1, "source file contains a null byte");
    auto uc = static_cast<unsigned char>(c);
    if (uc >= 0x80) {
      uint32_t cp;
      unsigned len = checkUTF8(cur, cp);
      if (len == 0)
        return Token(TokenKind::Error, llvm::StringRef(cur, 0));
      if (bytes)
        return error(cur, cur + len,
                     "bytes literals can only contain ASCII characters");
      value.append(cur, len);
      cur += len;
      continue;
    }
    if (c != '\\') {
      value.push_back(c);
      ++cur;
      continue;
    }

    // Escape sequences.
    const char *escStart = cur;
    ++cur;
    if (cur == bufEnd)
      return unterminated();
    char e = *cur;
    // Backslash-newline continues the literal on the next line, in raw
    // literals too (where both characters are kept).
    bool lineEnd =
        e == '\n' || (e == '\r' && cur + 1 != bufEnd && cur[1] == '\n');
    if (raw) {
      value.push_back('\\');
      if (lineEnd) {
        cur += e == '\r' ? 2 : 1;
        value.push_back('\n');
      } else if (static_cast<unsigned char>(e) < 0x80 && e != 0 && e != '\r') {
        // A raw literal's backslash still keeps the next quote from
        // closing the literal.
        value.push_back(e);
        ++cur;
      }
      continue;
    }
    if (lineEnd) {
      cur += e == '\r' ? 2 : 1;
      continue;
    }
    ++cur;
    switch (e) {
    case '\\':
    case '\'':
    case '"':
      value.push_back(e);
      continue;
    case 'a':
      value.push_back('\a');
      continue;
    case 'b':
      value.push_back('\b');
      continue;
    case 'f':
      value.push_back('\f');
      continue;
    case 'n':
      value.push_back('\n');
      continue;
    case 'r':
      value.push_back('\r');
      continue;
    case 't':
      value.push_back('\t');
      continue;
    case 'v':
      value.push_back('\v');
      continue;
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7': {
      unsigned v = e - '0';
      for (int i = 0; i < 2 && cur != bufEnd && *cur >= '0' && *cur <= '7';
           ++i, ++cur)
        v = v * 8 + (*cur - '0');
      if (bytes || v < 0x80)
        value.push_back(static_cast<char>(v & 0xFF));
      else
        appendUTF8(v, value);
      continue;
    }
    case 'x':
    case 'u':
    case 'U': {
      if (e != 'x' && bytes)
        break; // Not an escape in bytes literals.
      unsigned digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
      uint32_t v = 0;
      for (unsigned i = 0; i < digits; ++i, ++cur) {
        if (cur == bufEnd || !llvm::isHexDigit(*cur))
          return error(escStart, cur,
                       "truncated `\\" + llvm::Twine(e) +
                           "` escape: expected " + llvm::Twine(digits) +
                           " hexadecimal digits");
        v = v * 16 + llvm::hexDigitValue(*cur);
      }
      if (bytes || (e == 'x' && v < 0x80)) {
        value.push_back(static_cast<char>(v));
      } else if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        return error(escStart, cur,
                     "escape `" + llvm::StringRef(escStart, cur - escStart) +
                         "` is not a valid Unicode scalar value");
      } else {
        appendUTF8(v, value);
      }
      continue;
    }
    case 'N': {
      if (bytes)
        break;
      if (cur == bufEnd || *cur != '{')
        return error(escStart, cur, "malformed `\\N` escape: expected `{`");
      const char *nameStart = cur + 1;
      const char *p = nameStart;
      while (p != bufEnd && *p != '}' && *p != quote && *p != '\n')
        ++p;
      if (p == bufEnd || *p != '}')
        return error(escStart, p, "malformed `\\N{...}` escape: missing `}`");
      llvm::StringRef name(nameStart, p - nameStart);
      cur = p + 1;
      std::optional<char32_t> cp =
          llvm::sys::unicode::nameToCodepointStrict(name);
      if (!cp)
        cp = llvm::sys::unicode::nameToCodepointStrict(name.upper());
      if (!cp)
        return error(escStart, cur,
                     "unknown Unicode character name `" + name + "`");
      appendUTF8(*cp, value);
      continue;
    }
    default:
      break;
    }
    // Python keeps an unknown escape verbatim (and warns about it).
    cur = escStart + 1;
    uint32_t cp = static_cast<unsigned char>(*cur);
    unsigned len = 1;
    if (cp >= 0x80) {
      len = checkUTF8(cur, cp);
      if (len == 0)
        return Token(TokenKind::Error, llvm::StringRef(cur, 0));
    } else if (cp == 0) {
      return error(cur, cur + 1, "source file contains a null byte");
    }
    diag.warning(llvm::SMRange(llvm::SMLoc::getFromPointer(escStart),
                               llvm::SMLoc::getFromPointer(cur + len)),
                 "invalid escape sequence `" +
                     llvm::StringRef(escStart, len + 1) +
                     "`; use a raw string or `\\\\`");
    value.push_back('\\');
    value.append(cur, len);
    cur += len;
  }

  Token tok = makeToken(TokenKind::String, tokStart);
  tok.setStringValue(std::move(value));
  tok.setBytes(bytes);
  return tok;
}

Token Lexer::lexPunctuator() {
  const char *start = cur;
  llvm::StringRef rest(cur, bufEnd - cur);
  // Longest match first.
  static constexpr std::pair<llvm::StringLiteral, TokenKind> kPunct[] = {
      {"**=", TokenKind::DoubleStarEqual},
      {"//=", TokenKind::DoubleSlashEqual},
      {">>=", TokenKind::RightShiftEqual},
      {"<<=", TokenKind::LeftShiftEqual},
      {"...", TokenKind::Ellipsis},
      {"**", TokenKind::DoubleStar},
      {"//", TokenKind::DoubleSlash},
      {"<<", TokenKind::LeftShift},
      {">>", TokenKind::RightShift},
      {"<=", TokenKind::LessEqual},
      {">=", TokenKind::GreaterEqual},
      {"==", TokenKind::EqEqual},
      {"!=", TokenKind::NotEqual},
      {"->", TokenKind::RArrow},
      {":=", TokenKind::ColonEqual},
      {"+=", TokenKind::PlusEqual},
      {"-=", TokenKind::MinusEqual},
      {"*=", TokenKind::StarEqual},
      {"/=", TokenKind::SlashEqual},
      {"%=", TokenKind::PercentEqual},
      {"@=", TokenKind::AtEqual},
      {"&=", TokenKind::AmperEqual},
      {"|=", TokenKind::VBarEqual},
      {"^=", TokenKind::CircumflexEqual},
      {"(", TokenKind::LParen},
      {")", TokenKind::RParen},
      {"[", TokenKind::LSquare},
      {"]", TokenKind::RSquare},
      {"{", TokenKind::LBrace},
      {"}", TokenKind::RBrace},
      {":", TokenKind::Colon},
      {",", TokenKind::Comma},
      {";", TokenKind::Semi},
      {".", TokenKind::Dot},
      {"+", TokenKind::Plus},
      {"-", TokenKind::Minus},
      {"*", TokenKind::Star},
      {"/", TokenKind::Slash},
      {"%", TokenKind::Percent},
      {"@", TokenKind::At},
      {"|", TokenKind::VBar},
      {"&", TokenKind::Amper},
      {"^", TokenKind::Circumflex},
      {"~", TokenKind::Tilde},
      {"<", TokenKind::Less},
      {">", TokenKind::Greater},
      {"=", TokenKind::Equal},
  };
  for (const auto &[spelling, kind] : kPunct) {
    if (!rest.starts_with(spelling))
      continue;
    cur += spelling.size();
    switch (kind) {
    case TokenKind::LParen:
    case TokenKind::LSquare:
    case TokenKind::LBrace:
      if (bracketDepth >= kMaxBracketDepth)
        return error(start, cur,
                     "too many nested parentheses (the limit is " +
                         llvm::Twine(kMaxBracketDepth) + ")");
      ++bracketDepth;
      break;
    case TokenKind::RParen:
    case TokenKind::RSquare:
    case TokenKind::RBrace:
      // An unmatched closer is the parser's to report, with context.
      if (bracketDepth != 0)
        --bracketDepth;
      break;
    default:
      break;
    }
    return makeToken(kind, start);
  }
  return lexBadCharacter();
}

Token Lexer::lexBadCharacter() {
  auto c = static_cast<unsigned char>(*cur);
  if (c == 0)
    return error(cur, cur + 1, "source file contains a null byte");
  if (c >= 0x80) {
    uint32_t cp;
    unsigned len = checkUTF8(cur, cp);
    if (len == 0)
      return Token(TokenKind::Error, llvm::StringRef(cur, 0));
    if (!llvm::sys::unicode::isPrintable(static_cast<int>(cp)))
      return error(cur, cur + len,
                   "invalid non-printable character " + codePointName(cp));
    return error(cur, cur + len,
                 "invalid character `" + llvm::StringRef(cur, len) + "` (" +
                     codePointName(cp) +
                     "); non-ASCII characters may appear only in strings and "
                     "comments");
  }
  if (c < 0x20 || c == 0x7F)
    return error(cur, cur + 1,
                 "invalid non-printable character " + codePointName(c));
  if (c == '!')
    return error(cur, cur + 1,
                 "unexpected character `!`; use `not` for negation");
  return error(cur, cur + 1,
               "unexpected character `" + llvm::Twine(static_cast<char>(c)) +
                   "`");
}
