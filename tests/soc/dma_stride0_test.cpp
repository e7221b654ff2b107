// A bulk DMA copy whose source stride is 0 (the same HBM bytes read for every row, as a
// broadcast does) on minimal command streams written for this test: every destination row holds
// the source row, and reading the same bytes is never slower than reading as many distinct ones
// (the HBM merges a read with a queued read of its address, and completes the merged reads per
// address, so the cost stays linear in the row count).
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "isa/assembler.h"
#include "soc/platform.h"
#include "soc/platform_config.h"
#include "tests/support/forked.h"

namespace {

/// Simulated ns of a timing-mode run of `pasm`, which must finish.
double run_time(const std::string& pasm) {
  const auto j = nlohmann::json::parse(photon_test::run_forked([&] {
    photon::Platform plat(photon::PlatformConfig{});
    plat.load(photon::pcs::assemble(pasm, "stride0"));
    const photon::RunOutcome o = plat.run();
    return nlohmann::json{{"status", int(o.status)}, {"t", o.simulated_time_ns}}.dump();
  }));
  EXPECT_EQ(j["status"], int(photon::RunOutcome::Status::Done)) << pasm;
  return j["t"].get<double>();
}

}  // namespace

TEST(DmaStride0, EveryRowHoldsTheSourceRow) {
  const std::string out = photon_test::run_forked([] {
    photon::PlatformConfig cfg;
    cfg.sim.mode = photon::SimMode::Functional;
    photon::pcs::Program p = photon::pcs::assemble(
        "dma src=0x0 dst=0x1000000 inner_bytes=256 n1=16384 src_stride1=0 dst_stride1=256\nend\n", "stride0");
    photon::pcs::Segment s;
    s.address = 0;
    for (int i = 0; i < 256; ++i) s.bytes.push_back(uint8_t(i * 7 + 3));
    p.segments.push_back(s);
    photon::Platform plat(cfg);
    plat.load(p);
    const photon::RunOutcome o = plat.run();
    std::vector<uint8_t> dst(256 * 16384);
    plat.read(0x1000000, dst.data(), dst.size());
    bool same = true;
    for (size_t k = 0; k < dst.size(); ++k) same = same && dst[k] == s.bytes[k % 256];
    return nlohmann::json{{"status", int(o.status)}, {"same", same}}.dump();
  });
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["status"], int(photon::RunOutcome::Status::Done));
  EXPECT_TRUE(j["same"]);
}

TEST(DmaStride0, ReadingTheSameBytesIsNoSlowerThanDistinctOnes) {
  for (const int rows : {8192, 16384}) {
    const std::string n = std::to_string(rows);
    const double same = run_time("dma src=0x0 dst=0x10000000 inner_bytes=256 n1=" + n +
                                 " src_stride1=0 dst_stride1=256\nend\n");
    const double distinct = run_time("dma src=0x0 dst=0x10000000 inner_bytes=256 n1=" + n +
                                     " src_stride1=256 dst_stride1=256\nend\n");
    EXPECT_LE(same, distinct * 1.01) << rows << " rows";
    EXPECT_GT(same, 0.0);
  }
}
