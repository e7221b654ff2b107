#include "models/rv32/rv32_core.h"

#include <cstring>

namespace photon::rv32 {

namespace {

// CSR numbers (Privileged ISA 20211203, tables 2.2-2.6; Debug spec 0.13.2 for the triggers).
enum Csr : uint32_t {
  kMstatus = 0x300,
  kMisa = 0x301,
  kMie = 0x304,
  kMtvec = 0x305,
  kMstatush = 0x310,
  kMcountinhibit = 0x320,
  kMscratch = 0x340,
  kMepc = 0x341,
  kMcause = 0x342,
  kMtval = 0x343,
  kMip = 0x344,
  kTselect = 0x7A0,
  kTdata1 = 0x7A1,
  kTdata2 = 0x7A2,
  kTdata3 = 0x7A3,
  kMcycle = 0xB00,
  kMinstret = 0xB02,
  kMcycleh = 0xB80,
  kMinstreth = 0xB82,
  kCycle = 0xC00,
  kTime = 0xC01,
  kInstret = 0xC02,
  kCycleh = 0xC80,
  kTimeh = 0xC81,
  kInstreth = 0xC82,
  kMvendorid = 0xF11,
  kMarchid = 0xF12,
  kMimpid = 0xF13,
  kMhartid = 0xF14,
  kMconfigptr = 0xF15,
};
constexpr uint32_t kMisaValue = (1u << 30) | (1u << ('I' - 'A')) | (1u << ('M' - 'A')) |
                                (1u << ('C' - 'A'));  // MXL = 1 (32-bit), I, M, C
constexpr uint32_t kMstatusMie = 1u << 3, kMstatusMpie = 1u << 7, kMstatusMpp = 3u << 11;
constexpr uint32_t kMieWritable = (1u << kMachineSoftware) | (1u << kMachineTimer) | (1u << kMachineExternal);

inline uint32_t rd32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint16_t rd16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

}  // namespace

Rv32Core::Rv32Core(const Timing& timing, Rv32Bus& bus) : timing_(timing), bus_(bus) { regions_.reserve(4); }

void Rv32Core::add_region(const MemRegion& m) {
  Region r;
  r.m = m;
  if (m.executable) r.icache.assign(m.size / 2, Insn{});
  regions_.push_back(std::move(r));
  hot_ = dhot_ = &regions_.front();
}

void Rv32Core::reset(uint32_t pc) {
  std::memset(x_, 0, sizeof x_);
  pc_ = pc;
  cycles_ = instret_ = stall_cycles_ = sleep_cycles_ = 0;
  mstatus_mie_ = mstatus_mpie_ = false;
  mtvec_ = mscratch_ = mepc_ = mcause_ = mtval_ = mie_ = 0;
  mip_ = 0;
  mcycle_offset_ = minstret_offset_ = 0;
  halted_ = false;
  tohost_value_ = 0;
  last_trap_ = TrapRecord{};
  in_trap_entry_ = false;
  update_irq();
}

void Rv32Core::set_irq(IrqCode code, bool level) {
  const uint32_t bit = 1u << code;
  mip_ = level ? (mip_ | bit) : (mip_ & ~bit);
  update_irq();
}

Rv32Core::Region* Rv32Core::region_of(uint32_t addr, unsigned bytes) {
  for (Region& r : regions_)
    if (addr - r.m.base < r.m.size && addr - r.m.base + bytes <= r.m.size) return &r;
  return nullptr;
}

void Rv32Core::fill(Insn& slot, uint32_t pc, uint32_t raw, bool compressed) {
  slot = compressed ? decode16(uint16_t(raw)) : decode32(raw);
  slot.cycles = timing_.cycles[size_t(slot.cls)];
  if (!breakpoints_.empty() && breakpoints_.count(pc)) slot.op = Op::BreakHook;
}

inline bool Rv32Core::fetch(uint32_t pc, Insn*& slot, Insn& scratch) {
  Region* r = hot_;
  uint32_t off = pc - r->m.base;
  if (!(off < r->m.size && !r->icache.empty())) {
    r = nullptr;
    for (Region& c : regions_)
      if (pc - c.m.base < c.m.size && !c.icache.empty()) r = &c;
    if (!r) return false;
    hot_ = r;
    off = pc - r->m.base;
  }
  slot = &r->icache[off >> 1];
  if (slot->op != Op::Undecoded) return true;
  r->has_code = true;
  const uint16_t lo = rd16(r->m.data + off);
  if ((lo & 3) != 3) {
    fill(*slot, pc, lo, true);
    return true;
  }
  if (off + 4 > r->m.size) {  // a 32-bit instruction running off the end of the memory
    (void)scratch;
    return false;
  }
  fill(*slot, pc, rd32(r->m.data + off), false);
  return true;
}

void Rv32Core::invalidate(Region& r, uint32_t off, unsigned bytes) {
  // A 32-bit instruction starting one halfword before the store also changes.
  const uint32_t first = off >= 2 ? (off - 2) >> 1 : 0, last = (off + bytes - 1) >> 1;
  for (uint32_t i = first; i <= last && i < r.icache.size(); ++i) r.icache[i].op = Op::Undecoded;
}

inline bool Rv32Core::load_aligned(uint32_t addr, unsigned bytes, uint32_t& v) {
  Region* r = dhot_;
  if (!(addr - r->m.base < r->m.size && addr - r->m.base + bytes <= r->m.size)) {
    r = region_of(addr, bytes);
    if (r) dhot_ = r;
  }
  if (r) {
    const uint8_t* p = r->m.data + (addr - r->m.base);
    if (bytes == 4)
      v = rd32(p);
    else if (bytes == 2)
      v = rd16(p);
    else
      v = *p;
    return true;
  }
  return bus_.load(addr, bytes, v);
}

inline bool Rv32Core::store_aligned(uint32_t addr, unsigned bytes, uint32_t v) {
  Region* r = dhot_;
  if (!(addr - r->m.base < r->m.size && addr - r->m.base + bytes <= r->m.size)) {
    r = region_of(addr, bytes);
    if (r) dhot_ = r;
  }
  if (r) {
    if (!r->m.writable) return false;
    const uint32_t off = addr - r->m.base;
    std::memcpy(r->m.data + off, &v, bytes);  // little-endian host
    if (r->has_code) invalidate(*r, off, bytes);
    if (tohost_armed_ && (addr & ~3u) == tohost_ && v != 0) {
      tohost_value_ = v;
      halted_ = true;
      limit_ = 0;
    }
    return true;
  }
  return bus_.store(addr, bytes, v);
}

inline bool Rv32Core::load(uint32_t addr, unsigned bytes, uint32_t& v, bool& misaligned) {
  misaligned = (addr & (bytes - 1)) != 0;
  if (!misaligned) return load_aligned(addr, bytes, v);
  if (!timing_.misaligned_split) return false;
  // Split into bytes from local memory only (a misaligned MMIO access is an access fault).
  uint32_t out = 0;
  for (unsigned i = 0; i < bytes; ++i) {
    Region* r = region_of(addr + i, 1);
    if (!r) {
      misaligned = false;
      return false;
    }
    out |= uint32_t(r->m.data[addr + i - r->m.base]) << (8 * i);
  }
  v = out;
  cycles_ += 1;
  misaligned = false;
  return true;
}

inline bool Rv32Core::store(uint32_t addr, unsigned bytes, uint32_t v, bool& misaligned) {
  misaligned = (addr & (bytes - 1)) != 0;
  if (!misaligned) return store_aligned(addr, bytes, v);
  if (!timing_.misaligned_split) return false;
  for (unsigned i = 0; i < bytes; ++i) {  // check every byte first: a faulting store writes none
    Region* r = region_of(addr + i, 1);
    if (!r || !r->m.writable) {
      misaligned = false;
      return false;
    }
  }
  for (unsigned i = 0; i < bytes; ++i) store_aligned(addr + i, 1, (v >> (8 * i)) & 0xFF);
  cycles_ += 1;
  misaligned = false;
  return true;
}

void Rv32Core::take_trap(uint32_t cause, uint32_t tval) {
  if (trap_catch_ && !(cause & kInterruptBit) && cause != kEcallM && cause != kEcallU &&
      !(skip_catch_ && pc_ == caught_pc_)) {
    trap_caught_ = true;  // stop before the trap: state unchanged, pc at the instruction
    caught_pc_ = pc_;
    last_trap_.cause = cause;
    last_trap_.epc = pc_;
    last_trap_.tval = tval;
    limit_ = 0;
    return;
  }
  skip_catch_ = false;
  if (in_trap_entry_ && !(cause & kInterruptBit)) {
    // The handler's first instruction faulted: the hart would trap forever.
    limit_ = 0;
    last_trap_.cause = cause;
    last_trap_.epc = pc_;
    last_trap_.tval = tval;
    double_fault_ = true;
    return;
  }
  mepc_ = pc_;
  mcause_ = cause;
  mtval_ = tval;
  mstatus_mpie_ = mstatus_mie_;
  mstatus_mie_ = false;
  const uint32_t base = mtvec_ & ~3u;
  pc_ = ((mtvec_ & 1) && (cause & kInterruptBit)) ? base + 4 * (cause & 31) : base;
  cycles_ += timing_.trap;
  last_trap_.cause = cause;
  last_trap_.epc = mepc_;
  last_trap_.tval = tval;
  ++last_trap_.count;
  in_trap_entry_ = true;
  update_irq();
}

bool Rv32Core::read_csr(uint32_t csr, uint32_t& v) const {
  const uint64_t mcycle = cycles_ + uint64_t(mcycle_offset_);
  const uint64_t minstret = instret_ + uint64_t(minstret_offset_);
  switch (csr) {
    case kMstatus:
      v = (mstatus_mie_ ? kMstatusMie : 0) | (mstatus_mpie_ ? kMstatusMpie : 0) | kMstatusMpp;
      return true;
    case kMisa: v = kMisaValue; return true;
    case kMie: v = mie_; return true;
    case kMtvec: v = mtvec_; return true;
    case kMstatush:
    case kMcountinhibit: v = 0; return true;
    case kMscratch: v = mscratch_; return true;
    case kMepc: v = mepc_; return true;
    case kMcause: v = mcause_; return true;
    case kMtval: v = mtval_; return true;
    case kMip: v = mip_; return true;
    case kTselect:
    case kTdata1:
    case kTdata2:
    case kTdata3: v = 0; return true;
    case kMcycle:
    case kCycle: v = uint32_t(mcycle); return true;
    case kMcycleh:
    case kCycleh: v = uint32_t(mcycle >> 32); return true;
    case kMinstret:
    case kInstret: v = uint32_t(minstret); return true;
    case kMinstreth:
    case kInstreth: v = uint32_t(minstret >> 32); return true;
    case kTime: v = uint32_t(bus_.mtime()); return true;
    case kTimeh: v = uint32_t(bus_.mtime() >> 32); return true;
    case kMvendorid:
    case kMarchid:
    case kMimpid:
    case kMhartid:
    case kMconfigptr: v = 0; return true;
    default:
      // mhpmcounter3-31[h], mhpmevent3-31 and hpmcounter3-31[h]: present, hardwired to zero.
      if ((csr >= 0xB03 && csr <= 0xB1F) || (csr >= 0xB83 && csr <= 0xB9F) ||
          (csr >= 0x323 && csr <= 0x33F) || (csr >= 0xC03 && csr <= 0xC1F) ||
          (csr >= 0xC83 && csr <= 0xC9F)) {
        v = 0;
        return true;
      }
      return false;
  }
}

bool Rv32Core::csr_op(uint32_t csr, uint32_t operand, int kind, bool writes, uint32_t& old) {
  if (!read_csr(csr, old)) return false;
  if (!writes) return true;
  if ((csr >> 10) == 3) return false;  // read-only CSR (csr[11:10] == 3)
  const uint32_t v = kind == 0 ? operand : kind == 1 ? (old | operand) : (old & ~operand);
  switch (csr) {
    case kMstatus:
      mstatus_mie_ = (v & kMstatusMie) != 0;
      mstatus_mpie_ = (v & kMstatusMpie) != 0;
      break;
    case kMie: mie_ = v & kMieWritable; break;
    case kMtvec: mtvec_ = v & ~2u; break;  // modes 0 (direct) and 1 (vectored)
    case kMscratch: mscratch_ = v; break;
    case kMepc: mepc_ = v & ~1u; break;  // IALIGN = 16
    case kMcause: mcause_ = v; break;
    case kMtval: mtval_ = v; break;
    case kMcycle:
    case kMcycleh: {
      const uint64_t cur = cycles_ + uint64_t(mcycle_offset_);
      const uint64_t nv =
          csr == kMcycle ? (cur & ~0xFFFFFFFFull) | v : (cur & 0xFFFFFFFFull) | (uint64_t(v) << 32);
      mcycle_offset_ = int64_t(nv - cycles_);
      break;
    }
    case kMinstret:
    case kMinstreth: {
      // The writing instruction itself is not counted: the value after it is the value written.
      const uint64_t cur = instret_ + uint64_t(minstret_offset_);
      const uint64_t nv =
          csr == kMinstret ? (cur & ~0xFFFFFFFFull) | v : (cur & 0xFFFFFFFFull) | (uint64_t(v) << 32);
      minstret_offset_ = int64_t(nv - (instret_ + 1));
      break;
    }
    default: break;  // misa, mip, mstatush, counters and triggers: WARL, writes ignored
  }
  update_irq();
  return true;
}

Stop Rv32Core::run(uint64_t cycle_limit) {
  if (halted_) return Stop::Halt;
  limit_ = cycle_limit;
  yield_ = false;
  double_fault_ = false;
  skip_catch_ = trap_caught_;
  trap_caught_ = false;
  return run_loop();
}

Stop Rv32Core::run_loop() {
  Insn scratch;
  bool misaligned = false;
  while (cycles_ < limit_) {
    if (irq_ready_) {
      const uint32_t p = mip_ & mie_;
      const uint32_t code = (p & (1u << kMachineExternal))   ? kMachineExternal
                            : (p & (1u << kMachineSoftware)) ? kMachineSoftware
                                                             : kMachineTimer;
      in_trap_entry_ = false;
      take_trap(kInterruptBit | code, 0);
      continue;
    }
    Insn* in;
    if (!fetch(pc_, in, scratch)) {
      take_trap(kInsnAccessFault, pc_);
      continue;
    }
  dispatch:
    const uint32_t a = x_[in->rs1], b = x_[in->rs2];
    const uint32_t imm = uint32_t(in->imm);
    uint32_t next = pc_ + in->len;
    cycles_ += in->cycles;
    switch (in->op) {
      case Op::Undecoded:
      case Op::Illegal:
        cycles_ -= in->cycles;
        take_trap(kIllegalInsn, in->raw);
        continue;
      case Op::BreakHook:
        cycles_ -= in->cycles;
        if (skip_break_) {
          skip_break_ = false;
          uint8_t buf[4] = {};
          debug_read(pc_, buf, 2);
          const uint16_t lo = rd16(buf);
          if ((lo & 3) != 3) {
            scratch = decode16(lo);
          } else {
            debug_read(pc_, buf, 4);
            scratch = decode32(rd32(buf));
          }
          scratch.cycles = timing_.cycles[size_t(scratch.cls)];
          in = &scratch;
          goto dispatch;
        }
        return Stop::Breakpoint;
      case Op::Lui: x_[in->rd] = imm; break;
      case Op::Auipc: x_[in->rd] = pc_ + imm; break;
      case Op::Jal:
        x_[in->rd] = next;
        next = pc_ + imm;
        break;
      case Op::Jalr:
        x_[in->rd] = next;
        next = (a + imm) & ~1u;
        break;
#define PHOTON_BRANCH(OP, COND)                     \
  case Op::OP:                                      \
    if (COND) {                                     \
      next = pc_ + imm;                             \
      cycles_ += timing_.branch_taken - in->cycles; \
    }                                               \
    break;
        PHOTON_BRANCH(Beq, a == b)
        PHOTON_BRANCH(Bne, a != b)
        PHOTON_BRANCH(Blt, int32_t(a) < int32_t(b))
        PHOTON_BRANCH(Bge, int32_t(a) >= int32_t(b))
        PHOTON_BRANCH(Bltu, a < b)
        PHOTON_BRANCH(Bgeu, a >= b)
#undef PHOTON_BRANCH
#define PHOTON_LOAD(OP, BYTES, EXT)                                     \
  case Op::OP: {                                                        \
    uint32_t v;                                                         \
    const uint32_t addr = a + imm;                                      \
    if (!load(addr, BYTES, v, misaligned)) {                            \
      cycles_ -= in->cycles;                                            \
      take_trap(misaligned ? kLoadMisaligned : kLoadAccessFault, addr); \
      continue;                                                         \
    }                                                                   \
    x_[in->rd] = EXT;                                                   \
    break;                                                              \
  }
        PHOTON_LOAD(Lb, 1, uint32_t(int32_t(int8_t(v))))
        PHOTON_LOAD(Lh, 2, uint32_t(int32_t(int16_t(v))))
        PHOTON_LOAD(Lw, 4, v)
        PHOTON_LOAD(Lbu, 1, v)
        PHOTON_LOAD(Lhu, 2, v)
#undef PHOTON_LOAD
#define PHOTON_STORE(OP, BYTES)                                                            \
  case Op::OP: {                                                                           \
    const uint32_t addr = a + imm;                                                         \
    if (!store(addr, BYTES, BYTES == 4 ? b : b & ((1u << (8 * BYTES)) - 1), misaligned)) { \
      cycles_ -= in->cycles;                                                               \
      take_trap(misaligned ? kStoreMisaligned : kStoreAccessFault, addr);                  \
      continue;                                                                            \
    }                                                                                      \
    break;                                                                                 \
  }
        PHOTON_STORE(Sb, 1)
        PHOTON_STORE(Sh, 2)
        PHOTON_STORE(Sw, 4)
#undef PHOTON_STORE
      case Op::Addi: x_[in->rd] = a + imm; break;
      case Op::Slti: x_[in->rd] = int32_t(a) < int32_t(imm); break;
      case Op::Sltiu: x_[in->rd] = a < imm; break;
      case Op::Xori: x_[in->rd] = a ^ imm; break;
      case Op::Ori: x_[in->rd] = a | imm; break;
      case Op::Andi: x_[in->rd] = a & imm; break;
      case Op::Slli: x_[in->rd] = a << (imm & 31); break;
      case Op::Srli: x_[in->rd] = a >> (imm & 31); break;
      case Op::Srai: x_[in->rd] = uint32_t(int32_t(a) >> (imm & 31)); break;
      case Op::Add: x_[in->rd] = a + b; break;
      case Op::Sub: x_[in->rd] = a - b; break;
      case Op::Sll: x_[in->rd] = a << (b & 31); break;
      case Op::Slt: x_[in->rd] = int32_t(a) < int32_t(b); break;
      case Op::Sltu: x_[in->rd] = a < b; break;
      case Op::Xor: x_[in->rd] = a ^ b; break;
      case Op::Srl: x_[in->rd] = a >> (b & 31); break;
      case Op::Sra: x_[in->rd] = uint32_t(int32_t(a) >> (b & 31)); break;
      case Op::Or: x_[in->rd] = a | b; break;
      case Op::And: x_[in->rd] = a & b; break;
      case Op::Mul: x_[in->rd] = a * b; break;
      case Op::Mulh: x_[in->rd] = uint32_t(uint64_t(int64_t(int32_t(a)) * int64_t(int32_t(b))) >> 32); break;
      case Op::Mulhsu:
        x_[in->rd] = uint32_t(uint64_t(int64_t(int32_t(a)) * int64_t(uint64_t(b))) >> 32);
        break;
      case Op::Mulhu: x_[in->rd] = uint32_t((uint64_t(a) * uint64_t(b)) >> 32); break;
      case Op::Div:
        x_[in->rd] = b == 0 ? ~0u : (a == 0x80000000u && b == ~0u) ? a : uint32_t(int32_t(a) / int32_t(b));
        break;
      case Op::Divu: x_[in->rd] = b == 0 ? ~0u : a / b; break;
      case Op::Rem:
        x_[in->rd] = b == 0 ? a : (a == 0x80000000u && b == ~0u) ? 0 : uint32_t(int32_t(a) % int32_t(b));
        break;
      case Op::Remu: x_[in->rd] = b == 0 ? a : a % b; break;
      case Op::Fence: bus_.fence(); break;
      case Op::FenceI: break;  // stores already invalidate decoded instructions
      case Op::Ecall:
        cycles_ -= in->cycles;
        take_trap(kEcallM, 0);
        continue;
      case Op::Ebreak:
        cycles_ -= in->cycles;
        if (ebreak_halts_) return Stop::Ebreak;
        take_trap(kBreakpoint, pc_);
        continue;
      case Op::Mret:
        next = mepc_;
        mstatus_mie_ = mstatus_mpie_;
        mstatus_mpie_ = true;
        update_irq();
        break;
      case Op::Wfi:
        if (!wake_pending()) {
          limit_ = 0;
          wfi_ = true;
        }
        break;
#define PHOTON_CSR(OP, OPERAND, KIND, WRITES)                     \
  case Op::OP: {                                                  \
    uint32_t old;                                                 \
    if (!csr_op(uint32_t(in->imm), OPERAND, KIND, WRITES, old)) { \
      cycles_ -= in->cycles;                                      \
      take_trap(kIllegalInsn, in->raw);                           \
      continue;                                                   \
    }                                                             \
    x_[in->rd] = old;                                             \
    break;                                                        \
  }
        PHOTON_CSR(Csrrw, a, 0, true)
        PHOTON_CSR(Csrrs, a, 1, in->rs1 != 0)
        PHOTON_CSR(Csrrc, a, 2, in->rs1 != 0)
        PHOTON_CSR(Csrrwi, in->rs1, 0, true)
        PHOTON_CSR(Csrrsi, in->rs1, 1, in->rs1 != 0)
        PHOTON_CSR(Csrrci, in->rs1, 2, in->rs1 != 0)
#undef PHOTON_CSR
    }
    x_[0] = 0;
    pc_ = next;
    ++instret_;
    in_trap_entry_ = false;
  }
  if (double_fault_) return Stop::DoubleFault;
  if (trap_caught_) return Stop::TrapCaught;
  if (halted_) return Stop::Halt;
  if (wfi_) {
    wfi_ = false;
    return Stop::Wfi;
  }
  if (yield_) return Stop::Yield;
  return Stop::Limit;
}

void Rv32Core::add_breakpoint(uint32_t addr) {
  breakpoints_.insert(addr);
  if (Region* r = region_of(addr, 2); r && !r->icache.empty()) invalidate(*r, addr - r->m.base, 2);
}

void Rv32Core::remove_breakpoint(uint32_t addr) {
  breakpoints_.erase(addr);
  if (Region* r = region_of(addr, 2); r && !r->icache.empty()) invalidate(*r, addr - r->m.base, 2);
}

void Rv32Core::clear_breakpoints() {
  std::unordered_set<uint32_t> old;
  old.swap(breakpoints_);
  for (uint32_t a : old)
    if (Region* r = region_of(a, 2); r && !r->icache.empty()) invalidate(*r, a - r->m.base, 2);
}

bool Rv32Core::debug_read(uint32_t addr, uint8_t* dst, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) {
    if (Region* r = region_of(addr + i, 1)) {
      dst[i] = r->m.data[addr + i - r->m.base];
    } else if (!bus_.debug_read(addr + i, dst + i, 1)) {
      return false;
    }
  }
  return true;
}

bool Rv32Core::debug_write(uint32_t addr, const uint8_t* src, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) {
    if (Region* r = region_of(addr + i, 1)) {
      r->m.data[addr + i - r->m.base] = src[i];
      if (!r->icache.empty()) invalidate(*r, addr + i - r->m.base, 1);
    } else if (!bus_.debug_write(addr + i, src + i, 1)) {
      return false;
    }
  }
  return true;
}

Insn Rv32Core::decode_at(uint32_t addr) {
  uint8_t buf[4] = {};
  if (!debug_read(addr, buf, 2)) return Insn{Op::Illegal};
  const uint16_t lo = rd16(buf);
  if ((lo & 3) != 3) return decode16(lo);
  if (!debug_read(addr, buf, 4)) return Insn{Op::Illegal};
  return decode32(rd32(buf));
}

}  // namespace photon::rv32
