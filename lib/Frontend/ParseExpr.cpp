//===- ParseExpr.cpp - Expressions of the .tile grammar -------------------===//
//
// The expression rules of grammar/tile.ebnf from lowest to highest
// precedence, then atoms, displays and comprehensions.
//
// Recursion is bounded twice: expression nesting by kMaxExprNesting (checked
// where the grammar recurses) and tree height by kMaxExprHeight (checked
// where loops build left-deep trees). Every `for` clause of a comprehension
// counts as a level of height, because evaluating it nests a loop.
//
//===----------------------------------------------------------------------===//

#include "ParserImpl.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <algorithm>

using namespace tilec;
using namespace tilec::ast;
using tilec::detail::Parser;

//===----------------------------------------------------------------------===//
// star_expressions, star_targets
//===----------------------------------------------------------------------===//

/// star_expressions: star_expression (',' star_expression)* [',']
ExprPtr Parser::parseStarExpressions() {
  llvm::SMLoc start = tok.getLoc();
  ExprPtr first = parseStarExpression();
  if (!first)
    return nullptr;
  if (tok.isNot(TokenKind::Comma)) {
    if (llvm::isa<StarredExpr>(first.get())) {
      emitError(first->getLoc(), "can't use starred expression here",
                first->getRange());
      return nullptr;
    }
    return first;
  }
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first));
  while (consumeIf(TokenKind::Comma)) {
    if (!startsExpression(tok))
      break;
    ExprPtr elt = parseStarExpression();
    if (!elt)
      return nullptr;
    elts.push_back(std::move(elt));
  }
  return checkHeight(
      std::make_unique<TupleExpr>(rangeFrom(start), std::move(elts), false));
}

/// star_expression: '*' bitwise_or | expression
ExprPtr Parser::parseStarExpression() {
  if (tok.isNot(TokenKind::Star))
    return parseExpression();
  llvm::SMLoc start = tok.getLoc();
  consume();
  ExprPtr value = parseBitwiseOr();
  if (!value)
    return nullptr;
  return std::make_unique<StarredExpr>(rangeFrom(start), std::move(value));
}

/// star_targets: star_target (',' star_target)* [',']
ExprPtr Parser::parseStarTargets() {
  llvm::SMLoc start = tok.getLoc();
  ExprPtr first = parseStarTarget();
  if (!first)
    return nullptr;
  if (tok.isNot(TokenKind::Comma))
    return checkTarget(first.get(), true) ? std::move(first) : nullptr;
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first));
  while (consumeIf(TokenKind::Comma)) {
    if (!startsExpression(tok))
      break;
    ExprPtr elt = parseStarTarget();
    if (!elt)
      return nullptr;
    elts.push_back(std::move(elt));
  }
  auto tuple =
      std::make_unique<TupleExpr>(rangeFrom(start), std::move(elts), false);
  if (!checkTarget(tuple.get(), true))
    return nullptr;
  return tuple;
}

/// star_target: ['*'] bitwise_or   (validated by checkTarget)
///
/// Targets are parsed at the `bitwise_or` level so that the `in` of a `for`
/// is not taken for a comparison.
ExprPtr Parser::parseStarTarget() {
  if (tok.isNot(TokenKind::Star))
    return parseBitwiseOr();
  llvm::SMLoc start = tok.getLoc();
  consume();
  ExprPtr value = parseBitwiseOr();
  if (!value)
    return nullptr;
  return std::make_unique<StarredExpr>(rangeFrom(start), std::move(value));
}

//===----------------------------------------------------------------------===//
// expression, lambdef, disjunction, conjunction, inversion, comparison
//===----------------------------------------------------------------------===//

/// expression: disjunction ['if' disjunction 'else' expression] | lambdef
ExprPtr Parser::parseExpression() {
  NestingGuard guard(*this);
  if (guard.tooDeep)
    return nullptr;
  if (tok.is(TokenKind::KwLambda))
    return parseLambdef();
  llvm::SMLoc start = tok.getLoc();
  ExprPtr body = parseDisjunction();
  if (!body)
    return nullptr;
  if (tok.is(TokenKind::KwIf)) {
    consume();
    ExprPtr test = parseDisjunction();
    if (!test)
      return nullptr;
    if (!expect(TokenKind::KwElse, "in conditional expression"))
      return nullptr;
    ExprPtr orelse = parseExpression();
    if (!orelse)
      return nullptr;
    body = checkHeight(std::make_unique<IfExpExpr>(
        rangeFrom(start), std::move(body), std::move(test), std::move(orelse)));
  }
  if (body && tok.is(TokenKind::ColonEqual))
    return unsupported("assignment expressions (`:=`) are");
  return body;
}

/// lambdef: 'lambda' [NAME ['=' expression] (',' NAME ['=' expression])*
///          [',']] ':' expression
ExprPtr Parser::parseLambdef() {
  llvm::SMLoc start = tok.getLoc();
  consume();
  std::vector<Param> params;
  llvm::StringSet<> seen;
  while (tok.isNot(TokenKind::Colon)) {
    if (tok.isAny(TokenKind::Star, TokenKind::DoubleStar, TokenKind::Slash))
      return unsupported("variadic and marker parameters in `lambda` are");
    if (tok.isNot(TokenKind::Identifier))
      return errorExpected("a parameter name or `:`", "in `lambda`");
    Param param;
    param.name = tok.getSpelling();
    param.nameRange = tok.getRange();
    if (!seen.insert(param.name).second) {
      emitErrorAtTok("duplicate parameter `" + param.name + "` in `lambda`");
      return nullptr;
    }
    consume();
    if (consumeIf(TokenKind::Equal)) {
      param.defaultValue = parseExpression();
      if (!param.defaultValue)
        return nullptr;
    }
    param.range = rangeFrom(param.nameRange.Start);
    params.push_back(std::move(param));
    if (!consumeIf(TokenKind::Comma))
      break;
  }
  if (!expect(TokenKind::Colon, "after `lambda` parameters"))
    return nullptr;
  ExprPtr body = parseExpression();
  if (!body)
    return nullptr;
  return checkHeight(std::make_unique<LambdaExpr>(
      rangeFrom(start), std::move(params), std::move(body)));
}

/// disjunction: conjunction ('or' conjunction)*
ExprPtr Parser::parseDisjunction() {
  llvm::SMLoc start = tok.getLoc();
  ExprPtr first = parseConjunction();
  if (!first || tok.isNot(TokenKind::KwOr))
    return first;
  std::vector<ExprPtr> values;
  values.push_back(std::move(first));
  while (consumeIf(TokenKind::KwOr)) {
    ExprPtr next = parseConjunction();
    if (!next)
      return nullptr;
    values.push_back(std::move(next));
  }
  return checkHeight(std::make_unique<BoolOpExpr>(
      rangeFrom(start), BoolOpKind::Or, std::move(values)));
}

/// conjunction: inversion ('and' inversion)*
ExprPtr Parser::parseConjunction() {
  llvm::SMLoc start = tok.getLoc();
  ExprPtr first = parseInversion();
  if (!first || tok.isNot(TokenKind::KwAnd))
    return first;
  std::vector<ExprPtr> values;
  values.push_back(std::move(first));
  while (consumeIf(TokenKind::KwAnd)) {
    ExprPtr next = parseInversion();
    if (!next)
      return nullptr;
    values.push_back(std::move(next));
  }
  return checkHeight(std::make_unique<BoolOpExpr>(
      rangeFrom(start), BoolOpKind::And, std::move(values)));
}

/// inversion: 'not' inversion | comparison
ExprPtr Parser::parseInversion() {
  if (tok.isNot(TokenKind::KwNot))
    return parseComparison();
  NestingGuard guard(*this);
  if (guard.tooDeep)
    return nullptr;
  llvm::SMLoc start = tok.getLoc();
  consume();
  ExprPtr operand = parseInversion();
  if (!operand)
    return nullptr;
  return std::make_unique<UnaryOpExpr>(rangeFrom(start), UnaryOpKind::Not,
                                       std::move(operand));
}

/// comparison: bitwise_or (compare_op bitwise_or)*
/// compare_op: '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not' 'in'
///           | 'is' | 'is' 'not'
ExprPtr Parser::parseComparison() {
  llvm::SMLoc start = tok.getLoc();
  ExprPtr left = parseBitwiseOr();
  if (!left)
    return nullptr;
  std::vector<CmpOpKind> ops;
  std::vector<llvm::SMRange> opRanges;
  std::vector<ExprPtr> comparators;
  while (true) {
    llvm::SMLoc opStart = tok.getLoc();
    std::optional<CmpOpKind> op;
    switch (tok.getKind()) {
    case TokenKind::EqEqual:
      op = CmpOpKind::Eq;
      break;
    case TokenKind::NotEqual:
      op = CmpOpKind::NotEq;
      break;
    case TokenKind::Less:
      op = CmpOpKind::Lt;
      break;
    case TokenKind::LessEqual:
      op = CmpOpKind::LtE;
      break;
    case TokenKind::Greater:
      op = CmpOpKind::Gt;
      break;
    case TokenKind::GreaterEqual:
      op = CmpOpKind::GtE;
      break;
    case TokenKind::KwIn:
      op = CmpOpKind::In;
      break;
    case TokenKind::KwIs:
      op = CmpOpKind::Is;
      break;
    case TokenKind::KwNot:
      if (peek().is(TokenKind::KwIn))
        op = CmpOpKind::NotIn;
      break;
    default:
      break;
    }
    if (!op)
      break;
    consume();
    if (*op == CmpOpKind::NotIn)
      consume(); // the `in`
    else if (*op == CmpOpKind::Is && consumeIf(TokenKind::KwNot))
      op = CmpOpKind::IsNot;
    opRanges.push_back(rangeFrom(opStart));
    ExprPtr next = parseBitwiseOr();
    if (!next)
      return nullptr;
    ops.push_back(*op);
    comparators.push_back(std::move(next));
  }
  if (ops.empty())
    return left;
  return checkHeight(std::make_unique<CompareExpr>(
      rangeFrom(start), std::move(left), std::move(ops), std::move(opRanges),
      std::move(comparators)));
}

//===----------------------------------------------------------------------===//
// Binary levels: bitwise_or ... term
//===----------------------------------------------------------------------===//

ExprPtr Parser::parseLeftAssoc(ExprPtr (Parser::*operand)(),
                               std::optional<BinOpKind> (*opFor)(TokenKind)) {
  llvm::SMLoc start = tok.getLoc();
  ExprPtr lhs = (this->*operand)();
  if (!lhs)
    return nullptr;
  while (std::optional<BinOpKind> op = opFor(tok.getKind())) {
    llvm::SMRange opRange = tok.getRange();
    consume();
    ExprPtr rhs = (this->*operand)();
    if (!rhs)
      return nullptr;
    lhs = checkHeight(std::make_unique<BinOpExpr>(
        rangeFrom(start), *op, opRange, std::move(lhs), std::move(rhs)));
    if (!lhs)
      return nullptr;
  }
  return lhs;
}

/// bitwise_or: bitwise_xor ('|' bitwise_xor)*
ExprPtr Parser::parseBitwiseOr() {
  return parseLeftAssoc(&Parser::parseBitwiseXor,
                        [](TokenKind k) -> std::optional<BinOpKind> {
                          if (k == TokenKind::VBar)
                            return BinOpKind::BitOr;
                          return std::nullopt;
                        });
}

/// bitwise_xor: bitwise_and ('^' bitwise_and)*
ExprPtr Parser::parseBitwiseXor() {
  return parseLeftAssoc(&Parser::parseBitwiseAnd,
                        [](TokenKind k) -> std::optional<BinOpKind> {
                          if (k == TokenKind::Circumflex)
                            return BinOpKind::BitXor;
                          return std::nullopt;
                        });
}

/// bitwise_and: shift_expr ('&' shift_expr)*
ExprPtr Parser::parseBitwiseAnd() {
  return parseLeftAssoc(&Parser::parseShiftExpr,
                        [](TokenKind k) -> std::optional<BinOpKind> {
                          if (k == TokenKind::Amper)
                            return BinOpKind::BitAnd;
                          return std::nullopt;
                        });
}

/// shift_expr: sum (('<<' | '>>') sum)*
ExprPtr Parser::parseShiftExpr() {
  return parseLeftAssoc(&Parser::parseSum,
                        [](TokenKind k) -> std::optional<BinOpKind> {
                          if (k == TokenKind::LeftShift)
                            return BinOpKind::LShift;
                          if (k == TokenKind::RightShift)
                            return BinOpKind::RShift;
                          return std::nullopt;
                        });
}

/// sum: term (('+' | '-') term)*
ExprPtr Parser::parseSum() {
  return parseLeftAssoc(&Parser::parseTerm,
                        [](TokenKind k) -> std::optional<BinOpKind> {
                          if (k == TokenKind::Plus)
                            return BinOpKind::Add;
                          if (k == TokenKind::Minus)
                            return BinOpKind::Sub;
                          return std::nullopt;
                        });
}

/// term: factor (('*' | '/' | '//' | '%' | '@') factor)*
ExprPtr Parser::parseTerm() {
  return parseLeftAssoc(&Parser::parseFactor,
                        [](TokenKind k) -> std::optional<BinOpKind> {
                          switch (k) {
                          case TokenKind::Star:
                            return BinOpKind::Mul;
                          case TokenKind::Slash:
                            return BinOpKind::Div;
                          case TokenKind::DoubleSlash:
                            return BinOpKind::FloorDiv;
                          case TokenKind::Percent:
                            return BinOpKind::Mod;
                          case TokenKind::At:
                            return BinOpKind::MatMul;
                          default:
                            return std::nullopt;
                          }
                        });
}

/// factor: ('+' | '-' | '~') factor | power
ExprPtr Parser::parseFactor() {
  std::optional<UnaryOpKind> op;
  if (tok.is(TokenKind::Minus))
    op = UnaryOpKind::Neg;
  else if (tok.is(TokenKind::Plus))
    op = UnaryOpKind::Pos;
  else if (tok.is(TokenKind::Tilde))
    op = UnaryOpKind::Invert;
  if (!op)
    return parsePower();
  NestingGuard guard(*this);
  if (guard.tooDeep)
    return nullptr;
  llvm::SMLoc start = tok.getLoc();
  consume();
  ExprPtr operand = parseFactor();
  if (!operand)
    return nullptr;
  return std::make_unique<UnaryOpExpr>(rangeFrom(start), *op,
                                       std::move(operand));
}

/// power: primary ['**' factor]
///
/// The exponent is a `factor`, so `-x ** -y` is `-(x ** (-y))`.
ExprPtr Parser::parsePower() {
  llvm::SMLoc start = tok.getLoc();
  ExprPtr base = parsePrimary();
  if (!base || tok.isNot(TokenKind::DoubleStar))
    return base;
  // `a ** b ** c ...` recurses through the exponent.
  NestingGuard guard(*this);
  if (guard.tooDeep)
    return nullptr;
  llvm::SMRange opRange = tok.getRange();
  consume();
  ExprPtr exponent = parseFactor();
  if (!exponent)
    return nullptr;
  return checkHeight(
      std::make_unique<BinOpExpr>(rangeFrom(start), BinOpKind::Pow, opRange,
                                  std::move(base), std::move(exponent)));
}

//===----------------------------------------------------------------------===//
// primary, arguments, slices
//===----------------------------------------------------------------------===//

/// primary: atom ('.' NAME | '(' [arguments] ')' | '[' slices ']')*
ExprPtr Parser::parsePrimary() {
  llvm::SMLoc start = tok.getLoc();
  ExprPtr e = parseAtom();
  while (e) {
    if (tok.is(TokenKind::Dot)) {
      consume();
      if (tok.isNot(TokenKind::Identifier))
        return errorExpected("an attribute name", "after `.`");
      llvm::StringRef attr = tok.getSpelling();
      llvm::SMRange attrRange = tok.getRange();
      consume();
      e = std::make_unique<AttributeExpr>(rangeFrom(start), std::move(e), attr,
                                          attrRange);
    } else if (tok.is(TokenKind::LParen)) {
      e = parseArguments(std::move(e));
    } else if (tok.is(TokenKind::LSquare)) {
      e = parseSlices(std::move(e));
    } else {
      break;
    }
    e = checkHeight(std::move(e));
  }
  return e;
}

/// arguments: arg (',' arg)* [','] ;
/// arg: '*' expression | '**' expression | NAME '=' expression | expression
ExprPtr Parser::parseArguments(ExprPtr callee) {
  llvm::SMLoc start = callee->getLoc();
  Token lparen = tok;
  OpenBracket open(*this, lparen);
  consume();
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
  llvm::StringSet<> seenNames;
  bool seenKeywordUnpack = false;
  while (tok.isNot(TokenKind::RParen)) {
    llvm::SMLoc argStart = tok.getLoc();
    if (tok.is(TokenKind::DoubleStar)) {
      consume();
      ExprPtr value = parseExpression();
      if (!value)
        return nullptr;
      keywords.push_back({"", llvm::SMRange(argStart, argStart),
                          std::move(value), rangeFrom(argStart)});
      seenKeywordUnpack = true;
    } else if (tok.is(TokenKind::Identifier) && peek().is(TokenKind::Equal)) {
      Keyword keyword;
      keyword.name = tok.getSpelling();
      keyword.nameRange = tok.getRange();
      if (!seenNames.insert(keyword.name).second) {
        emitErrorAtTok("keyword argument `" + keyword.name + "` repeated");
        return nullptr;
      }
      consume();
      consume(); // '='
      keyword.value = parseExpression();
      if (!keyword.value)
        return nullptr;
      if (tok.isAny(TokenKind::KwFor, TokenKind::KwAsync)) {
        emitError(keyword.value->getLoc(),
                  "a generator expression must be parenthesized when it "
                  "is the value of a keyword argument",
                  rangeFrom(keyword.value->getLoc()));
        return nullptr;
      }
      keyword.range = rangeFrom(argStart);
      keywords.push_back(std::move(keyword));
    } else if (tok.is(TokenKind::Star)) {
      if (seenKeywordUnpack) {
        emitErrorAtTok("iterable argument unpacking follows keyword "
                       "argument unpacking");
        return nullptr;
      }
      consume();
      ExprPtr value = parseExpression();
      if (!value)
        return nullptr;
      if (tok.isAny(TokenKind::KwFor, TokenKind::KwAsync)) {
        emitError(argStart,
                  "iterable unpacking cannot be used in a comprehension",
                  rangeFrom(argStart));
        return nullptr;
      }
      args.push_back(
          std::make_unique<StarredExpr>(rangeFrom(argStart), std::move(value)));
    } else {
      if (!keywords.empty()) {
        emitErrorAtTok(seenKeywordUnpack
                           ? "positional argument follows keyword argument "
                             "unpacking"
                           : "positional argument follows keyword argument");
        return nullptr;
      }
      ExprPtr value = parseExpression();
      if (!value)
        return nullptr;
      if (tok.isAny(TokenKind::KwFor, TokenKind::KwAsync)) {
        // `sum(x for x in xs)`: a generator expression may drop its own
        // parentheses only when it is the call's sole argument.
        bool sole = args.empty() && keywords.empty();
        value = parseComprehension(std::move(value), argStart,
                                   /*generator=*/true);
        if (!value)
          return nullptr;
        if (!sole || tok.is(TokenKind::Comma)) {
          emitError(value->getLoc(),
                    "a generator expression must be parenthesized when it "
                    "is not the sole argument of a call",
                    value->getRange());
          return nullptr;
        }
        args.push_back(std::move(value));
        break;
      }
      if (tok.is(TokenKind::Equal)) {
        emitError(value->getLoc(),
                  "expected a parameter name before `=` in keyword "
                  "argument; did you mean `==`?",
                  value->getRange());
        return nullptr;
      }
      args.push_back(std::move(value));
    }
    if (!consumeIf(TokenKind::Comma))
      break;
  }
  if (!expectClosing(TokenKind::RParen, lparen, "`,` or `)` in call"))
    return nullptr;
  return std::make_unique<CallExpr>(rangeFrom(start), std::move(callee),
                                    std::move(args), std::move(keywords));
}

/// slices: slice (',' slice)* [',']
ExprPtr Parser::parseSlices(ExprPtr value) {
  llvm::SMLoc start = value->getLoc();
  Token lsquare = tok;
  OpenBracket open(*this, lsquare);
  consume();
  std::vector<ExprPtr> indices;
  bool tupleIndex = false;
  while (true) {
    ExprPtr index = parseSlice();
    if (!index)
      return nullptr;
    indices.push_back(std::move(index));
    if (!consumeIf(TokenKind::Comma))
      break;
    tupleIndex = true;
    if (tok.is(TokenKind::RSquare))
      break;
  }
  if (!expectClosing(TokenKind::RSquare, lsquare, "`,` or `]` in subscript"))
    return nullptr;
  return std::make_unique<SubscriptExpr>(rangeFrom(start), std::move(value),
                                         std::move(indices), tupleIndex);
}

/// slice: [expression] ':' [expression] [':' [expression]]
///      | '*' bitwise_or | expression
ExprPtr Parser::parseSlice() {
  llvm::SMLoc start = tok.getLoc();
  if (tok.is(TokenKind::Star))
    return parseStarExpression();
  ExprPtr lower;
  if (tok.isNot(TokenKind::Colon)) {
    if (!startsExpression(tok))
      return errorExpected("an index or slice");
    lower = parseExpression();
    if (!lower || tok.isNot(TokenKind::Colon))
      return lower;
  }
  consume(); // ':'
  ExprPtr upper, step;
  if (startsExpression(tok)) {
    upper = parseExpression();
    if (!upper)
      return nullptr;
  }
  if (consumeIf(TokenKind::Colon) && startsExpression(tok)) {
    step = parseExpression();
    if (!step)
      return nullptr;
  }
  return std::make_unique<SliceExpr>(rangeFrom(start), std::move(lower),
                                     std::move(upper), std::move(step));
}

//===----------------------------------------------------------------------===//
// atom
//===----------------------------------------------------------------------===//

/// atom: NAME | 'True' | 'False' | 'None' | strings | NUMBER
///     | tuple_or_group | list | dict
ExprPtr Parser::parseAtom() {
  llvm::SMRange range = tok.getRange();
  switch (tok.getKind()) {
  case TokenKind::Identifier: {
    llvm::StringRef name = tok.getSpelling();
    consume();
    return std::make_unique<NameExpr>(range, name);
  }
  case TokenKind::Integer:
  case TokenKind::Float:
    return parseNumber();
  case TokenKind::String:
    return parseStrings();
  case TokenKind::KwTrue:
  case TokenKind::KwFalse: {
    bool value = tok.is(TokenKind::KwTrue);
    consume();
    return std::make_unique<BoolExpr>(range, value);
  }
  case TokenKind::KwNone:
    consume();
    return std::make_unique<NoneExpr>(range);
  case TokenKind::LParen:
    return parseTupleOrGroup();
  case TokenKind::LSquare:
    return parseList();
  case TokenKind::LBrace:
    return parseDict();
  case TokenKind::Ellipsis:
    // Only typing annotations (`Callable[..., Any]`) use it: a name the
    // elaborator knows.
    consume();
    return std::make_unique<NameExpr>(range, "Ellipsis");
  case TokenKind::KwYield:
    return unsupported("`yield` is");
  case TokenKind::KwAwait:
    return unsupported("`await` is");
  case TokenKind::Error:
    failed = true;
    return nullptr;
  default:
    return errorExpected("an expression");
  }
}

/// NUMBER: integers keep every digit (APInt), floats are IEEE doubles.
ExprPtr Parser::parseNumber() {
  llvm::SMRange range = tok.getRange();
  llvm::SmallString<32> digits;
  for (char c : tok.getSpelling())
    if (c != '_')
      digits.push_back(c);
  bool isInt = tok.is(TokenKind::Integer);
  consume();

  if (isInt) {
    llvm::StringRef text = digits;
    unsigned radix = 10;
    if (text.size() > 1 && text[0] == '0') {
      char letter = static_cast<char>(llvm::toLower(text[1]));
      radix = letter == 'x' ? 16 : letter == 'o' ? 8 : letter == 'b' ? 2 : 10;
      if (radix != 10)
        text = text.drop_front(2);
    }
    llvm::APInt value;
    if (text.getAsInteger(radix, value)) {
      emitError(range.Start, "invalid integer literal", range);
      return nullptr;
    }
    // getAsInteger picks a width that fits; keep at least 64 unsigned bits
    // (plus one so that the top bit never reads as a sign).
    unsigned width = std::max(64u, value.getActiveBits() + 1);
    value = value.zextOrTrunc(width);
    return std::make_unique<IntExpr>(range, std::move(value));
  }

  llvm::APFloat value(llvm::APFloat::IEEEdouble());
  auto status =
      value.convertFromString(digits, llvm::APFloat::rmNearestTiesToEven);
  if (!status) {
    llvm::consumeError(status.takeError());
    emitError(range.Start, "invalid float literal", range);
    return nullptr;
  }
  return std::make_unique<FloatExpr>(range, value.convertToDouble());
}

/// strings: STRING+ (adjacent literals concatenate, as in Python)
ExprPtr Parser::parseStrings() {
  llvm::SMLoc start = tok.getLoc();
  bool bytes = tok.isBytes();
  std::string value;
  // With an f-string among them, the literals build a str.format template
  // and the replacement fields become its arguments.
  bool format = false;
  std::string templ;
  std::vector<ExprPtr> args;
  while (tok.is(TokenKind::String)) {
    if (tok.isBytes() != bytes) {
      emitErrorAtTok("cannot mix bytes and non-bytes string literals");
      return nullptr;
    }
    if (tok.isFormat()) {
      if (!format) {
        for (char c : value)
          templ += c == '{' ? "{{" : c == '}' ? "}}" : std::string(1, c);
        format = true;
      }
      if (!parseFString(tok, templ, args))
        return nullptr;
    } else if (format) {
      for (char c : tok.getStringValue())
        templ += c == '{' ? "{{" : c == '}' ? "}}" : std::string(1, c);
    } else {
      value += tok.getStringValue();
    }
    consume();
  }
  if (!format)
    return std::make_unique<StringExpr>(rangeFrom(start), std::move(value),
                                        bytes);
  llvm::SMRange range = rangeFrom(start);
  auto callee = std::make_unique<AttributeExpr>(
      range, std::make_unique<StringExpr>(range, std::move(templ), false),
      "format", range);
  return checkHeight(std::make_unique<CallExpr>(range, std::move(callee),
                                                std::move(args),
                                                std::vector<Keyword>()));
}

/// tuple_or_group: '(' ')' | '(' star_expression ')'
///               | '(' star_expression ',' [star_expressions] ')'
ExprPtr Parser::parseTupleOrGroup() {
  Token lparen = tok;
  OpenBracket open(*this, lparen);
  llvm::SMLoc start = tok.getLoc();
  consume();
  if (consumeIf(TokenKind::RParen))
    return std::make_unique<TupleExpr>(rangeFrom(start), std::vector<ExprPtr>(),
                                       true);
  llvm::SMLoc firstStart = tok.getLoc();
  ExprPtr first = parseStarExpression();
  if (!first)
    return nullptr;
  if (tok.isAny(TokenKind::KwFor, TokenKind::KwAsync)) {
    // `(elt for ...)`: a generator expression, brackets included.
    if (!checkComprehensionElt(*first))
      return nullptr;
    ExprPtr gen = parseComprehension(std::move(first), firstStart,
                                     /*generator=*/true);
    if (!gen || !expectClosing(TokenKind::RParen, lparen,
                               "`)` after the generator expression"))
      return nullptr;
    gen->setRange(rangeFrom(start));
    return gen;
  }
  // `with (a as b, c as d):` (Python 3.10) is the only place `as` can
  // follow an expression inside parentheses.
  if (tok.is(TokenKind::KwAs))
    return unsupported("parenthesized `with` items are");
  if (tok.isNot(TokenKind::Comma)) {
    if (!expectClosing(TokenKind::RParen, lparen, "`)`"))
      return nullptr;
    if (llvm::isa<StarredExpr>(first.get())) {
      emitError(first->getLoc(), "can't use starred expression here",
                first->getRange());
      return nullptr;
    }
    // A parenthesized expression keeps its own range, as in Python's ast.
    return first;
  }
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first));
  while (consumeIf(TokenKind::Comma)) {
    if (tok.is(TokenKind::RParen))
      break;
    ExprPtr elt = parseStarExpression();
    if (!elt || rejectBareTupleComprehension())
      return nullptr;
    elts.push_back(std::move(elt));
  }
  if (!expectClosing(TokenKind::RParen, lparen, "`,` or `)` in tuple"))
    return nullptr;
  return checkHeight(
      std::make_unique<TupleExpr>(rangeFrom(start), std::move(elts), true));
}

/// list: '[' [star_expression (',' star_expression)* [',']] ']'
ExprPtr Parser::parseList() {
  Token lsquare = tok;
  OpenBracket open(*this, lsquare);
  llvm::SMLoc start = tok.getLoc();
  consume();
  std::vector<ExprPtr> elts;
  while (tok.isNot(TokenKind::RSquare)) {
    llvm::SMLoc eltStart = tok.getLoc();
    ExprPtr elt = parseStarExpression();
    if (!elt)
      return nullptr;
    if (tok.isAny(TokenKind::KwFor, TokenKind::KwAsync)) {
      if (!elts.empty()) {
        rejectBareTupleComprehension();
        return nullptr;
      }
      // `[elt for ...]`: a list comprehension, brackets included.
      if (!checkComprehensionElt(*elt))
        return nullptr;
      ExprPtr comp = parseComprehension(std::move(elt), eltStart,
                                        /*generator=*/false);
      if (!comp || !expectClosing(TokenKind::RSquare, lsquare,
                                  "`]` after the list comprehension"))
        return nullptr;
      comp->setRange(rangeFrom(start));
      return comp;
    }
    elts.push_back(std::move(elt));
    if (!consumeIf(TokenKind::Comma))
      break;
  }
  if (!expectClosing(TokenKind::RSquare, lsquare, "`,` or `]` in list"))
    return nullptr;
  return checkHeight(
      std::make_unique<ListExpr>(rangeFrom(start), std::move(elts)));
}

/// dict: '{' [expression ':' expression (',' expression ':' expression)*
///       [',']] '}'
ExprPtr Parser::parseDict() {
  Token lbrace = tok;
  OpenBracket open(*this, lbrace);
  llvm::SMLoc start = tok.getLoc();
  consume();
  std::vector<ExprPtr> keys, values;
  while (tok.isNot(TokenKind::RBrace)) {
    if (tok.is(TokenKind::DoubleStar))
      return unsupported("dict unpacking with `**` is");
    llvm::SMLoc keyStart = tok.getLoc();
    ExprPtr key = parseExpression();
    if (!key)
      return nullptr;
    if (keys.empty() && tok.isAny(TokenKind::KwFor, TokenKind::KwAsync)) {
      // `{elt for ...}`: a set comprehension.
      ExprPtr comp = parseComprehension(std::move(key), keyStart,
                                        /*generator=*/false);
      if (!comp || !expectClosing(TokenKind::RBrace, lbrace,
                                  "`}` after the set comprehension"))
        return nullptr;
      llvm::cast<ListCompExpr>(*comp).setSet();
      comp->setRange(rangeFrom(start));
      return comp;
    }
    if (tok.isAny(TokenKind::Comma, TokenKind::RBrace) && keys.empty())
      return parseSetDisplay(lbrace, start, std::move(key));
    if (!expect(TokenKind::Colon, "after dict key"))
      return nullptr;
    ExprPtr value = parseExpression();
    if (!value)
      return nullptr;
    if (keys.empty() && tok.isAny(TokenKind::KwFor, TokenKind::KwAsync)) {
      // `{k: v for ...}`: a dict comprehension.
      ExprPtr comp = parseComprehension(std::move(key), keyStart,
                                        /*generator=*/false);
      if (!comp || !expectClosing(TokenKind::RBrace, lbrace,
                                  "`}` after the dict comprehension"))
        return nullptr;
      llvm::cast<ListCompExpr>(*comp).setDictValue(std::move(value));
      comp->setRange(rangeFrom(start));
      return comp;
    }
    if (rejectDictOrSetComprehension("dict"))
      return nullptr;
    keys.push_back(std::move(key));
    values.push_back(std::move(value));
    if (!consumeIf(TokenKind::Comma))
      break;
  }
  if (!expectClosing(TokenKind::RBrace, lbrace, "`,` or `}` in dict"))
    return nullptr;
  return checkHeight(std::make_unique<DictExpr>(
      rangeFrom(start), std::move(keys), std::move(values)));
}

/// set: '{' star_expression (',' star_expression)* [','] '}', after its
/// first element.
ExprPtr Parser::parseSetDisplay(const Token &lbrace, llvm::SMLoc start,
                                ExprPtr first) {
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first));
  while (consumeIf(TokenKind::Comma)) {
    if (tok.is(TokenKind::RBrace))
      break;
    ExprPtr elt = parseStarExpression();
    if (!elt || rejectBareTupleComprehension())
      return nullptr;
    elts.push_back(std::move(elt));
  }
  if (!expectClosing(TokenKind::RBrace, lbrace, "`,` or `}` in set"))
    return nullptr;
  return checkHeight(std::make_unique<ListExpr>(rangeFrom(start),
                                                std::move(elts), true));
}

//===----------------------------------------------------------------------===//
// Comprehensions
//===----------------------------------------------------------------------===//

/// for_if_clauses: for_if_clause { for_if_clause }
/// for_if_clause:  "for" star_targets "in" disjunction { "if" disjunction }
ExprPtr Parser::parseComprehension(ExprPtr elt, llvm::SMLoc start,
                                   bool generator) {
  std::vector<Comprehension> generators;
  while (tok.isAny(TokenKind::KwFor, TokenKind::KwAsync)) {
    if (tok.is(TokenKind::KwAsync))
      return unsupported("asynchronous comprehensions are");
    Comprehension clause;
    llvm::SMLoc forLoc = tok.getLoc();
    consume();
    clause.target = parseStarTargets();
    if (!clause.target)
      return nullptr;
    if (!expect(TokenKind::KwIn, "after the comprehension's `for` target"))
      return nullptr;
    // A disjunction, not an expression: `if` starts a filter here, and a
    // conditional expression or lambda needs parentheses, as in Python.
    clause.iter = parseDisjunction();
    if (!clause.iter)
      return nullptr;
    while (consumeIf(TokenKind::KwIf)) {
      ExprPtr cond = parseDisjunction();
      if (!cond)
        return nullptr;
      clause.ifs.push_back(std::move(cond));
    }
    clause.range = rangeFrom(forLoc);
    generators.push_back(std::move(clause));
  }
  return checkHeight(std::make_unique<ListCompExpr>(
      rangeFrom(start), std::move(elt), std::move(generators), generator));
}

bool Parser::checkComprehensionElt(const Expr &elt) {
  if (!llvm::isa<StarredExpr>(elt))
    return true;
  emitError(elt.getLoc(),
            "iterable unpacking cannot be used in a comprehension",
            elt.getRange());
  return false;
}

bool Parser::rejectBareTupleComprehension() {
  if (tok.isNot(TokenKind::KwFor))
    return false;
  emitErrorAtTok("a tuple element of a comprehension needs parentheses, as "
                 "in `(a, b) for ...`");
  return true;
}
