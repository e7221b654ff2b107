// DataRouter: the data NoC, a TLM-2.0 router with an address map and per-port bandwidth.
//
// Initiators (DMA, firmware CPU) bind to `in`; targets (HBM, scratchpad) are added with
// map_target(), which binds one of `out` and gives the address window. A transaction is forwarded
// with its address rebased to the target window. Timing (loosely timed, per-resource timeline):
//   start  = earliest time >= now + delay at which the target's port is free for
//            bytes / port_bandwidth_gbps ns (bytes / (GB/s) = ns; PortCalendar: initiators that
//            run ahead under temporal decoupling reserve the port out of order)
//   delay += (start - now - delay) + hop_latency_ns + target latency
// A stream (StreamExtension, stream_extension.h) is routed by its whole extent and, being one
// transaction for what would be many bursts, also ends no earlier than start + bytes / bandwidth +
// hop latency.
// Unmapped addresses get TLM_ADDRESS_ERROR_RESPONSE and are counted and remembered for the report.
// transport_dbg with a null data pointer is a probe: it answers whether [address, +length) lies
// inside one target window, without touching the target (the DMA checks ranges before writing).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

#include "platform/noc/noc_config.h"
#include "platform/noc/port_calendar.h"

namespace photon {

class DataRouter : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<DataRouter> in;
  tlm_utils::multi_passthrough_initiator_socket<DataRouter> out;

  DataRouter(sc_core::sc_module_name name, const NocConfig& cfg);

  /// Adds a target window [base, base+size). Bind `out` to the target in the same order.
  void map_target(const std::string& name, uint64_t base, uint64_t size);

  uint64_t decode_errors() const { return decode_errors_; }
  const std::string& last_error() const { return last_error_; }
  uint64_t bytes_routed() const { return bytes_; }

 private:
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
  int decode(uint64_t addr, uint64_t len) const;

  struct Window {
    std::string name;
    uint64_t base, size;
    PortCalendar port;
  };
  NocConfig cfg_;
  std::vector<Window> windows_;
  uint64_t decode_errors_ = 0;
  uint64_t bytes_ = 0;
  std::string last_error_;
};

}  // namespace photon
