// Shared pieces of the .pasm text syntax: string quoting and exact float spelling.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace photon::pcs::detail {

/// Quotes `s` for .pasm: "..." with \" \\ \n \r \t and \xHH for other bytes outside 0x20..0x7e.
std::string quote(const std::string& s);

/// True if `s` can be written bare (an identifier: [A-Za-z_][A-Za-z0-9_.]*).
bool is_bare_word(const std::string& s);

/// Parses an f32 spelling: a decimal/scientific literal, inf, -inf, nan, or bits:0xHHHHHHHH
/// (raw IEEE-754 bit pattern). Returns the bit pattern, nullopt if malformed or out of range.
std::optional<uint32_t> parse_f32(const std::string& s);

/// Spells the float with bit pattern `bits` so that parse_f32 gives the same bits back: the
/// shortest decimal that round-trips, or bits:0x... for NaNs and anything that would not.
std::string format_f32(uint32_t bits);

}  // namespace photon::pcs::detail
