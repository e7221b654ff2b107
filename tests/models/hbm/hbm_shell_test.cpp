// SystemC shell: a small initiator does b_transport against Hbm::mem (write, read back, error
// responses) in one elaboration (SystemC allows one sc_start-based elaboration per process).
#include <cstring>
#include <vector>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "base/error.h"
#include "models/hbm/hbm.h"

// libsystemc references sc_main; GoogleTest's main() drives this binary.
int sc_main(int, char**) { return 0; }

namespace {

struct Initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Initiator> data{"data"};
  std::vector<uint8_t> readback;
  tlm::tlm_response_status write_status{}, read_status{}, range_status{}, be_status{}, stream_status{};
  sc_core::sc_time write_delay, read_delay, read_start;
  uint64_t off = 0;

  SC_HAS_PROCESS(Initiator);
  explicit Initiator(sc_core::sc_module_name n) : sc_core::sc_module(n) { SC_THREAD(run); }

  tlm::tlm_response_status xfer(tlm::tlm_command cmd, uint64_t addr, uint8_t* p, unsigned len,
                                sc_core::sc_time& delay, unsigned char* be = nullptr, unsigned sw = 0) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(p);
    gp.set_data_length(len);
    gp.set_streaming_width(sw ? sw : len);
    gp.set_byte_enable_ptr(be);
    gp.set_byte_enable_length(be ? len : 0);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    data->b_transport(gp, delay);
    return gp.get_response_status();
  }

  void run() {
    std::vector<uint8_t> pattern(256);
    for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = uint8_t(i * 7 + 3);
    wait(sc_core::sc_time(100, sc_core::SC_NS));
    write_delay = sc_core::SC_ZERO_TIME;
    write_status = xfer(tlm::TLM_WRITE_COMMAND, off, pattern.data(), 256, write_delay);
    wait(write_delay);
    wait(sc_core::sc_time(1000, sc_core::SC_NS));
    readback.assign(256, 0);
    read_start = sc_core::sc_time_stamp();
    read_delay = sc_core::SC_ZERO_TIME;
    read_status = xfer(tlm::TLM_READ_COMMAND, off, readback.data(), 256, read_delay);
    wait(read_delay);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    uint8_t buf[64];
    range_status = xfer(tlm::TLM_READ_COMMAND, uint64_t(8) << 30, buf, 64, d);
    unsigned char be[64];
    std::memset(be, 0xff, sizeof be);
    be_status = xfer(tlm::TLM_READ_COMMAND, 0, buf, 64, d, be);
    stream_status = xfer(tlm::TLM_READ_COMMAND, 0, buf, 64, d, nullptr, 8);
  }
};

TEST(HbmShell, WriteReadBackAndErrors) {
  photon::HbmConfig cfg;
  cfg.apply_preset("hbm2");
  photon::Hbm hbm("hbm", cfg, /*functional=*/true);
  Initiator init("init");
  init.off = 0x12340;
  init.data.bind(hbm.mem);
  sc_core::sc_start();

  EXPECT_EQ(init.write_status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(init.read_status, tlm::TLM_OK_RESPONSE);
  for (size_t i = 0; i < 256; ++i) ASSERT_EQ(init.readback[i], uint8_t(i * 7 + 3)) << i;
  EXPECT_EQ(init.range_status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(init.be_status, tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  EXPECT_EQ(init.stream_status, tlm::TLM_BURST_ERROR_RESPONSE);
  // Posted writes: the last of the 4 column accesses is accepted at cycle 100 and done at 101.
  EXPECT_EQ(init.write_delay, sc_core::sc_time(1, sc_core::SC_NS));
  // The read is served from the write buffer (the 4 writes are below the drain threshold):
  // 1 cycle after arrival.
  EXPECT_EQ(init.read_delay, sc_core::sc_time(1, sc_core::SC_NS));

  // Backdoor: no timing, same store; beyond the capacity is an Error.
  uint8_t b[4] = {1, 2, 3, 4}, c[4] = {};
  hbm.write_bytes(cfg.capacity_bytes() - 4, b, 4);
  hbm.read_bytes(cfg.capacity_bytes() - 4, c, 4);
  EXPECT_EQ(std::memcmp(b, c, 4), 0);
  EXPECT_THROW(hbm.write_bytes(cfg.capacity_bytes() - 2, b, 4), photon::Error);
  uint8_t z[8];
  hbm.read_bytes(uint64_t(5) << 30, z, 8);  // never written: zeros
  for (uint8_t v : z) EXPECT_EQ(v, 0);

  const auto rep = hbm.report();
  EXPECT_EQ(rep.at("bytes_written").get<uint64_t>(), 256u);
  EXPECT_EQ(rep.at("bytes_read").get<uint64_t>(), 256u);
  const auto st = hbm.stats();
  EXPECT_EQ(st.commands, 2u);
  EXPECT_EQ(st.counters.at("bytes_read"), 256.0);
  EXPECT_EQ(st.counters.at("refreshes"),
            double(uint64_t(sc_core::sc_time_stamp().to_seconds() * 1e9) / cfg.tREFI) * cfg.units());
}

}  // namespace
