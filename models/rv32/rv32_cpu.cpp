#include "models/rv32/rv32_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "base/error.h"
#include "photon_regs.h"

namespace photon {

using rv32::Stop;

namespace {

rv32::Timing timing_of(const Rv32Config& c) {
  rv32::Timing t;
  const uint32_t by_class[10] = {c.alu_cycles,    c.load_cycles, c.store_cycles, c.branch_cycles,
                                 c.jump_cycles,   c.mul_cycles,  c.div_cycles,   c.csr_cycles,
                                 c.system_cycles, c.fence_cycles};
  for (int i = 0; i < 10; ++i) t.cycles[i] = uint8_t(std::min<uint32_t>(by_class[i], 255));
  t.branch_taken = uint8_t(std::min<uint32_t>(c.branch_taken_cycles, 255));
  t.trap = uint8_t(std::min<uint32_t>(c.trap_cycles, 255));
  t.misaligned_split = c.misaligned == Rv32Misaligned::Split;
  return t;
}

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

/// POSIX signal GDB shows for a caught exception.
int signal_of(uint32_t cause) {
  switch (cause) {
    case rv32::kIllegalInsn: return 4;  // SIGILL
    case rv32::kInsnAccessFault:
    case rv32::kLoadAccessFault:
    case rv32::kStoreAccessFault: return 11;  // SIGSEGV
    case rv32::kInsnMisaligned:
    case rv32::kLoadMisaligned:
    case rv32::kStoreMisaligned: return 7;  // SIGBUS
    default: return 5;                      // SIGTRAP
  }
}

}  // namespace

Rv32Cpu::Rv32Cpu(sc_core::sc_module_name name, const Rv32Config& cfg, const Rv32CpuSetup& setup,
                 IrqController& irq)
    : sc_module(name),
      ctrl("ctrl"),
      data("data"),
      imem("imem"),
      dmem("dmem"),
      cfg_(cfg),
      setup_(setup),
      irq_(irq),
      rom_("rom", cfg.rom_kib * 1024u, true, sc_core::sc_time(1.0 / setup.clock_ghz, sc_core::SC_NS)),
      ram_("ram", cfg.ram_kib * 1024u, false, sc_core::sc_time(1.0 / setup.clock_ghz, sc_core::SC_NS)),
      elf_(with_error_context("cpu.firmware", [&] { return rv32::ElfImage::load(setup.firmware); })),
      core_(timing_of(cfg), *this),
      period_ns_(1.0 / setup.clock_ghz) {
  imem.bind(rom_.mem);
  dmem.bind(ram_.mem);
  with_error_context("cpu.firmware", [&] {
    with_error_context(setup.firmware, [&] {
      const uint64_t rom_end = uint64_t(RV32_ROM_BASE) + rom_.size_bytes();
      const uint64_t ram_end = uint64_t(RV32_RAM_BASE) + ram_.size_bytes();
      auto inside = [&](uint64_t lo, uint64_t hi) {
        return (lo - RV32_ROM_BASE < rom_.size_bytes() && hi <= rom_end) ||
               (lo - RV32_RAM_BASE < ram_.size_bytes() && hi <= ram_end);
      };
      for (const auto& s : elf_.segments()) {
        // What is loaded (at the load address) and where it runs must both be in ROM or RAM.
        const uint64_t lo = s.addr, hi = lo + s.bytes.size(), vlo = s.vaddr, vhi = vlo + s.mem_bytes;
        for (const auto& [a, b] : {std::pair{lo, hi}, std::pair{vlo, vhi}})
          if (b > a && !inside(a, b))
            throw Error("segment [" + hex(a) + ", " + hex(b) + ") lies outside the boot ROM [" +
                        hex(RV32_ROM_BASE) + ", " + hex(rom_end) + ") (cpu.rv32.rom_kib) and the data RAM [" +
                        hex(RV32_RAM_BASE) + ", " + hex(ram_end) + ") (cpu.rv32.ram_kib)");
      }
      const uint32_t e = elf_.entry();
      if (!(e - RV32_ROM_BASE < rom_.size_bytes() || e - RV32_RAM_BASE < ram_.size_bytes()))
        throw Error("entry point " + hex(e) + " lies outside the boot ROM [" + hex(RV32_ROM_BASE) + ", " +
                    hex(rom_end) + ") and the data RAM [" + hex(RV32_RAM_BASE) + ", " + hex(ram_end) + ")");
      if (e & 1)  // IALIGN = 16 with the C extension (RISC-V unprivileged ISA, 1.5)
        throw Error("entry point " + hex(e) + " is not 2-byte aligned");
      // The start-up code sets sp to __stack_top: a RAM smaller than the linker script's would
      // put the stack outside it (the ELF must be relinked for another cpu.rv32.ram_kib).
      if (const auto top = elf_.symbol("__stack_top"); top && (*top - RV32_RAM_BASE > ram_.size_bytes()))
        throw Error("`__stack_top` at " + hex(*top) + " lies outside the data RAM [" + hex(RV32_RAM_BASE) +
                    ", " + hex(ram_end) + ") (cpu.rv32.ram_kib = " + std::to_string(cfg.ram_kib) +
                    "): relink the firmware for this RAM size");
      const auto tohost = elf_.symbol("tohost");
      if (!tohost) throw Error("no `tohost` symbol: the firmware could not report that it finished");
      if (*tohost - RV32_RAM_BASE >= ram_.size_bytes())
        throw Error("`tohost` at " + hex(*tohost) + " is not in the data RAM");
      core_.watch_tohost(*tohost);
    });
  });
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_core::sc_time(setup.quantum_ns, sc_core::SC_NS));
  qk_.reset();
  costs_.assign(1, Cost{});
  kind_names_.clear();
  SC_THREAD(run);
}

Rv32Cpu::~Rv32Cpu() = default;

int Rv32Cpu::serve_gdb(int port) {
  gdb_ = std::make_unique<rv32::GdbServer>(port);
  return gdb_->port();
}

void Rv32Cpu::start_of_simulation() {
  // Load the ELF through the memories' debug interface, then take their DMI pointers.
  for (const auto& s : elf_.segments()) {
    if (s.bytes.empty()) continue;  // .bss-like: the memories start zeroed, crt0.S clears it
    auto& sock = s.addr >= RV32_RAM_BASE ? dmem : imem;
    const uint32_t base = s.addr >= RV32_RAM_BASE ? RV32_RAM_BASE : RV32_ROM_BASE;
    std::vector<uint8_t> bytes = s.bytes;
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(s.addr - base);
    gp.set_data_ptr(bytes.data());
    gp.set_data_length(unsigned(bytes.size()));
    if (sock->transport_dbg(gp) != bytes.size())
      throw Error("cpu.firmware: loading segment at " + hex(s.addr) + " failed");
  }
  struct {
    const char* name;
    tlm_utils::simple_initiator_socket<Rv32Cpu>* sock;
    uint32_t base;
  } mems[] = {{"rom", &imem, RV32_ROM_BASE}, {"ram", &dmem, RV32_RAM_BASE}};
  for (const auto& m : mems) {
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(0);
    tlm::tlm_dmi dmi;
    if (!(*m.sock)->get_direct_mem_ptr(gp, dmi) || !dmi.is_read_allowed())
      throw Error(std::string("rv32: no DMI to the ") + m.name);
    core_.add_region({m.name, m.base, uint32_t(dmi.get_end_address() - dmi.get_start_address() + 1),
                      dmi.get_dmi_ptr(), dmi.is_write_allowed(), true});
  }
}

sc_core::sc_time Rv32Cpu::core_time() const {
  return sc_core::sc_time(double(core_.cycles()) * period_ns_, sc_core::SC_NS);
}

uint64_t Rv32Cpu::cycle_at(const sc_core::sc_time& t) const {
  return uint64_t(std::ceil(t.to_seconds() * 1e9 / period_ns_ - 1e-6));
}

uint64_t Rv32Cpu::mtime() { return uint64_t(double(core_.cycles()) * period_ns_ * cfg_.mtime_mhz / 1000.0); }

void Rv32Cpu::refresh_irqs() {
  core_.set_irq(rv32::kMachineExternal, irq_.asserted());
  core_.set_irq(rv32::kMachineTimer, mtime() >= mtimecmp_);
}

void Rv32Cpu::sync() {
  const sc_core::sc_time now = sc_core::sc_time_stamp(), t = core_time();
  qk_.set(t > now ? t - now : sc_core::SC_ZERO_TIME);
  qk_.sync();
  refresh_irqs();
}

void Rv32Cpu::sleep() {
  // Asleep, the firmware waits for the interrupt line or its timer deadline only. The watchdog
  // bounds a sleeping firmware through the platform, which runs the kernel no further than
  // watchdog_ns() (a sleep with no event left is a deadlock, reported before that).
  sync();
  asleep_ = true;
  while (!core_.wake_pending()) {
    if ((core_.mie() & (1u << rv32::kMachineTimer)) && mtimecmp_ != ~uint64_t(0)) {
      const double until_ns = double(mtimecmp_) * 1000.0 / cfg_.mtime_mhz;
      const double now_ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
      irq_.wait_line(sc_core::sc_time(std::max(until_ns - now_ns, period_ns_), sc_core::SC_NS));
    } else {
      irq_.wait_line();
    }
    const uint64_t c = cycle_at(sc_core::sc_time_stamp());
    if (c > core_.cycles()) core_.advance_asleep(c - core_.cycles());
    refresh_irqs();
  }
  asleep_ = false;
  ++wakeups_;
}

void Rv32Cpu::close_interval() {
  Cost& c = costs_[cur_bucket_];
  const uint64_t sleep = core_.sleep_cycles() - mark_sleep_;
  const uint64_t active = core_.cycles() - mark_cycles_ - sleep;
  const uint64_t stall = core_.stall_cycles() - mark_stall_;
  const uint64_t wakes = wakeups_ - mark_wakeups_;
  c.instructions += core_.instret() - mark_instret_;
  c.cycles += active;
  c.stall_cycles += stall;
  c.wakeups += wakes;
  if (wakes == 0 && cur_bucket_ < kind_names_.size()) {
    ++c.quiet_entries;
    c.quiet_cycles += active - stall;
  }
  mark_instret_ = core_.instret();
  mark_cycles_ = core_.cycles();
  mark_stall_ = core_.stall_cycles();
  mark_sleep_ = core_.sleep_cycles();
  mark_wakeups_ = wakeups_;
}

void Rv32Cpu::set_command_ring(uint64_t base, uint32_t entry_bytes, std::vector<uint8_t> kinds,
                               std::vector<std::string> kind_names) {
  ring_base_ = base;
  entry_bytes_ = std::max<uint32_t>(entry_bytes, 1);
  ring_bytes_ = uint64_t(kinds.size()) * entry_bytes_;
  kinds_ = std::move(kinds);
  kind_names_ = std::move(kind_names);
  costs_.assign(kind_names_.size() + 1, Cost{});  // the last bucket: boot, before any fetch
  cur_bucket_ = kind_names_.size();
  cur_entry_ = ~uint64_t(0);
}

std::string Rv32Cpu::in_function(uint32_t pc) const {
  const std::string fn = elf_.function_at(pc);
  return fn.empty() ? " (no function)" : " in " + fn;
}

std::string Rv32Cpu::describe_trap(const rv32::TrapRecord& t) const {
  std::string s = std::string(rv32::cause_name(t.cause)) + " at pc " + hex(t.epc) + in_function(t.epc);
  switch (t.cause) {
    case rv32::kIllegalInsn: s += " (instruction " + hex(t.tval) + ")"; break;
    case rv32::kInsnAccessFault:
    case rv32::kLoadAccessFault:
    case rv32::kStoreAccessFault:
    case rv32::kLoadMisaligned:
    case rv32::kStoreMisaligned:
    case rv32::kInsnMisaligned: s += " (address " + hex(t.tval) + ")"; break;
    default: break;
  }
  return s;
}

std::string Rv32Cpu::where() const {
  return "pc " + hex(core_.pc()) + in_function(core_.pc()) + (asleep_ ? " (asleep in wfi)" : "");
}

void Rv32Cpu::end(CpuFault::Kind kind, const std::string& message) {
  fault_ = {kind, message};
  finish_time_ = std::max(core_time(), sc_core::sc_time_stamp());
  finished_ = true;
  final_state_ = 0;
  close_interval();
  if (gdb_)
    gdb_->terminated(
        kind == CpuFault::Kind::Watchdog ? 14 /* SIGALRM */ : signal_of(core_.last_trap().cause));
  // Stop the kernel: nothing else may run on once the firmware is gone (and sc_stop's own
  // notice would go to stdout, which belongs to the CLI).
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_stop();
}

std::string Rv32Cpu::watchdog_message() const {
  char limit[32];
  std::snprintf(limit, sizeof limit, "%.15g", setup_.watchdog_us);
  return std::string("watchdog: the firmware did not finish within cpu.watchdog_us = ") + limit +
         " us of simulated time; " + where();
}

void Rv32Cpu::watchdog_expired() {
  // The kernel stopped at the bound while the core slept or waited (a running core ends itself
  // at its watchdog cycle): account the sleep up to now, then end here, at the bound.
  if (finished_) return;
  const uint64_t c = cycle_at(sc_core::sc_time_stamp());
  if (asleep_ && c > core_.cycles()) core_.advance_asleep(c - core_.cycles());
  fault_ = {CpuFault::Kind::Watchdog, watchdog_message()};
  finish_time_ = sc_core::sc_time_stamp();
  finished_ = true;
  final_state_ = 0;
  close_interval();
  if (gdb_) gdb_->terminated(14 /* SIGALRM */);
}

bool Rv32Cpu::debug_stop(int signal) {
  const rv32::GdbServer::Resume r = gdb_->serve_stop(*this, signal);
  stepping_ = false;
  switch (r) {
    case rv32::GdbServer::Resume::Step: stepping_ = true; break;
    case rv32::GdbServer::Resume::Continue: break;
    case rv32::GdbServer::Resume::Detach:
      core_.clear_breakpoints();
      core_.set_ebreak_halts(false);
      core_.set_trap_catch(false);
      break;
    case rv32::GdbServer::Resume::Kill:
      end(CpuFault::Kind::Trap, "the run was ended by the debugger (kill) at " + where());
      return false;
  }
  core_.step_over_breakpoint();
  return true;
}

void Rv32Cpu::run() {
  core_.reset(elf_.entry());
  refresh_irqs();
  if (gdb_) {
    gdb_->accept_connection();
    core_.set_ebreak_halts(true);
    core_.set_trap_catch(true);
    const rv32::GdbServer::Resume r = gdb_->serve_stop(*this, 5, true);
    if (r == rv32::GdbServer::Resume::Kill) {
      end(CpuFault::Kind::Trap, "the run was ended by the debugger (kill) before the first instruction");
      return;
    }
    stepping_ = r == rv32::GdbServer::Resume::Step;
    if (r == rv32::GdbServer::Resume::Detach) {
      core_.clear_breakpoints();
      core_.set_ebreak_halts(false);
      core_.set_trap_catch(false);
    }
    core_.step_over_breakpoint();
  }
  const sc_core::sc_time quantum = tlm_utils::tlm_quantumkeeper::get_global_quantum();
  const double wd_ns = setup_.watchdog_us * 1000.0;
  const uint64_t wd_cycle = wd_ns > 0 ? cycle_at(sc_core::sc_time(wd_ns, sc_core::SC_NS)) : ~uint64_t(0);
  for (;;) {
    uint64_t limit = cycle_at(sc_core::sc_time_stamp() + quantum);
    if ((core_.mie() & (1u << rv32::kMachineTimer)) && mtimecmp_ != ~uint64_t(0) &&
        mtime() < mtimecmp_) {  // stop at the timer deadline so that MTIP rises on time
      const uint64_t dl =
          cycle_at(sc_core::sc_time(double(mtimecmp_) * 1000.0 / cfg_.mtime_mhz, sc_core::SC_NS));
      limit = std::min(limit, std::max(dl, core_.cycles() + 1));
    }
    limit = std::min(limit, std::max(wd_cycle, core_.cycles() + 1));
    const bool step = stepping_;
    if (step) limit = core_.cycles() + 1;
    const Stop s = core_.run(limit);
    switch (s) {
      case Stop::Limit:
      case Stop::Yield: break;
      case Stop::Wfi: sleep(); break;
      case Stop::Halt: {
        const uint32_t code = core_.tohost_value() >> 1;
        if (code == RV32_EXIT_TRAP) {
          std::string msg = "firmware fault: " + describe_trap(core_.last_trap());
          // An access fault on a bus: what the bus said.
          const rv32::TrapRecord& t = core_.last_trap();
          if ((t.cause == rv32::kLoadAccessFault || t.cause == rv32::kStoreAccessFault) &&
              !last_bus_error_.empty() &&
              (t.tval - RV32_MMIO_BASE < RV32_MMIO_BYTES || t.tval - RV32_DATA_BASE < RV32_DATA_BYTES))
            msg += ": " + last_bus_error_;
          end(CpuFault::Kind::Trap, msg);
          return;
        }
        const uint32_t raw = core_.tohost_value();
        if (!(raw & 1) || (code != PHOTON_FW_STATE_DONE && code != PHOTON_FW_STATE_ERROR)) {
          // Only the exit protocol's codes end a run; anything else is a firmware defect.
          end(CpuFault::Kind::Trap,
              "firmware fault: unexpected exit: tohost = " + hex(raw) +
                  (raw & 1 ? " (exit code " + std::to_string(code) + ")"
                           : std::string(" (bit 0 clear: not an exit record)")) +
                  "; expected (code << 1) | 1 with code " + std::to_string(PHOTON_FW_STATE_DONE) +
                  " (PHOTON_FW_STATE_DONE), " + std::to_string(PHOTON_FW_STATE_ERROR) +
                  " (PHOTON_FW_STATE_ERROR) or " + hex(RV32_EXIT_TRAP) + " (RV32_EXIT_TRAP); " + where());
          return;
        }
        sync();
        close_interval();
        final_state_ = code;
        finished_ = true;
        finish_time_ = sc_core::sc_time_stamp();
        if (gdb_) gdb_->exited(code == PHOTON_FW_STATE_DONE ? 0 : int(code));  // 0: exited normally
        return;
      }
      case Stop::DoubleFault: {
        const rv32::TrapRecord t = core_.last_trap();
        uint32_t mcause = 0, mepc = 0;
        core_.read_csr(0x342, mcause);
        core_.read_csr(0x341, mepc);
        rv32::TrapRecord first{mcause, mepc, 0, 0};
        end(CpuFault::Kind::Trap,
            "firmware fault: double fault: " + describe_trap(t) + " while entering the trap handler for " +
                rv32::cause_name(first.cause) + " at pc " + hex(first.epc) +
                in_function(first.epc));
        return;
      }
      case Stop::Breakpoint:
      case Stop::Ebreak:
        if (!gdb_ || !debug_stop(5)) {
          if (!gdb_) end(CpuFault::Kind::Trap, "firmware fault: breakpoint at " + where());
          return;
        }
        continue;
      case Stop::TrapCaught:
        if (!gdb_ || !debug_stop(signal_of(core_.last_trap().cause))) return;
        continue;
    }
    if (step && stepping_ && gdb_) {
      if (!debug_stop(5)) return;
    }
    if (core_.cycles() >= wd_cycle || (wd_ns > 0 && sc_core::sc_time_stamp().to_seconds() * 1e9 >= wd_ns)) {
      end(CpuFault::Kind::Watchdog, watchdog_message());
      return;
    }
    const sc_core::sc_time now = sc_core::sc_time_stamp(), t = core_time();
    qk_.set(t > now ? t - now : sc_core::SC_ZERO_TIME);
    if (qk_.need_sync()) sync();
    if (gdb_ && gdb_->connected() && gdb_->interrupted()) {
      if (!debug_stop(2)) return;
    }
  }
}

bool Rv32Cpu::transport(tlm_utils::simple_initiator_socket<Rv32Cpu>& s, bool write, uint64_t addr, uint8_t* p,
                        unsigned bytes, const char* what) {
  tlm::tlm_generic_payload& gp = bus_gp_;
  gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(p);
  gp.set_data_length(bytes);
  gp.set_streaming_width(bytes);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_byte_enable_length(0);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  const sc_core::sc_time now = sc_core::sc_time_stamp(), t = core_time();
  sc_core::sc_time delay = t > now ? t - now : sc_core::SC_ZERO_TIME;
  const sc_core::sc_time before = delay;
  s->b_transport(gp, delay);
  const double extra_ns = (delay - before).to_seconds() * 1e9;
  if (extra_ns > 0) core_.add_stall(uint64_t(std::ceil(extra_ns / period_ns_ - 1e-6)));
  if (gp.get_response_status() == tlm::TLM_OK_RESPONSE) return true;
  last_bus_error_ = std::string(what) + " address " + hex(addr) + ": " + gp.get_response_string();
  if (bus_error_log_.size() < 16)
    bus_error_log_.push_back(std::string("firmware ") + (write ? "write" : "read") + " at " + what +
                             " address " + hex(addr) + ": " + gp.get_response_string() + " (" + where() +
                             ")");
  return false;
}

bool Rv32Cpu::load(uint32_t addr, unsigned bytes, uint32_t& v) {
  if (addr - RV32_MMIO_BASE < RV32_MMIO_BYTES) {
    uint32_t val = 0;
    ++mmio_;
    const bool ok =
        transport(ctrl, false, addr - RV32_MMIO_BASE, reinterpret_cast<uint8_t*>(&val), bytes, "control-bus");
    v = val;
    return ok;
  }
  if (addr - RV32_DATA_BASE < RV32_DATA_BYTES) {
    const uint64_t da = data_window_ + (addr - RV32_DATA_BASE);
    const uint64_t la = da & ~uint64_t(RV32_DATA_LINE_BYTES - 1);
    if (!line_valid_ || la != line_addr_) {
      line_valid_ = false;
      if (!transport(data, false, la, line_, RV32_DATA_LINE_BYTES, "data-NoC")) return false;
      line_addr_ = la;
      line_valid_ = true;
    }
    if (ring_bytes_ && da - ring_base_ < ring_bytes_) {  // the first load from a ring entry: a new interval
      const uint64_t i = (da - ring_base_) / entry_bytes_;
      if (i != cur_entry_) {
        close_interval();
        cur_entry_ = i;
        cur_bucket_ = i < kinds_.size() && kinds_[i] < kind_names_.size() ? kinds_[i] : kind_names_.size();
        ++costs_[cur_bucket_].entries;
      }
    }
    v = 0;
    std::memcpy(&v, line_ + (da - la), bytes);
    return true;
  }
  if (addr - RV32_CLINT_BASE < RV32_CLINT_BYTES && bytes == 4) {
    const uint32_t off = addr - RV32_CLINT_BASE;
    const uint64_t mt = mtime();
    if (off == RV32_CLINT_MSIP)
      v = (core_.mip() >> rv32::kMachineSoftware) & 1;
    else if (off == RV32_CLINT_MTIMECMP)
      v = uint32_t(mtimecmp_);
    else if (off == RV32_CLINT_MTIMECMP + 4)
      v = uint32_t(mtimecmp_ >> 32);
    else if (off == RV32_CLINT_MTIME)
      v = uint32_t(mt);
    else if (off == RV32_CLINT_MTIME + 4)
      v = uint32_t(mt >> 32);
    else
      return false;
    return true;
  }
  if (addr - RV32_CPUCTL_BASE < RV32_CPUCTL_BYTES && bytes == 4) {
    const uint32_t off = addr - RV32_CPUCTL_BASE;
    if (off == RV32_CPUCTL_DATA_WINDOW_LO)
      v = uint32_t(data_window_);
    else if (off == RV32_CPUCTL_DATA_WINDOW_HI)
      v = uint32_t(data_window_ >> 32);
    else
      return false;
    return true;
  }
  return false;
}

bool Rv32Cpu::store(uint32_t addr, unsigned bytes, uint32_t v) {
  if (addr - RV32_MMIO_BASE < RV32_MMIO_BYTES) {
    ++mmio_;
    const bool ok =
        transport(ctrl, true, addr - RV32_MMIO_BASE, reinterpret_cast<uint8_t*>(&v), bytes, "control-bus");
    core_.set_irq(rv32::kMachineExternal, irq_.asserted());  // e.g. an IRQ.ACK write
    return ok;
  }
  if (addr - RV32_DATA_BASE < RV32_DATA_BYTES) {
    const uint64_t da = data_window_ + (addr - RV32_DATA_BASE);
    if (!transport(data, true, da, reinterpret_cast<uint8_t*>(&v), bytes, "data-NoC")) return false;
    const uint64_t la = da & ~uint64_t(RV32_DATA_LINE_BYTES - 1);
    if (line_valid_ && la == line_addr_) std::memcpy(line_ + (da - la), &v, bytes);
    return true;
  }
  if (addr - RV32_CLINT_BASE < RV32_CLINT_BYTES && bytes == 4) {
    const uint32_t off = addr - RV32_CLINT_BASE;
    if (off == RV32_CLINT_MSIP)
      core_.set_irq(rv32::kMachineSoftware, v & 1);
    else if (off == RV32_CLINT_MTIMECMP)
      mtimecmp_ = (mtimecmp_ & ~0xFFFFFFFFull) | v;
    else if (off == RV32_CLINT_MTIMECMP + 4)
      mtimecmp_ = (mtimecmp_ & 0xFFFFFFFFull) | (uint64_t(v) << 32);
    else
      return false;  // mtime is read-only here
    core_.set_irq(rv32::kMachineTimer, mtime() >= mtimecmp_);
    return true;
  }
  if (addr - RV32_CPUCTL_BASE < RV32_CPUCTL_BYTES && bytes == 4) {
    const uint32_t off = addr - RV32_CPUCTL_BASE;
    if (off == RV32_CPUCTL_DATA_WINDOW_LO)
      data_window_ = (data_window_ & ~0xFFFFFFFFull) | v;
    else if (off == RV32_CPUCTL_DATA_WINDOW_HI)
      data_window_ = (data_window_ & 0xFFFFFFFFull) | (uint64_t(v) << 32);
    else
      return false;
    return true;
  }
  return false;
}

bool Rv32Cpu::debug_read(uint32_t addr, uint8_t* dst, unsigned bytes) {
  // Only the data aperture can be read without side effects (debug transport on the NoC).
  if (addr - RV32_DATA_BASE >= RV32_DATA_BYTES) return false;
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(data_window_ + (addr - RV32_DATA_BASE));
  gp.set_data_ptr(dst);
  gp.set_data_length(bytes);
  return data->transport_dbg(gp) == bytes;
}

bool Rv32Cpu::debug_write(uint32_t addr, const uint8_t* src, unsigned bytes) {
  if (addr - RV32_DATA_BASE >= RV32_DATA_BYTES) return false;
  std::vector<uint8_t> buf(src, src + bytes);
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_address(data_window_ + (addr - RV32_DATA_BASE));
  gp.set_data_ptr(buf.data());
  gp.set_data_length(bytes);
  line_valid_ = false;
  return data->transport_dbg(gp) == bytes;
}

bool Rv32Cpu::read_reg(unsigned regno, uint32_t& value) {
  if (regno < 32)
    value = core_.reg(regno);
  else if (regno == 32)
    value = core_.pc();
  else if (regno >= 0x1000)
    return core_.read_csr(regno - 0x1000, value);
  else
    return false;
  return true;
}

bool Rv32Cpu::write_reg(unsigned regno, uint32_t value) {
  if (regno < 32)
    core_.set_reg(regno, value);
  else if (regno == 32)
    core_.set_pc(value & ~1u);  // IALIGN 16: bit 0 of pc is always 0 (as jalr clears it)
  else
    return false;
  return true;
}

bool Rv32Cpu::read_mem(uint32_t addr, uint8_t* dst, unsigned bytes) {
  return core_.debug_read(addr, dst, bytes);
}

bool Rv32Cpu::write_mem(uint32_t addr, const uint8_t* src, unsigned bytes) {
  return core_.debug_write(addr, src, bytes);
}

double Rv32Cpu::busy_ns() const { return double(core_.cycles() - core_.sleep_cycles()) * period_ns_; }

nlohmann::json Rv32Cpu::report() const {
  using nlohmann::json;
  auto row = [](const Cost& c) {
    const double n = double(std::max<uint64_t>(c.entries, 1));
    return json{{"commands", c.entries},
                {"instructions", c.instructions},
                {"cycles", c.cycles},
                {"bus_stall_cycles", c.stall_cycles},
                {"compute_cycles", c.cycles - c.stall_cycles},
                {"wakeups", c.wakeups},
                {"instructions_per_command", double(c.instructions) / n},
                {"cycles_per_command", double(c.cycles) / n}};
  };
  json cost = json::object();
  uint64_t quiet_n = 0, quiet_c = 0;
  for (size_t k = 0; k < kind_names_.size(); ++k) {
    quiet_n += costs_[k].quiet_entries;
    quiet_c += costs_[k].quiet_cycles;
    if (costs_[k].entries) cost[kind_names_[k]] = row(costs_[k]);
  }
  cost["boot"] = row(costs_.back());
  // Figures comparable with the native model's cpu.dispatch_cycles and cpu.irq_latency_cycles:
  // compute cycles (no bus stalls) per command fetched without a wake-up in between, and the
  // extra compute cycles per wake-up of the other commands over their kind's quiet mean.
  json measured = json::object();
  if (quiet_n) {
    const double dispatch = double(quiet_c) / double(quiet_n);
    double extra = 0;
    uint64_t wakes = 0;
    for (size_t k = 0; k < kind_names_.size(); ++k) {
      const Cost& c = costs_[k];
      const double base = c.quiet_entries ? double(c.quiet_cycles) / double(c.quiet_entries) : dispatch;
      const double noisy_n = double(c.entries - c.quiet_entries);
      const double noisy_c = double(c.cycles - c.stall_cycles) - double(c.quiet_cycles);
      extra += noisy_c - base * noisy_n;
      wakes += c.wakeups;
    }
    measured["dispatch_cycles"] = dispatch;
    measured["commands_without_wakeup"] = quiet_n;
    if (wakes) measured["irq_latency_cycles"] = extra / double(wakes);
    measured["wakeups"] = wakes;
  }
  uint32_t mcause = 0;
  core_.read_csr(0x342, mcause);
  return json{{"model", "rv32"},
              {"elf", elf_.path()},
              {"instructions", core_.instret()},
              {"cycles", core_.cycles() - core_.sleep_cycles()},
              {"sleep_cycles", core_.sleep_cycles()},
              {"bus_stall_cycles", core_.stall_cycles()},
              {"wakeups", wakeups_},
              {"traps", core_.last_trap().count},
              {"pc", core_.pc()},
              {"cost", cost},
              {"measured", measured}};
}

}  // namespace photon
