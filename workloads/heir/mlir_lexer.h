// Lexer for the textual MLIR subset that HEIR emits (see docs/heir.md, "Supported syntax").
//
// Splits MLIR text into tokens with 1-based line:column positions. `//` comments are dropped.
// Token classes follow the MLIR language reference (mlir.llvm.org/docs/LangRef, "Lexical
// Structure", "Identifiers and keywords") and MLIR's lexer (mlir/lib/AsmParser/Lexer.cpp):
// - bare-id ::= (letter|[_]) (letter|digit|[_$.])*   (`ckks.rotate`, `i64`)
// - `%` `^` `!` `#` followed by a suffix-id ::= digit+ | (letter|id-punct) (letter|id-punct|
//   digit)*, id-punct ::= [$._-]: SSA values `%c-23`, `%0`, block labels `^bb0`, type aliases and
//   dialect types `!ct_L1`, `!lwe.lwe_ciphertext`, attribute aliases `#key`;
// - `@` followed by a bare-id or a string literal (`@f`, `@"a b"`);
// - string literals '"' ... '"' that end on their line (a newline, vertical tab or form feed
//   inside one is an error), with the escapes `\"`, `\\`, `\n`, `\t` and `\XX` (two hex digits:
//   the byte 0xXX);
// - numbers (a digit followed by identifier characters, so `128x4096xf64` and `4.0e+00` are one
//   token; the parser splits dimension lists);
// - punctuation: `->`, `...`, the file-metadata brackets `{-#` and `#-}` (dialect resources),
//   and the single characters ( ) [ ] { } < > , : = * + - ? |.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace photon::heir::mlir {

enum class TokKind { Ident, Percent, At, Caret, Bang, Hash, Number, String, Punct, Arrow, Eof };

struct Token {
  TokKind kind = TokKind::Eof;
  std::string text;            ///< full spelling incl. sigil ("%ct_0", "!ct_L1"); String: the decoded
                               ///< contents; `@"a b"`: '@' and the decoded name in quotes
  uint32_t line = 0, col = 0;  ///< 1-based position of the first character
  bool first_on_line = false;  ///< no other token precedes it on its line
  bool space_before = false;   ///< whitespace (or line start) directly precedes it

  bool is(char c) const { return kind == TokKind::Punct && text.size() == 1 && text[0] == c; }
  /// Punctuation of several characters: "...", "{-#", "#-}".
  bool is(const char* p) const { return kind == TokKind::Punct && text == p; }
};

/// Tokenizes `source`; `file` is used in error messages only. The last token is Eof.
/// Throws photon::Error with context "file:line:col": "unexpected character 'c'", "expected a
/// name after '%', got 'c'", "unterminated string literal", "unknown escape '\q' in string
/// literal (MLIR knows \", \\, \n, \t and \XX)", "expected a letter, '_' or a string literal
/// after '@'", "expected '...'".
std::vector<Token> lex(const std::string& source, const std::string& file);

/// Human-readable spelling of a token for "expected X, got Y" messages.
std::string describe(const Token& t);

}  // namespace photon::heir::mlir
