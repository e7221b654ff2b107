#include "models/hbm/hbm_config.h"

#include "base/error.h"

namespace photon {

namespace {
bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
}  // namespace

void HbmConfig::apply_preset(HbmPreset name) {
  if (name == HbmPreset::Hbm2 || name == HbmPreset::Hbm2Dramsim3) {
    // DRAMsim3 configs/HBM2_8Gb_x128.ini (JESD235 derived), legacy mode (no pseudo-channels),
    // tCK = 1 ns. The ini's "columns = 64" counts 32-byte columns (128-bit x prefetch 2); DRAMsim3
    // turns that into 32 bursts of 64 B per 2 KiB row, which is what `columns` counts here.
    // tRC = tRAS + tRP as DRAMsim3 computes it; tRTP = DRAMsim3's default 5 (the ini's
    // tRTP_L/tRTP_S are not read by DRAMsim3); tCCD_S/L, tRRD, tWTR, tFAW, tWR, tRFC, tREFI as
    // in the ini; tRTRS = DRAMsim3 default 2.
    channels = 8;
    pseudo_channels = 1;
    bank_groups = 4;
    banks_per_group = 4;
    rows = 32768;
    columns = 32;
    bus_width_bits = 128;
    burst_length = 4;
    beats_per_tck = 2;
    tck_ns = 1.0;
    CL = 14;
    CWL = 4;
    tRCD = 14;
    tRP = 14;
    tRAS = 34;
    tRC = 48;
    tRRD_S = 4;
    tRRD_L = 6;
    tFAW = 30;
    tWTR_S = 6;
    tWTR_L = 8;
    tWR = 16;
    tRTP = 5;
    tCCD_S = 1;
    tCCD_L = 2;
    tRTRS = 2;
    tRFC = 260;
    tREFI = 3900;
    address_mapping = "rorabgbachco";
    read_queue_depth = 32;
    write_queue_depth = 32;
    write_drain_threshold = 16;
    bank_queue_depth = 8;
    // DRAMsim3 energy increments from the ini's [power] IDD values (VDD 1.2 V, 1 device/rank):
    // ACT = VDD*(IDD0*tRC - IDD3N*tRAS - IDD2N*tRP), RD = VDD*(IDD4R-IDD3N)*burst,
    // WR = VDD*(IDD4W-IDD3N)*burst, REF = VDD*(IDD5AB-IDD3N)*tRFC  (mA x ns x V = pJ).
    act_energy_pj = 828.0;
    read_energy_pj = 804.0;
    write_energy_pj = 1068.0;
    refresh_energy_pj = 60840.0;
  } else if (name == HbmPreset::Hbm3) {
    // Ramulator 2 HBM3 model (JESD238A derived): org "HBM3_8Gb_1R" (2 pseudo-channels x 32 DQ,
    // 4 BG x 4 banks, 32768 rows, 32 columns of BL8 = 32 B) x 16 channels; timing
    // "HBM3_6.4Gbps" (tCK = 0.625 ns, data at 4 beats per tCK, nBL 2): nCL 23, nCWL 7,
    // nRCDRD/WR 23, nRP 23, nRAS 55, nRC 77, nWR 26, nRTPL 10, nCCDS 2, nCCDL 4, nRRDS 2,
    // nRRDL 4, nWTRS 10, nWTRL 13, nFAW 48, nREFI 6240, tRFC 350 ns (8 Gb) = 560 tCK.
    channels = 16;
    pseudo_channels = 2;
    bank_groups = 4;
    banks_per_group = 4;
    rows = 32768;
    columns = 32;
    bus_width_bits = 32;
    burst_length = 8;
    beats_per_tck = 4;
    tck_ns = 0.625;
    CL = 23;
    CWL = 7;
    tRCD = 23;
    tRP = 23;
    tRAS = 55;
    tRC = 77;
    tRRD_S = 2;
    tRRD_L = 4;
    tFAW = 48;
    tWTR_S = 10;
    tWTR_L = 13;
    tWR = 26;
    tRTP = 10;
    tCCD_S = 2;
    tCCD_L = 4;
    tRTRS = 2;
    tRFC = 560;
    tREFI = 6240;
    // tCCD_L = 2 x burst: consecutive accesses must alternate bank groups to reach the peak, so
    // bg is the least significant field (4 x 32 B), then column, bank, pseudo-channel, channel.
    address_mapping = "rochrabacobg";
    read_queue_depth = 32;
    write_queue_depth = 32;
    write_drain_threshold = 16;
    bank_queue_depth = 8;
    // No public HBM3 IDD table: the HBM2 per-command figures above, RD/WR scaled to 32 B bursts.
    act_energy_pj = 828.0;
    read_energy_pj = 402.0;
    write_energy_pj = 534.0;
    refresh_energy_pj = 60840.0;
  }
  preset = name;
}

void HbmConfig::apply_preset(const std::string& name) {
  HbmPreset p;
  if (!hbm_preset_table().parse(name, p)) throw Error("hbm.preset: unknown preset '" + name + "'");
  apply_preset(p);
}

void HbmConfig::validate() const {
  const struct {
    const char* key;
    uint64_t v;
  } p2[] = {{"hbm.channels", channels},
            {"hbm.pseudo_channels", pseudo_channels},
            {"hbm.bank_groups", bank_groups},
            {"hbm.banks_per_group", banks_per_group},
            {"hbm.rows", rows},
            {"hbm.columns", columns},
            {"access bytes", access_bytes()}};
  for (const auto& x : p2)
    if (!is_pow2(x.v))
      throw Error(std::string(x.key) + ": " + std::to_string(x.v) + " is not a power of two");
  if (burst_length % beats_per_tck != 0)
    throw Error("hbm.burst_length: " + std::to_string(burst_length) +
                " beats is not a whole number of tCK at " + std::to_string(beats_per_tck) + " beats per tCK");
  if (tREFI == 0 && refresh_enabled) throw Error("hbm.tREFI: must be > 0 with refresh enabled");
  if (write_drain_threshold > write_queue_depth)
    throw Error("hbm.write_drain_threshold: larger than hbm.write_queue_depth");
}

void HbmConfig::declare(ParamSet& ps, const std::string& p) {
  ps.add_enum(p + ".preset", &preset, hbm_preset_table(),
              "timing/organisation preset; applied before the other hbm keys",
              [this](const std::string&) { apply_preset(preset); });
  ps.add_uint(p + ".channels", &channels, 1, 64, "independent channels");
  ps.add_uint(p + ".pseudo_channels", &pseudo_channels, 1, 2, "pseudo-channels per channel");
  ps.add_uint(p + ".bank_groups", &bank_groups, 1, 16, "bank groups per pseudo-channel");
  ps.add_uint(p + ".banks_per_group", &banks_per_group, 1, 16, "banks per bank group");
  ps.add_uint(p + ".rows", &rows, 1, 1u << 20, "rows per bank");
  ps.add_uint(p + ".columns", &columns, 1, 1u << 12, "column accesses (bursts) per row");
  ps.add_uint(p + ".bus_width_bits", &bus_width_bits, 8, 1024, "data bus width per pseudo-channel, bits");
  ps.add_uint(p + ".burst_length", &burst_length, 1, 32, "beats per column access");
  ps.add_uint(p + ".beats_per_tck", &beats_per_tck, 1, 8, "data beats per tCK (2: DDR HBM2, 4: HBM3)");
  ps.add_double(p + ".tck_ns", &tck_ns, 0.1, 100, "command clock period, ns");
  struct T {
    const char* n;
    uint32_t* v;
    const char* d;
  };
  const T t[] = {
      {"CL", &CL, "read latency (RL), tCK"},
      {"CWL", &CWL, "write latency (WL), tCK"},
      {"tRCD", &tRCD, "ACT to column command, tCK"},
      {"tRP", &tRP, "PRE to ACT, tCK"},
      {"tRAS", &tRAS, "ACT to PRE, tCK"},
      {"tRC", &tRC, "ACT to ACT same bank, tCK"},
      {"tRRD_S", &tRRD_S, "ACT to ACT, different bank group, tCK"},
      {"tRRD_L", &tRRD_L, "ACT to ACT, same bank group, tCK"},
      {"tFAW", &tFAW, "four-activate window, tCK"},
      {"tWTR_S", &tWTR_S, "write to read, different bank group, tCK"},
      {"tWTR_L", &tWTR_L, "write to read, same bank group, tCK"},
      {"tWR", &tWR, "write recovery, tCK"},
      {"tRTP", &tRTP, "read to precharge, tCK"},
      {"tCCD_S", &tCCD_S, "column to column, different bank group, tCK"},
      {"tCCD_L", &tCCD_L, "column to column, same bank group, tCK"},
      {"tRTRS", &tRTRS, "rank/pseudo-channel switch bubble, tCK"},
      {"tRFC", &tRFC, "all-bank refresh cycle time, tCK"},
      {"tREFI", &tREFI, "refresh interval, tCK"},
  };
  for (const auto& x : t) ps.add_uint(p + "." + x.n, x.v, 0, 1000000, x.d);
  ps.add_text(p + ".address_mapping", &address_mapping,
              "address mapping, most to least significant field: ro ra bg ba ch co (DRAMsim3 style)");
  ps.add_uint(p + ".read_queue_depth", &read_queue_depth, 1, 4096,
              "read transaction queue entries per channel");
  ps.add_uint(p + ".write_queue_depth", &write_queue_depth, 1, 4096, "write buffer entries per channel");
  ps.add_uint(p + ".write_drain_threshold", &write_drain_threshold, 1, 4096,
              "write buffer entries that start a drain when no read is queued");
  ps.add_uint(p + ".bank_queue_depth", &bank_queue_depth, 1, 1024, "command queue entries per bank");
  ps.add_bool(p + ".refresh_enabled", &refresh_enabled, "issue all-bank refresh every tREFI");
  ps.add_uint(p + ".fast_forward_bytes", &fast_forward_bytes, uint64_t(0), uint64_t(1) << 40,
              "bulk accesses of at least this many bytes are fast-forwarded at their shape's calibrated "
              "per-unit rates (0 = always exact), bytes");
  ps.add_uint(p + ".stream_edge_columns", &stream_edge_columns, 0, 4096,
              "column accesses per unit simulated exactly at each end of a fast-forwarded stream of a "
              "calibrated shape (0: the whole stream at its calibrated rates), count");
  ps.add_double(p + ".act_energy_pj", &act_energy_pj, 0, 1e6, "energy of one ACT/PRE pair, pJ");
  ps.add_double(p + ".read_energy_pj", &read_energy_pj, 0, 1e6, "energy of one read burst, pJ");
  ps.add_double(p + ".write_energy_pj", &write_energy_pj, 0, 1e6, "energy of one write burst, pJ");
  ps.add_double(p + ".refresh_energy_pj", &refresh_energy_pj, 0, 1e9, "energy of one all-bank refresh, pJ");
}

}  // namespace photon
