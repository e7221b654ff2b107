// Rv32Core: a pure C++ RV32IMC + Zicsr instruction-set simulator of one machine-mode hart.
// No SystemC: the shell (rv32_cpu.h) turns its cycle count into simulated time.
//
// Architecture (RISC-V Unprivileged ISA 20191213; Privileged ISA 20211203, machine mode only, so
// mstatus.MPP reads 3 and mret stays in M-mode):
//   - RV32I, M, C; Zicsr; fence and fence.i; ecall, ebreak, mret, wfi.
//   - CSRs: mstatus (MIE, MPIE; MPP fixed to M), mstatush (0), misa (RV32IMC, read-only),
//     mvendorid, marchid, mimpid (0), mhartid (0), mconfigptr (0), mtvec (direct or vectored),
//     mscratch, mepc, mcause, mtval, mie, mip (MEIP, MTIP from outside; MSIP from outside),
//     mcycle[h], minstret[h] (writable), cycle[h], instret[h], time[h] (read-only), and the
//     trigger CSRs tselect, tdata1-3 reading 0 (no triggers). Anything else is an illegal
//     instruction. No PMP.
//   - Traps: illegal instruction (mtval = the instruction bits), misaligned loads/stores (when
//     Timing::misaligned_split is false), access faults (mtval = the address), ecall, ebreak
//     (mtval = pc). Interrupts MEI > MSI > MTI, taken when mstatus.MIE and mie allow.
// Timing: each instruction adds its class's cycles from the table (Timing); a taken branch adds
// the taken cost instead; the slow path (Rv32Bus) adds bus stalls through add_stall().
// Memory: local memories are registered as regions with a host pointer (DMI); fetches only come
// from executable regions; everything else goes through Rv32Bus. Decoded instructions are cached
// per halfword of executable memory and invalidated by stores into it (self-modifying code and
// fence.i behave as the ISA says).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "models/rv32/rv32_isa.h"

namespace photon::rv32 {

/// Per-instruction-class cycle table, CPU cycles (each >= 1).
struct Timing {
  uint8_t cycles[10] = {1, 2, 2, 1, 2, 3, 38, 1, 2, 2};  ///< indexed by InsnClass
  uint8_t branch_taken = 3;      ///< a taken conditional branch (replaces the Branch cost)
  uint8_t trap = 2;              ///< taking an exception or interrupt
  bool misaligned_split = true;  ///< misaligned load/store: two accesses (+1 cycle) or a trap
};

/// Slow path of the core's memory accesses: everything outside the DMI regions (MMIO, apertures).
/// Returns false for an access fault. `bytes` is 1, 2 or 4; `addr` is aligned to it.
class Rv32Bus {
 public:
  virtual ~Rv32Bus() = default;
  virtual bool load(uint32_t addr, unsigned bytes, uint32_t& value) = 0;
  virtual bool store(uint32_t addr, unsigned bytes, uint32_t value) = 0;
  /// Debugger access without side effects or timing; false if the address cannot be read.
  virtual bool debug_read(uint32_t /*addr*/, uint8_t* /*dst*/, unsigned /*bytes*/) { return false; }
  virtual bool debug_write(uint32_t /*addr*/, const uint8_t* /*src*/, unsigned /*bytes*/) { return false; }
  /// The `time` CSR: mtime ticks.
  virtual uint64_t mtime() { return 0; }
  /// A fence instruction executed: buffers in the slow path must not hold stale data.
  virtual void fence() {}
};

/// A local memory the core reads and writes through a host pointer.
struct MemRegion {
  std::string name;   ///< "rom", "ram": for messages
  uint32_t base = 0;  ///< CPU address
  uint32_t size = 0;  ///< bytes
  uint8_t* data = nullptr;
  bool writable = true;    ///< stores to a read-only region are store access faults
  bool executable = true;  ///< instructions are fetched only from executable regions
};

/// Why run() returned.
enum class Stop {
  Limit,        ///< the cycle limit was reached
  Wfi,          ///< wfi with no enabled interrupt pending (pc is past the wfi)
  Halt,         ///< a store to the watched `tohost` word (tohost_value() has the value)
  Breakpoint,   ///< pc is at a debugger breakpoint (the instruction has not executed)
  Ebreak,       ///< ebreak while ebreak_halts is set (pc is at the ebreak)
  Yield,        ///< the slow path asked to return (yield())
  DoubleFault,  ///< an exception while fetching the trap handler's first instruction
  TrapCaught,   ///< an exception is about to be taken (trap catch on; last_trap() has it, the
                ///< pc is at the faulting instruction, the next run() takes the trap)
};

/// The last trap taken (for fault reports).
struct TrapRecord {
  uint32_t cause = 0, epc = 0, tval = 0;
  uint64_t count = 0;  ///< traps taken so far
};

class Rv32Core {
 public:
  Rv32Core(const Timing& timing, Rv32Bus& bus);

  /// Registers a local memory (at most 4). Regions must not overlap.
  void add_region(const MemRegion& region);
  /// Resets the hart: pc, x0..x31 = 0, CSRs to their reset values, counters to 0.
  void reset(uint32_t pc);

  /// Executes until cycles() >= cycle_limit, or a Stop condition. At least one instruction
  /// executes when cycles() < cycle_limit and nothing else stops the hart first.
  Stop run(uint64_t cycle_limit);
  /// From inside the slow path: return from run() after the current instruction.
  void yield() {
    limit_ = 0;
    yield_ = true;
  }

  /// Cycles since reset (executed, bus stalls and time advanced while asleep), CPU cycles.
  uint64_t cycles() const { return cycles_; }
  uint64_t instret() const { return instret_; }
  /// Bus stall cycles added by the slow path, and cycles advanced while asleep in wfi.
  uint64_t stall_cycles() const { return stall_cycles_; }
  uint64_t sleep_cycles() const { return sleep_cycles_; }
  void add_stall(uint64_t c) {
    cycles_ += c;
    stall_cycles_ += c;
  }
  /// Moves time forward while the hart sleeps (wfi).
  void advance_asleep(uint64_t c) {
    cycles_ += c;
    sleep_cycles_ += c;
  }

  /// Interrupt inputs: mip bit `code` (kMachineExternal, kMachineTimer, kMachineSoftware).
  void set_irq(IrqCode code, bool level);
  uint32_t mip() const { return mip_; }
  uint32_t mie() const { return mie_; }
  bool interrupts_enabled() const { return mstatus_mie_; }
  /// True when an interrupt enabled in mie is pending (wakes wfi, whatever mstatus.MIE says).
  bool wake_pending() const { return (mip_ & mie_) != 0; }

  /// Watches stores to the word at `addr` (the ELF's `tohost`): a non-zero store stops run()
  /// with Stop::Halt.
  void watch_tohost(uint32_t addr) {
    tohost_ = addr;
    tohost_armed_ = true;
  }
  uint32_t tohost_value() const { return tohost_value_; }

  // Architectural state (debugger, tests).
  uint32_t pc() const { return pc_; }
  void set_pc(uint32_t pc) { pc_ = pc; }
  uint32_t reg(unsigned i) const { return x_[i & 31]; }
  void set_reg(unsigned i, uint32_t v) {
    if (i & 31) x_[i & 31] = v;
  }
  /// Reads a CSR as the debugger sees it; false if it does not exist.
  bool read_csr(uint32_t csr, uint32_t& value) const;
  const TrapRecord& last_trap() const { return last_trap_; }

  // Debugger support.
  void add_breakpoint(uint32_t addr);
  void remove_breakpoint(uint32_t addr);
  void clear_breakpoints();
  /// Resume from a breakpoint: the next run() executes the instruction at pc once.
  void step_over_breakpoint() { skip_break_ = breakpoints_.count(pc_) != 0; }
  /// When set, ebreak stops the hart (Stop::Ebreak) instead of trapping (a debugger attached).
  void set_ebreak_halts(bool on) { ebreak_halts_ = on; }
  /// When set, every exception except ecall stops the hart before it is taken (Stop::TrapCaught),
  /// so a debugger sees the faulting instruction.
  void set_trap_catch(bool on) { trap_catch_ = on; }
  /// Memory as the debugger sees it (regions, then the bus's debug path). Writes invalidate
  /// decoded instructions.
  bool debug_read(uint32_t addr, uint8_t* dst, unsigned bytes);
  bool debug_write(uint32_t addr, const uint8_t* src, unsigned bytes);
  /// Decodes the instruction at addr (for disassembly-style messages); Illegal if unreadable.
  Insn decode_at(uint32_t addr);

 private:
  struct Region {
    MemRegion m;
    std::vector<Insn> icache;  ///< one slot per halfword; empty when not executable
    bool has_code = false;     ///< some slot was decoded: stores must invalidate
  };

  Stop run_loop();
  void take_trap(uint32_t cause, uint32_t tval);
  bool fetch(uint32_t pc, Insn*& slot, Insn& scratch);
  void fill(Insn& slot, uint32_t pc, uint32_t raw, bool compressed);
  bool load(uint32_t addr, unsigned bytes, uint32_t& v, bool& misaligned);
  bool store(uint32_t addr, unsigned bytes, uint32_t v, bool& misaligned);
  bool load_aligned(uint32_t addr, unsigned bytes, uint32_t& v);
  bool store_aligned(uint32_t addr, unsigned bytes, uint32_t v);
  void invalidate(Region& r, uint32_t off, unsigned bytes);
  /// CSR access as an instruction; false: illegal instruction.
  bool csr_op(uint32_t csr, uint32_t operand, int kind, bool writes, uint32_t& old);
  void update_irq() { irq_ready_ = mstatus_mie_ && (mip_ & mie_) != 0; }
  Region* region_of(uint32_t addr, unsigned bytes);

  Timing timing_;
  Rv32Bus& bus_;
  std::vector<Region> regions_;
  Region* hot_ = nullptr;   ///< region of the last fetch
  Region* dhot_ = nullptr;  ///< region of the last local load or store

  uint32_t x_[32] = {};
  uint32_t pc_ = 0;
  uint64_t cycles_ = 0, instret_ = 0, stall_cycles_ = 0, sleep_cycles_ = 0;
  uint64_t limit_ = 0;
  bool yield_ = false, wfi_ = false, double_fault_ = false;

  // CSRs
  bool mstatus_mie_ = false, mstatus_mpie_ = false;
  uint32_t mtvec_ = 0, mscratch_ = 0, mepc_ = 0, mcause_ = 0, mtval_ = 0;
  uint32_t mie_ = 0, mip_ = 0;
  int64_t mcycle_offset_ = 0, minstret_offset_ = 0;  ///< counter CSR = counter + offset
  bool irq_ready_ = false;

  uint32_t tohost_ = 0, tohost_value_ = 0;
  bool tohost_armed_ = false, halted_ = false;

  std::unordered_set<uint32_t> breakpoints_;
  bool skip_break_ = false, ebreak_halts_ = false;
  bool trap_catch_ = false, trap_caught_ = false, skip_catch_ = false;
  uint32_t caught_pc_ = 0;
  TrapRecord last_trap_;
  uint32_t trap_target_ = 0;  ///< pc of the last trap's handler, for double-fault detection
  bool in_trap_entry_ = false;
};

}  // namespace photon::rv32
