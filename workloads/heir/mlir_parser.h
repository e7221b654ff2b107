// Tolerant parser for the textual MLIR subset of HEIR programs (docs/heir.md).
//
// Produces a plain syntax tree: aliases resolved, attributes and types as a small generic tree
// (Attr), operations with their SSA results/operands, attribute dictionary, trailing type
// signature and nested regions. Custom assembly forms are kept as the op's token range so the
// frontend can read op-specific pieces (scf.for bounds, arith.constant values, callee symbols).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "workloads/heir/mlir_lexer.h"

namespace photon::heir::mlir {

struct Attr;
using AttrPtr = std::shared_ptr<const Attr>;

/// An attribute or type value. Examples and their shape:
///   !lwe.lwe_ciphertext<k = v, ...>   Dialect "!lwe.lwe_ciphertext", keyed items
///   tensor<1x!ct>                     Dialect "tensor", one positional Scalar item "1x" + Dialect
///   <1 + x**8192>                     Group, one positional Scalar "1 + x * * 8192"
///   [1, 2]                            List; {a = 1, b}: Dict ("b" is a unit attribute)
///   536903681 : i64                   Scalar (tokens joined by single spaces)
struct Attr {
  enum class Kind { Scalar, Dialect, Group, List, Dict };
  Kind kind = Kind::Scalar;
  std::string text;  ///< Scalar: spelling; Dialect: name with sigil ("!lwe.lwe_ciphertext",
                     ///< "#lwe.modulus_chain", "tensor"); Group: the opening bracket ("<" or "(")
  std::vector<std::pair<std::string, AttrPtr>> items;  ///< key "" for positional items
  std::string alias;  ///< alias this value was reached through ("!ct_L5"), if any

  /// Item with that key, or nullptr.
  const Attr* get(const std::string& key) const;
  /// Resolved textual form (aliases expanded).
  std::string str() const;
  /// Depth-first search for a keyed item anywhere below (or at) this node.
  const Attr* find(const std::string& key) const;
};

struct Loc {
  std::string file;
  uint32_t line = 0, col = 0;
  std::string str() const { return file + ":" + std::to_string(line) + ":" + std::to_string(col); }
};

struct Operation;
using Region = std::vector<Operation>;  ///< single-block regions (block labels are skipped)

struct Operation {
  std::string name;                   ///< "ckks.rotate", "func.return" for `return`
  Loc loc;                            ///< position of the op name
  std::vector<std::string> results;   ///< "%ct_0"; `%0:2` expands to "%0#0", "%0#1"
  std::vector<std::string> operands;  ///< SSA uses before the type signature, outside {attrs}
  std::vector<std::pair<std::string, AttrPtr>> attrs;  ///< from the {attr-dict}(s)
  std::vector<AttrPtr> operand_types, result_types;    ///< trailing `: (A, B) -> C` / `: T`
  bool single_type = false;  ///< signature was one type `: T` (applies to operands and results)
  std::vector<Region> regions;
  std::string symbol;                 ///< first `@sym` in the op (func.call callee)
  size_t tok_begin = 0, tok_end = 0;  ///< token range of the op (regions excluded)

  const Attr* attr(const std::string& key) const;
};

struct FuncArg {
  std::string name;  ///< "%ct"
  AttrPtr type;
  std::vector<std::pair<std::string, AttrPtr>> attrs;
};

struct Func {
  std::string name;  ///< without '@'
  Loc loc;
  std::vector<FuncArg> args;
  std::vector<AttrPtr> result_types;
  std::vector<std::pair<std::string, AttrPtr>> attrs;  ///< `attributes {...}`
  bool has_body = false;
  Region body;
};

/// A `#polynomial.ring<...>` literal where the text spells it (checked by heir::check_rings).
struct RingDef {
  Loc loc;            ///< position of the `#polynomial.ring` token
  std::string alias;  ///< "#ring_x1024" when the literal is an alias's value; "" when inline
  AttrPtr ring;
};

struct Module {
  std::string file;
  bool has_module = false;     ///< a `module { ... }` or top-level func.func (implicit module) seen
  Loc loc;                     ///< position of `module` (or of the first top-level func.func)
  std::vector<RingDef> rings;  ///< every ring literal, in text order
  std::vector<std::pair<std::string, AttrPtr>> attrs;  ///< `module attributes {...}`
  std::map<std::string, AttrPtr> aliases;              ///< "!ct_L1" / "#key" -> value
  std::map<std::string, Loc> alias_locs;               ///< "!ct_L1" -> position of its definition
  std::vector<Func> funcs;
  std::vector<Token> tokens;  ///< all tokens; Operation::tok_begin/tok_end index this

  const Attr* attr(const std::string& key) const;
  const Func* func(const std::string& name) const;
};

/// Parses MLIR text. `file` names the source in error messages. Throws photon::Error with
/// context "file:line:col" and a message "expected X, got Y", "undefined alias '!x'",
/// "unbalanced ...", "integer literal V does not fit T (range LO .. HI)" etc.
Module parse_mlir(const std::string& text, const std::string& file);

/// Reads and parses a file; an unreadable file is an Error naming it.
Module parse_mlir_file(const std::string& path);

/// Calls f(op) for every op of `r` and of its nested regions, in order (pre-order).
template <typename F>
void walk_ops(const Region& r, F&& f) {
  for (const auto& op : r) {
    f(op);
    for (const auto& sub : op.regions) walk_ops(sub, f);
  }
}

/// First integer in a Scalar's text ("536903681 : i64" -> 536903681); false if none.
bool scalar_int(const Attr* a, long long* out);

}  // namespace photon::heir::mlir
