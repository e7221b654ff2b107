// Constraint expressions (sweep/expression.h) against values computed by C++ itself.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "base/error.h"
#include "sweep/expression.h"

namespace photon::sweep {
namespace {

ExprValue eval(const std::string& text, const std::map<std::string, ExprValue>& vars = {}) {
  return Expression(text).evaluate([&](const std::string& k) { return vars.at(k); });
}
double num(const std::string& text, const std::map<std::string, ExprValue>& vars = {}) {
  return std::get<double>(eval(text, vars));
}

TEST(Expression, ArithmeticFollowsCPrecedence) {
  EXPECT_DOUBLE_EQ(num("1 + 2 * 3"), 1 + 2 * 3);
  EXPECT_DOUBLE_EQ(num("(1 + 2) * 3"), (1 + 2) * 3);
  EXPECT_DOUBLE_EQ(num("10 - 4 - 3"), 10 - 4 - 3);
  EXPECT_DOUBLE_EQ(num("2 * 3 % 4"), std::fmod(2 * 3, 4));
  EXPECT_DOUBLE_EQ(num("-2 * -3"), 6);
  EXPECT_DOUBLE_EQ(num("7 / 2"), 3.5);
  EXPECT_DOUBLE_EQ(num("0x40 + 1.5e3"), 64 + 1500);
  EXPECT_DOUBLE_EQ(num("min(3, 4) + max(3, 4) + abs(-2) + log2(1024) + floor(2.7) + ceil(2.1)"),
                   3 + 4 + 2 + 10 + 2 + 3);
}

TEST(Expression, ComparisonsAndLogic) {
  const std::map<std::string, ExprValue> v = {{"optical_gemm.rows", 64.0},
                                              {"optical_gemm.cols", 128.0},
                                              {"optical_gemm.weight_mode", std::string("streamed")}};
  EXPECT_DOUBLE_EQ(num("optical_gemm.rows * optical_gemm.cols <= 16384", v), 1);
  EXPECT_DOUBLE_EQ(num("optical_gemm.rows * optical_gemm.cols < 8192", v), 0);
  EXPECT_DOUBLE_EQ(num("optical_gemm.weight_mode == 'streamed' && optical_gemm.rows >= 64", v), 1);
  EXPECT_DOUBLE_EQ(num("optical_gemm.weight_mode != \"streamed\" || optical_gemm.rows > 64", v), 0);
  EXPECT_DOUBLE_EQ(num("not (optical_gemm.rows > 64) and true", v), 1);
  EXPECT_DOUBLE_EQ(num("!false || false"), 1);
  EXPECT_TRUE(Expression("1 < 2").holds([](const std::string&) { return ExprValue(0.0); }));
}

TEST(Expression, NamesAreListedOnce) {
  Expression e("a.b + c * a.b > d_e");
  EXPECT_EQ(e.names(), (std::vector<std::string>{"a.b", "c", "d_e"}));
}

TEST(Expression, ShortCircuitSkipsTheRightSide) {
  // The right side would fail (division by zero); && stops at a false left side, || at a true one.
  EXPECT_DOUBLE_EQ(num("0 && 1 / 0 > 1"), 0);
  EXPECT_DOUBLE_EQ(num("1 || 1 / 0 > 1"), 1);
}

TEST(Expression, SyntaxErrorsNameTheColumn) {
  auto msg = [](const std::string& t) {
    try {
      Expression e(t);
    } catch (const Error& err) { return std::string(err.what()); }
    return std::string("no error");
  };
  EXPECT_EQ(msg("1 +"), "column 4: expected a value (at the end)");
  EXPECT_EQ(msg("a <= b <= c"), "column 8: comparisons do not chain; use && between them");
  EXPECT_EQ(msg("foo(1)"), "column 1: unknown function 'foo' (known: min, max, abs, log2, floor, ceil)");
  EXPECT_EQ(msg("min(1)"), "column 1: min() takes 2 arguments");
  EXPECT_EQ(msg("a $ b"), "column 3: unexpected character '$'");
  EXPECT_EQ(msg("'abc"), "column 1: unterminated text");
  EXPECT_EQ(msg("(1 + 2"), "column 7: expected ')' (at the end)");
  EXPECT_EQ(msg("a."), "column 2: a name cannot end with '.'");
}

TEST(Expression, TypeErrorsAtEvaluation) {
  const std::map<std::string, ExprValue> v = {{"m", std::string("stationary")}, {"x", 2.0}};
  auto msg = [&](const std::string& t) {
    try {
      Expression(t).holds([&](const std::string& k) { return v.at(k); });
    } catch (const Error& err) { return std::string(err.what()); }
    return std::string("no error");
  };
  EXPECT_EQ(msg("m == 3"), "'==' compares text 'stationary' with a number");
  EXPECT_EQ(msg("m + 1 > 0"), "'+' needs a number, got text 'stationary'");
  EXPECT_EQ(msg("x / 0 > 1"), "'/': division by zero");
  EXPECT_EQ(msg("log2(x - 2) > 0"), "log2() of 0.000000: needs a positive number");
  EXPECT_EQ(msg("m"), "the expression is text 'stationary', not true or false");
}

}  // namespace
}  // namespace photon::sweep
