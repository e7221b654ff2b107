// Scratchpad: banked on-chip SRAM as a TLM-2.0 target (`mem`, offsets 0..size_bytes).
//
// Timing per transaction: start = the earliest time >= now + delay at which some port is free
// for `busy` (PortCalendar: initiators running ahead under temporal decoupling reserve out of
// order);
//   busy = ScratchpadTiming::strided_cycles(offset, row, stride, rows) / clock_ghz
// (one row for a plain transaction; rows of a StreamExtension stream, platform/noc/
// stream_extension.h). A null data pointer makes a transaction timing-only.
//   delay += (start - now - delay) + busy + latency_cycles / clock_ghz
// Accesses beyond the capacity return TLM_ADDRESS_ERROR_RESPONSE. Compute units read and write
// the backing store directly through view() (their own engines model their bandwidth); the
// backing store exists only in functional mode.
#pragma once

#include <cstdint>
#include <vector>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "models/scratchpad/scratchpad_config.h"
#include "models/scratchpad/scratchpad_timing.h"
#include "platform/engine.h"
#include "platform/noc/port_calendar.h"
#include "platform/stats/stats.h"

namespace photon {

class Scratchpad : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Scratchpad> mem;

  Scratchpad(sc_core::sc_module_name name, const ScratchpadConfig& cfg, bool functional);

  /// Direct view for compute engines (data == nullptr in timing-only mode).
  MemView view() { return MemView{functional_ ? data_.data() : nullptr, cfg_.size_bytes()}; }
  const UnitStats& stats() const { return stats_; }
  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp);

  ScratchpadConfig cfg_;
  ScratchpadTiming timing_;
  bool functional_;
  std::vector<uint8_t> data_;
  std::vector<PortCalendar> ports_;  ///< per port: reservations (out of order under decoupling)
  UnitStats stats_;
  uint64_t bytes_read_ = 0, bytes_written_ = 0;
};

}  // namespace photon
