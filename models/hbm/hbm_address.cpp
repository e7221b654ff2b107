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
    : pseudo_channels_(cfg.pseudo_channels), banks_per_group_(cfg.banks_per_group) {
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
