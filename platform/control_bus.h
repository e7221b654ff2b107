// ControlBus: the 32-bit MMIO bus from the firmware CPU to every unit's register block.
//
// Blocks are attached by pointer (each unit owns its RegisterBlock); the bus decodes the block by
// its base and size, applies the block's access rules and answers with TLM_OK_RESPONSE or
// TLM_ADDRESS_ERROR_RESPONSE (unmapped address) / TLM_COMMAND_ERROR_RESPONSE (access rule).
// Every error is counted and the last one kept for the report. Latency: cpu.mmio_latency_cycles
// per 32-bit word. A burst (up to 16 words, e.g. a queue's CMD[0..15]) is the same accesses to
// consecutive registers of one block in order, stopping at the first one refused, and costs
// what they would one by one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "platform/regs/register_block.h"

namespace photon {

class ControlBus : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ControlBus> ctrl;

  /// latency: one register access, as seen by the initiator.
  ControlBus(sc_core::sc_module_name name, sc_core::sc_time latency);

  void attach(RegisterBlock* block);

  /// Longest access: one 64-byte command (16 registers), bytes.
  static constexpr uint32_t kMaxBurstBytes = 64;

  uint64_t errors() const { return errors_; }
  const std::vector<std::string>& error_log() const { return error_log_; }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void fail(tlm::tlm_generic_payload& gp, tlm::tlm_response_status st, const std::string& why);

  sc_core::sc_time latency_;
  std::vector<RegisterBlock*> blocks_;
  RegisterBlock* last_ = nullptr;  ///< block of the previous access (firmware loops hit one block)
  uint64_t errors_ = 0;
  std::vector<std::string> error_log_;  ///< first few errors, for the report
};

}  // namespace photon
