// Register-level bench of every unit in the unit table, without firmware (as VCML's model tests
// drive a model through its sockets): a bench initiator on the control bus enables the
// interrupts, stages a command in QUEUE.CMD[0..15] and writes its index to QUEUE.PUSH (the
// unit's doorbell), sleeps on the interrupt line, then reads IRQ.PENDING and the QUEUE status
// registers. Each unit runs one valid command, whose result in memory is checked against a
// plain computation, and one with an operand outside the scratchpad, which must stop the queue
// with ERR, ERROR_CODE = UNIT_ERR_ADDRESS and ERROR_CMD = the pushed index, writing nothing.
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <nlohmann/json.hpp>

#include "isa/command.h"
#include "models/hbm/hbm.h"
#include "models/scratchpad/scratchpad.h"
#include "photon_regs.h"
#include "platform/control_bus.h"
#include "platform/irq_controller.h"
#include "platform/noc/router.h"
#include "platform/semaphores.h"
#include "soc/platform_config.h"
#include "soc/unit_table.h"
#include "tests/support/forked.h"

namespace photon {
namespace {

constexpr uint32_t kIndex = 7;  // the command's stream index, as the firmware would push it

/// One bench case: fills memory, gives the command, checks memory afterwards.
struct BenchCase {
  std::function<void(uint8_t* spm, Hbm& hbm, const PlatformConfig& cfg)> setup;
  std::function<pcs::Command(const PlatformConfig& cfg, bool bad)> command;
  std::function<bool(const uint8_t* spm)> result_ok;
};

float* f32(uint8_t* spm, uint32_t off) { return reinterpret_cast<float*>(spm + off); }
const float* f32(const uint8_t* spm, uint32_t off) { return reinterpret_cast<const float*>(spm + off); }

std::map<std::string, BenchCase> bench_cases() {
  std::map<std::string, BenchCase> cases;
  // DMA: 256 bytes HBM -> scratchpad offset 0x100.
  cases["dma"] = {[](uint8_t*, Hbm& hbm, const PlatformConfig&) {
                    std::vector<uint8_t> v(256);
                    for (int i = 0; i < 256; ++i) v[i] = uint8_t(i * 7 + 3);
                    hbm.write_bytes(0x1000, v.data(), v.size());
                  },
                  [](const PlatformConfig& cfg, bool bad) {
                    pcs::DmaCopy d;
                    d.src = cfg.noc.hbm_base + 0x1000;
                    d.dst = cfg.noc.scratchpad_base + (bad ? cfg.scratchpad.size_bytes() - 128 : 0x100);
                    d.inner_bytes = 256;
                    return pcs::make_dma(d);
                  },
                  [](const uint8_t* spm) {
                    for (int i = 0; i < 256; ++i)
                      if (spm[0x100 + i] != uint8_t(i * 7 + 3)) return false;
                    return true;
                  }};
  // Optical GEMM: C[2x2] = A[2x3] * B[3x2] in ideal numerics.
  cases["optical_gemm"] = {[](uint8_t* spm, Hbm&, const PlatformConfig&) {
                             const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 8, 9, 10, 11, 12};
                             std::memcpy(spm + 0, a, sizeof a);
                             std::memcpy(spm + 64, b, sizeof b);
                           },
                           [](const PlatformConfig& cfg, bool bad) {
                             pcs::Gemm g;
                             g.a = 0;
                             g.b = 64;
                             g.c = bad ? uint32_t(cfg.scratchpad.size_bytes() - 8) : 128;
                             g.m = 2;
                             g.n = 2;
                             g.k = 3;
                             g.lda = 3;
                             g.ldb = 2;
                             g.ldc = 2;
                             return pcs::make_gemm(g);
                           },
                           [](const uint8_t* spm) {
                             const float* c = f32(spm, 128);
                             // [1 2 3; 4 5 6] x [7 8; 9 10; 11 12] = [58 64; 139 154]
                             return c[0] == 58 && c[1] == 64 && c[2] == 139 && c[3] == 154;
                           }};
  // NTT unit: element-wise addition mod q = 97 (prime, 97 = 1 mod 2N for N = 16) of one limb.
  cases["ntt"] = {[](uint8_t* spm, Hbm&, const PlatformConfig&) {
                    auto* w = reinterpret_cast<uint64_t*>(spm);
                    for (int i = 0; i < 16; ++i) {
                      w[i] = uint64_t(i * 11 % 97);       // src0 at 0
                      w[32 + i] = uint64_t(i * 29 % 97);  // src1 at 256
                    }
                    w[128] = 97;  // moduli at 1024
                  },
                  [](const PlatformConfig& cfg, bool bad) {
                    pcs::Ntt n;
                    n.op = pcs::Ntt::kAddMod;
                    n.log_n = 4;
                    n.limbs = 1;
                    n.src0 = 0;
                    n.src1 = 256;
                    n.dst = bad ? uint32_t(cfg.scratchpad.size_bytes() - 64) : 512;
                    n.moduli = 1024;
                    return pcs::make_ntt(n);
                  },
                  [](const uint8_t* spm) {
                    const auto* w = reinterpret_cast<const uint64_t*>(spm);
                    for (int i = 0; i < 16; ++i)
                      if (w[64 + i] != (uint64_t(i * 11 % 97) + uint64_t(i * 29 % 97)) % 97) return false;
                    return true;
                  }};
  // Vector unit: ReLU of 16 values.
  cases["vector"] = {[](uint8_t* spm, Hbm&, const PlatformConfig&) {
                       for (int i = 0; i < 16; ++i) f32(spm, 0)[i] = float(i - 8) * 0.5f;
                     },
                     [](const PlatformConfig& cfg, bool bad) {
                       pcs::Vector v;
                       v.op = pcs::Vector::kRelu;
                       v.src0 = 0;
                       v.dst = bad ? uint32_t(cfg.scratchpad.size_bytes() - 16) : 256;
                       v.n = 16;
                       return pcs::make_vector(v);
                     },
                     [](const uint8_t* spm) {
                       for (int i = 0; i < 16; ++i)
                         if (f32(spm, 256)[i] != std::max(0.0f, float(i - 8) * 0.5f)) return false;
                       return true;
                     }};
  return cases;
}

/// The bench's initiator on the control bus: 32-bit register accesses, time annotated and synced.
struct BenchCpu : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<BenchCpu> ctrl;
  tlm_utils::simple_initiator_socket<BenchCpu> data;  ///< on the data NoC, as the firmware CPU is (unused)
  explicit BenchCpu(sc_core::sc_module_name n) : sc_module(n), ctrl("ctrl"), data("data") {}
  uint32_t access(bool write, uint32_t addr, uint32_t value = 0) {
    tlm::tlm_generic_payload gp;
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    ctrl->b_transport(gp, d);
    wait(d);
    if (gp.get_response_status() != tlm::TLM_OK_RESPONSE)
      throw std::runtime_error("bus error at " + std::to_string(addr));
    return value;
  }
};

/// Runs one unit's case through its registers; returns the registers read after the interrupt.
nlohmann::json run_bench(const std::string& unit, bool bad) {
  const PlatformConfig cfg;  // defaults; functional mode so that data moves
  const UnitDesc* desc = nullptr;
  for (const auto& u : unit_table())
    if (u.name == unit) desc = &u;
  const BenchCase bc = bench_cases().at(unit);
  IrqController irq("irq");
  Semaphores sems("sem", cfg.cpu.semaphores);
  ControlBus bus("bus", sc_core::sc_time(cfg.cpu.mmio_latency_cycles / cfg.cpu.clock_ghz, sc_core::SC_NS));
  DataRouter noc("noc", cfg.noc);
  Hbm hbm("hbm", cfg.hbm, true);
  Scratchpad spm("scratchpad", cfg.scratchpad, true);
  QueueUnit::Wiring w;
  w.regs_instance = desc->hw().name;
  w.unit = desc->name;
  w.irq = &irq;
  w.sems = &sems;
  w.depth = cfg.cpu.queue_depth;
  w.done_bit = desc->hw().done_bit;
  w.err_bit = desc->hw().err_bit;
  std::unique_ptr<QueueUnit> u = desc->impls.front().make(UnitContext{cfg, true, spm.view(), w});
  BenchCpu cpu("cpu");
  cpu.ctrl.bind(bus.ctrl);
  cpu.data.bind(noc.in);
  bus.attach(&irq.regs());
  bus.attach(&sems.regs());
  bus.attach(&u->regs());
  if (auto* s = u->data_initiator()) s->bind(noc.in);
  noc.map_target("hbm", cfg.noc.hbm_base, cfg.hbm.capacity_bytes());
  noc.out.bind(hbm.mem);
  noc.map_target("scratchpad", cfg.noc.scratchpad_base, cfg.scratchpad.size_bytes());
  noc.out.bind(spm.mem);
  bc.setup(spm.view().data, hbm, cfg);
  std::vector<uint8_t> before(spm.view().data, spm.view().data + cfg.scratchpad.size_bytes());

  nlohmann::json out;
  sc_core::sc_spawn([&] {
    const uint32_t q = desc->hw().queue_base;
    cpu.access(true, PHOTON_IRQ_BASE + PHOTON_IRQ_ENABLE, (1u << w.done_bit) | (1u << w.err_bit));
    uint8_t bytes[pcs::kCommandBytes];
    pcs::encode(bc.command(cfg, bad), bytes);
    for (uint32_t i = 0; i < PHOTON_QUEUE_CMD_COUNT; ++i) {
      uint32_t word;
      std::memcpy(&word, bytes + 4 * i, 4);
      cpu.access(true, q + PHOTON_QUEUE_CMD(i), word);
    }
    cpu.access(true, q + PHOTON_QUEUE_PUSH, kIndex);
    // Sleep on the interrupt line until the queue is idle (DONE with BUSY clear) or stopped.
    for (;;) {
      if (!irq.asserted()) irq.wait_line();
      const uint32_t status = cpu.access(false, q + PHOTON_QUEUE_STATUS);
      if (!(status & PHOTON_QUEUE_STATUS_BUSY_MASK) || (status & PHOTON_QUEUE_STATUS_ERROR_MASK)) break;
      cpu.access(true, PHOTON_IRQ_BASE + PHOTON_IRQ_ACK, 1u << w.done_bit);
    }
    out["pending"] = cpu.access(false, PHOTON_IRQ_BASE + PHOTON_IRQ_PENDING);
    out["status"] = cpu.access(false, q + PHOTON_QUEUE_STATUS);
    out["done_count"] = cpu.access(false, q + PHOTON_QUEUE_DONE_COUNT);
    out["error_code"] = cpu.access(false, q + PHOTON_QUEUE_ERROR_CODE);
    out["error_cmd"] = cpu.access(false, q + PHOTON_QUEUE_ERROR_CMD);
    out["time_ns"] = sc_core::sc_time_stamp().to_seconds() * 1e9;
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  out["result_ok"] = bc.result_ok(spm.view().data);
  out["unchanged"] = std::memcmp(before.data(), spm.view().data, before.size()) == 0;
  out["done_bit"] = w.done_bit;
  out["err_bit"] = w.err_bit;
  return out;
}

class UnitBench : public ::testing::TestWithParam<std::string> {};

TEST_P(UnitBench, CommandThroughRegistersCompletesWithDone) {
  const std::string out = photon_test::run_forked([&] { return run_bench(GetParam(), false).dump(); });
  const auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << out;
  EXPECT_TRUE(j["pending"].get<uint32_t>() & (1u << j["done_bit"].get<uint32_t>()));
  EXPECT_FALSE(j["pending"].get<uint32_t>() & (1u << j["err_bit"].get<uint32_t>()));
  EXPECT_EQ(j["status"].get<uint32_t>() & (PHOTON_QUEUE_STATUS_BUSY_MASK | PHOTON_QUEUE_STATUS_ERROR_MASK),
            0u);
  EXPECT_EQ(j["done_count"], 1);
  EXPECT_EQ(j["error_code"], PHOTON_UNIT_ERR_NONE);
  EXPECT_TRUE(j["result_ok"]) << GetParam() << ": the result in memory is wrong";
  EXPECT_GT(j["time_ns"].get<double>(), 0.0);
}

TEST_P(UnitBench, OperandOutsideTheScratchpadStopsTheQueueWithErr) {
  const std::string out = photon_test::run_forked([&] { return run_bench(GetParam(), true).dump(); });
  const auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << out;
  EXPECT_TRUE(j["pending"].get<uint32_t>() & (1u << j["err_bit"].get<uint32_t>()));
  EXPECT_TRUE(j["status"].get<uint32_t>() & PHOTON_QUEUE_STATUS_ERROR_MASK);
  EXPECT_EQ(j["error_code"], PHOTON_UNIT_ERR_ADDRESS);
  EXPECT_EQ(j["error_cmd"], kIndex);
  EXPECT_EQ(j["done_count"], 0);
  EXPECT_TRUE(j["unchanged"]) << GetParam() << ": a failing command wrote to the scratchpad";
}

std::vector<std::string> unit_names() {
  std::vector<std::string> names;
  for (const auto& u : unit_table()) names.push_back(u.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(EveryUnit, UnitBench, ::testing::ValuesIn(unit_names()));

TEST(UnitBench, EveryUnitOfTheTableHasABenchCase) {
  for (const auto& u : unit_table())
    EXPECT_TRUE(bench_cases().count(u.name)) << u.name << " has no bench case";
}

}  // namespace
}  // namespace photon
