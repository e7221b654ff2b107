// Rv32Core against closed forms: cycle-table accounting, traps and their CSRs, interrupts, wfi,
// breakpoints, the tohost halt and double faults. Programs are encoded here from the base
// formats of the RISC-V Unprivileged ISA (20191213) section 2.3.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "models/rv32/rv32_core.h"

namespace {

using namespace photon::rv32;

// Encoders (R, I, S, B, U, J formats).
uint32_t r_type(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
  return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op;
}
uint32_t i_type(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
  return (uint32_t(imm & 0xFFF) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op;
}
uint32_t s_type(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3) {
  const uint32_t u = uint32_t(imm);
  return (((u >> 5) & 0x7F) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | ((u & 0x1F) << 7) | 0x23;
}
uint32_t b_type(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3) {
  const uint32_t u = uint32_t(imm);
  return (((u >> 12) & 1) << 31) | (((u >> 5) & 0x3F) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) |
         (((u >> 1) & 0xF) << 8) | (((u >> 11) & 1) << 7) | 0x63;
}
uint32_t lui(uint32_t rd, uint32_t imm20) { return (imm20 << 12) | (rd << 7) | 0x37; }
uint32_t addi(uint32_t rd, uint32_t rs1, int32_t imm) { return i_type(imm, rs1, 0, rd, 0x13); }
uint32_t lw(uint32_t rd, uint32_t rs1, int32_t imm) { return i_type(imm, rs1, 2, rd, 0x03); }
uint32_t sw(uint32_t rs2, uint32_t rs1, int32_t imm) { return s_type(imm, rs2, rs1, 2); }
uint32_t bne(uint32_t rs1, uint32_t rs2, int32_t off) { return b_type(off, rs2, rs1, 1); }
uint32_t csrrw(uint32_t rd, uint32_t csr, uint32_t rs1) { return i_type(int32_t(csr), rs1, 1, rd, 0x73); }
uint32_t csrrs(uint32_t rd, uint32_t csr, uint32_t rs1) { return i_type(int32_t(csr), rs1, 2, rd, 0x73); }
uint32_t mul(uint32_t rd, uint32_t rs1, uint32_t rs2) { return r_type(1, rs2, rs1, 0, rd, 0x33); }
uint32_t div_(uint32_t rd, uint32_t rs1, uint32_t rs2) { return r_type(1, rs2, rs1, 4, rd, 0x33); }
constexpr uint32_t kWfi = 0x10500073, kEbreak = 0x00100073, kMret = 0x30200073, kEcall = 0x73;
constexpr uint32_t kMtvec = 0x305, kMepc = 0x341, kMcause = 0x342, kMtval = 0x343, kMie = 0x304,
                   kMstatus = 0x300, kMinstret = 0xB02, kMcycle = 0xB00;

class NoBus : public Rv32Bus {
 public:
  bool load(uint32_t a, unsigned, uint32_t& v) override {
    if (a == 0x40000000u) {
      v = 0x1234;
      ++mmio;
      return true;
    }
    return false;
  }
  bool store(uint32_t a, unsigned, uint32_t v) override {
    if (a == 0x40000000u) {
      last = v;
      ++mmio;
      return true;
    }
    return false;
  }
  uint32_t last = 0;
  int mmio = 0;
};

/// ROM at 0 (read-only code), RAM at 0x1000_0000.
struct Machine {
  explicit Machine(const std::vector<uint32_t>& code, Timing t = Timing{}) : core(t, bus) {
    rom.assign(4096, 0);
    ram.assign(4096, 0);
    if (!code.empty()) std::memcpy(rom.data(), code.data(), code.size() * 4);  // memcpy from null is UB
    core.add_region({"rom", 0, uint32_t(rom.size()), rom.data(), false, true});
    core.add_region({"ram", 0x10000000u, uint32_t(ram.size()), ram.data(), true, true});
    core.reset(0);
  }
  uint32_t csr(uint32_t n) const {
    uint32_t v = 0;
    EXPECT_TRUE(core.read_csr(n, v));
    return v;
  }
  NoBus bus;
  std::vector<uint8_t> rom, ram;
  Rv32Core core;
};

TEST(Rv32Core, CountsCyclesFromTheTable) {
  // x1 = 10; loop: x2 += x1 * x1; x1 -= 1; bne x1, x0, loop; then wfi.
  Machine m(
      {addi(1, 0, 10), mul(3, 1, 1), r_type(0, 3, 2, 0, 2, 0x33), addi(1, 1, -1), bne(1, 0, -12), kWfi});
  const Stop s = m.core.run(100000);
  EXPECT_EQ(s, Stop::Wfi);
  EXPECT_EQ(m.core.reg(2), 385u);  // sum of k^2 for k = 1..10
  const Timing t;
  // 1 addi + 10 * (mul + add + addi) + 9 taken + 1 not-taken branch + wfi.
  const uint64_t expect = t.cycles[0] + 10 * (t.cycles[size_t(InsnClass::Mul)] + 2 * t.cycles[0]) +
                          9 * t.branch_taken + t.cycles[size_t(InsnClass::Branch)] +
                          t.cycles[size_t(InsnClass::System)];
  EXPECT_EQ(m.core.cycles(), expect);
  EXPECT_EQ(m.core.instret(), 1u + 10 * 4 + 1);
  EXPECT_EQ(m.core.pc(), 24u);  // past the wfi
}

TEST(Rv32Core, DivisionEdgeCasesFollowTheSpec) {
  // Unprivileged ISA table 7.1: x/0 = -1, x%0 = x, INT_MIN / -1 = INT_MIN.
  Machine m({addi(1, 0, 7), div_(2, 1, 0), lui(3, 0x80000), addi(4, 0, -1), div_(5, 3, 4),
             r_type(1, 0, 1, 6, 6, 0x33), kWfi});
  m.core.run(1000);
  EXPECT_EQ(m.core.reg(2), 0xFFFFFFFFu);
  EXPECT_EQ(m.core.reg(5), 0x80000000u);
  EXPECT_EQ(m.core.reg(6), 7u);
}

TEST(Rv32Core, IllegalInstructionTrapsWithTheInstructionInMtval) {
  // mtvec = 0x100 (handler: wfi); an all-ones word is illegal.
  std::vector<uint32_t> code = {addi(1, 0, 0x100), csrrw(0, kMtvec, 1), 0xFFFFFFFFu};
  code.resize(128, 0);
  code[0x100 / 4] = kWfi;
  Machine m(code);
  EXPECT_EQ(m.core.run(1000), Stop::Wfi);
  EXPECT_EQ(m.csr(kMcause), uint32_t(kIllegalInsn));
  EXPECT_EQ(m.csr(kMepc), 8u);
  EXPECT_EQ(m.csr(kMtval), 0xFFFFFFFFu);
  EXPECT_EQ(m.core.instret(), 3u);  // addi, csrrw, wfi: the illegal instruction did not retire
}

TEST(Rv32Core, StoreToRomAndUnmappedLoadAreAccessFaults) {
  std::vector<uint32_t> code = {addi(1, 0, 0x100), csrrw(0, kMtvec, 1), sw(1, 0, 0x40)};
  code.resize(128, 0);
  code[0x100 / 4] = kWfi;
  Machine m(code);
  m.core.run(1000);
  EXPECT_EQ(m.csr(kMcause), uint32_t(kStoreAccessFault));
  EXPECT_EQ(m.csr(kMtval), 0x40u);
  EXPECT_EQ(m.rom[0x40], 0);  // nothing written

  std::vector<uint32_t> code2 = {addi(1, 0, 0x100), csrrw(0, kMtvec, 1), lui(2, 0x20000), lw(3, 2, 4)};
  code2.resize(128, 0);
  code2[0x100 / 4] = kWfi;
  Machine m2(code2);
  m2.core.run(1000);
  EXPECT_EQ(m2.csr(kMcause), uint32_t(kLoadAccessFault));
  EXPECT_EQ(m2.csr(kMtval), 0x20000004u);
}

TEST(Rv32Core, MisalignedAccessSplitsOrTraps) {
  // RAM word at 0x1000_0001 (misaligned): split mode reads it, trap mode raises cause 4.
  std::vector<uint32_t> code = {addi(1, 0, 0x100), csrrw(0, kMtvec, 1), lui(2, 0x10000), lw(3, 2, 1), kWfi};
  code.resize(128, 0);
  code[0x100 / 4] = kWfi;
  Machine split(code);
  split.ram[1] = 0x11;
  split.ram[2] = 0x22;
  split.ram[3] = 0x33;
  split.ram[4] = 0x44;
  split.core.run(1000);
  EXPECT_EQ(split.core.reg(3), 0x44332211u);
  EXPECT_EQ(split.core.pc(), 20u);
  Timing t;
  t.misaligned_split = false;
  Machine trap(code, t);
  trap.core.run(1000);
  EXPECT_EQ(trap.csr(kMcause), uint32_t(kLoadMisaligned));
  EXPECT_EQ(trap.csr(kMtval), 0x10000001u);
}

TEST(Rv32Core, ExternalInterruptIsTakenVectoredAndMretReturns) {
  // mtvec = 0x200 | 1 (vectored): the external interrupt (code 11) enters at 0x200 + 44.
  std::vector<uint32_t> code = {addi(1, 0, 0x201), csrrw(0, kMtvec, 1), lui(2, 1),
                                addi(2, 2, -2048),  // x2 = 0x800: mie.MEIE
                                csrrw(0, kMie, 2), addi(3, 0, 8),       csrrs(0, kMstatus, 3),  // MIE
                                addi(5, 0, 1),     addi(5, 5, 1),       kWfi};
  code.resize(256, 0);
  code[(0x200 + 44) / 4] = addi(6, 0, 42);
  code[(0x200 + 48) / 4] = kMret;
  Machine m(code);
  m.core.run(7);  // through the csrrs that sets mstatus.MIE (1+1+1+1+1+1+1 cycles)
  m.core.set_irq(kMachineExternal, true);
  m.core.run(m.core.cycles() + 4);  // the interrupt is taken before the next instruction
  EXPECT_EQ(m.csr(kMcause), kInterruptBit | kMachineExternal);
  EXPECT_EQ(m.csr(kMepc), 28u);
  EXPECT_EQ(m.core.reg(6), 42u);
  m.core.set_irq(kMachineExternal, false);
  EXPECT_EQ(m.core.run(1000), Stop::Wfi);
  EXPECT_EQ(m.core.reg(5), 2u);              // resumed where it was interrupted
  EXPECT_TRUE(m.core.interrupts_enabled());  // mret restored MIE from MPIE
}

TEST(Rv32Core, WfiWakesOnAnEnabledInterruptWithoutTakingIt) {
  std::vector<uint32_t> code = {lui(2, 1), addi(2, 2, -2048), csrrw(0, kMie, 2), kWfi, addi(7, 0, 9), kWfi};
  Machine m(code);
  EXPECT_EQ(m.core.run(1000), Stop::Wfi);
  EXPECT_EQ(m.core.pc(), 16u);
  m.core.set_irq(kMachineExternal, true);  // mstatus.MIE = 0: no trap, wfi is a nop now
  EXPECT_EQ(m.core.run(m.core.cycles() + 2), Stop::Limit);
  EXPECT_EQ(m.core.reg(7), 9u);
  EXPECT_EQ(m.core.last_trap().count, 0u);
}

TEST(Rv32Core, BreakpointStopsBeforeTheInstructionAndStepsOver) {
  Machine m({addi(1, 0, 1), addi(1, 1, 1), addi(1, 1, 1), kWfi});
  m.core.add_breakpoint(4);
  EXPECT_EQ(m.core.run(1000), Stop::Breakpoint);
  EXPECT_EQ(m.core.pc(), 4u);
  EXPECT_EQ(m.core.reg(1), 1u);
  m.core.step_over_breakpoint();
  EXPECT_EQ(m.core.run(m.core.cycles() + 1), Stop::Limit);  // one instruction
  EXPECT_EQ(m.core.pc(), 8u);
  EXPECT_EQ(m.core.reg(1), 2u);
  m.core.remove_breakpoint(4);
  EXPECT_EQ(m.core.run(1000), Stop::Wfi);
  EXPECT_EQ(m.core.reg(1), 3u);
}

TEST(Rv32Core, EbreakTrapsOrHaltsForTheDebugger) {
  std::vector<uint32_t> code = {addi(1, 0, 0x100), csrrw(0, kMtvec, 1), kEbreak};
  code.resize(128, 0);
  code[0x100 / 4] = kWfi;
  Machine m(code);
  m.core.run(1000);
  EXPECT_EQ(m.csr(kMcause), uint32_t(kBreakpoint));
  EXPECT_EQ(m.csr(kMtval), 8u);
  Machine d(code);
  d.core.set_ebreak_halts(true);
  EXPECT_EQ(d.core.run(1000), Stop::Ebreak);
  EXPECT_EQ(d.core.pc(), 8u);
}

TEST(Rv32Core, TohostStoreHalts) {
  Machine m({lui(1, 0x10000), addi(2, 0, 5), sw(2, 1, 0x10), addi(3, 0, 1), kWfi});
  m.core.watch_tohost(0x10000010u);
  EXPECT_EQ(m.core.run(1000), Stop::Halt);
  EXPECT_EQ(m.core.tohost_value(), 5u);
  EXPECT_EQ(m.core.reg(3), 0u);  // stopped right after the store
}

TEST(Rv32Core, FaultingTrapHandlerIsADoubleFault) {
  // mtvec points at unmapped memory: the first trap's handler cannot be fetched.
  Machine m({lui(1, 0x20000), csrrw(0, kMtvec, 1), kEcall});
  EXPECT_EQ(m.core.run(1000), Stop::DoubleFault);
  EXPECT_EQ(m.core.last_trap().cause, uint32_t(kInsnAccessFault));
  EXPECT_EQ(m.core.last_trap().tval, 0x20000000u);
  EXPECT_EQ(m.csr(kMcause), uint32_t(kEcallM));  // the original trap
}

TEST(Rv32Core, SlowPathAndCounters) {
  // MMIO load and store through the bus; minstret written to 100 and read back.
  Machine m({lui(1, 0x40000), lw(2, 1, 0), sw(2, 1, 0), addi(3, 0, 100), csrrw(0, kMinstret, 3),
             csrrs(4, kMinstret, 0), kWfi});
  EXPECT_EQ(m.core.run(1000), Stop::Wfi);
  EXPECT_EQ(m.bus.mmio, 2);
  EXPECT_EQ(m.bus.last, 0x1234u);
  EXPECT_EQ(m.core.reg(4), 100u);  // the csrrw itself was not counted
  EXPECT_EQ(m.csr(kMcycle), uint32_t(m.core.cycles()));
}

TEST(Rv32Core, StoreIntoDecodedCodeTakesEffect) {
  // Runs from RAM: the instruction at +8 runs once, is overwritten, and runs again.
  Machine m({});
  const uint32_t prog[] = {lui(5, 0x10000), lw(6, 5, 0x40), addi(7, 7, 1),  sw(6, 5, 8),
                           addi(8, 8, 1),   addi(9, 0, 2),  bne(8, 9, -16), kWfi};
  std::memcpy(m.ram.data(), prog, sizeof prog);
  const uint32_t replacement = addi(7, 7, 100);
  std::memcpy(m.ram.data() + 0x40, &replacement, 4);
  m.core.set_pc(0x10000000u);
  EXPECT_EQ(m.core.run(1000), Stop::Wfi);
  EXPECT_EQ(m.core.reg(7), 101u);
}

}  // namespace
