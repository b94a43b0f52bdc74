//===- ParseFString.cpp - f-strings as str.format calls -------------------===//
//
// `f"block {bm} x {bn!r:>4}"` is parsed into the call
// `"block {} x {!r:>4}".format(bm, bn)`: the literal text (escapes decoded,
// braces doubled) makes the template and each replacement field's
// expression, parsed by a sub-parser over its own source bytes so that its
// locations are the user's, is an argument. The elaborator implements
// str.format, so f-strings and .format share one implementation; `{x=}`
// expands to the text `x=` and a `!r` field, as Python does.
//
//===----------------------------------------------------------------------===//

#include "ParserImpl.h"

using namespace tilec;
using namespace tilec::ast;
using tilec::detail::Parser;

/// The expression of a replacement field: the whole sub-input.
ExprPtr Parser::parseFieldExpression() {
  if (tok.is(TokenKind::EndOfFile))
    return errorExpected("an expression", "in the f-string's `{}`");
  ExprPtr e = parseStarExpressions();
  if (!e)
    return nullptr;
  if (tok.isNot(TokenKind::EndOfFile))
    return errorExpected("`}`", "after the f-string's expression");
  return e;
}

/// Decodes the escapes of a literal piece of a (non-raw) f-string. The lexer
/// has already checked them; \N{...}, \u and \U are refused here, being rare
/// in kernels' messages.
static bool decodeLiteral(llvm::StringRef raw, bool isRaw, std::string &out,
                          const char *&bad) {
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\' || isRaw || i + 1 == raw.size()) {
      out += c;
      continue;
    }
    char e = raw[++i];
    switch (e) {
    case '\n': break;
    case '\\': case '\'': case '"': out += e; break;
    case 'a': out += '\a'; break;
    case 'b': out += '\b'; break;
    case 'f': out += '\f'; break;
    case 'n': out += '\n'; break;
    case 'r': out += '\r'; break;
    case 't': out += '\t'; break;
    case 'v': out += '\v'; break;
    case 'x': {
      unsigned v = 0;
      if (i + 2 >= raw.size() || raw.substr(i + 1, 2).getAsInteger(16, v)) {
        bad = raw.data() + i - 1;
        return false;
      }
      out += static_cast<char>(v);
      i += 2;
      break;
    }
    default:
      if (e >= '0' && e <= '7') {
        unsigned v = e - '0';
        for (int k = 0; k < 2 && i + 1 < raw.size() && raw[i + 1] >= '0' &&
                        raw[i + 1] <= '7';
             ++k)
          v = v * 8 + (raw[++i] - '0');
        out += static_cast<char>(v & 0xFF);
        break;
      }
      if (e == 'N' || e == 'u' || e == 'U') {
        bad = raw.data() + i - 1;
        return false;
      }
      out += '\\'; // unknown escapes stay as written, as in Python
      out += e;
    }
  }
  return true;
}

bool Parser::parseFString(const Token &t, std::string &templ,
                          std::vector<ExprPtr> &args) {
  llvm::StringRef s = t.getSpelling();
  size_t q = s.find_first_of("'\"");
  bool isRaw = s.take_front(q).contains_insensitive("r");
  char quote = s[q];
  size_t qlen = s.size() >= q + 6 && s[q + 1] == quote && s[q + 2] == quote ? 3 : 1;
  llvm::StringRef body = s.slice(q + qlen, s.size() - qlen);

  auto literal = [&](llvm::StringRef raw) {
    std::string text;
    const char *bad = nullptr;
    if (!decodeLiteral(raw, isRaw, text, bad)) {
      emitError(llvm::SMLoc::getFromPointer(bad),
                "this escape is not supported in f-strings",
                {llvm::SMLoc::getFromPointer(bad),
                 llvm::SMLoc::getFromPointer(bad + 2)});
      return false;
    }
    for (char c : text)
      templ += c == '{' ? "{{" : c == '}' ? "}}" : std::string(1, c);
    return true;
  };

  size_t i = 0, litStart = 0;
  while (i < body.size()) {
    char c = body[i];
    if ((c == '{' || c == '}') && i + 1 < body.size() && body[i + 1] == c) {
      if (!literal(body.slice(litStart, i + 1)))
        return false;
      i += 2;
      litStart = i;
      continue;
    }
    if (c == '}') {
      emitError(llvm::SMLoc::getFromPointer(body.data() + i),
                "single `}` is not allowed in an f-string; write `}}`");
      return false;
    }
    if (c != '{') {
      ++i;
      continue;
    }
    if (!literal(body.slice(litStart, i)))
      return false;
    // The field: an expression up to a top-level `!`, `:`, `=` or `}`.
    const char *open = body.data() + i;
    size_t exprStart = ++i;
    unsigned depth = 0;
    char inString = 0;
    for (; i < body.size(); ++i) {
      char d = body[i];
      if (inString) {
        if (d == inString)
          inString = 0;
        continue;
      }
      if (d == '\'' || d == '"') {
        inString = d;
      } else if (d == '(' || d == '[' || d == '{') {
        ++depth;
      } else if ((d == ')' || d == ']' || d == '}') && depth > 0) {
        --depth;
      } else if (depth == 0 &&
                 (d == '}' || d == ':' ||
                  (d == '!' && i + 1 < body.size() && body[i + 1] != '=') ||
                  (d == '=' && i + 1 < body.size() && body[i + 1] != '=' &&
                   !llvm::StringRef("=!<>").contains(body[i - 1])))) {
        break;
      }
    }
    if (i >= body.size()) {
      emitError(llvm::SMLoc::getFromPointer(open),
                "`{` in an f-string was never closed");
      return false;
    }
    llvm::StringRef exprText = body.slice(exprStart, i);
    std::string field = "{";
    if (body[i] == '=') {
      // `{x=}`: the expression's text, then its repr unless a conversion
      // or spec says otherwise.
      literal(body.slice(exprStart, i + 1));
      ++i;
      if (i < body.size() && body[i] != '!' && body[i] != ':')
        field += "!r";
    }
    if (i < body.size() && body[i] == '!') {
      if (i + 2 >= body.size() || !llvm::StringRef("rsa").contains(body[i + 1])) {
        emitError(llvm::SMLoc::getFromPointer(body.data() + i),
                  "an f-string conversion must be `!r`, `!s` or `!a`");
        return false;
      }
      field += body.substr(i, 2).str();
      i += 2;
    }
    if (i < body.size() && body[i] == ':') {
      size_t specStart = i;
      while (i < body.size() && body[i] != '}') {
        if (body[i] == '{') {
          emitError(llvm::SMLoc::getFromPointer(body.data() + i),
                    "nested replacement fields in an f-string's format "
                    "spec are not supported");
          return false;
        }
        ++i;
      }
      field += body.slice(specStart, i).str();
    }
    if (i >= body.size() || body[i] != '}') {
      emitError(llvm::SMLoc::getFromPointer(open),
                "`{` in an f-string was never closed");
      return false;
    }
    field += "}";
    templ += field;
    ++i;
    litStart = i;

    Parser sub(const_cast<llvm::SourceMgr &>(sourceMgr), bufferId, diag,
               exprText.begin(), exprText.end());
    ExprPtr e = sub.parseFieldExpression();
    if (!e) {
      failed = true;
      return false;
    }
    args.push_back(std::move(e));
  }
  return literal(body.slice(litStart, body.size()));
}
