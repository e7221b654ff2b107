// Rv32Config: the RV32IMC firmware core's configuration (keys under cpu.rv32.*): its
// per-instruction-class cycle table, its local memories and its timer.
//
// Cycle table defaults: lowRISC Ibex, two-stage pipeline, "small" configuration (fast multi-cycle
// multiplier, no branch-target ALU), from the Ibex reference manual, "Pipeline Details", table
// "Multi- and Single-Cycle Instructions" (stall cycles + 1 = cycles below, with single-cycle
// instruction and data memories). models/rv32/README.md gives the table and its sources.
#pragma once

#include <cstdint>
#include <string>

#include "base/param_set.h"

namespace photon {

/// Misaligned loads and stores: Split performs them as two aligned accesses costing one extra
/// cycle (as Ibex does, Ibex reference manual "Load-Store Unit"); Trap raises the
/// address-misaligned exception (RISC-V privileged spec, mcause 4 and 6).
enum class Rv32Misaligned { Split, Trap };
inline const EnumTable<Rv32Misaligned>& rv32_misaligned_table() {
  static const EnumTable<Rv32Misaligned> t{{Rv32Misaligned::Split, "split"}, {Rv32Misaligned::Trap, "trap"}};
  return t;
}

struct Rv32Config {
  // Cycles per instruction class, CPU cycles (>= 1 each: every instruction takes at least one).
  uint32_t alu_cycles = 1;           ///< integer computational (Ibex: 0 stall cycles)
  uint32_t load_cycles = 2;          ///< load from local memory (Ibex: 1 stall, 1-cycle memory)
  uint32_t store_cycles = 2;         ///< store to local memory (Ibex: 1 stall)
  uint32_t branch_cycles = 1;        ///< conditional branch not taken (Ibex: 0 stall)
  uint32_t branch_taken_cycles = 3;  ///< conditional branch taken (Ibex without BTALU: 2 stall)
  uint32_t jump_cycles = 2;          ///< jal, jalr (Ibex: 1 stall to refetch)
  uint32_t mul_cycles = 3;           ///< mul, mulh* (Ibex fast multiplier: 2 stall for mul)
  uint32_t div_cycles = 38;          ///< div, divu, rem, remu (Ibex: 37 stall)
  uint32_t csr_cycles = 1;           ///< Zicsr instructions (Ibex: 0 stall)
  uint32_t system_cycles = 2;        ///< ecall, ebreak, mret, wfi (Ibex: 1 stall, a refetch)
  uint32_t fence_cycles = 2;         ///< fence, fence.i (Ibex: 1 stall, prefetch flush)
  uint32_t trap_cycles = 2;          ///< taking an exception or interrupt (a jump to mtvec)
  Rv32Misaligned misaligned = Rv32Misaligned::Split;  ///< split | trap
  uint32_t rom_kib = 64;                              ///< boot ROM (code, read-only data), KiB
  uint32_t ram_kib = 64;                              ///< tightly coupled data RAM (data, bss, stack), KiB
  double mtime_mhz = 1000;  ///< machine timer (mtime) rate, MHz (1000: one tick per ns)

  void declare(ParamSet& ps, const std::string& prefix);
};

}  // namespace photon
