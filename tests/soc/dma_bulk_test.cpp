// The DMA's bulk path (dma.bulk_bytes; models/dma/README.md "Bulk copies") against oracles:
// byte-exact data for every way a copy splits into streams, the HBM streaming rate for a long
// copy, and the exact per-burst path where the engine's outstanding window is the limit.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "isa/assembler.h"
#include "models/hbm/hbm.h"
#include "soc/platform.h"
#include "soc/platform_config.h"
#include "tests/support/forked.h"

namespace {

std::vector<uint8_t> pattern(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t((i * 13 + 5) & 0xFF);
  return v;
}

/// Outcome of a timing-mode run of `pasm` with `cfg`: status, message, t (simulated ns).
nlohmann::json run_outcome(const photon::PlatformConfig& cfg, const std::string& pasm) {
  return nlohmann::json::parse(photon_test::run_forked([&] {
    photon::Platform plat(cfg);
    plat.load(photon::pcs::assemble(pasm, "bulk_test"));
    const photon::RunOutcome o = plat.run();
    return nlohmann::json{{"status", int(o.status)}, {"message", o.message}, {"t", o.simulated_time_ns}}
        .dump();
  }));
}

/// Simulated time (ns) of a timing-mode run that must finish.
double run_time(const photon::PlatformConfig& cfg, const std::string& pasm) {
  const auto j = run_outcome(cfg, pasm);
  EXPECT_EQ(j["status"], int(photon::RunOutcome::Status::Done)) << pasm;
  return j["t"].get<double>();
}

}  // namespace

// 64-byte bursts and a 1-byte threshold: every copy below takes the bulk path and splits into a
// partial row, the rest of a plane and the remaining planes (evenly spaced or not).
TEST(DmaBulk, EveryStreamSplitIsByteExact) {
  const std::string out = photon_test::run_forked([] {
    photon::PlatformConfig cfg;
    cfg.sim.mode = photon::SimMode::Functional;
    cfg.dma.burst_bytes = 64;
    cfg.dma.bulk_bytes = 1;
    photon::pcs::Program p = photon::pcs::assemble(
        "dma src=0x0 dst=0x100000 inner_bytes=4000\n"                                      // 1-D
        "dma src=0x0 dst=0x200000 inner_bytes=100 n1=9 src_stride1=300 dst_stride1=100\n"  // 2-D
        "dma src=0x0 dst=0x4000000000 inner_bytes=40 n1=5 n2=3 src_stride1=64 dst_stride1=40 "
        "src_stride2=320 dst_stride2=200\n"  // even planes
        "dma src=0x0 dst=0x300000 inner_bytes=70 n1=4 n2=3 src_stride1=80 dst_stride1=70 "
        "src_stride2=1000 dst_stride2=300\n"                   // uneven planes
        "dma src=0x4000000000 dst=0x400000 inner_bytes=600\n"  // back from SPM
        "end\n",
        "bulk_bytes");
    photon::pcs::Segment s;
    s.address = 0;
    s.bytes = pattern(4096);
    p.segments.push_back(s);
    photon::Platform plat(cfg);
    plat.load(p);
    const photon::RunOutcome o = plat.run();
    const auto src = pattern(4096);
    auto read = [&](uint64_t a, size_t n) {
      std::vector<uint8_t> v(n);
      plat.read(a, v.data(), n);
      return v;
    };
    const auto one = read(0x100000, 4000), two = read(0x200000, 900), three = read(0x300000, 900),
               back = read(0x400000, 600);
    bool ok1 = std::equal(one.begin(), one.end(), src.begin()), ok2 = true, ok3 = true, ok4 = true;
    for (int r = 0; r < 9; ++r)
      for (int b = 0; b < 100; ++b) ok2 = ok2 && two[r * 100 + b] == src[r * 300 + b];
    for (int i2 = 0; i2 < 3; ++i2)
      for (int i1 = 0; i1 < 4; ++i1)
        for (int b = 0; b < 70; ++b)
          ok3 = ok3 && three[i2 * 300 + i1 * 70 + b] == src[i2 * 1000 + i1 * 80 + b];
    // The scratchpad copy (planes of 5 rows of 40 bytes, 200 bytes apart) read back linearly.
    for (int i2 = 0; i2 < 3; ++i2)
      for (int i1 = 0; i1 < 5; ++i1)
        for (int b = 0; b < 40; ++b) ok4 = ok4 && back[i2 * 200 + i1 * 40 + b] == src[i2 * 320 + i1 * 64 + b];
    return nlohmann::json{
        {"status", int(o.status)}, {"one", ok1}, {"two", ok2}, {"three", ok3}, {"four", ok4}}
        .dump();
  });
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["status"], int(photon::RunOutcome::Status::Done));
  EXPECT_TRUE(j["one"]);
  EXPECT_TRUE(j["two"]);
  EXPECT_TRUE(j["three"]);
  EXPECT_TRUE(j["four"]);
}

// A long HBM -> scratchpad copy moves at the HBM streaming rate: hbm2 peak (8 channels x 32 B
// per tCK of 1 ns = 256 GB/s) less all-bank refresh, peak x (1 - tRFC / tREFI) (JEDEC JESD235;
// models/hbm/README.md). The copy's own time is the difference of runs with two and one copies.
TEST(DmaBulk, LongCopyStreamsAtTheHbmRate) {
  photon::PlatformConfig cfg;
  const std::string copy = "dma src=0x0 dst=0x4000000000 inner_bytes=8388608\n";
  const double t1 = run_time(cfg, copy + "end\n"), t2 = run_time(cfg, copy + copy + "end\n");
  const double rate = 8388608.0 / (t2 - t1);  // bytes / ns = GB/s
  const double expected = 256.0 * (1.0 - double(cfg.hbm.tRFC) / double(cfg.hbm.tREFI));
  EXPECT_NEAR(rate, expected, 0.04 * expected);
}

// With one request in flight the engine, not the memory, sets the rate: the bulk path's Little's
// law bound (the fastest measured round trip per burst) is within 8 % of the exact path, where
// every burst waits for the previous one (and some meet a row miss or a refresh); without the
// bound the copy would take a third less.
TEST(DmaBulk, OutstandingWindowLimitMatchesTheExactPath) {
  photon::PlatformConfig cfg;
  cfg.dma.outstanding = 1;
  const std::string copy = "dma src=0x0 dst=0x4000000000 inner_bytes=2097152\nend\n";
  const double bulk = run_time(cfg, copy);
  cfg.dma.bulk_bytes = 0;
  const double exact = run_time(cfg, copy);
  EXPECT_NEAR(bulk, exact, 0.08 * exact);
}

// Short rows: the engine issues one request per row (not per burst_bytes of data), so with one
// request in flight 4096 rows of 256 bytes take 4096 round trips: within 15 % of the exact path.
TEST(DmaBulk, ShortRowsCountOneRequestPerRow) {
  photon::PlatformConfig cfg;
  cfg.dma.outstanding = 1;
  const std::string copy =
      "dma src=0x0 dst=0x4000000000 inner_bytes=256 n1=4096 src_stride1=4096 dst_stride1=256\nend\n";
  const double bulk = run_time(cfg, copy);
  cfg.dma.bulk_bytes = 0;
  const double exact = run_time(cfg, copy);
  EXPECT_NEAR(bulk, exact, 0.15 * exact);
}

// A descriptor whose size (inner_bytes x n1 x n2) wraps 64 bits, or whose strides wrap the
// address space, stops the queue with a unit error before anything moves.
TEST(DmaBulk, OversizedOrWrappingDescriptorsAreUnitErrors) {
  for (const char* pasm :
       {"dma src=0x0 dst=0x0 inner_bytes=4294967295 n1=4294967295 n2=4294967295\nend\n",
        "dma src=0x0 dst=0x4000000000 inner_bytes=1048576 n1=3 src_stride1=0x8000000000000000 "
        "dst_stride1=1048576\nend\n"}) {
    const auto j = run_outcome(photon::PlatformConfig{}, pasm);
    EXPECT_EQ(j["status"], int(photon::RunOutcome::Status::UnitError)) << pasm;
    const std::string m = j["message"];
    EXPECT_TRUE(m.find("1 TiB") != std::string::npos || m.find("overflows") != std::string::npos) << m;
  }
}

// The platform plans the HBM calibrations of a program's bulk copies before the run
// (Platform::plan_hbm_calibrations, DmaUnit::bulk_streams): on copies of five stream shapes in
// both directions, the plan foresees exactly the calibrations the run makes, and the run with
// helper threads computing them is the run without.
TEST(DmaBulk, ThePlanForeseesEveryHbmCalibration) {
  const std::string pasm =
      "dma src=0x0 dst=0x4000000000 inner_bytes=1048576\n"                                 // contiguous
      "dma src=0x4000000000 dst=0x200000 inner_bytes=1048576\n"                            // SPM -> HBM
      "dma src=0x400000 dst=0x4000000000 inner_bytes=2048 n1=256 src_stride1=8192\n"        // strided
      "dma src=0x4000000000 dst=0x800000 inner_bytes=2048 n1=256 dst_stride1=12288\n"      // strided back
      "dma src=0xc00000 dst=0x4000000000 inner_bytes=4096 n1=32 n2=4 src_stride1=16384 "
      "src_stride2=1048576\n"                                                              // 3-D
      "dma src=0x1000000 dst=0x4000000000 inner_bytes=1048576\n"                           // known shape
      "end\n";
  auto run = [&](unsigned threads) {
    return nlohmann::json::parse(photon_test::run_forked([&] {
      photon::PlatformConfig cfg;
      cfg.sim.helper_threads = threads;
      photon::Platform plat(cfg);
      plat.load(photon::pcs::assemble(pasm, "plan_test"));
      const photon::RunOutcome o = plat.run();
      const photon::HbmController& h = plat.hbm().controller();
      return nlohmann::json{{"status", int(o.status)}, {"t", o.simulated_time_ns},
                            {"calibrations", h.calibrations()}, {"planned", h.planned_calibrations()},
                            {"hbm", plat.report(o).to_json()["hbm"]}}
          .dump();
    }));
  };
  const auto plain = run(0), planned = run(1);
  EXPECT_EQ(plain["status"], int(photon::RunOutcome::Status::Done));
  EXPECT_EQ(plain["planned"], 0);
  EXPECT_GE(plain["calibrations"].get<int>(), 5);
  EXPECT_EQ(planned["planned"], plain["calibrations"]);
  EXPECT_EQ(planned["calibrations"], plain["calibrations"]);
  EXPECT_EQ(planned["t"], plain["t"]);
  EXPECT_EQ(planned["hbm"], plain["hbm"]);
}

// A copy that execute() refuses (its source extent overflows 64-bit addresses) plans nothing.
TEST(DmaBulk, ARefusedCopyPlansNoCalibration) {
  const auto j = nlohmann::json::parse(photon_test::run_forked([] {
    photon::PlatformConfig cfg;
    photon::Platform plat(cfg);
    plat.load(photon::pcs::assemble(
        "dma src=0x0 dst=0x4000000000 inner_bytes=131072 n1=3 src_stride1=0x8000000000000000\n"
        "end\n",
        "refused"));
    return nlohmann::json{{"planned", plat.hbm().controller().planned_calibrations()}}.dump();
  }));
  EXPECT_EQ(j["planned"], 0);
}
