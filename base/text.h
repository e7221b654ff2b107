// Text that came from an input, made safe to print and to serialise.
//
// printable() is the one escaping function for messages and JSON strings: every Error's message
// and context pass through it (base/error.h), and dump_json() applies it to every string that is
// not valid UTF-8 before serialising. A file name, a node name or a token quoted in an error
// therefore always prints on one line, and a JSON writer never meets invalid UTF-8.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace photon {

/// True if `text` is well-formed UTF-8 (RFC 3629: shortest form, no surrogates U+D800..U+DFFF,
/// nothing above U+10FFFF).
bool is_valid_utf8(std::string_view text);

/// `text` with every byte that is not printable written as an escape: '\n', '\r', '\t' as
/// "\n", "\r", "\t"; other C0 controls, DEL (0x7f), the bytes of C1 controls (U+0080..U+009F),
/// of U+2028/U+2029 (line and paragraph separators) and every byte not part of a well-formed
/// UTF-8 sequence as "\xNN" (two lower-case hex digits). Printable ASCII (backslash included)
/// and other well-formed UTF-8 characters are kept as they are. The result is valid UTF-8 and
/// contains no line break.
std::string printable(std::string_view text);

/// `j` serialised like j.dump(indent), except that every string value and object key that is
/// not valid UTF-8 is written as printable() of it (nlohmann::json would throw type_error 316).
std::string dump_json(const nlohmann::json& j, int indent = -1);

}  // namespace photon
