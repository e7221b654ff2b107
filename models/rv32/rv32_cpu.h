// Rv32Cpu: the firmware CPU of cpu.model=rv32: the firmware ELF (cpu.firmware) runs on the
// RV32IMC core (rv32_core.h) in a SystemC thread. Address map: firmware/rv32/rv32_memory_map.h.
//
//   core --DMI--> rom, ram (Tcm, child modules, bound to the `imem` and `dmem` sockets)
//   core --slow path--> ctrl (control-bus window, TLM), data (data aperture, TLM, line buffer),
//                       the CLINT timer (mtime, mtimecmp, msip) and DATA_WINDOW registers
//   IrqController line --> mip.MEIP;  mtime >= mtimecmp --> mip.MTIP
//
// Timing: the core counts cycles of cpu.clock_ghz (its cycle table, cpu.rv32.*); a TLM access
// adds the delay its target annotates, rounded up to whole cycles, as a stall. Temporal
// decoupling: the core runs ahead of SystemC time by at most one quantum (sim.quantum_ns,
// tlm_quantumkeeper), and synchronises when the quantum is used up and when it sleeps in wfi
// (until the interrupt line or the timer deadline).
// Ending: the firmware stores (code << 1) | 1 to `tohost` (firmware/rv32/rv32_memory_map.h). Code
// RV32_EXIT_TRAP, a double fault, or cpu.watchdog_us of simulated time without finishing end
// the run with a fault naming the cause, the pc and the function (ELF symbols); the simulation
// is stopped (sc_stop) so that nothing runs on.
// Cost attribution: the cycles and instructions from the fetch of one command-ring entry (a
// line fill of the aperture inside the ring) to the next are counted for that entry's kind.
// Errors (photon::Error at construction): the ELF cannot be read or a segment lies outside the
// ROM and RAM (naming cpu.firmware / cpu.rv32.rom_kib / cpu.rv32.ram_kib).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>
#include <systemc>
#include <tlm>

#include "firmware/rv32/rv32_memory_map.h"
#include "models/rv32/elf_image.h"
#include "models/rv32/gdb_server.h"
#include "models/rv32/rv32_config.h"
#include "models/rv32/rv32_core.h"
#include "models/rv32/tcm.h"
#include "platform/cpu_model.h"
#include "platform/irq_controller.h"

namespace photon {

/// The CPU-level settings of the rv32 firmware CPU (from cpu.*).
struct Rv32CpuSetup {
  double clock_ghz = 1.0;      ///< CPU clock, GHz
  double quantum_ns = 1000.0;  ///< temporal-decoupling quantum, ns
  double watchdog_us = 0;      ///< simulated time without finishing before a watchdog fault, us
  std::string firmware;        ///< ELF path
};

class Rv32Cpu : public sc_core::sc_module, public CpuModel, private rv32::Rv32Bus, private rv32::GdbTarget {
 public:
  tlm_utils::simple_initiator_socket<Rv32Cpu> ctrl;  ///< control bus (MMIO window)
  tlm_utils::simple_initiator_socket<Rv32Cpu> data;  ///< data NoC (data aperture)
  tlm_utils::simple_initiator_socket<Rv32Cpu> imem;  ///< boot ROM (DMI)
  tlm_utils::simple_initiator_socket<Rv32Cpu> dmem;  ///< data RAM (DMI)

  SC_HAS_PROCESS(Rv32Cpu);
  Rv32Cpu(sc_core::sc_module_name name, const Rv32Config& cfg, const Rv32CpuSetup& setup, IrqController& irq);
  ~Rv32Cpu() override;

  /// Serves GDB on 127.0.0.1:port (0: any free port) and stops before the first instruction.
  /// Returns the port. Call before the simulation starts.
  int serve_gdb(int port);

  // CpuModel
  tlm::tlm_initiator_socket<>& ctrl_socket() override { return ctrl; }
  tlm::tlm_initiator_socket<>& data_socket() override { return data; }
  bool finished() const override { return finished_; }
  unsigned final_state() const override { return final_state_; }
  sc_core::sc_time finish_time() const override { return finish_time_; }
  CpuFault fault() const override { return fault_; }
  double watchdog_ns() const override { return setup_.watchdog_us * 1000.0; }
  void watchdog_expired() override;
  std::string where() const override;
  uint64_t mmio_accesses() const override { return mmio_; }
  const std::vector<std::string>& bus_error_log() const override { return bus_error_log_; }
  double busy_ns() const override;
  void set_command_ring(uint64_t base, uint32_t entry_bytes, std::vector<uint8_t> kinds,
                        std::vector<std::string> kind_names) override;
  nlohmann::json report() const override;

  const rv32::Rv32Core& core() const { return core_; }
  const rv32::ElfImage& elf() const { return elf_; }

 private:
  struct Cost {  ///< one attribution bucket
    uint64_t entries = 0, instructions = 0, cycles = 0, stall_cycles = 0, wakeups = 0;
    uint64_t quiet_entries = 0, quiet_cycles = 0;  ///< entries without a wake-up, their cycles
  };

  void start_of_simulation() override;
  void run();
  void load_elf();
  sc_core::sc_time core_time() const;
  uint64_t cycle_at(const sc_core::sc_time& t) const;  ///< first cycle boundary at or after t
  void sync();
  void sleep();
  void refresh_irqs();
  uint64_t mtime() override;
  void end(CpuFault::Kind kind, const std::string& message);
  std::string watchdog_message() const;
  std::string in_function(uint32_t pc) const;  ///< " in name+0x1c" or " (no function)"
  std::string describe_trap(const rv32::TrapRecord& t) const;
  bool debug_stop(int signal);  ///< false: GDB killed the run
  void close_interval();

  // Rv32Bus: the slow path.
  bool load(uint32_t addr, unsigned bytes, uint32_t& value) override;
  bool store(uint32_t addr, unsigned bytes, uint32_t value) override;
  bool debug_read(uint32_t addr, uint8_t* dst, unsigned bytes) override;
  bool debug_write(uint32_t addr, const uint8_t* src, unsigned bytes) override;
  void fence() override { line_valid_ = false; }
  bool transport(tlm_utils::simple_initiator_socket<Rv32Cpu>& s, bool write, uint64_t addr, uint8_t* p,
                 unsigned bytes, const char* what);

  // GdbTarget
  bool read_reg(unsigned regno, uint32_t& value) override;
  bool write_reg(unsigned regno, uint32_t value) override;
  bool read_mem(uint32_t addr, uint8_t* dst, unsigned bytes) override;
  bool write_mem(uint32_t addr, const uint8_t* src, unsigned bytes) override;
  void insert_breakpoint(uint32_t addr) override { core_.add_breakpoint(addr); }
  void remove_breakpoint(uint32_t addr) override { core_.remove_breakpoint(addr); }

  Rv32Config cfg_;
  Rv32CpuSetup setup_;
  IrqController& irq_;
  Tcm rom_, ram_;
  rv32::ElfImage elf_;
  rv32::Rv32Core core_;
  tlm_utils::tlm_quantumkeeper qk_;
  double period_ns_;
  std::unique_ptr<rv32::GdbServer> gdb_;
  bool stepping_ = false, asleep_ = false;

  uint64_t data_window_ = 0;
  uint64_t line_addr_ = 0;
  bool line_valid_ = false;
  uint8_t line_[RV32_DATA_LINE_BYTES] = {};
  uint64_t mtimecmp_ = ~uint64_t(0);

  bool finished_ = false;
  unsigned final_state_ = 0;
  sc_core::sc_time finish_time_;
  CpuFault fault_;
  uint64_t mmio_ = 0, wakeups_ = 0;
  std::vector<std::string> bus_error_log_;
  std::string last_bus_error_;  ///< the last failed TLM access, for fault messages
  /// The payload of every bus access of transport(), reused (one thread issues them, one at a
  /// time; constructing a payload allocates its extension array).
  tlm::tlm_generic_payload bus_gp_;

  // Cost attribution (set_command_ring).
  uint64_t ring_base_ = 0, ring_bytes_ = 0;
  uint32_t entry_bytes_ = 64;
  uint64_t cur_entry_ = ~uint64_t(0);  ///< the ring entry the current interval belongs to
  std::vector<uint8_t> kinds_;
  std::vector<std::string> kind_names_;
  std::vector<Cost> costs_;  ///< per kind, then one for the boot (before the first fetch)
  size_t cur_bucket_ = 0;
  uint64_t mark_instret_ = 0, mark_cycles_ = 0, mark_stall_ = 0, mark_sleep_ = 0, mark_wakeups_ = 0;
};

}  // namespace photon
