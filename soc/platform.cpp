#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn: the host-call process (serve_host_calls)
#include "soc/platform.h"
#include "soc/unit_table.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "base/error.h"
#include "models/hbm/hbm.h"
#include "models/rv32/rv32_cpu.h"
#include "models/scratchpad/scratchpad.h"
#include "platform/control_bus.h"
#include "platform/irq_controller.h"
#include "platform/noc/router.h"
#include "platform/noc/stream_extension.h"
#include "platform/report/op_work.h"
#include "platform/semaphores.h"
#include "soc/firmware_cpu.h"
#include "soc/unit_area.h"

#include "photon_regs.h"

namespace photon {

/// The SYS register block: ring registers and the doorbell (raises IRQ DOORBELL).
class SysRegs {
 public:
  explicit SysRegs(IrqController& irq) : regs("SYS") {
    regs.on_write(regs::SYS::DOORBELL,
                  [&irq](uint32_t, uint32_t) { irq.raise(PHOTON_IRQ_PENDING_DOORBELL_SHIFT); });
  }
  RegisterBlock regs;
};

namespace {
double ns_of(const sc_core::sc_time& t) { return t.to_seconds() * 1e9; }
}  // namespace

Platform::Platform(const PlatformConfig& cfg) : cfg_(cfg) {
  // The kernel's banner would go to stdout, which belongs to the CLI's own output.
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  const bool functional = cfg_.sim.mode == SimMode::Functional;
  const sc_core::sc_time cpu_cycle(1.0 / cfg_.cpu.clock_ghz, sc_core::SC_NS);
  irq_ = std::make_unique<IrqController>("irq");
  sems_ = std::make_unique<Semaphores>("sem", cfg_.cpu.semaphores);
  sys_ = std::make_unique<SysRegs>(*irq_);
  bus_ = std::make_unique<ControlBus>("ctrl_bus", cfg_.cpu.mmio_latency_cycles * cpu_cycle);
  noc_ = std::make_unique<DataRouter>("noc", cfg_.noc);
  hbm_ = std::make_unique<Hbm>("hbm", cfg_.hbm, functional);
  spm_ = std::make_unique<Scratchpad>("scratchpad", cfg_.scratchpad, functional);

  bus_->attach(&sys_->regs);
  bus_->attach(&irq_->regs());
  bus_->attach(&sems_->regs());
  for (const UnitDesc& u : unit_table()) {
    QueueUnit::Wiring w;
    w.regs_instance = u.hw().name;
    w.unit = u.name;
    w.irq = irq_.get();
    w.sems = sems_.get();
    w.trace = &trace_;
    w.depth = cfg_.cpu.queue_depth;
    w.done_bit = u.hw().done_bit;
    w.err_bit = u.hw().err_bit;
    units_.push_back(
        u.implementation(cfg_.impl.at(u.name)).make(UnitContext{cfg_, functional, spm_->view(), w}));
    bus_->attach(&units_.back()->regs());
    if (auto* s = units_.back()->data_initiator()) s->bind(noc_->in);
  }
  if (cfg_.cpu.model == CpuModelKind::Rv32) {
    const Rv32CpuSetup setup{cfg_.cpu.clock_ghz, cfg_.sim.quantum_ns, cfg_.cpu.watchdog_us,
                             cfg_.cpu.firmware.empty() ? PHOTON_DEFAULT_FIRMWARE_ELF : cfg_.cpu.firmware};
    cpu_ = std::make_unique<Rv32Cpu>("fw_cpu", cfg_.cpu.rv32, setup, *irq_);
  } else {
    cpu_ = std::make_unique<FirmwareCpu>("fw_cpu", cfg_.cpu, cfg_.sim.quantum_ns, *irq_, &trace_);
  }

  cpu_->ctrl_socket().bind(bus_->ctrl);
  cpu_->data_socket().bind(noc_->in);
  noc_->map_target("hbm", cfg_.noc.hbm_base, cfg_.hbm.capacity_bytes());
  noc_->out.bind(hbm_->mem);
  noc_->map_target("scratchpad", cfg_.noc.scratchpad_base, cfg_.scratchpad.size_bytes());
  noc_->out.bind(spm_->mem);
}

Platform::~Platform() = default;

int Platform::serve_gdb(int port) {
  auto* rv = dynamic_cast<Rv32Cpu*>(cpu_.get());
  if (!rv) throw Error("--gdb needs the rv32 firmware CPU: add --set cpu.model=rv32");
  return rv->serve_gdb(port);
}

std::vector<std::string> Platform::trace_tracks() const {
  std::vector<std::string> tracks;
  for (const auto& u : units_) tracks.push_back("queue." + u->unit_name());
  return tracks;
}

void Platform::write(uint64_t address, const void* src, uint64_t bytes) {
  const uint64_t hb = cfg_.noc.hbm_base, sb = cfg_.noc.scratchpad_base;
  if (address >= hb && address + bytes <= hb + cfg_.hbm.capacity_bytes()) {
    hbm_->write_bytes(address - hb, static_cast<const uint8_t*>(src), bytes);
  } else if (address >= sb && address + bytes <= sb + cfg_.scratchpad.size_bytes()) {
    MemView v = spm_->view();
    if (v.data) std::memcpy(v.data + (address - sb), src, bytes);
  } else {
    throw Error("host write of " + std::to_string(bytes) + " bytes at " + std::to_string(address) +
                " lies outside HBM and scratchpad");
  }
}

void Platform::read(uint64_t address, void* dst, uint64_t bytes) const {
  const uint64_t hb = cfg_.noc.hbm_base, sb = cfg_.noc.scratchpad_base;
  if (address >= hb && address + bytes <= hb + cfg_.hbm.capacity_bytes()) {
    hbm_->read_bytes(address - hb, static_cast<uint8_t*>(dst), bytes);
  } else if (address >= sb && address + bytes <= sb + cfg_.scratchpad.size_bytes()) {
    MemView v = spm_->view();
    if (v.data)
      std::memcpy(dst, v.data + (address - sb), bytes);
    else
      std::memset(dst, 0, bytes);
  } else {
    throw Error("host read of " + std::to_string(bytes) + " bytes at " + std::to_string(address) +
                " lies outside HBM and scratchpad");
  }
}

void Platform::load(pcs::Program&& source, const std::vector<FloatFill>& fills) {
  const uint64_t n = source.commands.size();
  // Commands a unit's implementation can never run, with the memory contents the stream gives
  // them (e.g. an NTT's moduli table loaded from a data segment); followed only for streams with
  // NTT commands, the one unit whose operands are checked so.
  LoadImage image(cfg_.noc.scratchpad_base);
  const bool follow = std::any_of(source.commands.begin(), source.commands.end(),
                                  [](const pcs::Command& c) { return c.opcode == pcs::Opcode::Ntt; });
  if (follow) {
    for (const auto& s : source.segments) image.add_bytes(s.address, s.bytes.data(), s.bytes.size());
    for (const auto& f : fills) image.add_fill(f.address, f.count, f.value);
  }
  for (uint64_t i = 0; i < n; ++i) {
    const pcs::Command& c = source.commands[i];
    const int q = c.queue();
    if (q >= 0 && q < int(units_.size())) units_[q]->check_command(c, uint32_t(i), image);
    if (follow) image.apply(c);
  }
  program_ = std::move(source);  // checked: the platform keeps it
  trace_.reserve(trace_.events().size() + n);
  plan_hbm_calibrations();
  const uint64_t ring = cfg_.cpu.ring_base;
  if (ring + n * pcs::kCommandBytes > cfg_.hbm.capacity_bytes())
    throw Error("cpu.ring_base: the command ring of " + std::to_string(n) + " commands (" +
                std::to_string(n * pcs::kCommandBytes) + " bytes) at " + std::to_string(ring) +
                " does not fit in HBM capacity (" + std::to_string(cfg_.hbm.capacity_bytes()) + " bytes)");
  // The ring must not overlap the data the program places in HBM.
  const uint64_t ring_lo = cfg_.noc.hbm_base + ring, ring_hi = ring_lo + n * pcs::kCommandBytes;
  auto overlaps = [&](uint64_t lo, uint64_t hi) { return lo < ring_hi && ring_lo < hi; };
  for (const auto& s : program_.segments)
    if (overlaps(s.address, s.address + s.bytes.size()))
      throw Error("cpu.ring_base: the command ring [" + std::to_string(ring_lo) + ", " +
                  std::to_string(ring_hi) + ") overlaps a data segment at " + std::to_string(s.address));
  for (const auto& f : fills)
    if (overlaps(f.address, f.address + f.count * 4))
      throw Error("cpu.ring_base: the command ring [" + std::to_string(ring_lo) + ", " +
                  std::to_string(ring_hi) + ") overlaps constant data at " + std::to_string(f.address));
  {  // encoded in pieces of 1024 commands (64 KiB), not as one ring-sized buffer
    constexpr uint64_t kPiece = 1024;
    std::vector<uint8_t> bytes(std::min(n, kPiece) * pcs::kCommandBytes);
    for (uint64_t first = 0; first < n; first += kPiece) {
      const uint64_t count = std::min(kPiece, n - first);
      for (uint64_t i = 0; i < count; ++i)
        pcs::encode(program_.commands[first + i], bytes.data() + i * pcs::kCommandBytes);
      hbm_->write_bytes(ring + first * pcs::kCommandBytes, bytes.data(), count * pcs::kCommandBytes);
    }
  }
  if (cfg_.sim.mode == SimMode::Functional) {
    for (const auto& s : program_.segments)
      with_error_context("segment at " + std::to_string(s.address),
                         [&] { write(s.address, s.bytes.data(), s.bytes.size()); });
    std::vector<float> chunk;
    for (const auto& f : fills) {
      const uint64_t step = 1 << 20;
      for (uint64_t done = 0; done < f.count; done += step) {
        uint64_t k = std::min(step, f.count - done);
        chunk.assign(k, f.value);
        write(f.address + done * 4, chunk.data(), k * 4);
      }
    }
  }
  RegisterBlock& sys = sys_->regs;
  sys.set(regs::SYS::RING_BASE_LO, uint32_t(ring & 0xFFFFFFFFu));
  sys.set(regs::SYS::RING_BASE_HI, uint32_t(ring >> 32));
  sys.set(regs::SYS::RING_SIZE, uint32_t(n));
  sys.set(regs::SYS::RING_HEAD, 0);
  sys.set(regs::SYS::RING_TAIL, uint32_t(n));
  irq_->raise(PHOTON_IRQ_PENDING_DOORBELL_SHIFT);  // the host rings the doorbell at time 0
  // Ring entries by kind, so that the firmware CPU can attribute its cost per command kind.
  static const std::vector<std::string> kind_names = {"end", "fence", "signal", "wait",
                                                      "dma", "gemm",  "ntt",    "vector"};
  std::vector<uint8_t> kinds(n);
  for (uint64_t i = 0; i < n; ++i) {
    const pcs::Opcode op = program_.commands[i].opcode;
    kinds[i] = uint8_t(op <= pcs::Opcode::Wait ? unsigned(op) : 3 + (unsigned(op) >> 4));
  }
  cpu_->set_command_ring(ring, pcs::kCommandBytes, std::move(kinds), kind_names);
}

void Platform::plan_hbm_calibrations() {
  if (cfg_.sim.helper_threads == 0) return;
  // The streams that reach HBM, at HBM byte offsets (as the data NoC maps them).
  const uint64_t base = cfg_.noc.hbm_base, size = cfg_.hbm.capacity_bytes();
  std::vector<std::pair<HbmStream, bool>> streams;
  std::vector<QueueUnit::BulkStream> bulk;  // one command's
  for (const pcs::Command& c : program_.commands) {
    const int q = c.queue();
    if (q < 0 || q >= int(units_.size())) continue;
    bulk.clear();
    units_[q]->bulk_streams(c, bulk);
    for (const QueueUnit::BulkStream& b : bulk) {
      const uint64_t extent = StreamShape{b.rows, b.row_bytes, b.stride}.extent();  // saturates
      if (b.addr < base || b.addr - base >= size || extent > size - (b.addr - base)) continue;
      streams.push_back({HbmStream{b.addr - base, b.row_bytes, b.rows, b.stride}, b.is_write});
    }
  }
  hbm_->controller().plan_calibrations(streams, unsigned(cfg_.sim.helper_threads));
}

void Platform::serve_host_calls(uint32_t request, uint32_t done, std::function<double(uint32_t)> call) {
  if (request >= sems_->count() || done >= sems_->count())
    throw Error("host calls: semaphore " + std::to_string(std::max(request, done)) + " is beyond cpu.semaphores = " +
                std::to_string(sems_->count()));
  sc_core::sc_spawn([this, request, done, call] {
    for (uint32_t k = 0;; ++k) {
      while (!sems_->try_take(request)) sc_core::wait(sems_->changed);
      double ns = 0;
      try {
        ns = call(k);
      } catch (const std::exception& e) {
        host_error_ = "host call " + std::to_string(k) + ": " + e.what();
        sc_core::sc_stop();
        return;
      }
      if (ns > 0) sc_core::wait(sc_core::sc_time(ns, sc_core::SC_NS));
      sems_->signal(done);
    }
  }, "host_calls");
}

RunOutcome Platform::run(const std::function<void(double)>& progress, double max_ns, double slice_ns) {
  if (max_ns <= 0) max_ns = cfg_.sim.max_time_ns;  // the watchdog (sim.max_time_ns, sim.max_wall_s)
  const double max_wall_s = cfg_.sim.max_wall_s;
  bool wall_limit_hit = false;
  // The kernel runs no further than the earlier of max_ns and the firmware CPU's watchdog.
  const double wd_ns = cpu_->watchdog_ns();
  const double bound_ns = wd_ns > 0 && (max_ns <= 0 || wd_ns < max_ns) ? wd_ns : max_ns;
  if (!progress && max_wall_s <= 0) {
    if (bound_ns > 0)
      sc_core::sc_start(sc_core::sc_time(bound_ns, sc_core::SC_NS));
    else
      sc_core::sc_start();
  } else {
    // Slices let the caller show progress and the watchdog look at the wall clock; each slice
    // ends early if no event is left.
    const auto wall0 = std::chrono::steady_clock::now();
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    while (!cpu_->finished() && sc_core::sc_pending_activity()) {
      double now = ns_of(sc_core::sc_time_stamp());
      if (bound_ns > 0 && now >= bound_ns) break;
      if (max_wall_s > 0 &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count() >= max_wall_s) {
        wall_limit_hit = true;
        break;
      }
      // Run at least up to the next event, so that a long idle gap cannot stall the loop.
      sc_core::sc_time step(slice_ns, sc_core::SC_NS);
      step = std::max(step, sc_core::sc_time_to_pending_activity());
      if (bound_ns > 0) step = std::min(step, sc_core::sc_time(bound_ns - now, sc_core::SC_NS));
      sc_core::sc_start(step, sc_core::SC_EXIT_ON_STARVATION);
      if (progress) progress(ns_of(sc_core::sc_time_stamp()));
    }
  }
  if (wd_ns > 0 && !cpu_->finished() && sc_core::sc_pending_activity() &&
      ns_of(sc_core::sc_time_stamp()) >= wd_ns * (1 - 1e-12))
    cpu_->watchdog_expired();
  RunOutcome out;
  out.simulated_time_ns = ns_of(cpu_->finished() ? cpu_->finish_time() : sc_core::sc_time_stamp());
  if (!host_error_.empty()) {
    out.status = RunOutcome::Status::UnitError;
    out.message = host_error_;
    return out;
  }
  if (cpu_->finished() && cpu_->fault().kind != CpuFault::Kind::None) {
    out.status = cpu_->fault().kind == CpuFault::Kind::Watchdog ? RunOutcome::Status::Watchdog
                                                                : RunOutcome::Status::FirmwareFault;
    out.message = cpu_->fault().message;
    return out;
  }
  // A unit that stopped on an error fails a finished run whatever the firmware reported (an
  // error on the last commands can land after the firmware's last look at the error interrupts).
  if (cpu_->finished())
    for (const auto& q : units_)
      if (q->failed()) {
        out.status = RunOutcome::Status::UnitError;
        out.failing_command = sys_->regs.get(regs::SYS::ERROR_CMD);
        out.message = q->error_message();
        return out;
      }
  if (cpu_->finished() && cpu_->final_state() == unsigned(regs::FwState::DONE)) {
    // Done means the ring was consumed up to and including its END (firmware.c publishes
    // RING_HEAD = END's index + 1): a firmware that reports done early dispatched nothing more.
    const uint64_t n = program_.commands.size();
    uint64_t expected = n;
    for (uint64_t i = 0; i < n; ++i)
      if (program_.commands[i].opcode == pcs::Opcode::End) {
        expected = i + 1;
        break;
      }
    const uint32_t head = sys_->regs.get(regs::SYS::RING_HEAD);
    if (head < expected) {
      out.status = RunOutcome::Status::FirmwareError;
      out.failing_command = head;
      out.message = "firmware reported done after dispatching " + std::to_string(head) + " of " +
                    std::to_string(expected) + " commands (SYS.RING_HEAD did not reach the END command)";
    }
    return out;
  }
  const uint32_t status = sys_->regs.get(regs::SYS::STATUS);
  const uint32_t code = regs::SYS::STATUS_CODE.get(status);
  out.failing_command = sys_->regs.get(regs::SYS::ERROR_CMD);
  if (cpu_->finished()) {
    out.status = RunOutcome::Status::FirmwareError;
    const std::string idx = "command " + std::to_string(out.failing_command) + ": ";
    if (code == uint32_t(regs::FwError::OPCODE))
      out.message = idx + "unknown opcode (firmware stopped)";
    else if (code == uint32_t(regs::FwError::RING))
      out.message = "command stream ended without an END command (after " +
                    std::to_string(out.failing_command) + " commands)";
    else if (cpu_->final_state() != unsigned(regs::FwState::ERROR))
      out.message = "firmware exited with state " + std::to_string(cpu_->final_state()) + "; expected " +
                    std::to_string(unsigned(regs::FwState::DONE)) + " (done) or " +
                    std::to_string(unsigned(regs::FwState::ERROR)) + " (error)";
    else if (code == 0)
      out.message = "firmware reported an error without an error code in SYS.STATUS (expected " +
                    std::to_string(uint32_t(regs::FwError::OPCODE)) + " opcode or " +
                    std::to_string(uint32_t(regs::FwError::RING)) + " ring)";
    else
      out.message = idx + "firmware error code " + std::to_string(code) + " in SYS.STATUS (codes: " +
                    std::to_string(uint32_t(regs::FwError::UNIT)) + " unit error, but no unit failed; " +
                    std::to_string(uint32_t(regs::FwError::OPCODE)) + " opcode; " +
                    std::to_string(uint32_t(regs::FwError::RING)) + " ring)";
    return out;
  }
  if (wall_limit_hit || (max_ns > 0 && sc_core::sc_pending_activity())) {
    char buf[160];
    if (wall_limit_hit)
      std::snprintf(buf, sizeof buf,
                    "timeout: wall-clock limit sim.max_wall_s = %g s reached at %.0f ns simulated",
                    max_wall_s, out.simulated_time_ns);
    else
      std::snprintf(buf, sizeof buf, "timeout: simulated time reached the limit sim.max_time_ns = %.0f ns",
                    max_ns);
    out.status = RunOutcome::Status::Timeout;
    out.message = std::string(buf) + " before the END command";
    return out;
  }
  out.status = RunOutcome::Status::Deadlock;
  std::string blocked;
  for (const auto& q : units_)
    if (!q->blocked_on().empty()) blocked += (blocked.empty() ? "" : "; ") + q->blocked_on();
  out.message = "deadlock: no unit can make progress" +
                (blocked.empty() ? std::string() : ": " + blocked + " is never signalled");
  if (!cpu_->where().empty()) out.message += " (firmware at " + cpu_->where() + ")";
  return out;
}

MemoryDigest Platform::memory_digest() const {
  Fnv1a64 spm, hbm, all;
  const MemView v = spm_->view();
  if (v.data) {
    spm.add(v.data, v.size);
    all.add(v.data, v.size);
  }
  hbm_->store().for_each_page([&](uint64_t page, const uint8_t* bytes) {
    bool zero = true;
    for (uint64_t i = 0; i < HbmStore::kPageBytes && zero; ++i) zero = bytes[i] == 0;
    if (zero) return;  // an all-zero page reads as one never written
    for (Fnv1a64* h : {&hbm, &all}) {
      h->add_u64(page);
      h->add(bytes, HbmStore::kPageBytes);
    }
  });
  return {spm.text(), hbm.text(), all.text()};
}

PlatformReport Platform::report(const RunOutcome& outcome) const {
  const double t = outcome.simulated_time_ns;
  auto utilization = [t](double busy_ns) { return t > 0 ? std::min(1.0, busy_ns / t) : 0.0; };
  // A run stopped by the watchdog counts busy time up to the stop: the part of the commands in
  // flight that lies beyond it (their intervals start before it) is not counted, and no unit is
  // busy longer than the run (the HBM simulates a bulk stream whole when it is issued; its
  // counters, bytes and energy count the transactions issued before the stop whole).
  const bool stopped = outcome.status == RunOutcome::Status::Timeout;
  auto unit_row = [&](const std::string& name, const UnitStats& s) {
    const double busy =
        stopped ? std::min(t, std::max(0.0, s.busy_ns - std::max(0.0, s.busy_until_ns() - t))) : s.busy_ns;
    return UnitRow{name, busy, utilization(busy), s.commands, s.counters, s.energy_pj, ""};
  };
  PlatformReport r;
  for (const auto& q : units_) {
    r.units.push_back(unit_row(q->unit_name(), q->stats()));
    r.units.back().impl = cfg_.impl.at(q->unit_name());
    for (const auto& [k, v] : q->extra_counters()) r.units.back().counters[k] = v;
    r.queues.push_back({q->unit_name(), q->mean_occupancy(t), q->max_occupancy(), cfg_.cpu.queue_depth});
  }
  r.units.push_back(unit_row("scratchpad", spm_->stats()));
  r.units.push_back(unit_row("hbm", hbm_->stats()));
  r.hbm = hbm_->report();
  r.firmware.busy_ns = cpu_->busy_ns();
  r.firmware.utilization = utilization(cpu_->busy_ns());
  r.firmware.mmio_accesses = cpu_->mmio_accesses();
  r.firmware.commands = program_.commands.size();
  r.firmware.control_bus_errors = bus_->errors();
  r.firmware.noc_decode_errors = noc_->decode_errors();
  for (const auto& e : bus_->error_log()) r.firmware.errors.push_back(e);
  for (const auto& e : cpu_->bus_error_log()) r.firmware.errors.push_back(e);
  if (noc_->decode_errors()) r.firmware.errors.push_back(noc_->last_error());
  const std::vector<OpWork> work = count_op_work(program_, cfg_.noc.hbm_base, cfg_.hbm.capacity_bytes());
  r.firmware.cpu = cpu_->report();
  r.ops = op_rows(program_, trace_.events(), work);
  for (const auto& w : work) r.work_total += w;
  r.area = unit_areas(cfg_);
  return r;
}

}  // namespace photon
