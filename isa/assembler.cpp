// .pasm text assembler (syntax: assembler.h, docs/command-stream.md).
#include "isa/assembler.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "base/error.h"
#include "base/file_read.h"
#include "isa/fields.h"
#include "isa/text_syntax.h"

namespace photon::pcs {
using namespace detail;

namespace {

struct Token {
  std::string text;
  int col = 1;  ///< 1-based column of the token's first character
  bool quoted = false;
};

class Assembler {
 public:
  explicit Assembler(const std::string& name) : name_(name) {
    const auto slash = name.rfind('/');
    if (slash != std::string::npos) base_dir_ = name.substr(0, slash + 1);
  }

  Program run(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      ++line_no_;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const auto toks = tokenize(line);
      if (!toks.empty()) statement(toks);
    }
    return std::move(prog_);
  }

 private:
  [[noreturn]] void fail(int col, const std::string& msg) const {
    Error e(msg);
    e.with_context(fmt::format("{}:{}:{}", name_, line_no_, col));
    throw e;
  }

  std::vector<Token> tokenize(const std::string& line) const {
    std::vector<Token> out;
    size_t i = 0;
    while (i < line.size()) {
      const char c = line[i];
      if (c == ' ' || c == '\t') {
        ++i;
        continue;
      }
      if (c == '#' || c == ';') break;
      Token t;
      t.col = static_cast<int>(i) + 1;
      if (c == '"') {
        t.quoted = true;
        ++i;
        for (;;) {
          if (i >= line.size()) fail(t.col, "unterminated string");
          const char d = line[i++];
          if (d == '"') break;
          if (d != '\\') {
            t.text += d;
            continue;
          }
          if (i >= line.size()) fail(t.col, "unterminated string");
          const char e = line[i++];
          switch (e) {
            case '"': t.text += '"'; break;
            case '\\': t.text += '\\'; break;
            case 'n': t.text += '\n'; break;
            case 'r': t.text += '\r'; break;
            case 't': t.text += '\t'; break;
            case 'x': {
              unsigned v = 0;
              if (i + 2 > line.size() ||
                  std::from_chars(line.data() + i, line.data() + i + 2, v, 16).ptr != line.data() + i + 2)
                fail(static_cast<int>(i) - 1, "bad \\x escape (needs two hex digits)");
              t.text += static_cast<char>(v);
              i += 2;
              break;
            }
            default: fail(static_cast<int>(i) - 1, fmt::format("bad escape '\\{}'", e));
          }
        }
      } else {
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '#' && line[i] != ';') {
          if (line[i] == '"') fail(static_cast<int>(i) + 1, "unexpected '\"' inside a word");
          t.text += line[i++];
        }
      }
      out.push_back(std::move(t));
    }
    return out;
  }

  /// Unsigned integer: decimal or 0x hex, at most `max`.
  uint64_t number(const std::string& s, int col, uint64_t max, const std::string& what) const {
    uint64_t v = 0;
    const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char* b = s.data() + (hex ? 2 : 0);
    const char* e = s.data() + s.size();
    const auto r = std::from_chars(b, e, v, hex ? 16 : 10);
    if (s.empty() || r.ptr != e || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range))
      fail(col, fmt::format("bad number '{}' for {}", s, what));
    if (r.ec == std::errc::result_out_of_range || v > max)
      fail(col, fmt::format("value {} out of range for {}: max {}", s, what, max));
    return v;
  }

  static uint64_t max_of(int bytes) { return bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1; }

  template <class T>
  bool set_field(const std::vector<Field<T>>& fields, T& body, const std::string& key,
                 const std::string& value, int col) const {
    for (const auto& f : fields) {
      if (key != f.name) continue;
      const std::string what = fmt::format("field '{}' ({}-bit)", key, 8 * f.bytes);
      if (f.format == FieldFormat::F32) {
        const auto bits = parse_f32(value);
        if (!bits)
          fail(col, fmt::format("bad number '{}' for field '{}' (a float, inf, nan or "
                                "bits:0xHHHHHHHH)",
                                value, key));
        f.set(body, *bits);
      } else {
        f.set(body, number(value, col, max_of(f.bytes), what));
      }
      return true;
    }
    return false;
  }

  void directive_op(const std::vector<Token>& t) {
    if (t.size() < 4) fail(t[0].col, ".op needs INDEX NAME KIND [DETAIL [FIGURE=BYTES]...]");
    const uint64_t idx = number(t[1].text, t[1].col, 0xFFFFFFFEu, "op index");
    if (idx != prog_.ops.size())
      fail(t[1].col, fmt::format("op index {} out of order, expected {}", idx, prog_.ops.size()));
    OpInfo op{t[2].text, t[3].text, t.size() > 4 ? t[4].text : std::string(), {}};
    // The op's memory figures (version 2), in their order: bare `name=value` after the detail.
    for (size_t i = 5; i < t.size(); ++i) {
      const auto eq = t[i].text.find('=');
      if (t[i].quoted || eq == std::string::npos || eq == 0)
        fail(t[i].col, "too many operands for .op (memory figures are written name=bytes)");
      const std::string name = t[i].text.substr(0, eq);
      for (const auto& [n, v] : op.memory)
        if (n == name) fail(t[i].col, fmt::format("figure '{}' given twice", name));
      op.memory.push_back({name, number(t[i].text.substr(eq + 1), t[i].col + int(eq) + 1, ~uint64_t(0), name)});
    }
    prog_.ops.push_back(std::move(op));
  }

  void append_list(const std::string& list, int col, bool is_f32, std::vector<uint8_t>& out) {
    size_t pos = 0;
    while (pos <= list.size()) {
      size_t comma = list.find(',', pos);
      if (comma == std::string::npos) comma = list.size();
      const std::string item = list.substr(pos, comma - pos);
      const int item_col = col + static_cast<int>(pos);
      uint64_t v;
      int bytes;
      if (is_f32) {
        const auto bits = parse_f32(item);
        if (!bits) fail(item_col, fmt::format("bad number '{}' in f32 list", item));
        v = *bits;
        bytes = 4;
      } else {
        v = number(item, item_col, ~uint64_t{0}, "u64 list entry");
        bytes = 8;
      }
      for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
      pos = comma + 1;
    }
  }

  void directive_segment(const std::vector<Token>& t) {
    if (t.size() != 3) fail(t[0].col, ".segment needs ADDRESS DATA (hex:, file:, f32: or u64:)");
    Segment s;
    s.address = number(t[1].text, t[1].col, ~uint64_t{0}, "segment address");
    const std::string& d = t[2].text;
    const int col = t[2].col;
    if (d.rfind("hex:", 0) == 0) {
      const std::string h = d.substr(4);
      if (h.size() % 2) fail(col, "odd number of hex digits in segment");
      for (size_t i = 0; i < h.size(); i += 2) {
        unsigned v = 0;
        if (std::from_chars(h.data() + i, h.data() + i + 2, v, 16).ptr != h.data() + i + 2)
          fail(col + 4 + static_cast<int>(i), fmt::format("bad hex digit in '{}'", h.substr(i, 2)));
        s.bytes.push_back(static_cast<uint8_t>(v));
      }
    } else if (d.rfind("file:", 0) == 0) {
      std::string path = d.substr(5);
      if (path.empty()) fail(col, "segment file: needs a path");
      if (path[0] != '/') path = base_dir_ + path;
      try {
        s.bytes = read_file_bytes(path, "segment data (a regular file)");
      } catch (const Error& e) {
        fail(col, fmt::format("cannot read segment file '{}': {}", path, e.message()));
      }
    } else if (d.rfind("f32:", 0) == 0) {
      append_list(d.substr(4), col + 4, true, s.bytes);
    } else if (d.rfind("u64:", 0) == 0) {
      append_list(d.substr(4), col + 4, false, s.bytes);
    } else {
      fail(col, fmt::format("bad segment data '{}' (expected hex:, file:, f32: or u64:)", d));
    }
    prog_.segments.push_back(std::move(s));
  }

  void statement(const std::vector<Token>& t) {
    const std::string& m = t[0].text;
    if (t[0].quoted) fail(t[0].col, "expected a mnemonic, found a string");
    if (m == ".op") return directive_op(t);
    if (m == ".segment") return directive_segment(t);
    if (!m.empty() && m[0] == '.') fail(t[0].col, fmt::format("unknown directive '{}'", m));

    Command c;
    if (m == "end")
      c = make_end();
    else if (m == "fence")
      c = make_fence();
    else if (m == "signal")
      c = make_signal(Queue::Dma, 0);
    else if (m == "wait")
      c = make_wait(Queue::Dma, 0);
    else if (m == "dma")
      c = make_dma(DmaCopy{});
    else if (m == "gemm")
      c = make_gemm(Gemm{});
    else if (m == "ntt")
      c = make_ntt(Ntt{});
    else if (m == "vec")
      c = make_vector(Vector{});
    else
      fail(t[0].col, fmt::format("unknown mnemonic '{}'", m));

    std::set<std::string> seen;
    for (size_t i = 1; i < t.size(); ++i) {
      const Token& tok = t[i];
      const auto eq = tok.text.find('=');
      if (tok.quoted || eq == std::string::npos || eq == 0)
        fail(tok.col, fmt::format("expected field=value, found '{}'", tok.text));
      std::string key = tok.text.substr(0, eq);
      const std::string value = tok.text.substr(eq + 1);
      const int vcol = tok.col + static_cast<int>(eq) + 1;
      if (m == "dma" && key == "bytes") key = "inner_bytes";
      if (!seen.insert(key).second) fail(tok.col, fmt::format("field '{}' given twice", key));
      if (key == "tag") {
        c.tag = value == "none"
                    ? kNoTag
                    : static_cast<uint32_t>(number(value, vcol, 0xFFFFFFFFu, "field 'tag' (32-bit)"));
        continue;
      }
      if (!set_body_field(c, key, value, vcol))
        fail(tok.col, fmt::format("unknown field '{}' for {}", key, m));
    }
    prog_.commands.push_back(std::move(c));
  }

  bool set_body_field(Command& c, const std::string& key, const std::string& value, int col) {
    if (auto* s = std::get_if<Sync>(&c.body)) {
      if (key == "queue") {
        if (!queue_from_name(value, s->queue))
          fail(col, fmt::format("unknown queue '{}' (dma, gemm, ntt, vec)", value));
        return true;
      }
      return set_field(sync_fields(), *s, key, value, col);
    }
    if (auto* d = std::get_if<DmaCopy>(&c.body)) return set_field(dma_fields(), *d, key, value, col);
    if (auto* g = std::get_if<Gemm>(&c.body)) {
      if (key == "flags") {
        g->flags = parse_flags(value, col);
        return true;
      }
      return set_field(gemm_fields(), *g, key, value, col);
    }
    if (auto* n = std::get_if<Ntt>(&c.body)) {
      if (key == "op") {
        if (!ntt_op_from_name(value, n->op)) fail(col, fmt::format("unknown ntt op '{}'", value));
        return true;
      }
      return set_field(ntt_fields(), *n, key, value, col);
    }
    if (auto* v = std::get_if<Vector>(&c.body)) {
      if (key == "op") {
        if (!vector_op_from_name(value, v->op)) fail(col, fmt::format("unknown vec op '{}'", value));
        return true;
      }
      return set_field(vector_fields(), *v, key, value, col);
    }
    return false;  // End, Fence: no fields besides tag
  }

  uint8_t parse_flags(const std::string& value, int col) const {
    if (value == "none" || value == "0") return 0;
    uint8_t flags = 0;
    size_t pos = 0;
    while (pos <= value.size()) {
      size_t bar = value.find('|', pos);
      if (bar == std::string::npos) bar = value.size();
      const std::string name = value.substr(pos, bar - pos);
      bool found = false;
      for (const auto& f : gemm_flag_names())
        if (name == f.name) {
          flags |= f.bit;
          found = true;
        }
      if (!found) fail(col + static_cast<int>(pos), fmt::format("unknown gemm flag '{}'", name));
      pos = bar + 1;
    }
    return flags;
  }

  std::string name_;
  std::string base_dir_;
  int line_no_ = 0;
  Program prog_;
};

}  // namespace

Program assemble(const std::string& text, const std::string& name) { return Assembler(name).run(text); }

Program assemble_file(const std::string& path) {
  return assemble(read_file(path, "command-stream assembly text (.pasm)"), path);
}

}  // namespace photon::pcs
