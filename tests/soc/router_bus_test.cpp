// Data NoC router decode, rebasing, bandwidth timing and error responses; control-bus error
// responses for unmapped addresses and access-rule violations.
#include <cstring>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <nlohmann/json.hpp>

#include "models/scratchpad/scratchpad.h"
#include "photon_regs.h"
#include "platform/control_bus.h"
#include "platform/noc/router.h"
#include "platform/regs/register_block.h"
#include "tests/support/forked.h"

namespace {

struct Initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Initiator> sock;
  explicit Initiator(sc_core::sc_module_name n) : sc_module(n), sock("sock") {}
  /// One transaction at time 0 + delay; returns {response, delay ns}.
  std::pair<tlm::tlm_response_status, double> access(bool write, uint64_t addr, uint8_t* data, unsigned len) {
    tlm::tlm_generic_payload gp;
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(data);
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    sock->b_transport(gp, d);
    return {gp.get_response_status(), d.to_seconds() * 1e9};
  }
};

}  // namespace

TEST(DataRouter, DecodesRebasesTimesAndRejectsUnmapped) {
  std::string out = photon_test::run_forked([] {
    photon::NocConfig noc;
    noc.port_bandwidth_gbps = 64.0;  // 64 bytes per ns
    noc.hop_latency_ns = 2.0;
    photon::ScratchpadConfig sc;
    sc.size_kib = 64;
    sc.banks = 16;
    sc.bank_width_bytes = 4;  // 64 bytes per cycle
    sc.latency_cycles = 3;
    sc.clock_ghz = 1.0;
    Initiator ini("ini");
    photon::DataRouter router("noc", noc);
    photon::Scratchpad a("a", sc, true), b("b", sc, true);
    ini.sock.bind(router.in);
    router.map_target("a", 0x1000'0000, sc.size_bytes());
    router.out.bind(a.mem);
    router.map_target("b", 0x2000'0000, sc.size_bytes());
    router.out.bind(b.mem);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    uint8_t data[256];
    for (int i = 0; i < 256; ++i) data[i] = uint8_t(i);
    auto w = ini.access(true, 0x2000'0100, data, 256);
    uint8_t back[256] = {};
    std::memcpy(back, b.view().data + 0x100, 256);  // rebased to offset 0x100 of target b
    auto r_unmapped = ini.access(false, 0x3000'0000, data, 64);
    auto r_straddle = ini.access(false, 0x1000'0000 + sc.size_bytes() - 32, data, 64);
    nlohmann::json j = {{"write_ok", w.first == tlm::TLM_OK_RESPONSE},
                        {"write_delay_ns", w.second},
                        {"data_ok", std::memcmp(back, data, 256) == 0},
                        {"a_untouched", a.view().data[0x100] == 0},
                        {"unmapped", r_unmapped.first == tlm::TLM_ADDRESS_ERROR_RESPONSE},
                        {"straddle", r_straddle.first == tlm::TLM_ADDRESS_ERROR_RESPONSE},
                        {"decode_errors", router.decode_errors()},
                        {"last_error", router.last_error()}};
    return j.dump();
  });
  auto j = nlohmann::json::parse(out);
  EXPECT_TRUE(j["write_ok"]);
  EXPECT_TRUE(j["data_ok"]);
  EXPECT_TRUE(j["a_untouched"]);
  // Closed form: hop 2 ns + scratchpad busy ceil(256/4 words / 16 banks) = 4 cycles + latency
  // 3 cycles at 1 GHz = 9 ns (the port was free, so no queueing).
  EXPECT_DOUBLE_EQ(j["write_delay_ns"].get<double>(), 2.0 + 4.0 + 3.0);
  EXPECT_TRUE(j["unmapped"]);
  EXPECT_TRUE(j["straddle"]);
  EXPECT_EQ(j["decode_errors"], 2);
  EXPECT_NE(j["last_error"].get<std::string>().find("unmapped address 0x"), std::string::npos);
}

TEST(DataRouter, PortBandwidthSerialisesBackToBackTransfers) {
  std::string out = photon_test::run_forked([] {
    photon::NocConfig noc;
    noc.port_bandwidth_gbps = 16.0;  // 16 bytes per ns
    noc.hop_latency_ns = 0.0;
    photon::ScratchpadConfig sc;
    sc.size_kib = 64;
    sc.latency_cycles = 0;
    Initiator ini("ini");
    photon::DataRouter router("noc", noc);
    photon::Scratchpad a("a", sc, false);
    ini.sock.bind(router.in);
    router.map_target("a", 0, sc.size_bytes());
    router.out.bind(a.mem);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    uint8_t data[1024] = {};
    auto first = ini.access(false, 0, data, 1024);
    auto second = ini.access(false, 4096, data, 1024);
    return nlohmann::json{{"first", first.second}, {"second", second.second}}.dump();
  });
  auto j = nlohmann::json::parse(out);
  // 1024 bytes at 16 B/ns occupy the port for 64 ns: the second transfer, issued at the same
  // time, starts 64 ns later. Scratchpad busy: ceil(1024/64 words / 32 banks) = 1 cycle = 1 ns.
  EXPECT_DOUBLE_EQ(j["first"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["second"].get<double>(), 64.0 + 1.0);
}

TEST(ControlBus, ErrorResponsesForUnmappedAndForbiddenAccesses) {
  std::string out = photon_test::run_forked([] {
    Initiator ini("ini");
    photon::ControlBus bus("bus", sc_core::sc_time(10, sc_core::SC_NS));
    photon::RegisterBlock sys("SYS"), dma("DMA");
    bus.attach(&sys);
    bus.attach(&dma);
    ini.sock.bind(bus.ctrl);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    uint32_t v = 0;
    auto id = ini.access(false, PHOTON_SYS_BASE + PHOTON_SYS_ID, reinterpret_cast<uint8_t*>(&v), 4);
    uint32_t id_value = v;
    uint32_t one = 1;
    auto ro = ini.access(true, PHOTON_SYS_BASE + PHOTON_SYS_ID, reinterpret_cast<uint8_t*>(&one), 4);
    auto wo = ini.access(false, PHOTON_QUEUE_DMA_BASE + PHOTON_QUEUE_PUSH, reinterpret_cast<uint8_t*>(&v), 4);
    auto unmapped = ini.access(false, 0x9000, reinterpret_cast<uint8_t*>(&v), 4);
    return nlohmann::json{{"id_ok", id.first == tlm::TLM_OK_RESPONSE},
                          {"id", id_value},
                          {"latency", id.second},
                          {"ro", ro.first == tlm::TLM_COMMAND_ERROR_RESPONSE},
                          {"wo", wo.first == tlm::TLM_COMMAND_ERROR_RESPONSE},
                          {"unmapped", unmapped.first == tlm::TLM_ADDRESS_ERROR_RESPONSE},
                          {"errors", bus.errors()},
                          {"log", bus.error_log()}}
        .dump();
  });
  auto j = nlohmann::json::parse(out);
  EXPECT_TRUE(j["id_ok"]);
  EXPECT_EQ(j["id"], PHOTON_SYS_ID_RESET);
  EXPECT_DOUBLE_EQ(j["latency"].get<double>(), 10.0);
  EXPECT_TRUE(j["ro"]);
  EXPECT_TRUE(j["wo"]);
  EXPECT_TRUE(j["unmapped"]);
  EXPECT_EQ(j["errors"], 3);
  EXPECT_NE(j["log"][0].get<std::string>().find("read-only SYS.ID"), std::string::npos);
}

// A burst is the same accesses to consecutive registers, one by one: values, latency per word,
// and the errors of a burst that is not whole words, too long, past the block or refused.
TEST(ControlBus, BurstsAreConsecutiveSingleAccesses) {
  std::string out = photon_test::run_forked([] {
    Initiator ini("ini");
    photon::ControlBus bus("bus", sc_core::sc_time(10, sc_core::SC_NS));
    photon::RegisterBlock sys("SYS");
    bus.attach(&sys);
    ini.sock.bind(bus.ctrl);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    uint32_t ring[3] = {0x1000, 0x1, 4096};  // RING_BASE_LO, RING_BASE_HI, RING_SIZE
    auto w = ini.access(true, PHOTON_SYS_BASE + PHOTON_SYS_RING_BASE_LO, reinterpret_cast<uint8_t*>(ring), 12);
    uint32_t back[3] = {};
    auto r = ini.access(false, PHOTON_SYS_BASE + PHOTON_SYS_RING_BASE_LO, reinterpret_cast<uint8_t*>(back), 12);
    uint8_t buf[68] = {};
    auto odd = ini.access(true, PHOTON_SYS_BASE + PHOTON_SYS_STATUS, buf, 6);
    auto longer = ini.access(true, PHOTON_SYS_BASE + PHOTON_SYS_STATUS, buf, 68);
    auto past = ini.access(true, PHOTON_SYS_BASE + PHOTON_SYS_DISPATCHED, buf, 8);
    auto ro = ini.access(true, PHOTON_SYS_BASE + PHOTON_SYS_ID, buf, 8);
    return nlohmann::json{{"w", w.first == tlm::TLM_OK_RESPONSE},
                          {"w_ns", w.second},
                          {"r", r.first == tlm::TLM_OK_RESPONSE},
                          {"back", {back[0], back[1], back[2]}},
                          {"regs",
                           {sys.get(photon::regs::SYS::RING_BASE_LO), sys.get(photon::regs::SYS::RING_BASE_HI),
                            sys.get(photon::regs::SYS::RING_SIZE)}},
                          {"odd", odd.first == tlm::TLM_BURST_ERROR_RESPONSE},
                          {"longer", longer.first == tlm::TLM_BURST_ERROR_RESPONSE},
                          {"past", past.first == tlm::TLM_BURST_ERROR_RESPONSE},
                          {"ro", ro.first == tlm::TLM_COMMAND_ERROR_RESPONSE},
                          {"log", bus.error_log()}}
        .dump();
  });
  auto j = nlohmann::json::parse(out);
  EXPECT_TRUE(j["w"]);
  EXPECT_DOUBLE_EQ(j["w_ns"].get<double>(), 30.0);  // 3 words at 10 ns
  EXPECT_TRUE(j["r"]);
  EXPECT_EQ(j["back"], nlohmann::json({0x1000, 1, 4096}));
  EXPECT_EQ(j["regs"], nlohmann::json({0x1000, 1, 4096}));
  EXPECT_TRUE(j["odd"]);
  EXPECT_TRUE(j["longer"]);
  EXPECT_TRUE(j["past"]);
  EXPECT_TRUE(j["ro"]);
  ASSERT_EQ(j["log"].size(), 4u);
  EXPECT_NE(j["log"][0].get<std::string>().find("6 bytes"), std::string::npos) << j["log"][0];
  EXPECT_NE(j["log"][2].get<std::string>().find("runs past the end of block SYS"), std::string::npos) << j["log"][2];
  EXPECT_NE(j["log"][3].get<std::string>().find("read-only SYS.ID"), std::string::npos) << j["log"][3];
}
