// FirmwareCpu: the command processor that runs firmware/firmware.c, host-compiled, in a SystemC
// thread. Every HAL call is a TLM transaction: registers over `ctrl` (control bus), memory over
// `data` (data NoC). Timing uses temporal decoupling with a quantum keeper (sim.quantum_ns): the
// firmware runs ahead of SystemC time by up to one quantum and synchronises when it sleeps on an
// interrupt. Costs: each register access costs its bus latency (cpu.mmio_latency_cycles, annotated
// by the bus; a burst of n registers costs n accesses); HAL_WORK_DISPATCH costs cpu.dispatch_cycles and HAL_WORK_IRQ cpu.irq_latency_cycles.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>
#include <systemc>
#include <tlm>

#include "platform/cpu_model.h"
#include "platform/irq_controller.h"
#include "platform/report/trace.h"
#include "soc/platform_config.h"

namespace photon {

/// The TLM-2.0 quantum keeper, with the time of its next synchronisation readable.
class QuantumKeeper : public tlm_utils::tlm_quantumkeeper {
 public:
  sc_core::sc_time next_sync_point() const { return m_next_sync_point; }
};

class FirmwareCpu : public sc_core::sc_module, public CpuModel {
 public:
  tlm_utils::simple_initiator_socket<FirmwareCpu> ctrl;
  tlm_utils::simple_initiator_socket<FirmwareCpu> data;

  SC_HAS_PROCESS(FirmwareCpu);
  FirmwareCpu(sc_core::sc_module_name name, const CpuConfig& cfg, double quantum_ns, IrqController& irq,
              TraceRecorder* trace);

  tlm::tlm_initiator_socket<>& ctrl_socket() override { return ctrl; }
  tlm::tlm_initiator_socket<>& data_socket() override { return data; }
  bool finished() const override { return finished_; }
  unsigned final_state() const override { return final_state_; }
  /// Time the firmware returned from photon_fw_main.
  sc_core::sc_time finish_time() const override { return finish_time_; }
  uint64_t mmio_accesses() const override { return mmio_; }
  uint64_t bus_errors() const { return bus_errors_; }
  const std::vector<std::string>& bus_error_log() const override { return bus_error_log_; }
  double busy_ns() const override { return busy_.to_seconds() * 1e9; }
  nlohmann::json report() const override { return {{"model", "native"}}; }

  // HAL back ends (called from the C HAL on the firmware thread).
  uint32_t read32(uint32_t addr);
  void write32(uint32_t addr, uint32_t value);
  /// `count` consecutive registers from `addr`, as control-bus bursts of up to 16 words.
  void write_block32(uint32_t addr, const uint32_t* words, uint32_t count);
  void read_mem(uint64_t addr, void* dst, uint32_t bytes);
  void wait_irq();
  void work(int kind);

 private:
  void run();
  /// One control-bus access of `count` (1 to 16) consecutive words.
  void mmio(bool write, uint32_t addr, uint32_t* words, uint32_t count);

  CpuConfig cfg_;
  IrqController& irq_;
  TraceRecorder* trace_;
  QuantumKeeper qk_;
  sc_core::sc_time cycle_;
  bool finished_ = false;
  unsigned final_state_ = 0;
  sc_core::sc_time finish_time_;
  uint64_t mmio_ = 0, bus_errors_ = 0;
  std::vector<std::string> bus_error_log_;
  sc_core::sc_time busy_;  ///< bus latency and firmware work, summed
  /// Payloads reused by every control-bus and data access (one blocking transaction at a time;
  /// a payload's construction allocates its extension array).
  tlm::tlm_generic_payload mmio_gp_, mem_gp_;
};

}  // namespace photon
