#include "platform/control_bus.h"

#include <cstdio>
#include <cstring>

namespace photon {

ControlBus::ControlBus(sc_core::sc_module_name name, sc_core::sc_time latency)
    : sc_module(name), ctrl("ctrl"), latency_(latency) {
  ctrl.register_b_transport(this, &ControlBus::b_transport);
}

void ControlBus::attach(RegisterBlock* block) { blocks_.push_back(block); }

void ControlBus::fail(tlm::tlm_generic_payload& gp, tlm::tlm_response_status st, const std::string& why) {
  ++errors_;
  if (error_log_.size() < 16) error_log_.push_back(why);
  gp.set_response_status(st);
}

void ControlBus::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  delay += latency_;
  uint64_t addr = gp.get_address();
  auto where = [addr] {  // formatted only on the error paths
    char buf[64];
    std::snprintf(buf, sizeof buf, "control-bus address 0x%llx", (unsigned long long)addr);
    return std::string(buf);
  };
  if (gp.get_data_length() != 4 || gp.get_byte_enable_ptr()) {
    fail(gp, tlm::TLM_BURST_ERROR_RESPONSE, "non-32-bit access at " + where());
    return;
  }
  for (RegisterBlock* b : blocks_) {
    if (addr < b->base() || addr >= uint64_t(b->base()) + b->size_bytes()) continue;
    uint32_t off = uint32_t(addr - b->base());
    uint32_t v = 0;
    bool ok;
    if (gp.is_read()) {
      ok = b->read(off, v);
      if (ok) std::memcpy(gp.get_data_ptr(), &v, 4);
    } else {
      std::memcpy(&v, gp.get_data_ptr(), 4);
      ok = b->write(off, v);
    }
    if (!ok) {
      fail(gp, tlm::TLM_COMMAND_ERROR_RESPONSE, b->last_error());
      return;
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  fail(gp, tlm::TLM_ADDRESS_ERROR_RESPONSE, "access to unmapped " + where());
}

}  // namespace photon
