#include "models/scratchpad/scratchpad.h"

#include <algorithm>
#include <cstring>

#include "platform/noc/stream_extension.h"

namespace photon {

Scratchpad::Scratchpad(sc_core::sc_module_name name, const ScratchpadConfig& cfg, bool functional)
    : sc_module(name), mem("mem"), cfg_(cfg), timing_(cfg), functional_(functional), ports_(cfg.ports) {
  if (functional_) data_.assign(cfg_.size_bytes(), 0);
  mem.register_b_transport(this, &Scratchpad::b_transport);
  mem.register_transport_dbg(this, &Scratchpad::transport_dbg);
}

void Scratchpad::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t off = gp.get_address(), len = gp.get_data_length();
  const StreamShape shape = stream_shape(gp);
  if (!shape.ok) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  const uint64_t extent = shape.extent();
  if (off + extent > cfg_.size_bytes() || off + extent < off) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (gp.get_byte_enable_ptr()) {
    gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  const double now = (sc_core::sc_time_stamp() + delay).to_seconds() * 1e9;
  const double busy =
      double(timing_.strided_cycles(off, shape.row_bytes, shape.stride, shape.rows)) / cfg_.clock_ghz;
  auto port = std::min_element(ports_.begin(), ports_.end(), [&](const auto& a, const auto& b) {
    return a.earliest(now, busy) < b.earliest(now, busy);
  });
  const double start = port->reserve(now, busy, sc_core::sc_time_stamp().to_seconds() * 1e9);
  stats_.add_busy(start, start + busy);
  delay += sc_core::sc_time(start - now + busy + cfg_.latency_cycles / cfg_.clock_ghz, sc_core::SC_NS);
  if (functional_ && gp.get_data_ptr()) {  // null data: timing only
    for (uint64_t r = 0; r < shape.rows; ++r) {
      uint8_t* row = gp.get_data_ptr() + r * shape.row_bytes;
      uint8_t* mem = data_.data() + off + r * shape.stride;
      if (gp.is_read())
        std::memcpy(row, mem, shape.row_bytes);
      else
        std::memcpy(mem, row, shape.row_bytes);
    }
  }
  if (gp.is_read()) {
    bytes_read_ += len;
    stats_.energy_pj += double(len) * cfg_.read_energy_pj_per_byte;
  } else {
    bytes_written_ += len;
    stats_.energy_pj += double(len) * cfg_.write_energy_pj_per_byte;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned Scratchpad::transport_dbg(tlm::tlm_generic_payload& gp) {
  const uint64_t off = gp.get_address(), len = gp.get_data_length();
  if (off + len > cfg_.size_bytes()) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return 0;
  }
  if (functional_ && gp.get_data_ptr()) {
    if (gp.is_read())
      std::memcpy(gp.get_data_ptr(), data_.data() + off, len);
    else
      std::memcpy(data_.data() + off, gp.get_data_ptr(), len);
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  return unsigned(len);
}

}  // namespace photon
