#include "models/hbm/hbm_address.h"

#include "base/error.h"

namespace photon {

namespace {
uint32_t log2u(uint64_t v) {
  uint32_t n = 0;
  while ((uint64_t(1) << n) < v) ++n;
  return n;
}
}  // namespace

HbmAddressMap::HbmAddressMap(const HbmConfig& cfg)
    : pseudo_channels_(cfg.pseudo_channels), banks_per_group_(cfg.banks_per_group), units_(cfg.units()) {
  offset_bits_ = log2u(cfg.access_bytes());
  const std::string& m = cfg.address_mapping;
  if (m.size() != 12)
    throw Error("hbm.address_mapping: '" + m +
                "' must name the six 2-letter fields ro ra bg ba ch co exactly once");
  uint32_t width[kFields];
  width[kRo] = log2u(cfg.rows);
  width[kPc] = log2u(cfg.pseudo_channels);
  width[kBg] = log2u(cfg.bank_groups);
  width[kBa] = log2u(cfg.banks_per_group);
  width[kCh] = log2u(cfg.channels);
  width[kCo] = log2u(cfg.columns);
  bool seen[kFields] = {};
  uint32_t pos = 0;
  for (int i = 5; i >= 0; --i) {  // least significant field is the last one in the string
    std::string tok = m.substr(size_t(i) * 2, 2);
    Field f;
    if (tok == "ro")
      f = kRo;
    else if (tok == "ra" || tok == "pc")
      f = kPc;
    else if (tok == "bg")
      f = kBg;
    else if (tok == "ba")
      f = kBa;
    else if (tok == "ch")
      f = kCh;
    else if (tok == "co")
      f = kCo;
    else
      throw Error("hbm.address_mapping: unknown field '" + tok + "' in '" + m + "'");
    if (seen[f]) throw Error("hbm.address_mapping: field '" + tok + "' repeated in '" + m + "'");
    seen[f] = true;
    pos_[f] = pos;
    mask_[f] = (uint64_t(1) << width[f]) - 1;
    pos += width[f];
  }
  const uint64_t um = unit_mask();
  if (um != 0 && ((um >> __builtin_ctzll(um)) & ((um >> __builtin_ctzll(um)) + 1)) == 0) {
    unit_run_ = true;
    unit_pos_ = uint32_t(__builtin_ctzll(um));
    unit_width_ = uint32_t(__builtin_popcountll(um));
    unit_of_value_.resize(size_t(1) << unit_width_);
    for (uint32_t u = 0; u < units_; ++u) unit_of_value_[unit_bits(u) >> unit_pos_] = u;
  }
}

void HbmAddressMap::count_below(uint64_t x, uint64_t sign, uint64_t* per_unit) const {
  const uint64_t mask = unit_mask();
  uint64_t all = 0;  // added to every unit
  for (uint64_t y = x; y != 0; y &= y - 1) {
    const int b = __builtin_ctzll(y);
    const uint64_t low = (uint64_t(1) << b) - 1;
    const uint64_t prefix = x & ~low & ~(uint64_t(1) << b);  // x above b, bit b clear
    const uint64_t n = (uint64_t(1) << __builtin_popcountll(low & ~mask)) * sign;
    if ((mask & ~low) == 0) {  // every unit bit is free in this block
      all += n;
    } else if ((mask & low) == 0) {  // every unit bit is fixed: one unit
      per_unit[decode(prefix << offset_bits_).unit] += n;
    } else {
      for (uint32_t u = 0; u < units_; ++u)
        if (((prefix ^ unit_bits(u)) & mask & ~low) == 0) per_unit[u] += n;
    }
  }
  if (all != 0)
    for (uint32_t u = 0; u < units_; ++u) per_unit[u] += all;
}

void HbmAddressMap::count_units(uint64_t k0, uint64_t k1, uint64_t* per_unit) const {
  if (k1 <= k0) return;
  if (unit_run_) {
    const uint64_t block = uint64_t(1) << unit_pos_, values = uint64_t(1) << unit_width_;
    // Indices below x with unit value v: (x >> (p + w)) * 2^p, plus 2^p if v is below x's value
    // and x's low bits if v is x's value.
    auto below = [&](uint64_t x, uint64_t v) {
      const uint64_t xv = (x >> unit_pos_) & (values - 1);
      return (x >> (unit_pos_ + unit_width_)) * block + (v < xv ? block : v == xv ? (x & (block - 1)) : 0);
    };
    for (uint64_t v = 0; v < values; ++v) per_unit[unit_of_value_[v]] += below(k1, v) - below(k0, v);
    return;
  }
  count_below(k1, 1, per_unit);
  count_below(k0, ~uint64_t(0), per_unit);  // -1: unsigned wrap, exact for the final counts
}

uint64_t HbmAddressMap::encode(uint32_t channel, uint32_t pseudo_channel, uint32_t bank_group, uint32_t bank,
                               uint32_t row, uint32_t column) const {
  uint64_t a = ((uint64_t(channel) & mask_[kCh]) << pos_[kCh]) |
               ((uint64_t(pseudo_channel) & mask_[kPc]) << pos_[kPc]) |
               ((uint64_t(bank_group) & mask_[kBg]) << pos_[kBg]) |
               ((uint64_t(bank) & mask_[kBa]) << pos_[kBa]) | ((uint64_t(row) & mask_[kRo]) << pos_[kRo]) |
               ((uint64_t(column) & mask_[kCo]) << pos_[kCo]);
  return a << offset_bits_;
}

}  // namespace photon
