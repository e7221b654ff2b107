// Tcm: a tightly coupled memory of the firmware CPU (boot ROM or data RAM) as a TLM-2.0 target
// (`mem`, offsets 0..size). It grants DMI for its whole range (read-only for a ROM), so the core
// reads and writes it through a host pointer; b_transport serves the same accesses with
// `latency` per transaction (TLM_COMMAND_ERROR_RESPONSE for a write to a ROM,
// TLM_ADDRESS_ERROR_RESPONSE outside the range); transport_dbg (loaders, debuggers) may write a
// ROM.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

namespace photon {

class Tcm : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Tcm> mem;

  /// bytes: capacity; read_only: a ROM; latency: one access (the core's own table covers DMI
  /// accesses, this is for b_transport initiators).
  Tcm(sc_core::sc_module_name name, uint32_t bytes, bool read_only, sc_core::sc_time latency);

  uint32_t size_bytes() const { return uint32_t(data_.size()); }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp);

  std::vector<uint8_t> data_;
  bool read_only_;
  sc_core::sc_time latency_;
};

}  // namespace photon
