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
  const uint64_t addr = gp.get_address();
  const uint32_t len = gp.get_data_length();
  auto where = [addr] {  // formatted only on the error paths
    char buf[64];
    std::snprintf(buf, sizeof buf, "control-bus address 0x%llx", (unsigned long long)addr);
    return std::string(buf);
  };
  if (len == 0 || len % 4 != 0 || len > kMaxBurstBytes || gp.get_streaming_width() != len ||
      gp.get_byte_enable_ptr()) {
    delay += latency_;
    fail(gp, tlm::TLM_BURST_ERROR_RESPONSE,
         "access of " + std::to_string(len) + " bytes (not 1 to " + std::to_string(kMaxBurstBytes / 4) +
             " whole 32-bit words) at " + where());
    return;
  }
  const uint32_t words = len / 4;
  delay += latency_ * double(words);
  RegisterBlock* b = last_;
  if (b == nullptr || addr < b->base() || addr >= uint64_t(b->base()) + b->size_bytes()) {
    b = nullptr;
    for (RegisterBlock* c : blocks_)
      if (addr >= c->base() && addr < uint64_t(c->base()) + c->size_bytes()) b = c;
    if (b == nullptr) {
      fail(gp, tlm::TLM_ADDRESS_ERROR_RESPONSE, "access to unmapped " + where());
      return;
    }
    last_ = b;
  }
  if (addr + len > uint64_t(b->base()) + b->size_bytes()) {
    fail(gp, tlm::TLM_BURST_ERROR_RESPONSE, "burst at " + where() + " runs past the end of block " + b->instance());
    return;
  }
  const uint32_t off = uint32_t(addr - b->base());
  unsigned char* data = gp.get_data_ptr();
  uint32_t v[kMaxBurstBytes / 4];
  bool ok = true;
  if (gp.is_read()) {
    for (uint32_t i = 0; i < words && ok; ++i) ok = b->read(off + 4 * i, v[i]);
    if (ok) std::memcpy(data, v, len);
  } else {
    std::memcpy(v, data, len);
    ok = b->write(off, v, words);
  }
  if (!ok) {
    fail(gp, tlm::TLM_COMMAND_ERROR_RESPONSE, b->last_error());
    return;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace photon
