// Constraint expressions of a sweep spec, e.g. `optical_gemm.rows * optical_gemm.cols <= 16384`.
//
// A tiny, safe evaluator (no code execution, no loops): numbers (42, 1.5e3, 0x40), 'text' or
// "text", true/false, configuration keys as dotted names (hbm.tRCD), + - * / % (numbers),
// comparisons < <= > >= == != (numbers with numbers, text with text), && || ! (also and, or,
// not), parentheses, and the functions min(a, b), max(a, b), abs(x), log2(x), floor(x), ceil(x).
// Precedence, lowest first: ||, &&, !, comparison, + -, * / %, unary -.
//
// Errors (photon::Error): syntax (naming the column), and at evaluation a type mismatch, a
// division by zero, log2 of a non-positive number, or a result that is not true/false.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace photon::sweep {

/// A value in an expression: a number (double; every configuration integer below 2^53 is exact)
/// or a text (configuration choices such as `stationary`). Booleans are numbers 0 and 1.
using ExprValue = std::variant<double, std::string>;

class Expression {
 public:
  /// Parses `text`. Throws Error "column N: ..." for a syntax error.
  explicit Expression(const std::string& text);
  ~Expression();
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;

  /// The dotted names the expression reads, each once, in order of appearance.
  const std::vector<std::string>& names() const { return names_; }
  const std::string& text() const { return text_; }

  /// Evaluates with `lookup` giving each name's value; the result must be a comparison or a
  /// logical combination of them (or a number: nonzero is true). Throws Error on a type error.
  bool holds(const std::function<ExprValue(const std::string&)>& lookup) const;
  /// Evaluates to a value (for tests and for numeric expressions).
  ExprValue evaluate(const std::function<ExprValue(const std::string&)>& lookup) const;

  struct Node;

 private:
  std::string text_;
  std::vector<std::string> names_;
  std::unique_ptr<Node> root_;
};

}  // namespace photon::sweep
