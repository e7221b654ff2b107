// HBM configuration: organisation, JEDEC timing (in tCK cycles), controller and energy.
// Presets (hbm.preset): hbm2, hbm3, hbm2_dramsim3; explicit keys override the preset's values.
// Sources of the preset values: see models/hbm/README.md (DRAMsim3 configs/HBM2_8Gb_x128.ini for
// hbm2/hbm2_dramsim3, the Ramulator 2 HBM3 "HBM3_6.4Gbps" / "HBM3_8Gb_1R" presets for hbm3).
#pragma once

#include <cstdint>
#include <string>

#include "base/param_set.h"

namespace photon {

/// Organisation and timing presets (values and sources in hbm_config.cpp and README.md).
enum class HbmPreset { Hbm2, Hbm3, Hbm2Dramsim3 };
inline const EnumTable<HbmPreset>& hbm_preset_table() {
  static const EnumTable<HbmPreset> t{
      {HbmPreset::Hbm2, "hbm2"}, {HbmPreset::Hbm3, "hbm3"}, {HbmPreset::Hbm2Dramsim3, "hbm2_dramsim3"}};
  return t;
}

struct HbmConfig {
  HbmPreset preset = HbmPreset::Hbm2;
  // Organisation (defaults = the hbm2 preset).
  uint32_t channels = 8;
  uint32_t pseudo_channels = 1;  ///< per channel (HBM2 PC mode: 2, legacy: 1)
  uint32_t bank_groups = 4;      ///< per pseudo-channel
  uint32_t banks_per_group = 4;
  uint32_t rows = 32768;          ///< rows per bank
  uint32_t columns = 32;          ///< column accesses (bursts of access_bytes()) per row
  uint32_t bus_width_bits = 128;  ///< data bus per (pseudo-)channel, bits
  uint32_t burst_length = 4;      ///< beats per column access
  uint32_t beats_per_tck = 2;     ///< data beats per tCK: 2 (DDR, HBM2), 4 (HBM3 at fCK = rate/4)
  double tck_ns = 1.0;            ///< clock period of the command bus, ns
  // Timing in tCK cycles (JEDEC names).
  uint32_t CL = 14, CWL = 4, tRCD = 14, tRP = 14, tRAS = 34, tRC = 48;
  uint32_t tRRD_S = 4, tRRD_L = 6, tFAW = 30, tWTR_S = 6, tWTR_L = 8, tWR = 16, tRTP = 5;
  uint32_t tCCD_S = 1, tCCD_L = 2, tRTRS = 2, tRFC = 260, tREFI = 3900;
  // Controller (DRAMsim3-style, see README.md).
  std::string address_mapping = "rorabgbachco";
  uint32_t read_queue_depth = 32;       ///< read transaction queue entries per (pseudo-)channel
  uint32_t write_queue_depth = 32;      ///< write buffer entries per (pseudo-)channel
  uint32_t write_drain_threshold = 16;  ///< drain writes when the read queue is empty and >= this
  uint32_t bank_queue_depth = 8;        ///< command queue entries per bank
  bool refresh_enabled = true;
  /// Bulk accesses (HbmController::access) of at least this many bytes are fast-forwarded at
  /// their stream shape's calibrated per-unit rates (models/hbm/README.md "Fast-forward of large
  /// bulk accesses"). 0 = always exact. Bytes.
  uint64_t fast_forward_bytes = uint64_t(1) << 14;
  /// A fast-forwarded stream of a shape whose rates are known keeps this many column accesses
  /// per unit exact at each end (its request queues fill and drain exactly). 0 = none: the
  /// whole stream is advanced at its shape's rates, plus the unloaded closed-bank read latency
  /// 1 + tRCD + CL + burst (reads) or 1 cycle (posted writes) (README "Rate-only streams").
  uint32_t stream_edge_columns = 0;
  // Energy (pJ), per command / per access (hbm2: DRAMsim3 IDD formulas, see README.md).
  double act_energy_pj = 828.0;        ///< one ACT+PRE pair
  double read_energy_pj = 804.0;       ///< one column read burst
  double write_energy_pj = 1068.0;     ///< one column write burst
  double refresh_energy_pj = 60840.0;  ///< one all-bank refresh

  /// Declares every key under `prefix` (normally "hbm").
  void declare(ParamSet& ps, const std::string& prefix);
  /// Overwrites organisation, timing and energy with a named preset's values.
  void apply_preset(HbmPreset preset);
  /// The same by name ("hbm2", "hbm3", "hbm2_dramsim3"). Throws Error for another name.
  void apply_preset(const std::string& name);
  /// Throws photon::Error naming the key when the organisation cannot be modelled (counts that
  /// are not powers of two, burst not a whole number of tCK, bad address mapping).
  void validate() const;
  /// Bytes moved by one column access: bus_width_bits / 8 * burst_length.
  uint64_t access_bytes() const { return uint64_t(bus_width_bits) / 8 * burst_length; }
  /// Data-bus cycles of one column access: burst_length / beats_per_tck, tCK.
  uint32_t burst_cycles() const { return burst_length / beats_per_tck; }
  /// Number of independent (pseudo-)channel controllers: channels * pseudo_channels.
  uint32_t units() const { return channels * pseudo_channels; }
  /// Peak data bandwidth of the whole device, GB/s: units * access_bytes / burst_cycles / tCK.
  double peak_bandwidth_gbps() const {
    return double(units()) * double(access_bytes()) / (double(burst_cycles()) * tck_ns);
  }
  /// Total capacity in bytes.
  uint64_t capacity_bytes() const {
    return uint64_t(channels) * pseudo_channels * bank_groups * banks_per_group * rows * columns *
           access_bytes();
  }
};

}  // namespace photon
