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

/// A dialect resource blob from the file-metadata section (`{-# dialect_resources: { builtin: {
/// key: "0x..." } } #-}`, MLIR LangRef "Dialect resources"). The hex string's first 4 bytes are
/// the blob's alignment (little-endian uint32, 0 or a power of two), the rest its data.
struct Resource {
  Loc loc;                    ///< position of the key
  uint32_t alignment = 0;     ///< bytes
  std::vector<uint8_t> data;  ///< the blob after the alignment word
};

/// A `dense_resource<key>` attribute (a builtin resource used as elements of a tensor type).
struct DenseResourceUse {
  Loc loc;          ///< position of `dense_resource`
  size_t tok = 0;   ///< index of the `dense_resource` token in Module::tokens
  std::string key;  ///< the resource key
  AttrPtr type;     ///< the `: tensor<...>` after it, if written there (nullptr otherwise)
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
  /// Resource blobs of the file-metadata section: dialect ("builtin") -> key -> blob.
  std::map<std::string, std::map<std::string, Resource>> resources;
  std::vector<DenseResourceUse> dense_resources;  ///< every dense_resource<...>, in text order

  const Attr* attr(const std::string& key) const;
  const Func* func(const std::string& name) const;
};

/// Parses MLIR text. `file` names the source in error messages. Throws photon::Error with
/// context "file:line:col" and a message "expected X, got Y", "undefined alias '!x'",
/// "unbalanced ...", "integer literal V does not fit T (range LO .. HI)", "resource 'k': ..."
/// (a blob that is not a hex string, has no 4-byte alignment prefix, an alignment that is not a
/// power of two, or holds a byte count other than its dense_resource's tensor type needs) etc.
/// A dense_resource whose key has no blob is accepted, as MLIR accepts it (a declared handle).
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

/// The integer of a Scalar's text ("536903681 : i64" -> 536903681, "-3", "0x1F"); false if it
/// holds none or a float ("1.5", "2e3 : f64").
bool scalar_int(const Attr* a, long long* out);

/// Element type and dimensions of a static tensor type `tensor<3x4xi64>` (`tensor<i32>`: no
/// dims). False if `type` is not a tensor, has a dynamic or non-numeric dimension, or its element
/// type is not iN / siN / uiN (N = 1..64), f16, bf16, f32, f64 or index.
bool static_tensor_type(const Attr* type, std::vector<int64_t>* dims, std::string* element);

/// Bytes one element of `element` occupies in a resource blob (MLIR's dense resource layout:
/// i1 one byte, iN ceil(N / 8), index 8, f16/bf16 2, f32 4, f64 8); 0 if unknown.
uint32_t resource_element_bytes(const std::string& element);

}  // namespace photon::heir::mlir
