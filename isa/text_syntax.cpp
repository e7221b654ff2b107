// .pasm string quoting and float spelling (see text_syntax.h).
#include "isa/text_syntax.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace photon::pcs::detail {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (ch < 0x20 || ch > 0x7e)
          out += fmt::format("\\x{:02x}", ch);
        else
          out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

bool is_bare_word(const std::string& s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !(c >= '0' && c <= '9') && c != '.') return false;
  return true;
}

std::optional<uint32_t> parse_f32(const std::string& s) {
  if (s.rfind("bits:", 0) == 0) {
    const std::string h = s.substr(5);
    if (h.size() < 3 || h[0] != '0' || (h[1] != 'x' && h[1] != 'X')) return std::nullopt;
    uint64_t v = 0;
    auto r = std::from_chars(h.data() + 2, h.data() + h.size(), v, 16);
    if (r.ec != std::errc() || r.ptr != h.data() + h.size() || v > 0xFFFFFFFFu) return std::nullopt;
    return static_cast<uint32_t>(v);
  }
  if (s.empty()) return std::nullopt;
  float f = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), f, std::chars_format::general);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

std::string format_f32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  if (!std::isnan(f)) {
    std::string s = fmt::format("{}", f);
    const auto back = parse_f32(s);
    if (back && *back == bits) return s;
  }
  return fmt::format("bits:0x{:08x}", bits);
}

}  // namespace photon::pcs::detail
