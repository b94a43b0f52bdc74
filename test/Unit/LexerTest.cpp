//===- LexerTest.cpp - Unit tests for the .tile lexer and diagnostics -----===//
//
// Tokens, Python's layout rules (NEWLINE / INDENT / DEDENT, joining, tabs),
// literals, every lexical error with its position, robustness against bad
// bytes, and the DiagnosticEngine's output format and limits.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Lexer.h"
#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

using namespace tilec;

namespace {

struct CapturedDiag {
  DiagSeverity severity;
  unsigned line, col;
  std::string message;
};

/// One in-memory source file with a diagnostic engine that records what it
/// is told instead of printing it.
struct Source {
  explicit Source(llvm::StringRef text) : diag(sm) {
    id = sm.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "test.tile"), llvm::SMLoc());
    diag.setHandler([this](const Diagnostic &d) {
      auto [line, col] = diag.lineCol(d.loc);
      diags.push_back({d.severity, line, col, d.message});
    });
  }
  unsigned errors() const {
    unsigned n = 0;
    for (const CapturedDiag &d : diags)
      n += d.severity == DiagSeverity::Error;
    return n;
  }

  llvm::SourceMgr sm;
  unsigned id = 0;
  std::vector<CapturedDiag> diags;
  DiagnosticEngine diag;
};

/// All tokens up to and including EndOfFile or Error.
std::vector<Token> lexAll(Source &src) {
  Lexer lexer(src.sm, src.id, src.diag);
  std::vector<Token> tokens;
  while (true) {
    tokens.push_back(lexer.lex());
    if (tokens.back().isAny(TokenKind::EndOfFile, TokenKind::Error))
      return tokens;
  }
}

/// Tokens as a readable string: spellings, with layout tokens in capitals.
std::string show(const std::vector<Token> &tokens) {
  std::string out;
  for (const Token &tok : tokens) {
    if (!out.empty())
      out += ' ';
    switch (tok.getKind()) {
    case TokenKind::Newline:
      out += "NEWLINE";
      break;
    case TokenKind::Indent:
      out += "INDENT";
      break;
    case TokenKind::Dedent:
      out += "DEDENT";
      break;
    case TokenKind::EndOfFile:
      out += "EOF";
      break;
    case TokenKind::Error:
      out += "ERROR";
      break;
    default:
      out += tok.getSpelling().str();
    }
  }
  return out;
}

std::string lexToString(llvm::StringRef text) {
  Source src(text);
  return show(lexAll(src));
}

/// The single token of `text` (which must lex to one token + NEWLINE).
Token lexOne(Source &src) {
  std::vector<Token> tokens = lexAll(src);
  REQUIRE(tokens.size() >= 2);
  return tokens[0];
}

/// Lexes `text`, which must fail; returns the (only) error.
CapturedDiag lexError(llvm::StringRef text) {
  Source src(text);
  std::vector<Token> tokens = lexAll(src);
  CHECK(tokens.back().is(TokenKind::Error));
  REQUIRE(src.errors() == 1);
  for (const CapturedDiag &d : src.diags)
    if (d.severity == DiagSeverity::Error)
      return d;
  return {};
}

} // namespace

//===----------------------------------------------------------------------===//
// Tokens
//===----------------------------------------------------------------------===//

TEST_CASE("lexer: names, keywords and soft keywords", "[lexer]") {
  Source src("def lambda_ match _x1 not in is None True\n");
  std::vector<Token> tokens = lexAll(src);
  REQUIRE(tokens.size() == 11);
  CHECK(tokens[0].is(TokenKind::KwDef));
  CHECK(tokens[1].is(TokenKind::Identifier));
  CHECK(tokens[2].is(TokenKind::Identifier)); // soft keyword
  CHECK(tokens[3].is(TokenKind::Identifier));
  CHECK(tokens[4].is(TokenKind::KwNot));
  CHECK(tokens[5].is(TokenKind::KwIn));
  CHECK(tokens[6].is(TokenKind::KwIs));
  CHECK(tokens[7].is(TokenKind::KwNone));
  CHECK(tokens[8].is(TokenKind::KwTrue));
  CHECK(tokens[9].is(TokenKind::Newline));
  CHECK(tokens[10].is(TokenKind::EndOfFile));
  CHECK(getKeywordKind("yield") == TokenKind::KwYield);
  CHECK(getKeywordKind("print") == TokenKind::Identifier);
  CHECK(isKeyword(TokenKind::KwAsync));
  CHECK_FALSE(isKeyword(TokenKind::Identifier));
  CHECK(getTokenKindSpelling(TokenKind::DoubleSlashEqual) == "//=");
}

TEST_CASE("lexer: every operator and delimiter, longest match", "[lexer]") {
  CHECK(lexToString("a**=b//=c>>=d<<=e...f->g:=h\n") ==
        "a **= b //= c >>= d <<= e ... f -> g := h NEWLINE EOF");
  CHECK(lexToString("+ - * ** / // % @ | & ^ ~ << >> < > <= >= == != =\n") ==
        "+ - * ** / // % @ | & ^ ~ << >> < > <= >= == != = NEWLINE EOF");
  CHECK(lexToString("+= -= *= /= %= @= &= |= ^= ( ) [ ] { } : , ; .\n") ==
        "+= -= *= /= %= @= &= |= ^= ( ) [ ] { } : , ; . NEWLINE EOF");
  Source src("**= ** *\n");
  std::vector<Token> tokens = lexAll(src);
  CHECK(tokens[0].is(TokenKind::DoubleStarEqual));
  CHECK(tokens[1].is(TokenKind::DoubleStar));
  CHECK(tokens[2].is(TokenKind::Star));
}

TEST_CASE("lexer: token locations and ranges", "[lexer]") {
  Source src("x = foo(12,\n        'ab')\n");
  std::vector<Token> tokens = lexAll(src);
  REQUIRE(show(tokens) == "x = foo ( 12 , 'ab' ) NEWLINE EOF");
  auto at = [&](unsigned i) { return src.diag.lineCol(tokens[i].getLoc()); };
  CHECK(at(0) == std::make_pair(1u, 1u));
  CHECK(at(2) == std::make_pair(1u, 5u));
  CHECK(at(4) == std::make_pair(1u, 9u));
  CHECK(at(6) == std::make_pair(2u, 9u));
  CHECK(at(7) == std::make_pair(2u, 13u));
  CHECK(tokens[2].getSpelling() == "foo");
  CHECK(src.diag.lineCol(tokens[2].getEndLoc()) == std::make_pair(1u, 8u));
  CHECK(tokens[6].getSpelling() == "'ab'");
  CHECK(tokens[6].getStringValue() == "ab");
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

TEST_CASE("lexer: indentation produces INDENT and DEDENT", "[lexer]") {
  CHECK(lexToString("if a:\n    b\n    if c:\n        d\ne\n") ==
        "if a : NEWLINE INDENT b NEWLINE if c : NEWLINE INDENT d NEWLINE "
        "DEDENT DEDENT e NEWLINE EOF");
  // Dedents are emitted at end of file too.
  CHECK(lexToString("if a:\n  if b:\n    c\n") ==
        "if a : NEWLINE INDENT if b : NEWLINE INDENT c NEWLINE DEDENT DEDENT "
        "EOF");
  // Partial dedent to an outer level.
  CHECK(lexToString("a:\n b:\n  c\n d\n") ==
        "a : NEWLINE INDENT b : NEWLINE INDENT c NEWLINE DEDENT d NEWLINE "
        "DEDENT EOF");
}

TEST_CASE("lexer: blank and comment-only lines are ignored", "[lexer]") {
  CHECK(lexToString("\n\n# c\n   \n  # indented comment\nif a:  # c\n\n"
                    "      # odd comment\n    b\n\n# end\n") ==
        "if a : NEWLINE INDENT b NEWLINE DEDENT EOF");
  CHECK(lexToString("") == "EOF");
  CHECK(lexToString("# only a comment") == "EOF");
  CHECK(lexToString("   \n\t\n") == "EOF");
}

TEST_CASE("lexer: implicit and explicit line joining", "[lexer]") {
  CHECK(lexToString("f(a,\n      b,\n\n  # c\n c)\nx\n") ==
        "f ( a , b , c ) NEWLINE x NEWLINE EOF");
  CHECK(lexToString("x = [1,\n2] + {\n}\n") ==
        "x = [ 1 , 2 ] + { } NEWLINE EOF");
  CHECK(lexToString("x = 1 + \\\n        2\ny\n") ==
        "x = 1 + 2 NEWLINE y NEWLINE EOF");
  CHECK(lexToString("x = 1 + \\\r\n    2\r\n") == "x = 1 + 2 NEWLINE EOF");
}

TEST_CASE("lexer: tabs advance to multiples of 8", "[lexer]") {
  // Consistent tabs.
  CHECK(lexToString("if a:\n\tb\n\tif c:\n\t\td\n") ==
        "if a : NEWLINE INDENT b NEWLINE if c : NEWLINE INDENT d NEWLINE "
        "DEDENT DEDENT EOF");
  // A tab after spaces still reaches column 8, the same as "\t" alone, but
  // the two spellings disagree under tab size 1: Python's TabError.
  CapturedDiag d = lexError("if a:\n\tb\n    \tc\n");
  CHECK(d.line == 3);
  CHECK(d.col == 6);
  CHECK(d.message == "inconsistent use of tabs and spaces in indentation");
  d = lexError("if a:\n        b\n\tc\n");
  CHECK(d.line == 3);
  CHECK(d.message == "inconsistent use of tabs and spaces in indentation");
  // Form feed resets the column.
  CHECK(lexToString("a\n\f b\n") == "a NEWLINE INDENT b NEWLINE DEDENT EOF");
}

TEST_CASE("lexer: inconsistent dedent is an error", "[lexer]") {
  CapturedDiag d = lexError("if a:\n    b\n  c\n");
  CHECK(d.line == 3);
  CHECK(d.col == 3);
  CHECK(d.message == "unindent does not match any outer indentation level");
}

TEST_CASE("lexer: line endings", "[lexer]") {
  CHECK(lexToString("if a:\r\n  b\r\nc") ==
        "if a : NEWLINE INDENT b NEWLINE DEDENT c NEWLINE EOF");
  // No trailing newline: NEWLINE is still produced.
  Source src("x = 1");
  std::vector<Token> tokens = lexAll(src);
  REQUIRE(show(tokens) == "x = 1 NEWLINE EOF");
  CHECK(src.diag.lineCol(tokens[3].getLoc()) == std::make_pair(1u, 6u));
  // A lone carriage return is not a line ending.
  CapturedDiag d = lexError("x = 1\ry = 2\n");
  CHECK(d.line == 1);
  CHECK(d.col == 6);
  CHECK(d.message.find("lone carriage return") != std::string::npos);
  CHECK(lexError("\r").col == 1);
  CHECK(lexError("# comment\r").col == 10);
}

TEST_CASE("lexer: UTF-8 byte order mark is skipped", "[lexer]") {
  CHECK(lexToString("\xEF\xBB\xBFx = 1\n") == "x = 1 NEWLINE EOF");
}

TEST_CASE("lexer: after EOF or an error the lexer stays put", "[lexer]") {
  Source src("x\n");
  Lexer lexer(src.sm, src.id, src.diag);
  for (int i = 0; i < 2; ++i)
    lexer.lex();
  CHECK(lexer.lex().is(TokenKind::EndOfFile));
  CHECK(lexer.lex().is(TokenKind::EndOfFile));

  Source bad("x $ y\n");
  Lexer badLexer(bad.sm, bad.id, bad.diag);
  CHECK(badLexer.lex().is(TokenKind::Identifier));
  CHECK(badLexer.lex().is(TokenKind::Error));
  CHECK(badLexer.lex().is(TokenKind::Error));
  CHECK(badLexer.hadError());
  CHECK(bad.errors() == 1);
}

//===----------------------------------------------------------------------===//
// Numbers
//===----------------------------------------------------------------------===//

TEST_CASE("lexer: integer and float literals", "[lexer]") {
  struct Case {
    const char *text;
    TokenKind kind;
  };
  const Case cases[] = {
      {"0", TokenKind::Integer},         {"000", TokenKind::Integer},
      {"0_0", TokenKind::Integer},       {"123", TokenKind::Integer},
      {"1_000_000", TokenKind::Integer}, {"0x1F", TokenKind::Integer},
      {"0X_ff_ff", TokenKind::Integer},  {"0o17", TokenKind::Integer},
      {"0O_7", TokenKind::Integer},      {"0b1010", TokenKind::Integer},
      {"0B_1_0", TokenKind::Integer},    {"1.5", TokenKind::Float},
      {"1.", TokenKind::Float},          {".5", TokenKind::Float},
      {"1e-30", TokenKind::Float},       {"1E+3", TokenKind::Float},
      {"2e8", TokenKind::Float},         {"1_0.2_5e1_0", TokenKind::Float},
      {"0.0", TokenKind::Float},         {"00.5", TokenKind::Float},
      {"1.e5", TokenKind::Float},        {"09.5", TokenKind::Float},
  };
  for (const Case &c : cases) {
    INFO(c.text);
    Source src(std::string(c.text) + "\n");
    Token tok = lexOne(src);
    CHECK(tok.is(c.kind));
    CHECK(tok.getSpelling() == c.text);
    CHECK(src.diags.empty());
  }
}

TEST_CASE("lexer: malformed numbers", "[lexer]") {
  struct Case {
    const char *text;
    unsigned col;
    const char *message;
  };
  const Case cases[] = {
      {"x = 0777\n", 5, "leading zeros in decimal integer literals"},
      {"x = 0_1\n", 5, "leading zeros in decimal integer literals"},
      {"x = 1__0\n", 5, "invalid decimal literal"},
      {"x = 1_\n", 5, "invalid decimal literal"},
      {"x = 12abc\n", 5, "invalid decimal literal"},
      {"x = 0x\n", 5, "invalid hexadecimal literal"},
      {"x = 0xfg\n", 5, "invalid hexadecimal literal"},
      {"x = 0b102\n", 9, "invalid digit `2` in binary literal"},
      {"x = 0o8\n", 7, "invalid digit `8` in octal literal"},
      {"x = 1e\n", 5, "exponent has no digits"},
      {"x = 1.5e+\n", 5, "exponent has no digits"},
      {"x = 3j\n", 5, "imaginary literals are not supported"},
      {"x = 1.5x\n", 5, "invalid float literal"},
  };
  for (const Case &c : cases) {
    INFO(c.text);
    CapturedDiag d = lexError(c.text);
    CHECK(d.line == 1);
    CHECK(d.col == c.col);
    CHECK(d.message.find(c.message) != std::string::npos);
  }
}

//===----------------------------------------------------------------------===//
// Strings
//===----------------------------------------------------------------------===//

TEST_CASE("lexer: string literal values", "[lexer]") {
  struct Case {
    const char *text;
    std::string value;
    bool bytes;
  };
  const Case cases[] = {
      {"'abc'", "abc", false},
      {"\"a'b\"", "a'b", false},
      {"'a\\'b'", "a'b", false},
      {"'\\n\\t\\\\\\\"\\a\\b\\f\\v\\r'", "\n\t\\\"\a\b\f\v\r", false},
      {"'\\x41\\101\\0'", std::string("AA\0", 3), false},
      {"'\\u00e9\\U0001F600'", "\xC3\xA9\xF0\x9F\x98\x80", false},
      {"'\\N{GREEK SMALL LETTER ALPHA}'", "\xCE\xB1", false},
      {"'caf\xC3\xA9 \xD8\xB9'", "caf\xC3\xA9 \xD8\xB9", false},
      {"r'\\d\\n'", "\\d\\n", false},
      {"R\"\\\"\"", "\\\"", false},
      {"u'x'", "x", false},
      {"b'\\xff\\n'", "\xFF\n", true},
      {"Rb'\\x'", "\\x", true},
      {"'''a\n'b'\nc'''", "a\n'b'\nc", false},
      {"\"\"\"x\r\ny\"\"\"", "x\ny", false},
      {"'a\\\nb'", "ab", false},
      {"''", "", false},
      {"\"\"\"\"\"\"", "", false},
  };
  for (const Case &c : cases) {
    INFO(c.text);
    Source src(std::string(c.text) + "\n");
    Token tok = lexOne(src);
    REQUIRE(tok.is(TokenKind::String));
    CHECK(tok.getSpelling() == c.text);
    CHECK(tok.getStringValue() == c.value);
    CHECK(tok.isBytes() == c.bytes);
    CHECK(src.diags.empty());
  }
}

TEST_CASE("lexer: unknown escapes are kept, with a warning", "[lexer]") {
  Source src("x = '\\d'\n");
  std::vector<Token> tokens = lexAll(src);
  REQUIRE(tokens[2].is(TokenKind::String));
  CHECK(tokens[2].getStringValue() == "\\d");
  REQUIRE(src.diags.size() == 1);
  CHECK(src.diags[0].severity == DiagSeverity::Warning);
  CHECK(src.diags[0].col == 6);
  CHECK(src.diags[0].message.find("invalid escape sequence `\\d`") == 0);

  // `\u` is not an escape in bytes literals (Python warns there too).
  Source bytes("b'\\u12'\n");
  CHECK(lexOne(bytes).getStringValue() == "\\u12");
  REQUIRE(bytes.diags.size() == 1);
  CHECK(bytes.diags[0].severity == DiagSeverity::Warning);
}

TEST_CASE("lexer: string errors", "[lexer]") {
  struct Case {
    const char *text;
    unsigned line, col;
    const char *message;
  };
  const Case cases[] = {
      {"x = 'abc\n", 1, 5, "unterminated string literal"},
      {"x = 'abc", 1, 5, "unterminated string literal"},
      {"x = \"\"\"abc\n\ndef\n", 1, 5,
       "unterminated triple-quoted string literal"},
      {"x = rf'a\n", 1, 5, "unterminated string literal"},
      {"x = '\\x4'\n", 1, 6, "truncated `\\x` escape"},
      {"x = '\\ud800'\n", 1, 6, "is not a valid Unicode scalar value"},
      {"x = '\\N{NO SUCH THING}'\n", 1, 6, "unknown Unicode character name"},
      {"x = b'\xC3\xA9'\n", 1, 7, "bytes literals can only contain ASCII"},
      {"x = 'a\xFF'\n", 1, 7, "invalid UTF-8 byte `0xFF`"},
  };
  for (const Case &c : cases) {
    INFO(c.text);
    CapturedDiag d = lexError(c.text);
    CHECK(d.line == c.line);
    CHECK(d.col == c.col);
    CHECK(d.message.find(c.message) != std::string::npos);
  }
}

//===----------------------------------------------------------------------===//
// Bad input
//===----------------------------------------------------------------------===//

TEST_CASE("lexer: bad bytes and stray characters", "[lexer]") {
  struct Case {
    std::string text;
    unsigned line, col;
    const char *message;
  };
  const Case cases[] = {
      {"x = 1\n$y\n", 2, 1, "unexpected character `$`"},
      {"x = a ? b\n", 1, 7, "unexpected character `?`"},
      {"x = `a`\n", 1, 5, "unexpected character"},
      {"if !x: pass\n", 1, 4, "use `not` for negation"},
      {std::string("x = 1\0\n", 7), 1, 6, "null byte"},
      {"x = \x01\n", 1, 5, "invalid non-printable character U+0001"},
      {"x = \x7F\n", 1, 5, "invalid non-printable character U+007F"},
      {"x = \xFF\xFE\n", 1, 5, "invalid UTF-8 byte `0xFF`"},
      {"x = \xC3\n", 1, 5, "invalid UTF-8 byte `0xC3`"},
      {"# ok \xD8\xB9\n# bad \xC0\xAF\n", 2, 7, "invalid UTF-8 byte `0xC0`"},
      {"x = \xE2\x80\x9C"
       "a\xE2\x80\x9D\n",
       1, 5, "invalid character `\xE2\x80\x9C` (U+201C)"},
      {"\xCE\xB1 = 1\n", 1, 1, "non-ASCII characters may appear only"},
      {"ab\xCE\xB1 = 1\n", 1, 3, "(U+03B1)"},
      {"x = \xC2\xA0 1\n", 1, 5, "U+00A0"},
      {"x = 1 \\ 2\n", 1, 7, "unexpected character after line continuation"},
      {"x = 1 \\", 1, 7, "unexpected end of file after line continuation"},
  };
  for (const Case &c : cases) {
    INFO(c.text);
    CapturedDiag d = lexError(c.text);
    CHECK(d.line == c.line);
    CHECK(d.col == c.col);
    CHECK(d.message.find(c.message) != std::string::npos);
  }
}

TEST_CASE("lexer: valid UTF-8 in comments and strings", "[lexer]") {
  // Comments in the seeds' examples are Arabic, Farsi and Russian.
  Source src("x = 1  # \xD8\xB0\xD8\xA7\xD9\x83\xD8\xB1\xD8\xA9 "
             "\xD0\xBF\xD0\xB0\xD0\xBC\n"
             "s = '\xF0\x9F\x98\x80'\n");
  CHECK(show(lexAll(src)) == "x = 1 NEWLINE s = '\xF0\x9F\x98\x80' NEWLINE "
                             "EOF");
  CHECK(src.diags.empty());
}

TEST_CASE("lexer: nesting limits", "[lexer]") {
  std::string parens =
      "x = " + std::string(300, '(') + "1" + std::string(300, ')') + "\n";
  CapturedDiag d = lexError(parens);
  CHECK(d.col == 5 + Lexer::kMaxBracketDepth);
  CHECK(d.message.find("too many nested parentheses") == 0);

  std::string blocks;
  for (unsigned i = 0; i < 300; ++i)
    blocks += std::string(i, ' ') + "if x:\n";
  blocks += std::string(300, ' ') + "pass\n";
  d = lexError(blocks);
  CHECK(d.line == Lexer::kMaxIndentDepth + 2);
  CHECK(d.message.find("too many levels of indentation") == 0);

  // Just inside the limits is fine.
  std::string ok = "x = " + std::string(Lexer::kMaxBracketDepth, '[') +
                   std::string(Lexer::kMaxBracketDepth, ']') + "\n";
  Source src(ok);
  CHECK(lexAll(src).back().is(TokenKind::EndOfFile));
}

TEST_CASE("lexer: megabytes of binary garbage", "[lexer][robustness]") {
  std::mt19937 rng(1234);
  for (int round = 0; round < 4; ++round) {
    std::string garbage(1 << 20, '\0');
    for (char &c : garbage)
      c = static_cast<char>(rng() & 0xFF);
    if (round == 1) // mostly printable ASCII, so the lexer gets further
      for (char &c : garbage)
        c = static_cast<char>(' ' + (static_cast<unsigned char>(c) % 95));
    Source src(garbage);
    std::unique_ptr<ast::Module> module = parseModule(src.sm, src.id, src.diag);
    CHECK(module == nullptr);
    CHECK(src.errors() == 1);
  }
}

//===----------------------------------------------------------------------===//
// DiagnosticEngine
//===----------------------------------------------------------------------===//

TEST_CASE("diagnostics: clang's format", "[diagnostics]") {
  llvm::SourceMgr sm;
  unsigned id = sm.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy("x = 1\ny = foo(2)\n", "k.tile"),
      llvm::SMLoc());
  std::string out;
  llvm::raw_string_ostream os(out);
  DiagnosticEngine diag(sm, os);
  diag.setShowColors(false);
  const char *start = sm.getMemoryBuffer(id)->getBufferStart();
  llvm::SMLoc foo = llvm::SMLoc::getFromPointer(start + 10);
  llvm::SMLoc fooEnd = llvm::SMLoc::getFromPointer(start + 13);
  diag.error(llvm::SMRange(foo, fooEnd), "unknown name `foo`");
  diag.note(llvm::SMLoc::getFromPointer(start), "declared here");
  diag.warning(llvm::SMLoc::getFromPointer(start + 14), "odd");
  CHECK(out == "k.tile:2:5: error: unknown name `foo`\n"
               "y = foo(2)\n"
               "    ^~~\n"
               "k.tile:1:1: note: declared here\n"
               "x = 1\n"
               "^\n"
               "k.tile:2:9: warning: odd\n"
               "y = foo(2)\n"
               "        ^\n");
  CHECK(diag.errorCount() == 1);
  CHECK(diag.warningCount() == 1);
  CHECK(diag.hasErrors());
  CHECK(diag.lineCol(foo) == std::make_pair(2u, 5u));
  CHECK(diag.lineCol(llvm::SMLoc()) == std::make_pair(0u, 0u));
  CHECK(diag.bufferIdentifier(foo) == "k.tile");
  CHECK(diag.bufferIdentifier(llvm::SMLoc()) == "k.tile");
}

TEST_CASE("diagnostics: lines with non-ASCII or control bytes",
          "[diagnostics]") {
  // LLVM's printer drops the caret line of any line with a non-ASCII byte
  // and prints control bytes raw; these lines keep their caret, and show
  // bytes that are not printable UTF-8 as escapes.
  auto print = [](llvm::StringRef text, size_t at, size_t len,
                  llvm::StringRef msg = "bad") {
    llvm::SourceMgr sm;
    unsigned id = sm.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "u.tile"), llvm::SMLoc());
    std::string out;
    llvm::raw_string_ostream os(out);
    DiagnosticEngine diag(sm, os);
    diag.setShowColors(false);
    const char *start = sm.getMemoryBuffer(id)->getBufferStart();
    diag.error(llvm::SMRange(llvm::SMLoc::getFromPointer(start + at),
                             llvm::SMLoc::getFromPointer(start + at + len)),
               msg);
    return out;
  };
  // A wide character takes two columns; the byte column is what is shown.
  CHECK(print("s = \"h\xc3\xa9\" + \xe4\xb8\xad # \xd0\xba\n", 12, 3) ==
        "u.tile:1:13: error: bad\n"
        "s = \"h\xc3\xa9\" + \xe4\xb8\xad # \xd0\xba\n"
        "           ^~\n");
  // Control bytes and bytes that are not UTF-8 are escaped; tabs expand.
  CHECK(print("x =\t\x1b[1m \xff\n", 4, 1) == "u.tile:1:5: error: bad\n"
                                              "x =     <U+001B>[1m <FF>\n"
                                              "        ^~~~~~~~\n");
  CHECK(print("a\x7f\xfe\xff b\n", 5, 1) == "u.tile:1:6: error: bad\n"
                                            "a<U+007F><FE><FF> b\n"
                                            "                  ^\n");
  // A null byte is a control character like the others.
  CHECK(print(llvm::StringRef("\0\n", 2), 0, 1, "null") ==
        "u.tile:1:1: error: null\n<U+0000>\n^~~~~~~~\n");
  // Pure ASCII lines still go through LLVM's printer, unchanged.
  CHECK(print("y = z\n", 4, 1) == "u.tile:1:5: error: bad\ny = z\n    ^\n");
}

TEST_CASE("diagnostics: error limit", "[diagnostics]") {
  llvm::SourceMgr sm;
  unsigned id = sm.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy("abc\n", "k.tile"), llvm::SMLoc());
  llvm::SMLoc loc =
      llvm::SMLoc::getFromPointer(sm.getMemoryBuffer(id)->getBufferStart());
  std::vector<std::pair<DiagSeverity, std::string>> seen;
  DiagnosticEngine diag(sm);
  diag.setHandler(
      [&](const Diagnostic &d) { seen.push_back({d.severity, d.message}); });
  diag.setErrorLimit(2);
  for (int i = 0; i < 5; ++i) {
    diag.error(loc, "e" + llvm::Twine(i));
    diag.note(loc, "n" + llvm::Twine(i));
  }
  REQUIRE(seen.size() == 5);
  CHECK(seen[0].second == "e0");
  CHECK(seen[1].second == "n0");
  CHECK(seen[2].second == "e1");
  CHECK(seen[3].second == "n1");
  CHECK(seen[4].second == "too many errors emitted, stopping now");
  CHECK(diag.errorCount() == 5);
  CHECK(diag.shouldStop());

  // Printed, the stop message has no location.
  std::string out;
  llvm::raw_string_ostream os(out);
  DiagnosticEngine printer(sm, os);
  printer.setShowColors(false);
  printer.setErrorLimit(1);
  printer.error(loc, "first");
  printer.error(loc, "second");
  printer.error(loc, "third");
  CHECK(out == "k.tile:1:1: error: first\nabc\n^\n"
               "error: too many errors emitted, stopping now\n");
  CHECK(printer.errorCount() == 3);
}
