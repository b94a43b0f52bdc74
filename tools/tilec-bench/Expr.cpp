//===- Expr.cpp - Evaluating launch and work expressions ------------------===//
//
// A precedence-climbing parser that evaluates as it parses (the expressions
// are a few dozen characters; there is nothing to cache).
//
//===----------------------------------------------------------------------===//

#include "Expr.h"

#include <cctype>
#include <cmath>
#include <stdexcept>

namespace tilec::bench {

namespace {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Parser {
public:
  Parser(const std::string &text, const Vars &vars, bool real)
      : text(text), vars(vars), real(real) {}

  double run() {
    double v = ternary();
    skip();
    if (pos != text.size())
      fail("unexpected `" + text.substr(pos, 1) + "`");
    return v;
  }

private:
  const std::string &text;
  const Vars &vars;
  bool real;
  size_t pos = 0;

  [[noreturn]] void fail(const std::string &msg) {
    throw Failure(msg + " at column " + std::to_string(pos + 1) + " of `" +
                  text + "`");
  }
  void skip() {
    while (pos < text.size() && std::isspace((unsigned char)text[pos]))
      ++pos;
  }
  bool eat(const char *op) {
    skip();
    size_t n = std::char_traits<char>::length(op);
    if (text.compare(pos, n, op) != 0)
      return false;
    // `<` must not eat the first half of `<<` or `<=`, and so on.
    if (n == 1 && pos + 1 < text.size()) {
      char c = text[pos], d = text[pos + 1];
      if ((c == '<' || c == '>') && (d == c || d == '='))
        return false;
      if ((c == '&' && d == '&') || (c == '|' && d == '|') ||
          (c == '*' && d == '*') || (c == '!' && d == '=') ||
          (c == '=' && d == '='))
        return false;
    }
    pos += n;
    return true;
  }
  int64_t asInt(double v) {
    if (v != std::floor(v) || std::fabs(v) > 9.2e18)
      fail("the value " + std::to_string(v) + " is not an int64");
    return int64_t(v);
  }

  double ternary() {
    double c = logicalOr();
    if (!eat("?"))
      return c;
    double a = ternary();
    if (!eat(":"))
      fail("expected `:`");
    double b = ternary();
    return c != 0 ? a : b;
  }
  double logicalOr() {
    double v = logicalAnd();
    while (eat("||")) {
      double r = logicalAnd();
      v = (v != 0 || r != 0) ? 1 : 0;
    }
    return v;
  }
  double logicalAnd() {
    double v = equality();
    while (eat("&&")) {
      double r = equality();
      v = (v != 0 && r != 0) ? 1 : 0;
    }
    return v;
  }
  double equality() {
    double v = relational();
    for (;;) {
      if (eat("=="))
        v = v == relational();
      else if (eat("!="))
        v = v != relational();
      else
        return v;
    }
  }
  double relational() {
    double v = shift();
    for (;;) {
      if (eat("<="))
        v = v <= shift();
      else if (eat(">="))
        v = v >= shift();
      else if (eat("<"))
        v = v < shift();
      else if (eat(">"))
        v = v > shift();
      else
        return v;
    }
  }
  double shift() {
    double v = additive();
    for (;;) {
      if (eat("<<"))
        v = double(asInt(v) << asInt(additive()));
      else if (eat(">>"))
        v = double(asInt(v) >> asInt(additive()));
      else
        return v;
    }
  }
  double additive() {
    double v = multiplicative();
    for (;;) {
      if (eat("+"))
        v = v + multiplicative();
      else if (eat("-"))
        v = v - multiplicative();
      else
        return v;
    }
  }
  double multiplicative() {
    double v = unary();
    for (;;) {
      if (eat("*")) {
        v = v * unary();
      } else if (eat("/")) {
        double r = unary();
        if (r == 0)
          fail("division by zero");
        v = real ? v / r : double(asInt(v) / asInt(r));
      } else if (eat("%")) {
        double r = unary();
        if (r == 0)
          fail("division by zero");
        v = real ? std::fmod(v, r) : double(asInt(v) % asInt(r));
      } else {
        return v;
      }
    }
  }
  double unary() {
    if (eat("-"))
      return -unary();
    if (eat("+"))
      return unary();
    if (eat("!"))
      return unary() == 0 ? 1 : 0;
    return power();
  }
  double power() {
    double base = primary();
    if (real && eat("**"))
      return std::pow(base, unary());
    return base;
  }
  double primary() {
    skip();
    if (pos >= text.size())
      fail("unexpected end");
    char c = text[pos];
    if (eat("(")) {
      double v = ternary();
      if (!eat(")"))
        fail("expected `)`");
      return v;
    }
    if (std::isdigit((unsigned char)c) || c == '.') {
      size_t start = pos;
      while (pos < text.size() &&
             (std::isalnum((unsigned char)text[pos]) || text[pos] == '.' ||
              ((text[pos] == '+' || text[pos] == '-') &&
               (text[pos - 1] == 'e' || text[pos - 1] == 'E'))))
        ++pos;
      std::string lit = text.substr(start, pos - start);
      // Integer suffixes of C++ literals (1024LL, 7u).
      while (!lit.empty() && (lit.back() == 'l' || lit.back() == 'L' ||
                              lit.back() == 'u' || lit.back() == 'U'))
        lit.pop_back();
      try {
        size_t used = 0;
        double v = std::stod(lit, &used);
        if (used != lit.size())
          fail("bad number `" + lit + "`");
        if (!real && lit.find_first_of(".eE") != std::string::npos)
          fail("`" + lit + "` is not an integer");
        return v;
      } catch (const std::logic_error &) {
        fail("bad number `" + lit + "`");
      }
    }
    if (std::isalpha((unsigned char)c) || c == '_') {
      size_t start = pos;
      while (pos < text.size() &&
             (std::isalnum((unsigned char)text[pos]) || text[pos] == '_' ||
              text[pos] == '.' ||
              (text[pos] == ':' && pos + 1 < text.size() && text[pos + 1] == ':'))) {
        pos += text[pos] == ':' ? 2 : 1;
      }
      std::string name = text.substr(start, pos - start);
      std::string fn = name.rfind("std::", 0) == 0 ? name.substr(5) : name;
      if (fn == "min" || fn == "max" || fn == "ceildiv") {
        skip();
        if (pos < text.size() && text[pos] == '<') { // std::max<int64_t>
          size_t close = text.find('>', pos);
          if (close == std::string::npos)
            fail("expected `>`");
          pos = close + 1;
        }
        if (!eat("("))
          fail("expected `(` after `" + name + "`");
        double a = ternary();
        if (!eat(","))
          fail("expected `,`");
        double b = ternary();
        if (!eat(")"))
          fail("expected `)`");
        if (fn == "min")
          return a < b ? a : b;
        if (fn == "max")
          return a > b ? a : b;
        if (b == 0)
          fail("division by zero");
        return real ? std::ceil(a / b)
                    : double((asInt(a) + asInt(b) - 1) / asInt(b));
      }
      if (name == "true")
        return 1;
      if (name == "false")
        return 0;
      auto it = vars.find(name);
      if (it == vars.end()) {
        pos = start;
        fail("unknown name `" + name + "`");
      }
      return it->second;
    }
    fail("unexpected `" + std::string(1, c) + "`");
  }
};

} // namespace

std::optional<int64_t> evalInt(const std::string &text, const Vars &vars,
                               std::string &error) {
  try {
    Parser p(text, vars, /*real=*/false);
    double v = p.run();
    if (v != std::floor(v)) {
      error = "`" + text + "` is not an integer";
      return std::nullopt;
    }
    return int64_t(v);
  } catch (const Failure &f) {
    error = f.what();
    return std::nullopt;
  }
}

std::optional<double> evalReal(const std::string &text, const Vars &vars,
                               std::string &error) {
  try {
    Parser p(text, vars, /*real=*/true);
    return p.run();
  } catch (const Failure &f) {
    error = f.what();
    return std::nullopt;
  }
}

} // namespace tilec::bench
