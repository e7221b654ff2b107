// Whole-platform runs (firmware, queues, DMA, units) checked against memory contents and the
// run outcome. Each scenario runs in its own process (one SystemC elaboration per process).
#include <cstring>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "isa/assembler.h"
#include "soc/platform.h"
#include "soc/platform_config.h"
#include "tests/support/forked.h"

namespace {

constexpr uint64_t kSpm = 0x4000000000ull;  // noc.scratchpad_base default

photon::PlatformConfig functional_config() {
  photon::PlatformConfig cfg;
  cfg.sim.mode = photon::SimMode::Functional;
  return cfg;
}

std::vector<uint8_t> pattern(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t((i * 7 + 3) & 0xFF);
  return v;
}

}  // namespace

TEST(PlatformRun, DmaStridedCopiesAreByteExact) {
  std::string out = photon_test::run_forked([] {
    photon::PlatformConfig cfg = functional_config();
    photon::pcs::Program p = photon::pcs::assemble(
        "dma src=0x0 dst=0x100000 inner_bytes=4096\n"                                   // 1-D
        "dma src=0x0 dst=0x200000 inner_bytes=16 n1=8 src_stride1=64 dst_stride1=16\n"  // 2-D gather
        "dma src=0x0 dst=0x4000000000 inner_bytes=8 n1=4 n2=3 src_stride1=32 dst_stride1=8 "
        "src_stride2=256 dst_stride2=32\n"  // 3-D into scratchpad
        "dma src=0x4000000000 dst=0x300000 inner_bytes=96\n"
        "end\n",
        "dma_test");
    photon::pcs::Segment s;
    s.address = 0;
    s.bytes = pattern(4096);
    p.segments.push_back(s);
    photon::Platform plat(cfg);
    plat.load(p);
    photon::RunOutcome o = plat.run();
    std::vector<uint8_t> one(4096), two(128), three(96);
    plat.read(0x100000, one.data(), one.size());
    plat.read(0x200000, two.data(), two.size());
    plat.read(0x300000, three.data(), three.size());
    auto src = pattern(4096);
    bool ok1 = one == src, ok2 = true, ok3 = true;
    for (int r = 0; r < 8; ++r)
      for (int b = 0; b < 16; ++b) ok2 = ok2 && two[r * 16 + b] == src[r * 64 + b];
    for (int i2 = 0; i2 < 3; ++i2)
      for (int i1 = 0; i1 < 4; ++i1)
        for (int b = 0; b < 8; ++b) ok3 = ok3 && three[i2 * 32 + i1 * 8 + b] == src[i2 * 256 + i1 * 32 + b];
    return nlohmann::json{
        {"status", int(o.status)}, {"one", ok1}, {"two", ok2}, {"three", ok3}, {"t", o.simulated_time_ns}}
        .dump();
  });
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["status"], int(photon::RunOutcome::Status::Done));
  EXPECT_TRUE(j["one"]);
  EXPECT_TRUE(j["two"]);
  EXPECT_TRUE(j["three"]);
  EXPECT_GT(j["t"].get<double>(), 0);
}

TEST(PlatformRun, FailingDmaWritesNothingAndNamesTheCommand) {
  std::string out = photon_test::run_forked([] {
    photon::PlatformConfig cfg = functional_config();
    // The destination starts inside the scratchpad but runs past its end (8 MiB).
    photon::pcs::Program p = photon::pcs::assemble(
        "dma src=0x0 dst=0x1000 inner_bytes=64\n"
        "dma src=0x0 dst=0x40007ff000 inner_bytes=1024 n1=8 src_stride1=0 dst_stride1=1024\n"
        "end\n",
        "dma_err");
    photon::pcs::Segment s;
    s.address = 0;
    s.bytes = pattern(1024);
    p.segments.push_back(s);
    photon::Platform plat(cfg);
    plat.load(p);
    photon::RunOutcome o = plat.run();
    std::vector<uint8_t> tail(4096);
    plat.read(0x40007ff000, tail.data(), tail.size());
    bool untouched = true;
    for (auto b : tail) untouched = untouched && b == 0;
    return nlohmann::json{{"status", int(o.status)}, {"msg", o.message}, {"untouched", untouched}}.dump();
  });
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["status"], int(photon::RunOutcome::Status::UnitError));
  EXPECT_NE(j["msg"].get<std::string>().find("command 1"), std::string::npos) << j["msg"];
  EXPECT_NE(j["msg"].get<std::string>().find("destination"), std::string::npos) << j["msg"];
  EXPECT_TRUE(j["untouched"]);
}

TEST(PlatformRun, GemmThroughDmaAndFirmwareEqualsNaiveMatmul) {
  std::string out = photon_test::run_forked([] {
    photon::PlatformConfig cfg = functional_config();
    const int m = 8, n = 12, k = 20;
    std::vector<float> a(m * k), b(k * n);
    for (int i = 0; i < m * k; ++i) a[i] = float((i % 7) - 3);
    for (int i = 0; i < k * n; ++i) b[i] = float((i % 5) - 2);
    photon::pcs::Program p = photon::pcs::assemble(
        "dma src=0x0 dst=0x4000000000 inner_bytes=640\n"
        "dma src=0x1000 dst=0x4000001000 inner_bytes=960\n"
        "signal queue=dma sem=0\n"
        "wait queue=gemm sem=0\n"
        "gemm a=0x0 b=0x1000 c=0x2000 m=8 n=12 k=20 lda=20 ldb=12 ldc=12\n"
        "signal queue=gemm sem=1\n"
        "wait queue=dma sem=1\n"
        "dma src=0x4000002000 dst=0x8000 inner_bytes=384\n"
        "end\n",
        "gemm_test");
    photon::pcs::Segment sa, sb;
    sa.address = 0;
    sa.bytes.resize(a.size() * 4);
    std::memcpy(sa.bytes.data(), a.data(), sa.bytes.size());
    sb.address = 0x1000;
    sb.bytes.resize(b.size() * 4);
    std::memcpy(sb.bytes.data(), b.data(), sb.bytes.size());
    p.segments = {sa, sb};
    photon::Platform plat(cfg);
    plat.load(p);
    photon::RunOutcome o = plat.run();
    std::vector<float> c(m * n);
    plat.read(0x8000, c.data(), c.size() * 4);
    double max_err = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        float ref = 0;
        for (int x = 0; x < k; ++x) ref += a[i * k + x] * b[x * n + j];
        max_err = std::max(max_err, double(std::abs(ref - c[i * n + j])));
      }
    return nlohmann::json{{"status", int(o.status)}, {"max_err", max_err}}.dump();
  });
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["status"], int(photon::RunOutcome::Status::Done));
  EXPECT_EQ(j["max_err"].get<double>(), 0.0);  // integer-valued data: exact in ideal numerics
}

// docs/command-stream.md: a Signal raises its semaphore once every earlier command of its queue
// has completed, and later commands of the queue do not wait for it. Oracle: the trace's command
// times. The NTT unit accepts a command one cycle after issuing it (its engines pipeline), so the
// element-wise command after the Signal issues before the transform before it completes, and the DMA
// copy that waits on the semaphore starts no earlier than that completion.
TEST(PlatformRun, SignalIsPostedLaterCommandsOfItsQueueIssue) {
  std::string out = photon_test::run_forked([] {
    photon::PlatformConfig cfg;  // timing mode
    photon::pcs::Program p = photon::pcs::assemble(
        "ntt op=forward log_n=14 limbs=4 src0=0x0 dst=0x100000 moduli=0x200000\n"
        "signal queue=ntt sem=0\n"
        "ntt op=add_mod log_n=14 limbs=4 src0=0x0 src1=0x80000 dst=0x180000 moduli=0x200000\n"
        "wait queue=dma sem=0\n"
        "dma src=0x0 dst=0x1000 inner_bytes=4096\n"
        "end\n",
        "posted_signal_test");
    photon::Platform plat(cfg);
    plat.load(p);
    photon::RunOutcome o = plat.run();
    nlohmann::json j{{"status", int(o.status)}};
    for (const photon::TraceEvent& e : plat.trace().events())
      if (!e.sync && e.track.rfind("queue.", 0) == 0)
        j["cmd" + std::to_string(e.command)] = {e.start_ns, e.end_ns};
    return j.dump();
  });
  auto j = nlohmann::json::parse(out);
  ASSERT_EQ(j["status"], int(photon::RunOutcome::Status::Done)) << out;
  ASSERT_TRUE(j.contains("cmd0") && j.contains("cmd2") && j.contains("cmd4")) << out;
  const double a_end = j["cmd0"][1], b_start = j["cmd2"][0], copy_start = j["cmd4"][0];
  EXPECT_GT(a_end - j["cmd0"][0].get<double>(), 2000.0) << out;  // 4 limb-transforms of 2^14
  EXPECT_LT(b_start, a_end) << out;                              // not held by the Signal
  EXPECT_GE(copy_start, a_end) << out;                           // the Wait sees the completion
}
