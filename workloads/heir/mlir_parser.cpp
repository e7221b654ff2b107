#include "workloads/heir/mlir_parser.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "base/checked_size.h"
#include "base/error.h"
#include "base/text.h"

namespace photon::heir::mlir {

// ---------------------------------------------------------------------------------------------
// Attr / Operation / Module helpers

const Attr* Attr::get(const std::string& key) const {
  for (const auto& [k, v] : items)
    if (k == key) return v.get();
  return nullptr;
}

const Attr* Attr::find(const std::string& key) const {
  for (const auto& [k, v] : items) {
    if (k == key) return v.get();
    if (const Attr* f = v->find(key)) return f;
  }
  return nullptr;
}

std::string Attr::str() const {
  std::string inner;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) inner += kind == Kind::Scalar ? " " : ", ";
    if (!items[i].first.empty()) inner += items[i].first + " = ";
    inner += items[i].second->str();
  }
  switch (kind) {
    case Kind::Scalar: return items.empty() ? text : inner;
    case Kind::Dialect: return items.empty() ? text : text + "<" + inner + ">";
    case Kind::Group: return text == "(" ? "(" + inner + ")" : "<" + inner + ">";
    case Kind::List: return "[" + inner + "]";
    case Kind::Dict: return "{" + inner + "}";
  }
  return text;
}

const Attr* Operation::attr(const std::string& key) const {
  for (const auto& [k, v] : attrs)
    if (k == key) return v.get();
  return nullptr;
}

const Attr* Module::attr(const std::string& key) const {
  for (const auto& [k, v] : attrs)
    if (k == key) return v.get();
  return nullptr;
}

const Func* Module::func(const std::string& name) const {
  for (const auto& f : funcs)
    if (f.name == name) return &f;
  return nullptr;
}

bool scalar_int(const Attr* a, long long* out) {
  if (!a) return false;
  const std::string& s = a->text;
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  bool neg = false;
  if (i < s.size() && s[i] == '-') {
    neg = true;
    ++i;
    while (i < s.size() && s[i] == ' ') ++i;
  }
  if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  bool hex = s.compare(i, 2, "0x") == 0;
  // MLIR: decimal or 0x; parse_mlir has checked the value fits int64 (so -2^63 is exact here).
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str() + i, &end, hex ? 16 : 10);
  // A float (1.5, 2e3) is not an integer: only its type may follow the digits.
  size_t j = static_cast<size_t>(end - s.c_str());
  while (j < s.size() && s[j] == ' ') ++j;
  if (j < s.size() && s[j] != ':') return false;
  *out = static_cast<long long>(neg ? 0ull - v : v);
  return true;
}

bool static_tensor_type(const Attr* type, std::vector<int64_t>* dims, std::string* element) {
  if (!type || type->kind != Attr::Kind::Dialect || type->text != "tensor" || type->items.size() != 1)
    return false;
  const Attr& in = *type->items[0].second;
  if (in.kind != Attr::Kind::Scalar || !in.items.empty()) return false;
  const std::string& s = in.text;  // "3x4xi64", "i32", "2xindex"
  dims->clear();
  size_t q = 0;
  while (q < s.size() && std::isdigit(static_cast<unsigned char>(s[q]))) {
    size_t e = q;
    while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e]))) ++e;
    if (e >= s.size() || s[e] != 'x') return false;
    // A dimension beyond int64 is kept as INT64_MAX: element_count() then reports the overflow.
    int64_t v = 0;
    for (size_t k = q; k < e; ++k) v = v > (INT64_MAX - 9) / 10 ? INT64_MAX : v * 10 + (s[k] - '0');
    dims->push_back(v);
    q = e + 1;
  }
  *element = s.substr(q);
  return resource_element_bytes(*element) != 0;
}

uint32_t resource_element_bytes(const std::string& e) {
  if (e == "index" || e == "f64") return 8;
  if (e == "f32") return 4;
  if (e == "f16" || e == "bf16") return 2;
  const size_t digits = e.rfind("si", 0) == 0 || e.rfind("ui", 0) == 0 ? 2 : e.rfind('i', 0) == 0 ? 1 : 0;
  if (digits == 0 || e.size() == digits || e.size() > digits + 2 ||
      e.find_first_not_of("0123456789", digits) != std::string::npos)
    return 0;
  const int bits = std::stoi(e.substr(digits));
  if (bits < 1 || bits > 64) return 0;
  return uint32_t((bits + 7) / 8);
}

// ---------------------------------------------------------------------------------------------
// Parser

namespace {

/// Rejects integer literals that do not fit their type. The type is the one written after the
/// literal (`V : iN`, `siN`, `uiN`, `index`), else i64, MLIR's default for integer attributes
/// (mlir.llvm.org/docs/Dialects/Builtin, IntegerAttr). Ranges as MLIR checks them: signless iN
/// [-2^(N-1), 2^N - 1], siN [-2^(N-1), 2^(N-1) - 1], uiN [0, 2^N - 1]; and, since the frontend
/// reads every integer as int64, at most [-2^63, 2^63 - 1]. A preceding '-' is the sign.
/// Throws Error "file:line:col: integer literal V does not fit T (range LO .. HI)".
void check_int_literals(const std::vector<Token>& t, const std::string& file) {
  for (size_t i = 0; i < t.size(); ++i) {
    const Token& k = t[i];
    if (k.kind != TokKind::Number) continue;
    const std::string& s = k.text;
    const bool hex = s.size() > 2 && s[0] == '0' && s[1] == 'x';
    if (s.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789", hex ? 2 : 0) != std::string::npos)
      continue;  // float, dimension list (4x8xf64), ...
    std::string type = "i64";
    if (i + 2 < t.size() && t[i + 1].is(':') && t[i + 2].kind == TokKind::Ident) type = t[i + 2].text;
    const size_t digits = type.rfind("si", 0) == 0 || type.rfind("ui", 0) == 0 ? 2
                          : type.rfind("i", 0) == 0                            ? 1
                                                                               : 0;
    uint32_t bits = 64;
    if (type != "index") {
      if (digits == 0 || type.size() == digits || type.size() > digits + 5 ||
          type.find_first_not_of("0123456789", digits) != std::string::npos)
        continue;  // `0x7FC00000 : f32` (a float's bits) and other non-integer types
      bits = uint32_t(std::stoul(type.substr(digits)));
    }
    const bool neg = i > 0 && t[i - 1].is('-');
    const Token& at = neg ? t[i - 1] : k;
    // Magnitude, with overflow of 64 bits noted (then it fits no type the frontend reads).
    uint64_t mag = 0;
    bool overflow = false;
    const uint64_t base = hex ? 16 : 10;
    for (size_t q = hex ? 2 : 0; q < s.size() && !overflow; ++q) {
      const char c = s[q];
      const uint64_t d = c <= '9' ? uint64_t(c - '0') : uint64_t((c | 0x20) - 'a' + 10);
      if (mag > (UINT64_MAX - d) / base)
        overflow = true;
      else
        mag = mag * base + d;
    }
    // Largest magnitude allowed for negative and for non-negative values.
    const uint64_t int64_neg = uint64_t(1) << 63, int64_pos = int64_neg - 1;
    auto pow2 = [](uint32_t e) { return e >= 64 ? UINT64_MAX : (uint64_t(1) << e); };
    uint64_t max_neg = bits == 0 ? 0 : pow2(bits - 1),
             max_pos = bits == 0 ? 0 : pow2(bits) - (bits >= 64 ? 0 : 1);
    if (digits == 2 && type[0] == 's') max_pos = bits == 0 ? 0 : pow2(bits - 1) - (bits > 64 ? 0 : 1);
    if (digits == 2 && type[0] == 'u') max_neg = 0;
    max_neg = std::min(max_neg, int64_neg);
    max_pos = std::min(max_pos, int64_pos);
    if (!overflow && (neg ? mag <= max_neg : mag <= max_pos)) continue;
    const std::string lo = max_neg == 0           ? "0"
                           : max_neg == int64_neg ? "-9223372036854775808"
                                                  : "-" + std::to_string(max_neg);
    throw Error("integer literal " + std::string(neg ? "-" : "") + s + " does not fit " + type + " (range " +
                lo + " .. " + std::to_string(max_pos) + (bits > 64 ? ": integers are read as int64)" : ")"))
        .with_context(Loc{file, at.line, at.col}.str());
  }
}

char closer_of(char open) {
  switch (open) {
    case '(': return ')';
    case '[': return ']';
    case '{': return '}';
    default: return '>';
  }
}

bool is_opener(const Token& k) { return k.is('(') || k.is('[') || k.is('{') || k.is('<'); }
bool is_closer(const Token& k) { return k.is(')') || k.is(']') || k.is('}') || k.is('>'); }

class Parser {
 public:
  Parser(Module& m) : m_(m), t_(m.tokens) {}

  void parse_top() {
    while (cur().kind != TokKind::Eof) {
      const Token& c = cur();
      if ((c.kind == TokKind::Bang || c.kind == TokKind::Hash) && peek().is('=')) {
        parse_alias();
      } else if (c.kind == TokKind::Ident && c.text == "module") {
        parse_module();
      } else if (c.is("{-#")) {
        parse_file_metadata();
      } else if (c.kind == TokKind::Ident && c.text == "func.func") {
        if (!m_.has_module) m_.loc = loc(c);  // MLIR: top-level ops form an implicit module
        m_.has_module = true;
        m_.funcs.push_back(parse_func());
      } else {
        fail(c, "expected an alias definition, 'module' or 'func.func', got " + describe(c));
      }
    }
    check_dense_resources();
  }

 private:
  Module& m_;
  const std::vector<Token>& t_;
  size_t p_ = 0;
  int depth_ = 0;
  std::string alias_name_;               ///< alias whose value is being parsed
  size_t alias_value_pos_ = size_t(-1);  ///< token index where that value starts
  static constexpr int kMaxDepth = 200;  ///< bracket/region nesting limit (no stack overflow)

  const Token& cur() const { return t_[p_]; }
  const Token& peek(size_t k = 1) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  Loc loc(const Token& k) const { return Loc{m_.file, k.line, k.col}; }
  [[noreturn]] void fail(const Token& at, const std::string& msg) const {
    throw Error(msg).with_context(loc(at).str());
  }
  void expect(char c, const std::string& ctx) {
    if (!cur().is(c)) fail(cur(), std::string("expected '") + c + "'" + ctx + ", got " + describe(cur()));
    ++p_;
  }

  void parse_alias() {
    const Token& name = cur();
    if (m_.aliases.count(name.text)) fail(name, "redefinition of alias '" + name.text + "'");
    p_ += 2;
    alias_name_ = name.text;
    alias_value_pos_ = p_;
    AttrPtr v = parse_value();
    alias_value_pos_ = size_t(-1);
    auto copy = std::make_shared<Attr>(*v);
    copy->alias = name.text;
    m_.aliases[name.text] = copy;
    m_.alias_locs[name.text] = loc(name);
  }

  void parse_module() {
    const Token& start = cur();
    if (!m_.has_module) m_.loc = loc(start);
    m_.has_module = true;
    ++p_;
    if (cur().kind == TokKind::At) ++p_;
    if (cur().kind == TokKind::Ident && cur().text == "attributes") {
      ++p_;
      auto items = parse_items('{', true);
      m_.attrs.insert(m_.attrs.end(), items.begin(), items.end());
    }
    expect('{', " to open the module body");
    while (!cur().is('}')) {
      const Token& c = cur();
      if (c.kind == TokKind::Eof)
        fail(c, "expected '}' closing the module opened at " + std::to_string(start.line) + ":" +
                    std::to_string(start.col) + ", got end of file");
      if (c.kind == TokKind::Ident && c.text == "func.func") {
        m_.funcs.push_back(parse_func());
      } else if ((c.kind == TokKind::Bang || c.kind == TokKind::Hash) && peek().is('=')) {
        parse_alias();
      } else {
        fail(c, "expected 'func.func' in the module body, got " + describe(c));
      }
    }
    ++p_;
    skip_loc();
  }

  Func parse_func() {
    Func f;
    f.loc = loc(cur());
    ++p_;
    if (cur().kind == TokKind::Ident &&
        (cur().text == "private" || cur().text == "public" || cur().text == "nested"))
      ++p_;
    if (cur().kind != TokKind::At) fail(cur(), "expected a function name '@name', got " + describe(cur()));
    f.name = cur().text.substr(1);
    if (!f.name.empty() && f.name.front() == '"') f.name = f.name.substr(1, f.name.size() - 2);
    ++p_;
    expect('(', " to open the argument list of @" + f.name);
    while (!cur().is(')')) {
      FuncArg a;
      if (cur().kind == TokKind::Percent) {
        a.name = cur().text;
        ++p_;
        expect(':', " after argument " + a.name);
      }
      a.type = parse_atom();
      if (cur().is('{')) a.attrs = parse_items('{', true);
      skip_loc();
      f.args.push_back(std::move(a));
      if (cur().is(',')) {
        ++p_;
        continue;
      }
      if (!cur().is(')'))
        fail(cur(), "expected ',' or ')' in the argument list of @" + f.name + ", got " + describe(cur()));
    }
    ++p_;
    if (cur().kind == TokKind::Arrow) {
      ++p_;
      if (cur().is('(')) {
        ++p_;
        while (!cur().is(')')) {
          f.result_types.push_back(parse_atom());
          if (cur().is('{')) parse_items('{', true);
          skip_loc();
          if (cur().is(',')) {
            ++p_;
            continue;
          }
          if (!cur().is(')'))
            fail(cur(), "expected ',' or ')' in the result list of @" + f.name + ", got " + describe(cur()));
        }
        ++p_;
      } else {
        f.result_types.push_back(parse_atom());
      }
    }
    if (cur().kind == TokKind::Ident && cur().text == "attributes") {
      ++p_;
      f.attrs = parse_items('{', true);
    }
    skip_loc();
    if (cur().is('{')) {
      f.has_body = true;
      f.body = parse_region("func.func @" + f.name);
      skip_loc();
    }
    return f;
  }

  // Debug locations `loc(...)` (may name location aliases defined at the end of the file).
  void skip_loc() {
    if (!(cur().kind == TokKind::Ident && cur().text == "loc" && peek().is('('))) return;
    ++p_;
    const Token& open = cur();
    int depth = 0;
    do {
      if (cur().kind == TokKind::Eof)
        fail(cur(), "expected ')' to close 'loc(' at " + std::to_string(open.line) + ":" +
                        std::to_string(open.col) + ", got end of file");
      if (cur().is('(')) ++depth;
      if (cur().is(')')) --depth;
      ++p_;
    } while (depth > 0);
  }

  // One value: a sequence of atoms up to ',', a closing bracket, or the end of the line.
  AttrPtr parse_value() {
    std::vector<AttrPtr> atoms;
    const Token& first = cur();
    while (true) {
      const Token& c = cur();
      if (c.kind == TokKind::Eof || c.is(',') || is_closer(c)) break;
      if (!atoms.empty() && c.first_on_line) break;
      atoms.push_back(parse_atom());
    }
    if (atoms.empty()) fail(first, "expected a value, got " + describe(first));
    if (atoms.size() == 1) return atoms[0];
    auto a = std::make_shared<Attr>();
    a->kind = Attr::Kind::Scalar;
    for (auto& x : atoms) {
      if (!a->text.empty()) a->text += ' ';
      a->text += x->alias.empty() ? x->str() : x->alias;  // aliases by name: no expansion
      a->items.emplace_back("", x);
    }
    return a;
  }

  struct DepthGuard {
    Parser& p;
    DepthGuard(Parser& parser, const Token& at) : p(parser) {
      if (++p.depth_ > kMaxDepth) p.fail(at, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    ~DepthGuard() { --p.depth_; }
  };

  AttrPtr parse_atom() {
    const Token& c = cur();
    DepthGuard guard(*this, c);
    auto a = std::make_shared<Attr>();
    switch (c.kind) {
      case TokKind::Bang:
      case TokKind::Hash: {
        auto it = m_.aliases.find(c.text);
        if (it != m_.aliases.end()) {
          ++p_;
          return it->second;
        }
        if (c.text.find('.') == std::string::npos) {
          if (c.text.rfind("#loc", 0) == 0) {  // forward reference to a location alias
            ++p_;
            a->text = c.text;
            return a;
          }
          fail(c, "undefined alias '" + c.text + "'");
        }
        const bool alias_value = p_ == alias_value_pos_;
        ++p_;
        a->kind = Attr::Kind::Dialect;
        a->text = c.text;
        if (cur().is('<') && !cur().space_before) a->items = parse_items('<', false);
        if (c.text == "#polynomial.ring")
          m_.rings.push_back({loc(c), alias_value ? alias_name_ : std::string(), a});
        return a;
      }
      case TokKind::Ident:
        ++p_;
        a->text = c.text;
        if (cur().is('<') && !cur().space_before) {
          a->kind = Attr::Kind::Dialect;
          a->items = parse_items('<', false);
        }
        return a;
      case TokKind::Punct:
        if (c.is('<') || c.is('(')) {
          a->kind = Attr::Kind::Group;
          a->text = c.text;
          a->items = parse_items(c.text[0], false);
          return a;
        }
        if (c.is('[')) {
          a->kind = Attr::Kind::List;
          a->items = parse_items('[', false);
          return a;
        }
        if (c.is('{')) {
          a->kind = Attr::Kind::Dict;
          a->items = parse_items('{', true);
          return a;
        }
        if (is_closer(c)) fail(c, "expected a value, got " + describe(c));
        ++p_;
        a->text = c.text;
        return a;
      case TokKind::Eof: fail(c, "expected a value, got end of file");
      case TokKind::String:
        ++p_;
        a->text = "\"" + c.text + "\"";
        return a;
      default:
        ++p_;
        a->text = c.text;
        return a;
    }
  }

  // Bracketed list of items `key = value` or `value`; in dicts a bare key is a unit attribute.
  std::vector<std::pair<std::string, AttrPtr>> parse_items(char open, bool dict) {
    const Token& o = cur();
    char close = closer_of(open);
    expect(open, "");
    std::vector<std::pair<std::string, AttrPtr>> items;
    if (cur().is(close)) {
      ++p_;
      return items;
    }
    while (true) {
      const Token& c = cur();
      std::string key;
      AttrPtr v;
      bool keyish = c.kind == TokKind::Ident || c.kind == TokKind::String;
      if (keyish && peek().is('=')) {
        key = c.text;
        p_ += 2;
        v = parse_value();
      } else if (dict && keyish && (peek().is(',') || peek().is(close))) {
        key = c.text;
        ++p_;
        auto u = std::make_shared<Attr>();
        u->text = "unit";
        v = u;
      } else {
        v = parse_value();
      }
      items.emplace_back(std::move(key), std::move(v));
      if (cur().is(',')) {
        ++p_;
        continue;
      }
      if (cur().is(close)) {
        ++p_;
        break;
      }
      std::string opened = " to close '" + std::string(1, open) + "' at " + std::to_string(o.line) + ":" +
                           std::to_string(o.col);
      fail(cur(), std::string("expected ',' or '") + close + "'" + opened + ", got " + describe(cur()));
    }
    return items;
  }

  // A `{` inside an op opens its attribute dictionary or a region. `{}` is a dictionary only
  // when the type signature follows (`"x.op"() {} : () -> ()`); otherwise it is a region whose
  // one block is empty and whose terminator is implicit (`scf.for ... {}`; LangRef "Regions").
  bool is_attr_dict(size_t q) const {
    const Token& n = t_[q + 1];
    if (n.is('}')) return t_[std::min(q + 2, t_.size() - 1)].is(':');
    if (n.kind != TokKind::Ident && n.kind != TokKind::String) return false;
    const Token& n2 = t_[std::min(q + 2, t_.size() - 1)];
    if (n2.is('=')) return true;
    if (n.text == "return" || n.text == "func.return" || n.text == "scf.yield") return false;
    return n2.is(',') || n2.is('}');
  }

  Region parse_region(const std::string& owner) {
    const Token& open = cur();
    DepthGuard guard(*this, open);
    expect('{', " to open the region of " + owner);
    Region r;
    while (true) {
      const Token& c = cur();
      if (c.is('}')) {
        ++p_;
        return r;
      }
      if (c.kind == TokKind::Eof)
        fail(c, "expected '}' closing the region of " + owner + " opened at " + std::to_string(open.line) +
                    ":" + std::to_string(open.col) + ", got end of file");
      if (c.kind == TokKind::Caret) {  // block label ^bb0(%a: T):
        ++p_;
        if (cur().is('(')) parse_items('(', false);
        expect(':', " after the block label " + c.text);
        continue;
      }
      r.push_back(parse_op());
    }
  }

  // ------------------------------------------------------------------------- file metadata
  // `{-# dialect_resources: {dialect: {key: "0x..."}}, external_resources: {...} #-}` (MLIR
  // LangRef "Dialect resources"; mlir/lib/AsmParser/Parser.cpp parseFileMetadataDictionary).

  std::string metadata_key(const std::string& what) {
    const Token& k = cur();
    if (k.kind != TokKind::Ident && k.kind != TokKind::String)
      fail(k, "expected " + what + " in the file metadata, got " + describe(k));
    ++p_;
    expect(':', " after " + what + " '" + k.text + "'");
    return k.text;
  }

  /// `{ item, item, ... }` with item(k) parsing one entry; `what` names the braces for errors.
  template <class F>
  void metadata_dict(const std::string& what, F&& item) {
    const Token& open = cur();
    DepthGuard guard(*this, open);
    expect('{', " to open " + what);
    while (!cur().is('}')) {
      item();
      if (cur().is(',')) {
        ++p_;
        continue;
      }
      if (!cur().is('}'))
        fail(cur(), "expected ',' or '}' to close " + what + " opened at " + std::to_string(open.line) + ":" +
                        std::to_string(open.col) + ", got " + describe(cur()));
    }
    ++p_;
  }

  void parse_file_metadata() {
    const Token& open = cur();
    ++p_;
    while (!cur().is("#-}")) {
      const Token& k = cur();
      if (k.kind == TokKind::Eof)
        fail(k, "expected '#-}' closing the file metadata opened at " + std::to_string(open.line) + ":" +
                    std::to_string(open.col) + ", got end of file");
      const std::string key = metadata_key("a metadata key");
      if (key == "dialect_resources") {
        metadata_dict("dialect_resources", [&] {
          const std::string dialect = metadata_key("a dialect name");
          metadata_dict("the resources of dialect '" + dialect + "'", [&] { parse_resource(dialect); });
        });
      } else if (key == "external_resources") {
        metadata_dict("external_resources", [&] {
          const std::string owner = metadata_key("a resource owner");
          metadata_dict("the resources of '" + owner + "'", [&] {
            metadata_key("a resource key");
            parse_value();
          });
        });
      } else {
        fail(k, "unknown key '" + key +
                    "' in the file metadata (expected dialect_resources or external_resources)");
      }
      if (cur().is(','))
        ++p_;
      else if (!cur().is("#-}"))
        fail(cur(), "expected ',' or '#-}' in the file metadata, got " + describe(cur()));
    }
    ++p_;
  }

  // key: "0xAAAAAAAADDDD..." : a hex blob, its first 4 bytes the alignment (MLIR
  // ParsedResourceEntry::parseAsBlob). Other values (strings, booleans) are skipped.
  void parse_resource(const std::string& dialect) {
    const Token& k = cur();
    const std::string key = metadata_key("a resource key");
    const Token& v = cur();
    if (v.kind != TokKind::String || v.text.rfind("0x", 0) != 0) {
      if (dialect == "builtin")
        fail(v, "resource '" + key + "': expected a hex string blob \"0x...\", got " + describe(v));
      parse_value();
      return;
    }
    ++p_;
    const std::string& h = v.text;
    Resource r;
    r.loc = loc(k);
    if ((h.size() - 2) % 2 != 0) fail(v, "resource '" + key + "': odd number of hex digits in the blob");
    std::vector<uint8_t> bytes;
    bytes.reserve((h.size() - 2) / 2);
    for (size_t q = 2; q < h.size(); q += 2) {
      auto nib = [&](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        fail(v, "resource '" + key + "': '" + printable(std::string(1, c)) + "' is not a hex digit");
      };
      bytes.push_back(static_cast<uint8_t>(nib(h[q]) * 16 + nib(h[q + 1])));
    }
    if (bytes.size() < 4)
      fail(v, "resource '" + key + "': the blob needs its 4-byte alignment first, has " +
                  std::to_string(bytes.size()) + " bytes");
    r.alignment =
        uint32_t(bytes[0]) | uint32_t(bytes[1]) << 8 | uint32_t(bytes[2]) << 16 | uint32_t(bytes[3]) << 24;
    if (r.alignment & (r.alignment - 1))
      fail(v, "resource '" + key + "': alignment " + std::to_string(r.alignment) + " is not a power of two");
    r.data.assign(bytes.begin() + 4, bytes.end());
    if (!m_.resources[dialect].emplace(key, std::move(r)).second)
      fail(k, "resource '" + key + "' of dialect '" + dialect + "' is defined twice");
  }

  // Every dense_resource<key> [: type]: recorded, and its blob's size checked against the type.
  void check_dense_resources() {
    for (size_t q = 0; q + 3 < t_.size(); ++q) {
      const Token& d = t_[q];
      if (d.kind != TokKind::Ident || d.text != "dense_resource" || !t_[q + 1].is('<')) continue;
      const Token& key = t_[q + 2];
      if ((key.kind != TokKind::Ident && key.kind != TokKind::String) || !t_[q + 3].is('>'))
        fail(key, "expected dense_resource<key>, got " + describe(key));
      DenseResourceUse use{loc(d), q, key.text, nullptr};
      if (q + 5 < t_.size() && t_[q + 4].is(':')) {
        p_ = q + 5;
        use.type = parse_atom();
      }
      const auto b = m_.resources.find("builtin");
      const Resource* r = nullptr;
      if (b != m_.resources.end()) {
        auto it = b->second.find(key.text);
        if (it != b->second.end()) r = &it->second;
      }
      std::vector<int64_t> dims;
      std::string element;
      if (r && use.type && static_tensor_type(use.type.get(), &dims, &element)) {
        const uint32_t eb = resource_element_bytes(element);
        const uint64_t need =
            with_error_context(loc(d).str() + ": dense_resource<" + key.text + "> : " + use.type->str(),
                               [&] { return (element_count(dims) * Size::of(eb)).value(); });
        if (need != r->data.size())
          fail(d, "dense_resource<" + key.text + ">: " + use.type->str() + " needs " + std::to_string(need) +
                      " bytes, resource '" + key.text + "' at " + r->loc.str() + " holds " +
                      std::to_string(r->data.size()));
      }
      m_.dense_resources.push_back(std::move(use));
    }
  }

  Operation parse_op() {
    Operation op;
    if (cur().kind == TokKind::Percent) {
      while (true) {
        std::string name = cur().text;
        ++p_;
        if (cur().is(':') && peek().kind == TokKind::Number) {
          long n = std::strtol(peek().text.c_str(), nullptr, 10);
          for (long i = 0; i < n; ++i) op.results.push_back(name + "#" + std::to_string(i));
          p_ += 2;
        } else {
          op.results.push_back(name);
        }
        if (cur().is(',') && peek().kind == TokKind::Percent) {
          ++p_;
          continue;
        }
        break;
      }
      expect('=', " after the result list");
    }
    const Token& nt = cur();
    if (nt.kind == TokKind::Ident)
      op.name = nt.text == "return" ? "func.return" : nt.text;
    else if (nt.kind == TokKind::String)
      op.name = nt.text;
    else
      fail(nt, "expected an operation name, got " + describe(nt));
    op.loc = loc(nt);
    ++p_;
    op.tok_begin = p_;

    std::vector<size_t> stack, colons, dicts, regions;
    while (true) {
      const Token& k = cur();
      if (stack.size() > static_cast<size_t>(kMaxDepth))
        fail(k, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
      if (k.kind == TokKind::Eof) {
        if (!stack.empty()) {
          const Token& o = t_[stack.back()];
          fail(k, std::string("expected '") + closer_of(o.text[0]) + "' to close '" + o.text + "' at " +
                      std::to_string(o.line) + ":" + std::to_string(o.col) + ", got end of file");
        }
        break;
      }
      if (stack.empty()) {
        const Token& prev = t_[p_ - 1];
        bool cont = prev.is(',') || prev.is('=') || prev.is(':') || prev.kind == TokKind::Arrow;
        bool starts = k.kind == TokKind::Percent || k.kind == TokKind::Ident || k.kind == TokKind::String ||
                      k.kind == TokKind::Caret;
        if (k.first_on_line && p_ > op.tok_begin && starts && !cont) break;
        if (k.is('}')) break;
        if (k.is('{') && !is_attr_dict(p_)) {
          regions.push_back(p_);
          op.regions.push_back(parse_region("'" + op.name + "' at " + op.loc.str()));
          continue;
        }
        if (k.is('{')) dicts.push_back(p_);
        if (k.is(':')) colons.push_back(p_);
        if (k.kind == TokKind::At && op.symbol.empty()) op.symbol = k.text.substr(1);
      }
      if (is_opener(k)) {
        stack.push_back(p_);
      } else if (is_closer(k)) {
        if (stack.empty()) fail(k, "unbalanced '" + k.text + "' in '" + op.name + "'");
        const Token& o = t_[stack.back()];
        if (closer_of(o.text[0]) != k.text[0])
          fail(k, std::string("expected '") + closer_of(o.text[0]) + "' to close '" + o.text + "' at " +
                      std::to_string(o.line) + ":" + std::to_string(o.col) + ", got " + describe(k));
        stack.pop_back();
      }
      ++p_;
    }
    op.tok_end = p_;
    size_t resume = p_;

    for (size_t d : dicts) {
      p_ = d;
      auto items = parse_items('{', true);
      op.attrs.insert(op.attrs.end(), items.begin(), items.end());
    }
    size_t first_colon = colons.empty() ? op.tok_end : colons.front();
    size_t operands_end = std::min(first_colon, regions.empty() ? op.tok_end : regions.front());
    int brace = 0;
    for (size_t q = op.tok_begin; q < operands_end; ++q) {
      const Token& k = t_[q];
      if (k.is('{') || k.is('<'))
        ++brace;
      else if (k.is('}') || k.is('>'))
        --brace;
      else if (brace == 0 && k.kind == TokKind::Percent && !t_[q + 1].is('=')) {
        const Token& n = t_[q + 1];  // `%0#1`: result 1 of a multi-result op (`%0:2 = ...`)
        bool index = n.kind == TokKind::Hash && !n.space_before && n.text.size() > 1 &&
                     n.text.find_first_not_of("0123456789", 1) == std::string::npos;
        op.operands.push_back(index ? k.text + n.text : k.text);
        if (index) ++q;
      }
    }
    if (!colons.empty()) {
      size_t end = op.tok_end;
      for (size_t r : regions)
        if (r > colons.back()) {
          end = r;
          break;
        }
      p_ = colons.back() + 1;
      parse_signature(op, end);
    }
    p_ = resume;
    return op;
  }

  void parse_type_list(std::vector<AttrPtr>& out, size_t end) {
    if (cur().is('(')) {
      ++p_;
      while (p_ < end && !cur().is(')')) {
        out.push_back(parse_atom());
        if (cur().is(','))
          ++p_;
        else if (!cur().is(')'))
          fail(cur(), "expected ',' or ')' in a type list, got " + describe(cur()));
      }
      expect(')', " closing a type list");
    } else {
      out.push_back(parse_atom());
    }
  }

  void parse_signature(Operation& op, size_t end) {
    if (p_ >= end) fail(cur(), "expected a type after ':', got " + describe(cur()));
    parse_type_list(op.operand_types, end);
    if (p_ < end && (cur().kind == TokKind::Arrow || (cur().kind == TokKind::Ident && cur().text == "to"))) {
      ++p_;
      parse_type_list(op.result_types, end);
    } else {
      op.single_type = true;
      op.result_types = op.operand_types;
    }
  }
};

}  // namespace

Module parse_mlir(const std::string& text, const std::string& file) {
  Module m;
  m.file = file;
  m.tokens = lex(text, file);
  check_int_literals(m.tokens, file);
  Parser(m).parse_top();
  return m;
}

Module parse_mlir_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open HEIR MLIR file").with_context(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_mlir(ss.str(), path);
}

}  // namespace photon::heir::mlir
