//===- ConstEvalTest.cpp - Python semantics of compile-time folding -------===//

#include "tilec/Sema/Value.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace tilec::sema;

static Value fold(BinaryOp op, Value a, Value b) {
  FoldResult r = foldBinary(op, a, b);
  REQUIRE(r.value.has_value());
  return *r.value;
}

static std::string foldError(BinaryOp op, Value a, Value b) {
  FoldResult r = foldBinary(op, a, b);
  REQUIRE_FALSE(r.value.has_value());
  return r.error;
}

TEST_CASE("floor division and modulo round toward negative infinity",
          "[consteval]") {
  CHECK(fold(BinaryOp::FloorDiv, Value::integer(7), Value::integer(2)).getInt() == 3);
  CHECK(fold(BinaryOp::FloorDiv, Value::integer(-7), Value::integer(2)).getInt() == -4);
  CHECK(fold(BinaryOp::FloorDiv, Value::integer(7), Value::integer(-2)).getInt() == -4);
  CHECK(fold(BinaryOp::Mod, Value::integer(-7), Value::integer(2)).getInt() == 1);
  CHECK(fold(BinaryOp::Mod, Value::integer(7), Value::integer(-2)).getInt() == -1);
  CHECK(fold(BinaryOp::Mod, Value::floating(-7.5), Value::integer(2)).getFloat() == 0.5);
  CHECK(foldError(BinaryOp::FloorDiv, Value::integer(1), Value::integer(0)) ==
        "integer division by zero");
}

TEST_CASE("true division gives floats; ints stay ints", "[consteval]") {
  Value q = fold(BinaryOp::Div, Value::integer(7), Value::integer(2));
  CHECK(q.is(Value::Float));
  CHECK(q.getFloat() == 3.5);
  CHECK(fold(BinaryOp::Mul, Value::integer(6), Value::integer(7)).is(Value::Int));
  CHECK(fold(BinaryOp::Add, Value::integer(1), Value::floating(0.5)).is(Value::Float));
  // bools are ints
  CHECK(fold(BinaryOp::Add, Value::boolean(true), Value::integer(1)).getInt() == 2);
}

TEST_CASE("power", "[consteval]") {
  CHECK(fold(BinaryOp::Pow, Value::integer(2), Value::integer(28)).getInt() == (1 << 28));
  CHECK(fold(BinaryOp::Pow, Value::integer(2), Value::integer(-1)).getFloat() == 0.5);
  CHECK(foldError(BinaryOp::Pow, Value::integer(10), Value::integer(30)) ==
        "integer overflow in compile-time arithmetic");
}

TEST_CASE("overflow is an error, not a wrap", "[consteval]") {
  CHECK(foldError(BinaryOp::Mul, Value::integer(INT64_MAX), Value::integer(2)) ==
        "integer overflow in compile-time arithmetic");
  CHECK(foldError(BinaryOp::Add, Value::integer(INT64_MAX), Value::integer(1)) ==
        "integer overflow in compile-time arithmetic");
  FoldResult neg = foldUnary(UnaryOp::Neg, Value::integer(INT64_MIN));
  CHECK_FALSE(neg.value.has_value());
}

TEST_CASE("comparisons, identity and membership", "[consteval]") {
  CHECK(fold(BinaryOp::Lt, Value::integer(1), Value::floating(1.5)).getBool());
  CHECK(fold(BinaryOp::Eq, Value::integer(1), Value::floating(1.0)).getBool());
  CHECK(fold(BinaryOp::Eq, Value::string("a"), Value::string("a")).getBool());
  CHECK_FALSE(fold(BinaryOp::Eq, Value::string("1"), Value::integer(1)).getBool());
  Value t = Value::tuple({Value::integer(64), Value::integer(128)});
  CHECK(fold(BinaryOp::In, Value::integer(128), t).getBool());
  CHECK(fold(BinaryOp::NotIn, Value::integer(32), t).getBool());
  CHECK(fold(BinaryOp::Is, Value::none(), Value::none()).getBool());
  CHECK(fold(BinaryOp::Lt, Value::string("abc"), Value::string("abd")).getBool());
}

TEST_CASE("sequence concatenation and repetition", "[consteval]") {
  Value a = Value::tuple({Value::integer(1)});
  Value b = Value::tuple({Value::integer(2), Value::integer(3)});
  Value c = fold(BinaryOp::Add, a, b);
  REQUIRE(c.is(Value::Tuple));
  CHECK(c.getElements().size() == 3);
  Value r = fold(BinaryOp::Mul, Value::list({Value::integer(0)}), Value::integer(4));
  CHECK(r.is(Value::List));
  CHECK(r.getElements().size() == 4);
  CHECK(fold(BinaryOp::Mul, Value::string("ab"), Value::integer(2)).getStr() == "abab");
  CHECK(foldError(BinaryOp::Add, Value::tuple({}), Value::integer(1)) ==
        "unsupported operand types for `+`: `tuple` and `int`");
}

TEST_CASE("unary operators and truthiness", "[consteval]") {
  CHECK(foldUnary(UnaryOp::Neg, Value::floating(2.0)).value->getFloat() == -2.0);
  CHECK(foldUnary(UnaryOp::Invert, Value::integer(0)).value->getInt() == -1);
  CHECK(foldUnary(UnaryOp::Not, Value::list({})).value->getBool());
  CHECK_FALSE(foldUnary(UnaryOp::Neg, Value::string("x")).value.has_value());
  CHECK_FALSE(Value::none().truthy());
  CHECK(Value::string("x").truthy());
}

TEST_CASE("repr is Python's", "[consteval]") {
  CHECK(Value::floating(0.1).repr() == "0.1");
  CHECK(Value::floating(2.0).repr() == "2.0");
  CHECK(Value::floating(1e-30).repr() == "1e-30");
  CHECK(Value::tuple({Value::integer(1)}).repr() == "(1,)");
  CHECK(Value::boolean(false).repr() == "False");
  CHECK(Value::dtype(DType::BFloat16).repr() == "T.bfloat16");
}

TEST_CASE("-D values parse as Python literals", "[consteval]") {
  CHECK(parseDefineValue("128")->getInt() == 128);
  CHECK(parseDefineValue("0x40")->getInt() == 64);
  CHECK(parseDefineValue("1.5")->getFloat() == 1.5);
  CHECK(parseDefineValue("True")->getBool());
  CHECK(parseDefineValue("float16")->getStr() == "float16");
  CHECK(parseDefineValue("\"bfloat16\"")->getStr() == "bfloat16");
  Value t = *parseDefineValue("(64, 128)");
  REQUIRE(t.is(Value::Tuple));
  CHECK(t.getElements()[1].getInt() == 128);
  Value nested = *parseDefineValue("((1, 2), 3)");
  REQUIRE(nested.getElements().size() == 2);
  CHECK(nested.getElements()[0].getElements()[1].getInt() == 2);
  CHECK(parseDefineValue("(1,)")->getElements().size() == 1);
  CHECK_FALSE(parseDefineValue("6x4").has_value());
  CHECK_FALSE(parseDefineValue("(1, 2").has_value());
}

TEST_CASE("dtype spellings", "[consteval]") {
  CHECK(DType::parse("float")->name() == "float32");
  CHECK(DType::parse("half")->name() == "float16");
  CHECK(DType::parse("float8_e4m3fn")->name() == "float8_e4m3");
  CHECK(DType::parse("bfloat16")->bits() == 16);
  CHECK_FALSE(DType::parse("float17").has_value());
  CHECK(DType(DType::Float16).cType() == "uint16_t");
}
