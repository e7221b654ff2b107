#include "sweep/expression.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "base/error.h"

namespace photon::sweep {

struct Expression::Node {
  enum class Kind { Number, Text, Name, Unary, Binary, Call } kind;
  std::string op;  // operator, function name, variable name or text value
  double number = 0;
  std::vector<std::unique_ptr<Node>> args;
};

namespace {

using Node = Expression::Node;
using NodePtr = std::unique_ptr<Node>;

struct Token {
  enum class Kind { Number, Text, Name, Op, End } kind;
  std::string text;
  double number = 0;
  size_t column = 0;  // 1-based
};

std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> out;
  size_t i = 0;
  auto fail = [&](size_t col, const std::string& what) {
    throw Error("column " + std::to_string(col + 1) + ": " + what);
  };
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.column = i + 1;
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      const char* begin = s.c_str() + i;
      char* end = nullptr;
      t.number = (c == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X'))
                     ? double(std::strtoull(begin, &end, 16))
                     : std::strtod(begin, &end);
      if (end == begin) fail(i, "bad number");
      t.kind = Token::Kind::Number;
      i += size_t(end - begin);
      if (i < s.size() && (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_'))
        fail(i, "unexpected '" + std::string(1, s[i]) + "' after a number");
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '.'))
        ++j;
      t.text = s.substr(i, j - i);
      if (t.text.back() == '.') fail(j - 1, "a name cannot end with '.'");
      t.kind = Token::Kind::Name;
      if (t.text == "and" || t.text == "or" || t.text == "not") {
        t.kind = Token::Kind::Op;
        t.text = t.text == "and" ? "&&" : t.text == "or" ? "||" : "!";
      }
      i = j;
    } else if (c == '\'' || c == '"') {
      size_t j = s.find(c, i + 1);
      if (j == std::string::npos) fail(i, "unterminated text");
      t.kind = Token::Kind::Text;
      t.text = s.substr(i + 1, j - i - 1);
      i = j + 1;
    } else {
      static const char* two[] = {"<=", ">=", "==", "!=", "&&", "||"};
      t.kind = Token::Kind::Op;
      for (const char* op : two)
        if (s.compare(i, 2, op) == 0) t.text = op;
      if (t.text.empty()) {
        if (std::string("+-*/%<>!(),").find(c) == std::string::npos)
          fail(i, "unexpected character '" + std::string(1, c) + "'");
        t.text = std::string(1, c);
      }
      i += t.text.size();
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.kind = Token::Kind::End;
  end.column = s.size() + 1;
  out.push_back(end);
  return out;
}

class Parser {
 public:
  Parser(const std::vector<Token>& toks, std::vector<std::string>& names) : t_(toks), names_(names) {}

  NodePtr parse() {
    NodePtr n = parse_or();
    if (peek().kind != Token::Kind::End) fail("unexpected '" + peek().text + "'");
    return n;
  }

 private:
  const Token& peek() const { return t_[pos_]; }
  bool accept(const std::string& op) {
    if (peek().kind == Token::Kind::Op && peek().text == op) {
      ++pos_;
      return true;
    }
    return false;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("column " + std::to_string(peek().column) + ": " +
                (peek().kind == Token::Kind::End ? what + " (at the end)" : what));
  }
  static NodePtr binary(const std::string& op, NodePtr a, NodePtr b) {
    auto n = std::make_unique<Node>();
    n->kind = Node::Kind::Binary;
    n->op = op;
    n->args.push_back(std::move(a));
    n->args.push_back(std::move(b));
    return n;
  }
  NodePtr parse_or() {
    NodePtr a = parse_and();
    while (accept("||")) a = binary("||", std::move(a), parse_and());
    return a;
  }
  NodePtr parse_and() {
    NodePtr a = parse_not();
    while (accept("&&")) a = binary("&&", std::move(a), parse_not());
    return a;
  }
  NodePtr parse_not() {
    if (accept("!")) {
      auto n = std::make_unique<Node>();
      n->kind = Node::Kind::Unary;
      n->op = "!";
      n->args.push_back(parse_not());
      return n;
    }
    return parse_cmp();
  }
  NodePtr parse_cmp() {
    NodePtr a = parse_sum();
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"})
      if (accept(op)) {
        NodePtr n = binary(op, std::move(a), parse_sum());
        for (const char* next : {"<=", ">=", "==", "!=", "<", ">"})
          if (peek().kind == Token::Kind::Op && peek().text == next)
            fail("comparisons do not chain; use && between them");
        return n;
      }
    return a;
  }
  NodePtr parse_sum() {
    NodePtr a = parse_prod();
    while (true) {
      if (accept("+"))
        a = binary("+", std::move(a), parse_prod());
      else if (accept("-"))
        a = binary("-", std::move(a), parse_prod());
      else
        return a;
    }
  }
  NodePtr parse_prod() {
    NodePtr a = parse_unary();
    while (true) {
      if (accept("*"))
        a = binary("*", std::move(a), parse_unary());
      else if (accept("/"))
        a = binary("/", std::move(a), parse_unary());
      else if (accept("%"))
        a = binary("%", std::move(a), parse_unary());
      else
        return a;
    }
  }
  NodePtr parse_unary() {
    if (accept("-")) {
      auto n = std::make_unique<Node>();
      n->kind = Node::Kind::Unary;
      n->op = "-";
      n->args.push_back(parse_unary());
      return n;
    }
    return parse_atom();
  }
  NodePtr parse_atom() {
    const Token& t = peek();
    auto n = std::make_unique<Node>();
    switch (t.kind) {
      case Token::Kind::Number:
        n->kind = Node::Kind::Number;
        n->number = t.number;
        ++pos_;
        return n;
      case Token::Kind::Text:
        n->kind = Node::Kind::Text;
        n->op = t.text;
        ++pos_;
        return n;
      case Token::Kind::Name: {
        ++pos_;
        if (t.text == "true" || t.text == "false") {
          n->kind = Node::Kind::Number;
          n->number = t.text == "true" ? 1 : 0;
          return n;
        }
        if (accept("(")) {
          static const std::vector<std::pair<std::string, size_t>> functions = {
              {"min", 2}, {"max", 2}, {"abs", 1}, {"log2", 1}, {"floor", 1}, {"ceil", 1}};
          size_t arity = 0;
          for (const auto& [name, k] : functions)
            if (name == t.text) arity = k;
          if (!arity)
            throw Error("column " + std::to_string(t.column) + ": unknown function '" + t.text +
                        "' (known: min, max, abs, log2, floor, ceil)");
          n->kind = Node::Kind::Call;
          n->op = t.text;
          n->args.push_back(parse_or());
          while (accept(",")) n->args.push_back(parse_or());
          if (!accept(")")) fail("expected ')'");
          if (n->args.size() != arity)
            throw Error("column " + std::to_string(t.column) + ": " + t.text + "() takes " +
                        std::to_string(arity) + " argument" + (arity == 1 ? "" : "s"));
          return n;
        }
        n->kind = Node::Kind::Name;
        n->op = t.text;
        bool seen = false;
        for (const auto& s : names_) seen = seen || s == t.text;
        if (!seen) names_.push_back(t.text);
        return n;
      }
      case Token::Kind::Op:
        if (accept("(")) {
          NodePtr inner = parse_or();
          if (!accept(")")) fail("expected ')'");
          return inner;
        }
        fail("unexpected '" + t.text + "'");
      case Token::Kind::End: fail("expected a value");
    }
    fail("expected a value");
  }

  const std::vector<Token>& t_;
  std::vector<std::string>& names_;
  size_t pos_ = 0;
};

std::string describe(const ExprValue& v) {
  if (std::holds_alternative<std::string>(v)) return "text '" + std::get<std::string>(v) + "'";
  return "a number";
}

double number(const ExprValue& v, const std::string& what) {
  if (!std::holds_alternative<double>(v)) throw Error(what + " needs a number, got " + describe(v));
  return std::get<double>(v);
}

ExprValue eval(const Node& n, const std::function<ExprValue(const std::string&)>& lookup) {
  switch (n.kind) {
    case Node::Kind::Number: return n.number;
    case Node::Kind::Text: return n.op;
    case Node::Kind::Name: return lookup(n.op);
    case Node::Kind::Unary: {
      const ExprValue a = eval(*n.args[0], lookup);
      if (n.op == "-") return -number(a, "unary '-'");
      return number(a, "'!'") == 0 ? 1.0 : 0.0;
    }
    case Node::Kind::Call: {
      std::vector<double> x;
      for (const auto& a : n.args) x.push_back(number(eval(*a, lookup), n.op + "()"));
      if (n.op == "min") return std::min(x[0], x[1]);
      if (n.op == "max") return std::max(x[0], x[1]);
      if (n.op == "abs") return std::fabs(x[0]);
      if (n.op == "floor") return std::floor(x[0]);
      if (n.op == "ceil") return std::ceil(x[0]);
      if (x[0] <= 0) throw Error("log2() of " + std::to_string(x[0]) + ": needs a positive number");
      return std::log2(x[0]);
    }
    case Node::Kind::Binary: break;
  }
  const std::string& op = n.op;
  if (op == "&&" || op == "||") {  // short-circuit, like C
    const bool a = number(eval(*n.args[0], lookup), "'" + op + "'") != 0;
    if (op == "&&" && !a) return 0.0;
    if (op == "||" && a) return 1.0;
    return number(eval(*n.args[1], lookup), "'" + op + "'") != 0 ? 1.0 : 0.0;
  }
  const ExprValue a = eval(*n.args[0], lookup), b = eval(*n.args[1], lookup);
  if (op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=") {
    if (a.index() != b.index()) throw Error("'" + op + "' compares " + describe(a) + " with " + describe(b));
    int c = 0;
    if (std::holds_alternative<double>(a)) {
      const double x = std::get<double>(a), y = std::get<double>(b);
      c = x < y ? -1 : x > y ? 1 : 0;
    } else {
      c = std::get<std::string>(a).compare(std::get<std::string>(b));
      c = c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    const bool r = op == "=="   ? c == 0
                   : op == "!=" ? c != 0
                   : op == "<"  ? c < 0
                   : op == "<=" ? c <= 0
                   : op == ">"  ? c > 0
                                : c >= 0;
    return r ? 1.0 : 0.0;
  }
  const double x = number(a, "'" + op + "'"), y = number(b, "'" + op + "'");
  if (op == "+") return x + y;
  if (op == "-") return x - y;
  if (op == "*") return x * y;
  if (y == 0) throw Error("'" + op + "': division by zero");
  if (op == "/") return x / y;
  return std::fmod(x, y);
}

}  // namespace

Expression::Expression(const std::string& text) : text_(text) {
  const std::vector<Token> toks = tokenize(text);
  Parser p(toks, names_);
  root_ = p.parse();
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

ExprValue Expression::evaluate(const std::function<ExprValue(const std::string&)>& lookup) const {
  return eval(*root_, lookup);
}

bool Expression::holds(const std::function<ExprValue(const std::string&)>& lookup) const {
  const ExprValue v = evaluate(lookup);
  if (!std::holds_alternative<double>(v))
    throw Error("the expression is " + describe(v) + ", not true or false");
  return std::get<double>(v) != 0;
}

}  // namespace photon::sweep
