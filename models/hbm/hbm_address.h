// HBM address mapping: a byte address -> (channel, pseudo-channel, bank group, bank, row, column).
//
// The mapping string names six 2-letter fields from most to least significant bit, DRAMsim3 style
// (DRAMsim3 src/configuration.cc SetAddressMapping): ro (row), ra or pc (pseudo-channel; DRAMsim3
// calls it rank), bg (bank group), ba (bank), ch (channel), co (column access). The low
// log2(access_bytes) offset bits of one column access are dropped first; each field is
// log2(count) bits wide. Address bits above the capacity are ignored (they wrap, as in DRAMsim3).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/hbm/hbm_config.h"

namespace photon {

/// One decoded column access. `unit` = channel * pseudo_channels + pseudo_channel indexes the
/// per-(pseudo-)channel controller; `bank` = bank_group * banks_per_group + bank.
struct HbmAddress {
  uint32_t channel = 0, pseudo_channel = 0, bank_group = 0, bank_in_group = 0;
  uint32_t row = 0, column = 0;
  uint32_t unit = 0, bank = 0;
};

class HbmAddressMap {
 public:
  /// Parses cfg.address_mapping; throws photon::Error naming hbm.address_mapping when a field is
  /// unknown, repeated or missing.
  explicit HbmAddressMap(const HbmConfig& cfg);
  HbmAddress decode(uint64_t addr) const {
    uint64_t a = addr >> offset_bits_;
    HbmAddress r;
    r.channel = uint32_t((a >> pos_[kCh]) & mask_[kCh]);
    r.pseudo_channel = uint32_t((a >> pos_[kPc]) & mask_[kPc]);
    r.bank_group = uint32_t((a >> pos_[kBg]) & mask_[kBg]);
    r.bank_in_group = uint32_t((a >> pos_[kBa]) & mask_[kBa]);
    r.row = uint32_t((a >> pos_[kRo]) & mask_[kRo]);
    r.column = uint32_t((a >> pos_[kCo]) & mask_[kCo]);
    r.unit = r.channel * pseudo_channels_ + r.pseudo_channel;
    r.bank = r.bank_group * banks_per_group_ + r.bank_in_group;
    return r;
  }
  /// Inverse of decode() for in-range fields (used by tests and benchmarks), bytes.
  uint64_t encode(uint32_t channel, uint32_t pseudo_channel, uint32_t bank_group, uint32_t bank, uint32_t row,
                  uint32_t column) const;
  uint32_t offset_bits() const { return offset_bits_; }
  /// Position of the row field in a column index: 2^row_shift() consecutive column accesses
  /// cover every (unit, bank, column) combination below one row index.
  uint32_t row_shift() const { return pos_[kRo]; }
  /// Bits of a column index (byte address >> offset_bits()) that select the unit (channel and
  /// pseudo-channel fields), and their value for `unit`.
  uint64_t unit_mask() const { return (mask_[kCh] << pos_[kCh]) | (mask_[kPc] << pos_[kPc]); }
  uint64_t unit_bits(uint32_t unit) const {
    return ((uint64_t(unit / pseudo_channels_) & mask_[kCh]) << pos_[kCh]) |
           ((uint64_t(unit % pseudo_channels_) & mask_[kPc]) << pos_[kPc]);
  }
  /// Adds to per_unit[u] (one entry per unit) the number of column indices k in [k0, k1) that
  /// decode to unit u, in O(units) or O(bits x units) instead of O(k1 - k0). When the unit
  /// fields are adjacent (every preset), k = (high, unit value v, low) with p low bits: [0, x)
  /// holds x >> (p + w) whole blocks of 2^p indices per v, then the partial block. Otherwise,
  /// for every set bit b of a bound x, the indices below x that agree with x above b and have
  /// bit b clear form one block of 2^b indices, in which each unit whose field bits agree with
  /// x above b occurs 2^(b - unit bits below b) times.
  void count_units(uint64_t k0, uint64_t k1, uint64_t* per_unit) const;

 private:
  /// Adds sign * (count of indices in [0, x) per unit) to per_unit (wrapping arithmetic).
  void count_below(uint64_t x, uint64_t sign, uint64_t* per_unit) const;
  enum Field { kRo, kPc, kBg, kBa, kCh, kCo, kFields };
  uint32_t offset_bits_ = 0;
  uint32_t pos_[kFields] = {};
  uint64_t mask_[kFields] = {};
  uint32_t pseudo_channels_ = 1, banks_per_group_ = 1;
  uint32_t units_ = 1;
  /// Adjacent unit fields: their lowest bit, total width, and the unit of each field value.
  bool unit_run_ = false;
  uint32_t unit_pos_ = 0, unit_width_ = 0;
  std::vector<uint32_t> unit_of_value_;
};

}  // namespace photon
