// RV32IMC + Zicsr instruction set: operations, the decoded-instruction record, trap causes.
//
// Source: The RISC-V Instruction Set Manual, Volume I: Unprivileged ISA (20191213), chapters 2
// (RV32I), 7 (M), 9 (Zicsr), 16 (C, the RVC expansion table 16.5-16.7), and Volume II: Privileged
// Architecture (20211203), section 3.1.15 (mcause exception codes). No SystemC here.
#pragma once

#include <cstdint>

namespace photon::rv32 {

/// Every operation the core executes. Compressed instructions decode to the same operations
/// (with `Insn::len` 2). `Undecoded` marks an empty slot of the decoded-instruction cache;
/// `BreakHook` a slot holding a debugger breakpoint.
enum class Op : uint8_t {
  Undecoded = 0,
  Illegal,
  BreakHook,
  Lui,
  Auipc,
  Jal,
  Jalr,
  Beq,
  Bne,
  Blt,
  Bge,
  Bltu,
  Bgeu,
  Lb,
  Lh,
  Lw,
  Lbu,
  Lhu,
  Sb,
  Sh,
  Sw,
  Addi,
  Slti,
  Sltiu,
  Xori,
  Ori,
  Andi,
  Slli,
  Srli,
  Srai,
  Add,
  Sub,
  Sll,
  Slt,
  Sltu,
  Xor,
  Srl,
  Sra,
  Or,
  And,
  Mul,
  Mulh,
  Mulhsu,
  Mulhu,
  Div,
  Divu,
  Rem,
  Remu,
  Fence,
  FenceI,
  Ecall,
  Ebreak,
  Mret,
  Wfi,
  Csrrw,
  Csrrs,
  Csrrc,
  Csrrwi,
  Csrrsi,
  Csrrci,
};

/// Timing classes of the per-instruction cycle table (Rv32Timing).
enum class InsnClass : uint8_t { Alu, Load, Store, Branch, Jump, Mul, Div, Csr, System, Fence };

/// One decoded instruction. `imm` is the sign-extended immediate (for CSR ops: the CSR number;
/// for the immediate CSR forms `rs1` holds the 5-bit zimm). `raw` is the instruction word as
/// fetched (16 bits for compressed), for mtval on an illegal instruction.
struct Insn {
  Op op = Op::Undecoded;
  uint8_t rd = 0, rs1 = 0, rs2 = 0;
  int32_t imm = 0;
  uint32_t raw = 0;
  uint8_t len = 4;     ///< bytes: 4, or 2 for a compressed instruction
  uint8_t cycles = 1;  ///< base cost from the cycle table, CPU cycles (filled by the core)
  InsnClass cls = InsnClass::Alu;
};

/// Decodes a 32-bit instruction word (low two bits 11). Unknown or reserved encodings give
/// Op::Illegal.
Insn decode32(uint32_t word);
/// Decodes a 16-bit compressed instruction (low two bits not 11) into its 32-bit equivalent
/// operation. Reserved, RV64-only and floating-point encodings give Op::Illegal.
Insn decode16(uint16_t half);
/// Timing class of an operation.
InsnClass insn_class(Op op);
/// Mnemonic of an operation ("addi"), for traces and messages.
const char* op_name(Op op);

/// mcause exception codes (Privileged ISA table 3.6).
enum Cause : uint32_t {
  kInsnMisaligned = 0,
  kInsnAccessFault = 1,
  kIllegalInsn = 2,
  kBreakpoint = 3,
  kLoadMisaligned = 4,
  kLoadAccessFault = 5,
  kStoreMisaligned = 6,
  kStoreAccessFault = 7,
  kEcallU = 8,
  kEcallM = 11,
};
/// Interrupt codes (mcause with bit 31 set) and their mip/mie bit numbers.
enum IrqCode : uint32_t { kMachineSoftware = 3, kMachineTimer = 7, kMachineExternal = 11 };
constexpr uint32_t kInterruptBit = 0x80000000u;

/// Readable name of an mcause value ("illegal instruction", "machine timer interrupt").
const char* cause_name(uint32_t mcause);

}  // namespace photon::rv32
