// Lexer for the textual MLIR subset that HEIR emits (see docs/heir.md, "Supported syntax").
//
// Splits MLIR text into tokens with 1-based line:column positions. `//` comments are dropped.
// Token classes follow the MLIR language reference (mlir.llvm.org/docs/LangRef): bare
// identifiers (may contain '.', e.g. `ckks.rotate`), SSA ids `%x`, symbols `@f`, block
// labels `^bb0`, type aliases / dialect types `!x`, attribute aliases / dialect attributes `#x`,
// numbers (a digit followed by identifier characters, so `128x4096xf64` and `4.0e+00` are one
// token), string literals, `->` and single-character punctuation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace photon::heir::mlir {

enum class TokKind { Ident, Percent, At, Caret, Bang, Hash, Number, String, Punct, Arrow, Eof };

struct Token {
  TokKind kind = TokKind::Eof;
  std::string text;            ///< full spelling incl. sigil ("%ct_0", "!ct_L1"); String: contents
  uint32_t line = 0, col = 0;  ///< 1-based position of the first character
  bool first_on_line = false;  ///< no other token precedes it on its line
  bool space_before = false;   ///< whitespace (or line start) directly precedes it

  bool is(char c) const { return kind == TokKind::Punct && text.size() == 1 && text[0] == c; }
};

/// Tokenizes `source`; `file` is used in error messages only. The last token is Eof.
/// Throws photon::Error "file:line:col: unexpected character 'c'" (c escape()d) or "unterminated
/// string".
std::vector<Token> lex(const std::string& source, const std::string& file);

/// Human-readable spelling of a token for "expected X, got Y" messages (escape()d).
std::string describe(const Token& t);

/// `text` with every non-printable byte written as an escape ('\n', '\t', '\r', else '\xNN'),
/// so an error message quoting input text stays on one line.
std::string escape(const std::string& text);

}  // namespace photon::heir::mlir
