#include "base/text.h"

#include <cstdint>

namespace photon {
namespace {

/// Length of the well-formed UTF-8 sequence starting at s[i] (RFC 3629 table 3-7), 0 if none.
size_t utf8_length(std::string_view s, size_t i) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = at(i);
  if (c < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlong forms
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // no overlong forms
    if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (at(i + k) < 0x80 || at(i + k) > 0xBF) return 0;
  return n;
}

/// True for a well-formed sequence of `n` bytes at s[i] that must still be escaped: C1 controls
/// (C2 80..C2 9F) and the line/paragraph separators U+2028, U+2029 (E2 80 A8, E2 80 A9).
bool is_unprintable_sequence(std::string_view s, size_t i, size_t n) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  if (n == 2) return at(0) == 0xC2 && at(1) <= 0x9F;
  if (n == 3) return at(0) == 0xE2 && at(1) == 0x80 && (at(2) == 0xA8 || at(2) == 0xA9);
  return false;
}

void hex_escape(std::string& out, unsigned char c) {
  static const char* hex = "0123456789abcdef";
  out += "\\x";
  out += hex[c >> 4];
  out += hex[c & 15];
}

bool needs_escape(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      ++i;
      continue;
    }
    const size_t n = utf8_length(s, i);
    if (n <= 1 || is_unprintable_sequence(s, i, n)) return true;
    i += n;
  }
  return false;
}

bool json_needs_escape(const nlohmann::json& j) {
  if (j.is_string()) return !is_valid_utf8(j.get_ref<const std::string&>());
  if (j.is_object()) {
    for (const auto& [k, v] : j.items())
      if (!is_valid_utf8(k) || json_needs_escape(v)) return true;
    return false;
  }
  if (j.is_array())
    for (const auto& v : j)
      if (json_needs_escape(v)) return true;
  return false;
}

nlohmann::json json_escaped(const nlohmann::json& j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    return is_valid_utf8(s) ? j : nlohmann::json(printable(s));
  }
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, v] : j.items()) out[is_valid_utf8(k) ? k : printable(k)] = json_escaped(v);
    return out;
  }
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : j) out.push_back(json_escaped(v));
    return out;
  }
  return j;
}

}  // namespace

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string printable(std::string_view s) {
  if (!needs_escape(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
      ++i;
      continue;
    }
    if (c == '\n' || c == '\r' || c == '\t') {
      out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
      ++i;
      continue;
    }
    const size_t n = c < 0x80 ? 0 : utf8_length(s, i);
    if (n > 1 && !is_unprintable_sequence(s, i, n)) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    const size_t k = n > 1 ? n : 1;  // a whole unprintable sequence, or one stray byte
    for (size_t q = 0; q < k; ++q) hex_escape(out, static_cast<unsigned char>(s[i + q]));
    i += k;
  }
  return out;
}

std::string dump_json(const nlohmann::json& j, int indent) {
  if (!json_needs_escape(j)) return j.dump(indent);
  return json_escaped(j).dump(indent);
}

}  // namespace photon
