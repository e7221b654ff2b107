// The NTT unit's RTL shell (NttRtlUnit) against the TLM unit (ComputeUnit + NttEngine), command by
// command: a queue of NTTs, INTTs, element-wise ops, an automorphism and a base conversion with
// independent and dependent operands, pushed at once, must give every command the same start
// and end time (trace events), the same counters and the same scratchpad bytes. And a core that
// never finishes stops the queue with a unit error naming the time and the command.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cosim/ntt/ntt_rtl_unit.h"
#include "models/ntt/ntt_core.h"
#include "platform/compute_unit.h"
#include "platform/report/trace.h"
#include "tests/support/forked.h"

namespace {

using namespace photon;
using nlohmann::json;

constexpr uint32_t kLogN = 10, kN = 1u << kLogN;
constexpr uint64_t kLimb = uint64_t(kN) * 8;  // bytes

/// Scratchpad layout: moduli at 0 (3 primes), buffers of 3 limbs each from 64 KiB.
uint64_t buf(int i) { return 65536 + uint64_t(i) * 3 * kLimb; }

std::vector<pcs::Command> stream() {
  auto ntt = [](uint8_t op, uint64_t s0, uint64_t s1, uint64_t d, uint32_t limbs, uint32_t out = 0,
                uint32_t g = 1) {
    pcs::Ntt n;
    n.op = op;
    n.log_n = kLogN;
    n.limbs = limbs;
    n.out_limbs = out;
    n.src0 = uint32_t(s0);
    n.src1 = uint32_t(s1);
    n.dst = uint32_t(d);
    n.moduli = 0;
    n.galois = g;
    return pcs::make_ntt(n);
  };
  using N = pcs::Ntt;
  return {
      ntt(N::kForward, buf(0), 0, buf(0), 3),          // on the core
      ntt(N::kMulMod, buf(1), buf(2), buf(3), 3),      // independent: overlaps
      ntt(N::kMulMod, buf(0), buf(1), buf(4), 3),      // reads the NTT's output: waits (RAW)
      ntt(N::kForward, buf(5), 0, buf(6), 2),          // queues behind the first NTT
      ntt(N::kAddMod, buf(1), buf(2), buf(5), 3),      // writes what the NTT above reads (WAR)
      ntt(N::kInverse, buf(4), 0, buf(4), 3),          // reads the second MulMod's output
      ntt(N::kAutomorph, buf(6), 0, buf(7), 2, 0, 5),  // reads the second NTT's output
      ntt(N::kBConv, buf(4), 0, buf(8), 2, 1),         // 2 -> 1 limbs, after the INTT
      ntt(N::kForward, buf(8), 0, buf(8), 1),          // one limb: stages wait (T = 8)
      ntt(N::kSubMod, buf(2), buf(1), buf(9), 3),      // independent again
  };
}

/// Runs the stream on one implementation; returns {trace, counters, scratchpad digest} as JSON.
std::string run(const std::string& impl, bool never_done = false) {
  return photon_test::run_forked([&]() -> std::string {
    NttConfig cfg;  // the default unit: 64 lanes, 64-bit, pipeline_depth 20, 2 limbs interleaved
    cfg.word_bits = 64;
    std::vector<uint8_t> mem(buf(10));
    const std::vector<uint64_t> q = ntt::generate_ntt_primes(50, kLogN, 3);
    std::memcpy(mem.data(), q.data(), 24);
    std::mt19937_64 rng(3);
    for (uint64_t off = 65536; off + 8 <= mem.size(); off += 8) {
      const uint64_t v = rng() % q[2];  // below every modulus
      std::memcpy(mem.data() + off, &v, 8);
    }
    MemView spm{mem.data(), mem.size()};
    TraceRecorder trace;
    QueueUnit::Wiring w;
    w.regs_instance = "NTT";
    w.unit = "ntt";
    w.trace = &trace;
    w.depth = 64;
    std::unique_ptr<ComputeUnit> unit;
    if (impl == "rtl") {
      auto u = std::make_unique<NttRtlUnit>("ntt", cfg, CosimConfig{}, spm, w);
      if (never_done) {
        cosim::NttRtlStimulus s;
        s.out_stall = [](uint64_t) { return true; };
        u->core().set_stimulus(s);
      }
      unit = std::move(u);
    } else {
      unit = std::make_unique<ComputeUnit>("ntt", std::make_unique<NttEngine>(cfg), spm, w);
    }
    const auto cmds = stream();
    for (uint32_t i = 0; i < cmds.size(); ++i) unit->push(cmds[i], i);
    sc_core::sc_start();
    json r;
    r["failed"] = unit->failed();
    r["error"] = unit->error_message();
    for (const TraceEvent& e : trace.events()) r["trace"][std::to_string(e.command)] = {e.start_ns, e.end_ns};
    json c = unit->engine().counters();
    r["counters"] = c;
    r["busy_ns"] = unit->stats().busy_ns;
    uint64_t h = 1469598103934665603ull;
    for (uint8_t b : mem) h = (h ^ b) * 1099511628211ull;
    r["digest"] = h;
    return r.dump();
  });
}

TEST(NttRtlUnit, EveryCommandStartsAndEndsAsInTheTlmUnit) {
  const json tlm = json::parse(run("tlm")), rtl = json::parse(run("rtl"));
  EXPECT_FALSE(rtl["failed"].get<bool>()) << rtl["error"];
  ASSERT_EQ(tlm["trace"].size(), stream().size());
  EXPECT_EQ(tlm["trace"], rtl["trace"]);
  EXPECT_EQ(tlm["counters"], rtl["counters"]);
  EXPECT_EQ(tlm["busy_ns"], rtl["busy_ns"]);
  EXPECT_EQ(tlm["digest"], rtl["digest"]);
  // The independent MulMod overlaps the first NTT; the dependent one starts after it.
  const double ntt_end = tlm["trace"]["0"][1], mul1_end = tlm["trace"]["1"][1],
               mul2_end = tlm["trace"]["2"][1];
  EXPECT_LT(mul1_end, ntt_end);
  EXPECT_GT(mul2_end, ntt_end);
}

TEST(NttRtlUnit, CoreThatNeverAnswersStopsTheQueueNamingTimeAndCommand) {
  const json r = json::parse(run("rtl", true));
  EXPECT_TRUE(r["failed"].get<bool>());
  const std::string e = r["error"];
  EXPECT_NE(e.find("command 0: ntt: ntt core (rtl) at "), std::string::npos) << e;
  EXPECT_NE(e.find("command 0 (ntt forward, log_n 10, 3 limbs): no done within"), std::string::npos) << e;
}

}  // namespace
