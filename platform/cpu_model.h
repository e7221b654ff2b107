// CpuModel: the firmware CPU as the platform sees it, whichever implementation cpu.model
// selects: `native` (firmware/firmware.c compiled for the host, platform/firmware_cpu.h) or
// `rv32` (the firmware ELF on the RV32IMC instruction-set simulator, models/rv32/rv32_cpu.h).
// Both are TLM initiators on the control bus (`ctrl`) and the data NoC (`data`) and wake on the
// IrqController's line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>

namespace photon {

/// Why a firmware CPU stopped before its firmware finished (Kind::None: it did not).
struct CpuFault {
  enum class Kind { None, Trap, Watchdog } kind = Kind::None;
  std::string message;  ///< one line: the fault, the pc and the function
};

class CpuModel {
 public:
  virtual ~CpuModel() = default;

  virtual tlm::tlm_initiator_socket<>& ctrl_socket() = 0;
  virtual tlm::tlm_initiator_socket<>& data_socket() = 0;

  /// The firmware returned (or the CPU stopped on a fault; see fault()).
  virtual bool finished() const = 0;
  /// photon_fw_main's return value: PHOTON_FW_STATE_DONE or PHOTON_FW_STATE_ERROR.
  virtual unsigned final_state() const = 0;
  /// Simulated time at which the firmware finished or faulted.
  virtual sc_core::sc_time finish_time() const = 0;
  virtual CpuFault fault() const { return {}; }
  /// Where the firmware is now ("pc 0x1a4 in drain+0x12"), for deadlock messages; "" if unknown.
  virtual std::string where() const { return ""; }

  virtual uint64_t mmio_accesses() const = 0;
  /// First few failed bus accesses, one line each.
  virtual const std::vector<std::string>& bus_error_log() const = 0;
  /// Time the CPU spent executing (not asleep), ns.
  virtual double busy_ns() const = 0;

  /// Tells the CPU where the command ring is, so that it can attribute its cost to the kind of
  /// each command it fetches: entry i of the ring (`entry_bytes` each from data-NoC address
  /// `base`) has kind `kinds[i]`, named `kind_names[kinds[i]]`.
  virtual void set_command_ring(uint64_t /*base*/, uint32_t /*entry_bytes*/, std::vector<uint8_t> /*kinds*/,
                                std::vector<std::string> /*kind_names*/) {}
  /// Report fields of this implementation (merged into the report's "firmware" section).
  virtual nlohmann::json report() const { return nlohmann::json::object(); }
};

}  // namespace photon
