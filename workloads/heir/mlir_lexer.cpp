#include "workloads/heir/mlir_lexer.h"

#include <cctype>

#include "base/error.h"
#include "base/text.h"

namespace photon::heir::mlir {
namespace {

bool is_letter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
/// bare-id characters after the first: letter | digit | [_$.]
bool bare_char(char c) { return is_letter(c) || is_digit(c) || c == '_' || c == '$' || c == '.'; }
/// id-punct ::= [$._-]
bool id_punct(char c) { return c == '$' || c == '.' || c == '_' || c == '-'; }
int hex_value(char c) {
  return is_digit(c) ? c - '0' : (std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
}

std::string where(const std::string& file, uint32_t line, uint32_t col) {
  return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

}  // namespace

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokKind::Eof: return "end of file";
    case TokKind::String: return "string \"" + printable(t.text) + "\"";
    default: return "'" + printable(t.text) + "'";
  }
}

std::vector<Token> lex(const std::string& s, const std::string& file) {
  std::vector<Token> out;
  out.reserve(s.size() / 4);
  size_t i = 0;
  uint32_t line = 1, col = 1;
  bool line_has_token = false, space = true;
  auto advance = [&](size_t n) {
    for (size_t k = 0; k < n && i < s.size(); ++k, ++i) {
      if (s[i] == '\n') {
        ++line;
        col = 1;
        line_has_token = false;
        space = true;
      } else
        ++col;
    }
  };
  auto at = [&](size_t k) { return k < s.size() ? s[k] : '\0'; };
  // A string literal starting at the '"' at s[i]; returns its decoded contents (MLIR's
  // Lexer::lexString and Token::getStringValue).
  auto lex_string = [&](uint32_t tline, uint32_t tcol) {
    advance(1);
    std::string v;
    while (true) {
      if (i >= s.size() || s[i] == '\n' || s[i] == '\v' || s[i] == '\f')
        throw Error("unterminated string literal").with_context(where(file, tline, tcol));
      const char c = s[i];
      if (c == '"') {
        advance(1);
        return v;
      }
      if (c != '\\') {
        v += c;
        advance(1);
        continue;
      }
      const char e = at(i + 1);
      if (e == '"' || e == '\\') {
        v += e;
      } else if (e == 'n') {
        v += '\n';
      } else if (e == 't') {
        v += '\t';
      } else if (is_hex(e) && is_hex(at(i + 2))) {
        v += static_cast<char>(hex_value(e) * 16 + hex_value(at(i + 2)));
        advance(3);
        continue;
      } else {
        throw Error("unknown escape '\\" + std::string(1, e) +
                    "' in string literal (MLIR knows \\\", \\\\, \\n, \\t and \\XX)")
            .with_context(where(file, line, col));
      }
      advance(2);
    }
  };
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      advance(1);
      space = true;
      continue;
    }
    if (c == '/' && at(i + 1) == '/') {
      while (i < s.size() && s[i] != '\n') advance(1);
      continue;
    }
    Token t;
    t.line = line;
    t.col = col;
    t.first_on_line = !line_has_token;
    t.space_before = space;
    size_t start = i;
    if (c == '"') {
      t.kind = TokKind::String;
      t.text = lex_string(t.line, t.col);
    } else if (c == '{' && at(i + 1) == '-' && at(i + 2) == '#') {
      advance(3);
      t.kind = TokKind::Punct;
      t.text = "{-#";
    } else if (c == '#' && at(i + 1) == '-' && at(i + 2) == '}') {
      advance(3);
      t.kind = TokKind::Punct;
      t.text = "#-}";
    } else if (c == '@') {
      advance(1);
      if (at(i) == '"') {  // @"quoted symbol"
        t.text = "@\"" + lex_string(t.line, t.col) + "\"";
      } else {
        if (!is_letter(at(i)) && at(i) != '_')
          throw Error(
              "expected a letter, '_' or a string literal after '@', got " +
              (i < s.size() ? "'" + printable(std::string(1, s[i])) + "'" : std::string("end of file")))
              .with_context(where(file, t.line, t.col));
        while (i < s.size() && bare_char(s[i])) advance(1);
        t.text = s.substr(start, i - start);
      }
      t.kind = TokKind::At;
    } else if (c == '%' || c == '^' || c == '!' || c == '#') {
      advance(1);
      if (is_digit(at(i))) {  // suffix-id: digit+
        while (is_digit(at(i))) advance(1);
      } else if (is_letter(at(i)) || id_punct(at(i))) {  // (letter|id-punct)(letter|id-punct|digit)*
        while (i < s.size() && (is_letter(s[i]) || is_digit(s[i]) || id_punct(s[i]))) advance(1);
      } else {
        throw Error(std::string("expected a name after '") + c + "', got " +
                    (i < s.size() ? "'" + printable(std::string(1, s[i])) + "'" : "end of file"))
            .with_context(where(file, t.line, t.col));
      }
      t.kind = c == '%'   ? TokKind::Percent
               : c == '^' ? TokKind::Caret
               : c == '!' ? TokKind::Bang
                          : TokKind::Hash;
      t.text = s.substr(start, i - start);
    } else if (is_digit(c)) {
      while (i < s.size()) {
        char d = s[i];
        if (bare_char(d)) {
          advance(1);
          continue;
        }
        if ((d == '+' || d == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E') && is_digit(at(i + 1)) &&
            s.compare(start, 2, "0x") != 0) {
          advance(1);
          continue;
        }
        break;
      }
      t.kind = TokKind::Number;
      t.text = s.substr(start, i - start);
    } else if (is_letter(c) || c == '_') {
      while (i < s.size() && bare_char(s[i])) advance(1);
      t.kind = TokKind::Ident;
      t.text = s.substr(start, i - start);
    } else if (c == '-' && at(i + 1) == '>') {
      advance(2);
      t.kind = TokKind::Arrow;
      t.text = "->";
    } else if (c == '.') {
      if (at(i + 1) != '.' || at(i + 2) != '.')
        throw Error("expected '...' (an ellipsis), got a single '.'").with_context(where(file, line, col));
      advance(3);
      t.kind = TokKind::Punct;
      t.text = "...";
    } else if (std::string("()[]{}<>,:=*+-?|").find(c) != std::string::npos) {
      advance(1);
      t.kind = TokKind::Punct;
      t.text = std::string(1, c);
    } else {
      throw Error("unexpected character '" + printable(std::string(1, c)) + "'")
          .with_context(where(file, line, col));
    }
    line_has_token = true;
    space = false;
    out.push_back(std::move(t));
  }
  Token eof;
  eof.kind = TokKind::Eof;
  eof.line = line;
  eof.col = col;
  eof.first_on_line = true;
  eof.space_before = true;
  out.push_back(eof);
  return out;
}

}  // namespace photon::heir::mlir
