// HBM configuration: organisation, JEDEC timing (in tCK cycles), controller and energy.
// Presets (hbm.preset): hbm2, hbm3, hbm2_dramsim3; explicit keys override the preset's values.
// Sources of the preset values: see models/hbm/README.md.
#pragma once

#include <cstdint>
#include <string>

#include "platform/config/param_set.h"

namespace photon {

struct HbmConfig {
  std::string preset = "hbm2";
  // Organisation.
  uint32_t channels = 8;
  uint32_t pseudo_channels = 1;      ///< per channel (HBM2 PC mode: 2, legacy: 1)
  uint32_t bank_groups = 4;
  uint32_t banks_per_group = 4;
  uint32_t rows = 32768;
  uint32_t columns = 64;             ///< column accesses (bursts) per row
  uint32_t bus_width_bits = 128;     ///< per (pseudo-)channel data bus
  uint32_t burst_length = 4;         ///< beats per column access (DDR: 2 beats per tCK)
  double tck_ns = 1.0;               ///< clock period of the command bus
  // Timing in tCK cycles (JEDEC names).
  uint32_t CL = 14, CWL = 4, tRCD = 14, tRP = 14, tRAS = 34, tRC = 48;
  uint32_t tRRD_S = 4, tRRD_L = 6, tFAW = 30, tWTR_S = 6, tWTR_L = 8, tWR = 16, tRTP = 5;
  uint32_t tCCD_S = 1, tCCD_L = 2, tRTRS = 2, tRFC = 260, tREFI = 3900;
  // Controller.
  std::string address_mapping = "rorabgbachco";
  uint32_t read_queue_depth = 32;
  uint32_t write_queue_depth = 32;
  uint32_t bank_queue_depth = 8;
  bool refresh_enabled = true;
  // Energy (pJ), per command / per access.
  double act_energy_pj = 909.0;      ///< one ACT+PRE pair
  double read_energy_pj = 1000.0;    ///< one column read burst (64 B)
  double write_energy_pj = 1000.0;   ///< one column write burst (64 B)
  double refresh_energy_pj = 15000.0;  ///< one all-bank refresh

  /// Declares every key under `prefix` (normally "hbm").
  void declare(ParamSet& ps, const std::string& prefix);
  /// Overwrites organisation and timing with a named preset's values.
  void apply_preset(const std::string& name);
  /// Bytes moved by one column access: bus_width_bits / 8 * burst_length.
  uint64_t access_bytes() const { return uint64_t(bus_width_bits) / 8 * burst_length; }
  /// Total capacity in bytes.
  uint64_t capacity_bytes() const {
    return uint64_t(channels) * pseudo_channels * bank_groups * banks_per_group * rows * columns *
           access_bytes();
  }
};

}  // namespace photon
