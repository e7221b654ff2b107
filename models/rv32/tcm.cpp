#include "models/rv32/tcm.h"

#include <algorithm>
#include <cstring>

namespace photon {

Tcm::Tcm(sc_core::sc_module_name name, uint32_t bytes, bool read_only, sc_core::sc_time latency)
    : sc_module(name), mem("mem"), data_(bytes, 0), read_only_(read_only), latency_(latency) {
  mem.register_b_transport(this, &Tcm::b_transport);
  mem.register_get_direct_mem_ptr(this, &Tcm::get_direct_mem_ptr);
  mem.register_transport_dbg(this, &Tcm::transport_dbg);
}

void Tcm::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t a = gp.get_address(), n = gp.get_data_length();
  if (a >= data_.size() || n > data_.size() - a) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (gp.is_write()) {
    if (read_only_) {
      gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
      return;
    }
    std::memcpy(data_.data() + a, gp.get_data_ptr(), n);
  } else {
    std::memcpy(gp.get_data_ptr(), data_.data() + a, n);
  }
  delay += latency_;
  gp.set_dmi_allowed(true);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool Tcm::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  dmi.set_dmi_ptr(data_.data());
  dmi.set_start_address(0);
  dmi.set_end_address(data_.size() - 1);
  dmi.set_read_latency(latency_);
  dmi.set_write_latency(latency_);
  dmi.set_granted_access(read_only_ ? tlm::tlm_dmi::DMI_ACCESS_READ : tlm::tlm_dmi::DMI_ACCESS_READ_WRITE);
  return true;
}

unsigned Tcm::transport_dbg(tlm::tlm_generic_payload& gp) {
  const uint64_t a = gp.get_address();
  if (a >= data_.size()) return 0;
  const unsigned n = unsigned(std::min<uint64_t>(gp.get_data_length(), data_.size() - a));
  if (gp.is_write())
    std::memcpy(data_.data() + a, gp.get_data_ptr(), n);
  else
    std::memcpy(gp.get_data_ptr(), data_.data() + a, n);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  return n;
}

}  // namespace photon
