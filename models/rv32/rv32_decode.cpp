// RV32IMC decoder. 32-bit formats: Unprivileged ISA 20191213 section 2.2-2.3 and table 24.2
// (the RV32I/M opcode map); compressed: chapter 16, tables 16.5-16.7 (RVC to RV32 expansion).
#include "models/rv32/rv32_isa.h"

#include <cstddef>

namespace photon::rv32 {

namespace {

constexpr int32_t sext(uint32_t v, unsigned bits) {
  const uint32_t m = 1u << (bits - 1);
  return int32_t((v ^ m) - m);
}

Insn make(Op op, uint32_t raw, uint8_t len, unsigned rd = 0, unsigned rs1 = 0, unsigned rs2 = 0,
          int32_t imm = 0) {
  Insn in;
  in.op = op;
  in.rd = uint8_t(rd);
  in.rs1 = uint8_t(rs1);
  in.rs2 = uint8_t(rs2);
  in.imm = imm;
  in.raw = raw;
  in.len = len;
  in.cls = insn_class(op);
  return in;
}

Insn illegal(uint32_t raw, uint8_t len) { return make(Op::Illegal, raw, len); }

}  // namespace

Insn decode32(uint32_t w) {
  const unsigned opcode = w & 0x7F, rd = (w >> 7) & 31, f3 = (w >> 12) & 7, rs1 = (w >> 15) & 31,
                 rs2 = (w >> 20) & 31, f7 = w >> 25;
  const int32_t imm_i = int32_t(w) >> 20;
  const int32_t imm_s = sext(((w >> 20) & 0xFE0) | ((w >> 7) & 0x1F), 12);
  const int32_t imm_b =
      sext(((w >> 19) & 0x1000) | ((w << 4) & 0x800) | ((w >> 20) & 0x7E0) | ((w >> 7) & 0x1E), 13);
  const int32_t imm_u = int32_t(w & 0xFFFFF000u);
  const int32_t imm_j =
      sext(((w >> 11) & 0x100000) | (w & 0xFF000) | ((w >> 9) & 0x800) | ((w >> 20) & 0x7FE), 21);
  auto r = [&](Op op) { return make(op, w, 4, rd, rs1, rs2); };
  auto i = [&](Op op) { return make(op, w, 4, rd, rs1, 0, imm_i); };
  switch (opcode) {
    case 0x37: return make(Op::Lui, w, 4, rd, 0, 0, imm_u);
    case 0x17: return make(Op::Auipc, w, 4, rd, 0, 0, imm_u);
    case 0x6F: return make(Op::Jal, w, 4, rd, 0, 0, imm_j);
    case 0x67: return f3 == 0 ? i(Op::Jalr) : illegal(w, 4);
    case 0x63: {
      static constexpr Op ops[8] = {Op::Beq, Op::Bne, Op::Illegal, Op::Illegal,
                                    Op::Blt, Op::Bge, Op::Bltu,    Op::Bgeu};
      if (ops[f3] == Op::Illegal) return illegal(w, 4);
      return make(ops[f3], w, 4, 0, rs1, rs2, imm_b);
    }
    case 0x03: {
      static constexpr Op ops[8] = {Op::Lb,  Op::Lh,  Op::Lw,      Op::Illegal,
                                    Op::Lbu, Op::Lhu, Op::Illegal, Op::Illegal};
      return ops[f3] == Op::Illegal ? illegal(w, 4) : i(ops[f3]);
    }
    case 0x23: {
      static constexpr Op ops[8] = {Op::Sb,      Op::Sh,      Op::Sw,      Op::Illegal,
                                    Op::Illegal, Op::Illegal, Op::Illegal, Op::Illegal};
      if (ops[f3] == Op::Illegal) return illegal(w, 4);
      return make(ops[f3], w, 4, 0, rs1, rs2, imm_s);
    }
    case 0x13:
      switch (f3) {
        case 0: return i(Op::Addi);
        case 2: return i(Op::Slti);
        case 3: return i(Op::Sltiu);
        case 4: return i(Op::Xori);
        case 6: return i(Op::Ori);
        case 7: return i(Op::Andi);
        case 1:  // shamt[5] (bit 25) set is reserved on RV32
          return f7 == 0 ? make(Op::Slli, w, 4, rd, rs1, 0, int32_t(rs2)) : illegal(w, 4);
        default:
          if (f7 == 0) return make(Op::Srli, w, 4, rd, rs1, 0, int32_t(rs2));
          if (f7 == 0x20) return make(Op::Srai, w, 4, rd, rs1, 0, int32_t(rs2));
          return illegal(w, 4);
      }
    case 0x33:
      if (f7 == 0) {
        static constexpr Op ops[8] = {Op::Add, Op::Sll, Op::Slt, Op::Sltu, Op::Xor, Op::Srl, Op::Or, Op::And};
        return r(ops[f3]);
      }
      if (f7 == 0x20) {
        if (f3 == 0) return r(Op::Sub);
        if (f3 == 5) return r(Op::Sra);
        return illegal(w, 4);
      }
      if (f7 == 0x01) {
        static constexpr Op ops[8] = {Op::Mul, Op::Mulh, Op::Mulhsu, Op::Mulhu,
                                      Op::Div, Op::Divu, Op::Rem,    Op::Remu};
        return r(ops[f3]);
      }
      return illegal(w, 4);
    case 0x0F:
      if (f3 == 0) return make(Op::Fence, w, 4);
      if (f3 == 1) return make(Op::FenceI, w, 4);
      return illegal(w, 4);
    case 0x73: {
      const uint32_t csr = w >> 20;
      switch (f3) {
        case 0:
          if (rd != 0 || rs1 != 0) return illegal(w, 4);
          if (csr == 0x000) return make(Op::Ecall, w, 4);
          if (csr == 0x001) return make(Op::Ebreak, w, 4);
          if (csr == 0x302) return make(Op::Mret, w, 4);
          if (csr == 0x105) return make(Op::Wfi, w, 4);
          return illegal(w, 4);  // sret, uret, sfence.vma, ...: no S or U mode here
        case 1: return make(Op::Csrrw, w, 4, rd, rs1, 0, int32_t(csr));
        case 2: return make(Op::Csrrs, w, 4, rd, rs1, 0, int32_t(csr));
        case 3: return make(Op::Csrrc, w, 4, rd, rs1, 0, int32_t(csr));
        case 5: return make(Op::Csrrwi, w, 4, rd, rs1, 0, int32_t(csr));
        case 6: return make(Op::Csrrsi, w, 4, rd, rs1, 0, int32_t(csr));
        case 7: return make(Op::Csrrci, w, 4, rd, rs1, 0, int32_t(csr));
        default: return illegal(w, 4);
      }
    }
    default: return illegal(w, 4);
  }
}

Insn decode16(uint16_t h) {
  const uint32_t i = h;
  const unsigned f3 = (i >> 13) & 7, quadrant = i & 3;
  const unsigned rd = (i >> 7) & 31, rs2 = (i >> 2) & 31;
  const unsigned rs1p = 8 + ((i >> 7) & 7), rs2p = 8 + ((i >> 2) & 7);  // x8..x15
  const int32_t imm6 = sext(((i >> 2) & 0x1F) | ((i >> 7) & 0x20), 6);
  auto c = [&](Op op, unsigned d, unsigned s1, unsigned s2, int32_t imm) {
    return make(op, i, 2, d, s1, s2, imm);
  };
  if (i == 0) return illegal(i, 2);  // the all-zero halfword is defined illegal
  switch (quadrant) {
    case 0:
      switch (f3) {
        case 0: {  // C.ADDI4SPN: addi rd', x2, nzuimm
          const uint32_t imm = ((i >> 7) & 0x30) | ((i >> 1) & 0x3C0) | ((i >> 4) & 0x4) | ((i >> 2) & 0x8);
          if (imm == 0) return illegal(i, 2);
          return c(Op::Addi, rs2p, 2, 0, int32_t(imm));
        }
        case 2: {  // C.LW
          const uint32_t imm = ((i >> 7) & 0x38) | ((i >> 4) & 0x4) | ((i << 1) & 0x40);
          return c(Op::Lw, rs2p, rs1p, 0, int32_t(imm));
        }
        case 6: {  // C.SW
          const uint32_t imm = ((i >> 7) & 0x38) | ((i >> 4) & 0x4) | ((i << 1) & 0x40);
          return c(Op::Sw, 0, rs1p, rs2p, int32_t(imm));
        }
        default: return illegal(i, 2);  // C.FLD/C.FLW/C.FSD/C.FSW (no F/D), reserved
      }
    case 1:
      switch (f3) {
        case 0: return c(Op::Addi, rd, rd, 0, imm6);  // C.ADDI (C.NOP, hints when imm or rd is 0)
        case 1:
        case 5: {  // C.JAL (x1) and C.J (x0)
          const uint32_t off = ((i >> 1) & 0x800) | ((i >> 7) & 0x10) | ((i >> 1) & 0x300) |
                               ((i << 2) & 0x400) | ((i >> 1) & 0x40) | ((i << 1) & 0x80) | ((i >> 2) & 0xE) |
                               ((i << 3) & 0x20);
          return c(Op::Jal, f3 == 1 ? 1 : 0, 0, 0, sext(off, 12));
        }
        case 2: return c(Op::Addi, rd, 0, 0, imm6);  // C.LI
        case 3:
          if (rd == 2) {  // C.ADDI16SP
            const uint32_t imm = ((i >> 3) & 0x200) | ((i >> 2) & 0x10) | ((i << 1) & 0x40) |
                                 ((i << 4) & 0x180) | ((i << 3) & 0x20);
            if (imm == 0) return illegal(i, 2);
            return c(Op::Addi, 2, 2, 0, sext(imm, 10));
          }
          if (imm6 == 0) return illegal(i, 2);  // C.LUI with nzimm 0 is reserved
          return c(Op::Lui, rd, 0, 0, int32_t(uint32_t(imm6) << 12));
        case 4: {
          const unsigned f2 = (i >> 10) & 3;
          const bool bit12 = (i >> 12) & 1;
          if (f2 == 0 || f2 == 1) {  // C.SRLI, C.SRAI: shamt[5] set is reserved on RV32
            if (bit12) return illegal(i, 2);
            return c(f2 == 0 ? Op::Srli : Op::Srai, rs1p, rs1p, 0, int32_t((i >> 2) & 31));
          }
          if (f2 == 2) return c(Op::Andi, rs1p, rs1p, 0, imm6);  // C.ANDI
          if (bit12) return illegal(i, 2);                       // C.SUBW/C.ADDW are RV64 only
          static constexpr Op ops[4] = {Op::Sub, Op::Xor, Op::Or, Op::And};
          return c(ops[(i >> 5) & 3], rs1p, rs1p, rs2p, 0);
        }
        default: {  // 6: C.BEQZ, 7: C.BNEZ
          const uint32_t off = ((i >> 4) & 0x100) | ((i >> 7) & 0x18) | ((i << 1) & 0xC0) | ((i >> 2) & 0x6) |
                               ((i << 3) & 0x20);
          return c(f3 == 6 ? Op::Beq : Op::Bne, 0, rs1p, 0, sext(off, 9));
        }
      }
    case 2:
      switch (f3) {
        case 0:  // C.SLLI
          if ((i >> 12) & 1) return illegal(i, 2);
          return c(Op::Slli, rd, rd, 0, int32_t(rs2));
        case 2: {  // C.LWSP
          if (rd == 0) return illegal(i, 2);
          const uint32_t imm = ((i >> 7) & 0x20) | ((i >> 2) & 0x1C) | ((i << 4) & 0xC0);
          return c(Op::Lw, rd, 2, 0, int32_t(imm));
        }
        case 4:
          if (((i >> 12) & 1) == 0) {
            if (rs2 == 0) return rd == 0 ? illegal(i, 2) : c(Op::Jalr, 0, rd, 0, 0);  // C.JR
            return c(Op::Add, rd, 0, rs2, 0);                                         // C.MV
          }
          if (rs2 == 0) {
            if (rd == 0) return c(Op::Ebreak, 0, 0, 0, 0);  // C.EBREAK
            return c(Op::Jalr, 1, rd, 0, 0);                // C.JALR
          }
          return c(Op::Add, rd, rd, rs2, 0);  // C.ADD
        case 6: {                             // C.SWSP
          const uint32_t imm = ((i >> 7) & 0x3C) | ((i >> 1) & 0xC0);
          return c(Op::Sw, 0, 2, rs2, int32_t(imm));
        }
        default: return illegal(i, 2);  // C.FLDSP, C.FLWSP, C.FSDSP, C.FSWSP
      }
    default: return illegal(i, 2);  // quadrant 3 is a 32-bit instruction, not handled here
  }
}

InsnClass insn_class(Op op) {
  switch (op) {
    case Op::Lb:
    case Op::Lh:
    case Op::Lw:
    case Op::Lbu:
    case Op::Lhu: return InsnClass::Load;
    case Op::Sb:
    case Op::Sh:
    case Op::Sw: return InsnClass::Store;
    case Op::Beq:
    case Op::Bne:
    case Op::Blt:
    case Op::Bge:
    case Op::Bltu:
    case Op::Bgeu: return InsnClass::Branch;
    case Op::Jal:
    case Op::Jalr: return InsnClass::Jump;
    case Op::Mul:
    case Op::Mulh:
    case Op::Mulhsu:
    case Op::Mulhu: return InsnClass::Mul;
    case Op::Div:
    case Op::Divu:
    case Op::Rem:
    case Op::Remu: return InsnClass::Div;
    case Op::Csrrw:
    case Op::Csrrs:
    case Op::Csrrc:
    case Op::Csrrwi:
    case Op::Csrrsi:
    case Op::Csrrci: return InsnClass::Csr;
    case Op::Ecall:
    case Op::Ebreak:
    case Op::Mret:
    case Op::Wfi:
    case Op::Illegal:
    case Op::BreakHook:
    case Op::Undecoded: return InsnClass::System;
    case Op::Fence:
    case Op::FenceI: return InsnClass::Fence;
    default: return InsnClass::Alu;
  }
}

const char* op_name(Op op) {
  static const char* const names[] = {
      "undecoded", "illegal", "breakpoint", "lui",   "auipc", "jal",   "jalr",  "beq",    "bne",    "blt",
      "bge",       "bltu",    "bgeu",       "lb",    "lh",    "lw",    "lbu",   "lhu",    "sb",     "sh",
      "sw",        "addi",    "slti",       "sltiu", "xori",  "ori",   "andi",  "slli",   "srli",   "srai",
      "add",       "sub",     "sll",        "slt",   "sltu",  "xor",   "srl",   "sra",    "or",     "and",
      "mul",       "mulh",    "mulhsu",     "mulhu", "div",   "divu",  "rem",   "remu",   "fence",  "fence.i",
      "ecall",     "ebreak",  "mret",       "wfi",   "csrrw", "csrrs", "csrrc", "csrrwi", "csrrsi", "csrrci"};
  static_assert(sizeof(names) / sizeof(names[0]) == std::size_t(Op::Csrrci) + 1, "one name per Op");
  return names[std::size_t(op)];
}

const char* cause_name(uint32_t mcause) {
  if (mcause & kInterruptBit) {
    switch (mcause & ~kInterruptBit) {
      case kMachineSoftware: return "machine software interrupt";
      case kMachineTimer: return "machine timer interrupt";
      case kMachineExternal: return "machine external interrupt";
      default: return "interrupt";
    }
  }
  switch (mcause) {
    case kInsnMisaligned: return "instruction address misaligned";
    case kInsnAccessFault: return "instruction access fault";
    case kIllegalInsn: return "illegal instruction";
    case kBreakpoint: return "breakpoint";
    case kLoadMisaligned: return "load address misaligned";
    case kLoadAccessFault: return "load access fault";
    case kStoreMisaligned: return "store address misaligned";
    case kStoreAccessFault: return "store access fault";
    case kEcallU: return "environment call from U-mode";
    case kEcallM: return "environment call from M-mode";
    default: return "exception";
  }
}

}  // namespace photon::rv32
