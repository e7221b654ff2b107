// FHE on any scratchpad, on the whole platform (docs/fhe.md "Memory plan", "How much on-chip
// memory"):
//   - latency and HBM bytes of HMult, of one bootstrapping and of the DaCapo MLP (also its
//     planned HBM bytes from 8 MiB) fall monotonically over 4 scratchpad sizes to the
//     all-on-chip figure (the resident lowering's, as before streaming existed);
//   - every HEIR program of shared/inputs/heir and every `photon fhe` op lowers at the minimum
//     its own error states and runs there to its END, and one KiB less gives one error line
//     naming that minimum.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "base/error.h"
#include "tests/workloads/fhe_calibration/fhe_platform_run.h"
#include "workloads/fhe/fhe_lowering.h"
#include "workloads/heir/heir_frontend.h"

namespace photon::fhe {
namespace {

RunConfig sharp() { return load_run_config(std::string(PHOTON_SOURCE_DIR) + "/configs/sharp_like.yaml", {}); }

bool streamed(const pcs::Program& p) { return p.ops[0].detail.find("streamed") != std::string::npos; }

/// HBM bytes the lowering plans (every byte class of every op, and the tables).
uint64_t planned_bytes(const pcs::Program& p) {
  uint64_t b = 0;
  for (const auto& op : p.ops)
    for (const auto& [name, v] : op.memory)
      if (name != "peak_scratchpad_bytes") b += v;
  return b;
}

uint64_t peak_of(const pcs::Program& p) {
  uint64_t m = 0;
  for (const auto& op : p.ops)
    for (const auto& [name, v] : op.memory)
      if (name == "peak_scratchpad_bytes") m = std::max(m, v);
  return m;
}

/// Runs `make(cfg)` at each size (KiB, increasing) and checks that cycles and HBM bytes never
/// grow, that the smallest streams and (with `resident_last`) that the largest is resident.
template <class Make>
void check_monotonic(const char* what, const std::vector<uint64_t>& kib, bool resident_last, Make make) {
  RunConfig cfg = sharp();
  double last_cycles = 1e300, last_bytes = 1e300;
  for (size_t i = 0; i < kib.size(); ++i) {
    cfg.scratchpad.size_kib = kib[i];
    const pcs::Program p = make(cfg);
    if (i == 0) {
      EXPECT_TRUE(streamed(p)) << what << " at " << kib[i] << " KiB";
    }
    if (i + 1 == kib.size() && resident_last) {
      EXPECT_FALSE(streamed(p)) << what << " at " << kib[i] << " KiB";
    }
    const PlatformFheRun r = run_on_platform(p, cfg);
    EXPECT_LE(r.cycles, last_cycles) << what << " at " << kib[i] << " KiB";
    EXPECT_LE(r.hbm_bytes, last_bytes) << what << " at " << kib[i] << " KiB";
    // The HBM sees what the plan moves (every DMA has one side in HBM) plus the firmware's
    // command fetches from its ring (at most 64 bytes per command).
    EXPECT_GE(r.hbm_bytes, double(planned_bytes(p))) << what << " at " << kib[i] << " KiB";
    EXPECT_LE(r.hbm_bytes, double(planned_bytes(p) + 64 * p.commands.size())) << what << " at " << kib[i] << " KiB";
    last_cycles = r.cycles;
    last_bytes = r.hbm_bytes;
  }
}

TEST(FheSweep, HMultLatencyAndHbmBytesFallMonotonicallyToTheAllOnChipFigure) {
  // N = 2^13, L = l = 15, alpha = 4 (dnum 4): a 2 MiB ciphertext, 10 MiB keys.
  check_monotonic("hmult", {512, 2048, 8192, 65536}, true,
                  [](const RunConfig& c) { return make_single_op_program("hmult", 13, 15, 15, 4, c); });
}

TEST(FheSweep, BootstrappingLatencyAndHbmBytesFallMonotonically) {
  // N = 2^12, L = 20, alpha = 4, from level 0: 9.8 MiB keys; at 16 MiB every ciphertext is on
  // chip and only keys stream.
  check_monotonic("bootstrap", {1024, 2048, 4096, 16384}, false,
                  [](const RunConfig& c) { return make_single_op_program("bootstrap", 12, 20, 0, 4, c); });
}

TEST(FheSweep, BootstrappingAtTheSharpPointFallsFrom256MiBTo1GiB) {
  // N = 2^16, L = l = 34, alpha = 12 (148 MB keys): at 256 MiB ciphertexts on chip and key digits
  // streamed, from 512 MiB the resident layout with one key slot and more.
  check_monotonic("bootstrap", {256 * 1024, 512 * 1024, 1024 * 1024}, true,
                  [](const RunConfig& c) { return make_single_op_program("bootstrap", 16, 34, 34, 12, c); });
}

TEST(FheSweep, DaCapoHbmBytesFallMonotonicallyFrom8MiBTo1GiB) {
  const FheProgram prog = heir::load_heir(std::string(PHOTON_SHARED_DIR) + "/inputs/heir/dacapo_mlp_ckks.mlir");
  RunConfig cfg = sharp();
  uint64_t last = ~uint64_t(0);
  for (uint64_t mib : {8, 32, 128, 1024}) {
    cfg.scratchpad.size_kib = mib * 1024;
    const uint64_t b = planned_bytes(lower_fhe(prog, cfg));
    EXPECT_LE(b, last) << mib << " MiB";
    last = b;
  }
}

TEST(FheSweep, DaCapoLatencyAndHbmBytesFallMonotonically) {
  // N = 2^17 (460 MB keys): streamed with spills at 32 MiB, every ciphertext on chip from
  // 256 MiB; the key set never fits, and from 512 MiB the plan is the same (the resident layout's
  // single key slot reads 12 % fewer key bytes but serialises its reloads: fhe_lowering.cpp,
  // kOneSlotKeySlack). 256 MiB is left out: it is 0.14 % below 512 MiB at equal bytes
  // (docs/fhe.md "How much on-chip memory", DaCapo).
  const FheProgram prog = heir::load_heir(std::string(PHOTON_SHARED_DIR) + "/inputs/heir/dacapo_mlp_ckks.mlir");
  check_monotonic("dacapo", {32 * 1024, 128 * 1024, 512 * 1024, 1024 * 1024}, false,
                  [&](const RunConfig& c) { return lower_fhe(prog, c); });
}

/// The minimum the lowering states for `prog` (from its error at 65 KiB), checked: it lowers at
/// the minimum with a peak in its last KiB, and one KiB less is one error line naming the minimum.
uint64_t stated_minimum(const FheProgram& prog, RunConfig& cfg, const std::string& what) {
  static const std::regex need(R"(scratchpad\.size_kib: the FHE program needs at least (\d+) KiB)");
  auto error_at = [&](uint64_t kib) -> std::string {
    cfg.scratchpad.size_kib = kib;
    try {
      lower_fhe(prog, cfg);
    } catch (const Error& e) { return e.what(); }
    return "";
  };
  std::smatch m;
  const std::string first = error_at(65);
  if (!std::regex_search(first, m, need)) {
    ADD_FAILURE() << what << ": " << first;
    return 0;
  }
  const uint64_t lo = std::stoull(m[1]);
  // Sizes that do not even hold the moduli tables name the same minimum.
  for (uint64_t tiny : {uint64_t(1), uint64_t(64)}) {
    const std::string e = error_at(tiny);
    EXPECT_NE(e.find("needs at least " + std::to_string(lo) + " KiB"), std::string::npos) << what << ": " << e;
  }
  const std::string below = error_at(lo - 1);
  EXPECT_NE(below.find("needs at least " + std::to_string(lo) + " KiB"), std::string::npos) << what << ": " << below;
  EXPECT_EQ(below.find('\n'), std::string::npos) << what << ": " << below;
  cfg.scratchpad.size_kib = lo;
  const pcs::Program p = lower_fhe(prog, cfg);
  // The minimum is tight: the reported peak (tables, constants tile, working buffers) fills it to
  // within its last KiB.
  EXPECT_LE(peak_of(p), lo * 1024) << what;
  EXPECT_GT(peak_of(p), (lo - 1) * 1024) << what;
  return lo;
}

TEST(FheSweep, EveryHeirProgramRunsFromTheMinimumItsErrorStates) {
  const std::string dir = std::string(PHOTON_SHARED_DIR) + "/inputs/heir";
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".mlir") continue;
    ++files;
    const std::string name = e.path().filename().string();
    const FheProgram prog = heir::load_heir(e.path().string());
    RunConfig cfg;  // configs/default.yaml
    const uint64_t lo = stated_minimum(prog, cfg, name);
    if (lo == 0) continue;
    // The DaCapo MLP (N = 2^17) at its 2 MiB minimum moves hundreds of GB: lowered above only.
    if (name == "dacapo_mlp_ckks.mlir") continue;
    cfg.scratchpad.size_kib = lo;
    const PlatformFheRun r = run_on_platform(lower_fhe(prog, cfg), cfg);
    EXPECT_GT(r.cycles, 0) << name;
  }
  EXPECT_EQ(files, 6);
}

TEST(FheSweep, PinnedKeysLowerAndRunWhereOnlySomeKeysKeepASlot) {
  // openfhe_rotations: 28 rotations alike but for their Galois element. With key_policy pinned
  // at 740 KiB some keys keep a slot and the others stream; a shape measured for an op with a
  // pinned key used to be given to its look-alikes with streamed keys ("planning fault": 245760
  // bytes of working buffers needed, 217088 planned). Each op's shape now fits its own keys.
  const FheProgram prog = heir::load_heir(std::string(PHOTON_SHARED_DIR) + "/inputs/heir/openfhe_rotations.mlir");
  for (const uint64_t kib : {388u, 740u, 1940u}) {
    RunConfig cfg = sharp();
    cfg.scratchpad.size_kib = kib;
    cfg.fhe.key_policy = KeyPolicy::Pinned;
    const pcs::Program p = lower_fhe(prog, cfg);
    EXPECT_TRUE(streamed(p)) << kib << ": " << p.ops[0].detail;
    EXPECT_LE(peak_of(p), kib * 1024) << kib;
    const PlatformFheRun r = run_on_platform(p, cfg);
    EXPECT_GT(r.cycles, 0) << kib;
  }
}

TEST(FheSweep, EveryPhotonFheOpRunsFromTheMinimumItsErrorStates) {
  for (const char* op : {"hmult", "hmult_rescale", "hrot", "rescale", "padd", "pmult", "hadd", "bootstrap"}) {
    // At the SHARP-like point (N = 2^16, L = 34, alpha = 12): lowered at its minimum.
    RunConfig cfg = sharp();
    stated_minimum(make_single_op_fhe_program(op, 16, 34, op == std::string("bootstrap") ? 0 : 34, 12, cfg), cfg,
                   std::string(op) + " N=2^16");
    // At N = 2^12, L = 20, alpha = 4: run on the platform at its minimum.
    RunConfig small = sharp();
    const FheProgram prog = make_single_op_fhe_program(op, 12, 20, op == std::string("bootstrap") ? 0 : 20, 4, small);
    const uint64_t lo = stated_minimum(prog, small, std::string(op) + " N=2^12");
    if (lo == 0) continue;
    small.scratchpad.size_kib = lo;
    const PlatformFheRun r = run_on_platform(lower_fhe(prog, small), small);
    EXPECT_GT(r.cycles, 0) << op;
  }
}

}  // namespace
}  // namespace photon::fhe
