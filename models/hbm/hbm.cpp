#include "models/hbm/hbm.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/error.h"
#include "platform/noc/stream_extension.h"

namespace photon {

Hbm::Hbm(sc_core::sc_module_name name, const HbmConfig& cfg, bool functional)
    : sc_core::sc_module(name), mem("mem"), cfg_(cfg), functional_(functional), hbm_(cfg) {
  mem.register_b_transport(this, &Hbm::b_transport);
  mem.register_transport_dbg(this, &Hbm::transport_dbg);
}

void Hbm::check_range(uint64_t off, uint64_t n, const char* what) const {
  if (off + n > cfg_.capacity_bytes() || off + n < off)
    throw Error(std::string("hbm ") + what + ": [" + std::to_string(off) + ", +" + std::to_string(n) +
                ") exceeds the capacity of " + std::to_string(cfg_.capacity_bytes()) + " bytes");
}

void Hbm::write_bytes(uint64_t off, const uint8_t* src, uint64_t n) {
  check_range(off, n, "write_bytes");
  store_.write(off, src, n);
}

void Hbm::read_bytes(uint64_t off, uint8_t* dst, uint64_t n) const {
  check_range(off, n, "read_bytes");
  store_.read(off, dst, n);
}

void Hbm::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t off = gp.get_address(), len = gp.get_data_length();
  const StreamShape shape = stream_shape(gp);
  const uint64_t extent = shape.extent();
  if (!shape.ok) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (off + extent > cfg_.capacity_bytes() || off + extent < off) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (gp.get_byte_enable_ptr()) {
    gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  if (gp.get_streaming_width() != len) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (gp.get_command() == tlm::TLM_IGNORE_COMMAND || len == 0) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  const bool is_write = gp.is_write();
  const double start_ns = (sc_core::sc_time_stamp() + delay).to_seconds() * 1e9;
  const uint64_t arrival = uint64_t(std::ceil(start_ns / cfg_.tck_ns - 1e-9));
  const uint64_t done =
      hbm_.access(HbmStream{off, shape.row_bytes, shape.rows, shape.stride}, is_write, arrival);
  const sc_core::sc_time end(double(done) * cfg_.tck_ns, sc_core::SC_NS);
  delay = end > sc_core::sc_time_stamp() ? end - sc_core::sc_time_stamp() : sc_core::SC_ZERO_TIME;
  if (!any_) first_cycle_ = arrival;
  first_cycle_ = std::min(first_cycle_, arrival);
  last_cycle_ = std::max(last_cycle_, done);
  any_ = true;
  ++transactions_;
  (is_write ? bytes_written_ : bytes_read_) += len;
  if (uint8_t* data = gp.get_data_ptr()) {  // null: timing only
    for (uint64_t r = 0; r < shape.rows; ++r) {
      uint8_t* row = data + r * shape.row_bytes;
      if (!is_write)
        store_.read(off + r * shape.stride, row, shape.row_bytes);
      else if (functional_)
        store_.write(off + r * shape.stride, row, shape.row_bytes);
    }
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned Hbm::transport_dbg(tlm::tlm_generic_payload& gp) {
  const uint64_t off = gp.get_address(), len = gp.get_data_length();
  if (off + len > cfg_.capacity_bytes() || off + len < off || !gp.get_data_ptr()) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return 0;
  }
  if (gp.is_read())
    store_.read(off, gp.get_data_ptr(), len);
  else if (gp.is_write())
    store_.write(off, gp.get_data_ptr(), len);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  return unsigned(len);
}

void Hbm::sync() const {
  const double now_ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
  const uint64_t now = uint64_t(now_ns / cfg_.tck_ns);
  for (uint32_t u = 0; u < hbm_.units(); ++u) hbm_.unit(u).advance_to(now);
}

UnitStats Hbm::stats() const {
  sync();
  const HbmCounters c = hbm_.counters();
  UnitStats s;
  s.busy_ns = double(c.read_cmds + c.write_cmds) * cfg_.burst_cycles() * cfg_.tck_ns / double(hbm_.units());
  s.energy_pj = hbm_.energy_pj();
  s.commands = transactions_;
  s.counters = {{"bytes_read", double(bytes_read_)}, {"bytes_written", double(bytes_written_)},
                {"reads", double(c.reads)},          {"writes", double(c.writes)},
                {"read_cmds", double(c.read_cmds)},  {"write_cmds", double(c.write_cmds)},
                {"activates", double(c.activates)},  {"precharges", double(c.precharges)},
                {"refreshes", double(c.refreshes)},  {"row_hits", double(c.row_hits)}};
  return s;
}

nlohmann::json Hbm::report() const {
  sync();
  const HbmCounters c = hbm_.counters();
  const double span_ns = any_ ? double(last_cycle_ - first_cycle_) * cfg_.tck_ns : 0.0;
  const uint64_t cols = c.read_cmds + c.write_cmds;
  return nlohmann::json{
      {"bytes_read", bytes_read_},
      {"bytes_written", bytes_written_},
      {"avg_bandwidth_gbps", span_ns > 0 ? double(bytes_read_ + bytes_written_) / span_ns : 0.0},
      {"row_hit_rate", cols ? double(c.row_hits) / double(cols) : 0.0},
      {"activates", c.activates},
      {"precharges", c.precharges},
      {"refreshes", c.refreshes},
      {"avg_read_latency_ns",
       c.reads_done ? double(c.total_read_latency) / double(c.reads_done) * cfg_.tck_ns : 0.0},
      {"transactions", transactions_},
      {"energy_pj", hbm_.energy_pj()}};
}

}  // namespace photon
