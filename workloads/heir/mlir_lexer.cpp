#include "workloads/heir/mlir_lexer.h"

#include <cctype>

#include "base/error.h"

namespace photon::heir::mlir {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

std::string where(const std::string& file, uint32_t line, uint32_t col) {
  return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

}  // namespace

std::string escape(const std::string& text) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (c < 0x20 || c >= 0x7f)
      out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
    else
      out += ch;
  }
  return out;
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokKind::Eof: return "end of file";
    case TokKind::String: return "string \"" + escape(t.text) + "\"";
    default: return "'" + escape(t.text) + "'";
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
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      advance(1);
      space = true;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
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
      advance(1);
      std::string v;
      while (i < s.size() && s[i] != '"' && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < s.size()) {
          v += s[i + 1];
          advance(2);
          continue;
        }
        v += s[i];
        advance(1);
      }
      if (i >= s.size() || s[i] != '"')
        throw Error("unterminated string literal").with_context(where(file, t.line, t.col));
      advance(1);
      t.kind = TokKind::String;
      t.text = std::move(v);
    } else if (c == '%' || c == '@' || c == '^' || c == '!' || c == '#') {
      advance(1);
      if (c == '@' && i < s.size() && s[i] == '"') {  // @"quoted symbol"
        advance(1);
        while (i < s.size() && s[i] != '"' && s[i] != '\n') advance(1);
        if (i >= s.size() || s[i] != '"')
          throw Error("unterminated symbol name").with_context(where(file, t.line, t.col));
        advance(1);
      } else {
        while (i < s.size() && (ident_char(s[i]) || s[i] == '-')) {
          if (s[i] == '-' && (c != '!' && c != '#')) break;  // '-' only inside dialect names
          if (s[i] == '-' && i + 1 < s.size() && s[i + 1] == '>') break;
          advance(1);
        }
      }
      if (i == start + 1)
        throw Error(std::string("expected a name after '") + c + "', got " +
                    (i < s.size() ? "'" + escape(std::string(1, s[i])) + "'" : "end of file"))
            .with_context(where(file, t.line, t.col));
      t.kind = c == '%'   ? TokKind::Percent
               : c == '@' ? TokKind::At
               : c == '^' ? TokKind::Caret
               : c == '!' ? TokKind::Bang
                          : TokKind::Hash;
      t.text = s.substr(start, i - start);
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < s.size()) {
        char d = s[i];
        if (ident_char(d)) {
          advance(1);
          continue;
        }
        if ((d == '+' || d == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E') && i + 1 < s.size() &&
            std::isdigit(static_cast<unsigned char>(s[i + 1])) && s.compare(start, 2, "0x") != 0) {
          advance(1);
          continue;
        }
        break;
      }
      t.kind = TokKind::Number;
      t.text = s.substr(start, i - start);
    } else if (ident_start(c)) {
      while (i < s.size() && ident_char(s[i])) advance(1);
      t.kind = TokKind::Ident;
      t.text = s.substr(start, i - start);
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '>') {
      advance(2);
      t.kind = TokKind::Arrow;
      t.text = "->";
    } else if (std::string("()[]{}<>,:=*+-?|").find(c) != std::string::npos) {
      advance(1);
      t.kind = TokKind::Punct;
      t.text = std::string(1, c);
    } else {
      throw Error("unexpected character '" + escape(std::string(1, c)) + "'")
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
