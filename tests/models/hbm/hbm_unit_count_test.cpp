// HbmAddressMap::count_units (column accesses per unit in an index range, closed form) against
// decoding every index of the range: every preset (adjacent unit fields), a mapping whose channel
// and pseudo-channel fields are apart (the bitwise path), ranges at odd bounds, empty ranges.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "models/hbm/hbm_address.h"

namespace {

std::vector<uint64_t> brute(const photon::HbmAddressMap& map, uint32_t units, uint64_t k0, uint64_t k1) {
  std::vector<uint64_t> n(units, 0);
  for (uint64_t k = k0; k < k1; ++k) ++n[map.decode(k << map.offset_bits()).unit];
  return n;
}

void expect_counts(const photon::HbmConfig& cfg, const std::string& what) {
  const photon::HbmAddressMap map(cfg);
  const uint32_t units = cfg.units();
  const uint64_t bounds[][2] = {{0, 0},        {5, 5},          {0, 1},           {0, 4096},
                                {3, 70},       {63, 64 * 1024}, {1000, 123457},   {16383, 16385},
                                {77777, 99999}, {1 << 20, (1 << 20) + 40000}, {(1 << 22) - 12345, (1 << 22) + 54321}};
  for (const auto& b : bounds) {
    std::vector<uint64_t> got(units, 0);
    map.count_units(b[0], b[1], got.data());
    EXPECT_EQ(got, brute(map, units, b[0], b[1])) << what << " [" << b[0] << ", " << b[1] << ")";
  }
}

TEST(HbmUnitCount, PresetsAgreeWithDecoding) {
  for (const char* p : {"hbm2", "hbm3", "hbm2_dramsim3"}) {
    photon::HbmConfig cfg;
    cfg.apply_preset(p);
    expect_counts(cfg, p);
  }
}

TEST(HbmUnitCount, SplitUnitFieldsAgreeWithDecoding) {
  photon::HbmConfig cfg;
  cfg.apply_preset("hbm3");
  cfg.address_mapping = "rochbgbaraco";  // pseudo-channel bit below the bank fields, channel above
  expect_counts(cfg, "hbm3 rochbgbaraco");
  cfg.address_mapping = "chrobgbacora";  // pseudo-channel lowest, channel highest
  expect_counts(cfg, "hbm3 chrobgbacora");
}

TEST(HbmUnitCount, AddsToExistingCounts) {
  photon::HbmConfig cfg;
  cfg.apply_preset("hbm2");
  const photon::HbmAddressMap map(cfg);
  std::vector<uint64_t> got(cfg.units(), 7);
  map.count_units(100, 5000, got.data());
  std::vector<uint64_t> want = brute(map, cfg.units(), 100, 5000);
  for (auto& v : want) v += 7;
  EXPECT_EQ(got, want);
}

}  // namespace
