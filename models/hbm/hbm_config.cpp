#include "models/hbm/hbm_config.h"

#include "platform/error.h"

namespace photon {

void HbmConfig::apply_preset(const std::string& name) {
  if (name == "hbm2" || name == "hbm2_dramsim3") {
    // DRAMsim3 configs/HBM2_8Gb_x128.ini (JEDEC JESD235 derived), legacy mode, tCK = 1 ns.
    channels = 8; pseudo_channels = 1; bank_groups = 4; banks_per_group = 4;
    rows = 32768; columns = 64; bus_width_bits = 128; burst_length = 4; tck_ns = 1.0;
    CL = 14; CWL = 4; tRCD = 14; tRP = 14; tRAS = 34; tRC = 48;
    tRRD_S = 4; tRRD_L = 6; tFAW = 30; tWTR_S = 6; tWTR_L = 8; tWR = 16; tRTP = 5;
    tCCD_S = 1; tCCD_L = 2; tRTRS = 2; tRFC = 260; tREFI = 3900;
    address_mapping = "rorabgbachco";
    read_queue_depth = 32; write_queue_depth = 32; bank_queue_depth = 8;
  } else if (name == "hbm3") {
    // Ramulator 2.1 HBM3 preset family (JESD238 derived): 16 channels x 2 pseudo-channels,
    // 64-bit pseudo-channel bus, BL8, 3.2 Gb/s/pin -> tCK = 0.625 ns (1.6 GHz command clock).
    channels = 16; pseudo_channels = 2; bank_groups = 4; banks_per_group = 4;
    rows = 32768; columns = 32; bus_width_bits = 64; burst_length = 8; tck_ns = 0.625;
    CL = 24; CWL = 8; tRCD = 24; tRP = 24; tRAS = 54; tRC = 78;
    tRRD_S = 4; tRRD_L = 6; tFAW = 26; tWTR_S = 6; tWTR_L = 12; tWR = 24; tRTP = 6;
    tCCD_S = 2; tCCD_L = 4; tRTRS = 2; tRFC = 560; tREFI = 6240;
    address_mapping = "rorabgbachco";
    read_queue_depth = 32; write_queue_depth = 32; bank_queue_depth = 8;
  } else {
    throw Error("hbm.preset: unknown preset '" + name + "'");
  }
  preset = name;
}

void HbmConfig::declare(ParamSet& ps, const std::string& p) {
  ps.add_choice(p + ".preset", &preset, {"hbm2", "hbm3", "hbm2_dramsim3"},
                "timing/organisation preset; applied before the other hbm keys",
                [this](const std::string& n) { apply_preset(n); });
  ps.add_uint(p + ".channels", &channels, 1, 64, "independent channels");
  ps.add_uint(p + ".pseudo_channels", &pseudo_channels, 1, 2, "pseudo-channels per channel");
  ps.add_uint(p + ".bank_groups", &bank_groups, 1, 16, "bank groups per pseudo-channel");
  ps.add_uint(p + ".banks_per_group", &banks_per_group, 1, 16, "banks per bank group");
  ps.add_uint(p + ".rows", &rows, 1, 1u << 20, "rows per bank");
  ps.add_uint(p + ".columns", &columns, 1, 1u << 12, "column accesses per row");
  ps.add_uint(p + ".bus_width_bits", &bus_width_bits, 8, 1024, "data bus width per pseudo-channel, bits");
  ps.add_uint(p + ".burst_length", &burst_length, 1, 32, "beats per column access");
  ps.add_double(p + ".tck_ns", &tck_ns, 0.1, 100, "command clock period, ns");
  struct T { const char* n; uint32_t* v; const char* d; };
  const T t[] = {
      {"CL", &CL, "read latency (RL), tCK"}, {"CWL", &CWL, "write latency (WL), tCK"},
      {"tRCD", &tRCD, "ACT to column command, tCK"}, {"tRP", &tRP, "PRE to ACT, tCK"},
      {"tRAS", &tRAS, "ACT to PRE, tCK"}, {"tRC", &tRC, "ACT to ACT same bank, tCK"},
      {"tRRD_S", &tRRD_S, "ACT to ACT, different bank group, tCK"},
      {"tRRD_L", &tRRD_L, "ACT to ACT, same bank group, tCK"},
      {"tFAW", &tFAW, "four-activate window, tCK"},
      {"tWTR_S", &tWTR_S, "write to read, different bank group, tCK"},
      {"tWTR_L", &tWTR_L, "write to read, same bank group, tCK"},
      {"tWR", &tWR, "write recovery, tCK"}, {"tRTP", &tRTP, "read to precharge, tCK"},
      {"tCCD_S", &tCCD_S, "column to column, different bank group, tCK"},
      {"tCCD_L", &tCCD_L, "column to column, same bank group, tCK"},
      {"tRTRS", &tRTRS, "rank/pseudo-channel switch bubble, tCK"},
      {"tRFC", &tRFC, "all-bank refresh cycle time, tCK"},
      {"tREFI", &tREFI, "refresh interval, tCK"},
  };
  for (const auto& x : t) ps.add_uint(p + "." + x.n, x.v, 0, 1000000, x.d);
  ps.add_text(p + ".address_mapping", &address_mapping,
              "address mapping, most to least significant field: ro ra bg ba ch co (DRAMsim3 style)");
  ps.add_uint(p + ".read_queue_depth", &read_queue_depth, 1, 4096, "read transaction queue entries per channel");
  ps.add_uint(p + ".write_queue_depth", &write_queue_depth, 1, 4096, "write buffer entries per channel");
  ps.add_uint(p + ".bank_queue_depth", &bank_queue_depth, 1, 1024, "command queue entries per bank");
  ps.add_bool(p + ".refresh_enabled", &refresh_enabled, "issue all-bank refresh every tREFI");
  ps.add_double(p + ".act_energy_pj", &act_energy_pj, 0, 1e6, "energy of one ACT/PRE pair, pJ");
  ps.add_double(p + ".read_energy_pj", &read_energy_pj, 0, 1e6, "energy of one read burst, pJ");
  ps.add_double(p + ".write_energy_pj", &write_energy_pj, 0, 1e6, "energy of one write burst, pJ");
  ps.add_double(p + ".refresh_energy_pj", &refresh_energy_pj, 0, 1e9, "energy of one all-bank refresh, pJ");
}

}  // namespace photon
