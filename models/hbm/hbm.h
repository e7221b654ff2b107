// Hbm: the HBM model as a TLM-2.0 target (`mem`, byte offsets 0..capacity_bytes()), a thin shell
// around the pure-C++ HbmController (hbm_controller.h; timing model in README.md).
//
// b_transport: arrival = ceil((sc_time_stamp() + delay) / tck_ns) cycles; done =
// HbmController::access(offset, length, is_write, arrival); delay is set so that the transaction
// ends at done * tck_ns. Errors: an access beyond the capacity -> TLM_ADDRESS_ERROR_RESPONSE;
// byte enables -> TLM_BYTE_ENABLE_ERROR_RESPONSE; streaming width != data length ->
// TLM_BURST_ERROR_RESPONSE; TLM_IGNORE_COMMAND -> OK without timing. A transaction with a
// StreamExtension (platform/noc/stream_extension.h) is one 2-D stream access (HbmStream); a null
// data pointer makes a transaction timing-only.
// Data: a sparse store (hbm_store.h). Functional mode reads and writes it; timing-only mode
// still serves reads from it (e.g. a command ring placed by write_bytes) but drops written data.
#pragma once

#include <cstdint>

#include <tlm_utils/simple_target_socket.h>
#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>

#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_controller.h"
#include "models/hbm/hbm_store.h"
#include "platform/stats/stats.h"

namespace photon {

class Hbm : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Hbm> mem;

  Hbm(sc_core::sc_module_name name, const HbmConfig& cfg, bool functional);

  /// Backdoor for the platform loader: no timing, no statistics. Throws photon::Error if
  /// [off, off + n) exceeds the capacity.
  void write_bytes(uint64_t off, const uint8_t* src, uint64_t n);
  void read_bytes(uint64_t off, uint8_t* dst, uint64_t n) const;

  /// busy_ns: data-bus busy time averaged over the (pseudo-)channels, i.e. column accesses x
  /// burst x tCK / units (so busy_ns / elapsed = fraction of peak bandwidth); energy_pj: the
  /// controller's command energy; commands: TLM transactions; counters: bytes_read,
  /// bytes_written, reads, writes, read_cmds, write_cmds, activates, precharges, refreshes,
  /// row_hits.
  UnitStats stats() const;
  /// bytes_read, bytes_written, avg_bandwidth_gbps (bytes / (last completion - first arrival)),
  /// row_hit_rate (row hits / column accesses), activates, precharges, refreshes,
  /// avg_read_latency_ns, transactions, energy_pj.
  nlohmann::json report() const;

  HbmController& controller() { return hbm_; }
  const HbmController& controller() const { return hbm_; }
  /// The backing store (functional mode): the bytes written so far, by 1 MiB page.
  const HbmStore& store() const { return store_; }
  const HbmConfig& config() const { return cfg_; }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp);
  /// Advances every channel to the current simulation time so refreshes up to now are counted.
  void sync() const;
  void check_range(uint64_t off, uint64_t n, const char* what) const;

  HbmConfig cfg_;
  bool functional_;
  mutable HbmController hbm_;
  HbmStore store_;
  uint64_t transactions_ = 0, bytes_read_ = 0, bytes_written_ = 0;
  uint64_t first_cycle_ = 0, last_cycle_ = 0;
  bool any_ = false;
};

}  // namespace photon
