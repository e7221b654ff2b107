#include "platform/platform.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <map>

#include "cosim/ntt/ntt_rtl_unit.h"
#include "models/dma/dma.h"
#include "models/hbm/hbm.h"
#include "models/scratchpad/scratchpad.h"
#include "platform/compute_unit.h"
#include "platform/control_bus.h"
#include "platform/error.h"
#include "platform/firmware_cpu.h"
#include "platform/irq_controller.h"
#include "platform/noc/router.h"
#include "platform/report/op_work.h"
#include "platform/semaphores.h"

#include "photon_regs.h"

namespace photon {

/// The SYS register block: ring registers and the doorbell (raises IRQ DOORBELL).
class SysRegs {
 public:
  explicit SysRegs(IrqController& irq) : regs("SYS") {
    regs.on_write("DOORBELL", [&irq](uint32_t, uint32_t) {
      irq.raise(PHOTON_IRQ_PENDING_DOORBELL_SHIFT);
    });
  }
  RegisterBlock regs;
};

namespace {
double ns_of(const sc_core::sc_time& t) { return t.to_seconds() * 1e9; }
}  // namespace

Platform::Platform(const PlatformConfig& cfg, EngineFactories engines) : cfg_(cfg) {
  // The kernel's banner would go to stdout, which belongs to the CLI's own output.
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  const bool functional = cfg_.sim.mode == "functional";
  if (cfg_.ntt.impl == "rtl") NttRtlUnit::check_config(cfg_.ntt, cfg_.cosim);  // before any module
  const sc_core::sc_time cpu_cycle(1.0 / cfg_.cpu.clock_ghz, sc_core::SC_NS);
  irq_ = std::make_unique<IrqController>("irq");
  sems_ = std::make_unique<Semaphores>("sem", cfg_.cpu.semaphores);
  sys_ = std::make_unique<SysRegs>(*irq_);
  bus_ = std::make_unique<ControlBus>("ctrl_bus", cfg_.cpu.mmio_latency_cycles * cpu_cycle);
  noc_ = std::make_unique<DataRouter>("noc", cfg_.noc);
  hbm_ = std::make_unique<Hbm>("hbm", cfg_.hbm, functional);
  spm_ = std::make_unique<Scratchpad>("scratchpad", cfg_.scratchpad, functional);

  auto wiring = [&](unsigned done_bit, unsigned err_bit) {
    QueueUnit::Wiring w;
    w.irq = irq_.get();
    w.sems = sems_.get();
    w.trace = &trace_;
    w.depth = cfg_.cpu.queue_depth;
    w.done_bit = done_bit;
    w.err_bit = err_bit;
    return w;
  };
  dma_ = std::make_unique<DmaUnit>("dma", cfg_.dma, functional,
                                   wiring(PHOTON_IRQ_PENDING_DMA_DONE_SHIFT, PHOTON_IRQ_PENDING_DMA_ERR_SHIFT));
  gemm_ = std::make_unique<ComputeUnit>("optical_gemm", "GEMM", engines.gemm(cfg_), spm_->view(),
                                        wiring(PHOTON_IRQ_PENDING_GEMM_DONE_SHIFT, PHOTON_IRQ_PENDING_GEMM_ERR_SHIFT));
  if (cfg_.ntt.impl == "rtl")
    ntt_ = std::make_unique<NttRtlUnit>("ntt", "NTT", cfg_.ntt, cfg_.cosim, spm_->view(),
                                        wiring(PHOTON_IRQ_PENDING_NTT_DONE_SHIFT, PHOTON_IRQ_PENDING_NTT_ERR_SHIFT));
  else
    ntt_ = std::make_unique<ComputeUnit>("ntt", "NTT", engines.ntt(cfg_), spm_->view(),
                                         wiring(PHOTON_IRQ_PENDING_NTT_DONE_SHIFT, PHOTON_IRQ_PENDING_NTT_ERR_SHIFT));
  vec_ = std::make_unique<ComputeUnit>("vector", "VEC", engines.vector(cfg_), spm_->view(),
                                       wiring(PHOTON_IRQ_PENDING_VEC_DONE_SHIFT, PHOTON_IRQ_PENDING_VEC_ERR_SHIFT));
  cpu_ = std::make_unique<FirmwareCpu>("fw_cpu", cfg_.cpu, cfg_.sim.quantum_ns, *irq_, &trace_);

  bus_->attach(&sys_->regs);
  bus_->attach(&irq_->regs());
  bus_->attach(&sems_->regs());
  bus_->attach(&dma_->regs());
  bus_->attach(&gemm_->regs());
  bus_->attach(&ntt_->regs());
  bus_->attach(&vec_->regs());

  cpu_->ctrl.bind(bus_->ctrl);
  cpu_->data.bind(noc_->in);
  dma_->data.bind(noc_->in);
  noc_->map_target("hbm", cfg_.noc.hbm_base, cfg_.hbm.capacity_bytes());
  noc_->out.bind(hbm_->mem);
  noc_->map_target("scratchpad", cfg_.noc.scratchpad_base, cfg_.scratchpad.size_bytes());
  noc_->out.bind(spm_->mem);
}

Platform::~Platform() = default;

std::array<const QueueUnit*, 4> Platform::queues() const {
  return {dma_.get(), gemm_.get(), ntt_.get(), vec_.get()};
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
    if (v.data) std::memcpy(dst, v.data + (address - sb), bytes);
    else std::memset(dst, 0, bytes);
  } else {
    throw Error("host read of " + std::to_string(bytes) + " bytes at " + std::to_string(address) +
                " lies outside HBM and scratchpad");
  }
}

void Platform::load(const pcs::Program& program, const std::vector<FloatFill>& fills) {
  const uint64_t n = program.commands.size();
  for (uint64_t i = 0; i < n; ++i) {  // commands a unit's implementation can never run
    const int q = program.commands[i].queue();
    if (q >= 0 && q < int(queues().size())) queues()[q]->check_command(program.commands[i], uint32_t(i));
  }
  program_ = program;
  const uint64_t ring = cfg_.cpu.ring_base;
  if (ring + n * pcs::kCommandBytes > cfg_.hbm.capacity_bytes())
    throw Error("command ring of " + std::to_string(n) + " commands does not fit in HBM at cpu.ring_base");
  // The ring must not overlap the data the program places in HBM.
  const uint64_t ring_lo = cfg_.noc.hbm_base + ring, ring_hi = ring_lo + n * pcs::kCommandBytes;
  auto overlaps = [&](uint64_t lo, uint64_t hi) { return lo < ring_hi && ring_lo < hi; };
  for (const auto& s : program.segments)
    if (overlaps(s.address, s.address + s.bytes.size()))
      throw Error("cpu.ring_base: the command ring [" + std::to_string(ring_lo) + ", " + std::to_string(ring_hi) +
                  ") overlaps a data segment at " + std::to_string(s.address));
  for (const auto& f : fills)
    if (overlaps(f.address, f.address + f.count * 4))
      throw Error("cpu.ring_base: the command ring [" + std::to_string(ring_lo) + ", " + std::to_string(ring_hi) +
                  ") overlaps constant data at " + std::to_string(f.address));
  std::vector<uint8_t> bytes(n * pcs::kCommandBytes);
  for (uint64_t i = 0; i < n; ++i) pcs::encode(program.commands[i], bytes.data() + i * pcs::kCommandBytes);
  hbm_->write_bytes(ring, bytes.data(), bytes.size());
  if (cfg_.sim.mode == "functional") {
    for (const auto& s : program.segments)
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
  sys.set("RING_BASE_LO", uint32_t(ring & 0xFFFFFFFFu));
  sys.set("RING_BASE_HI", uint32_t(ring >> 32));
  sys.set("RING_SIZE", uint32_t(n));
  sys.set("RING_HEAD", 0);
  sys.set("RING_TAIL", uint32_t(n));
  irq_->raise(PHOTON_IRQ_PENDING_DOORBELL_SHIFT);  // the host rings the doorbell at time 0
}

RunOutcome Platform::run(const std::function<void(double)>& progress, double max_ns,
                         double slice_ns) {
  if (!progress) {
    if (max_ns > 0)
      sc_core::sc_start(sc_core::sc_time(max_ns, sc_core::SC_NS));
    else
      sc_core::sc_start();
  } else {
    // Slices let the caller show progress; each slice ends early if no event is left.
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    while (!cpu_->finished() && sc_core::sc_pending_activity()) {
      double now = ns_of(sc_core::sc_time_stamp());
      if (max_ns > 0 && now >= max_ns) break;
      // Run at least up to the next event, so that a long idle gap cannot stall the loop.
      sc_core::sc_time step(slice_ns, sc_core::SC_NS);
      step = std::max(step, sc_core::sc_time_to_pending_activity());
      sc_core::sc_start(step, sc_core::SC_EXIT_ON_STARVATION);
      progress(ns_of(sc_core::sc_time_stamp()));
    }
  }
  RunOutcome out;
  out.simulated_time_ns = ns_of(cpu_->finished() ? cpu_->finish_time() : sc_core::sc_time_stamp());
  if (cpu_->finished() && cpu_->final_state() == PHOTON_FW_STATE_DONE) return out;
  const uint32_t status = sys_->regs.get("STATUS");
  const uint32_t code = (status & PHOTON_SYS_STATUS_CODE_MASK) >> PHOTON_SYS_STATUS_CODE_SHIFT;
  out.failing_command = sys_->regs.get("ERROR_CMD");
  if (cpu_->finished()) {
    for (const QueueUnit* q : queues())
      if (q->failed()) {
        out.status = RunOutcome::Status::UnitError;
        out.message = q->error_message();
        return out;
      }
    out.status = RunOutcome::Status::FirmwareError;
    const std::string idx = "command " + std::to_string(out.failing_command) + ": ";
    if (code == PHOTON_FW_ERR_OPCODE)
      out.message = idx + "unknown opcode (firmware stopped)";
    else if (code == PHOTON_FW_ERR_RING)
      out.message = "command stream ended without an END command (after " +
                    std::to_string(out.failing_command) + " commands)";
    else
      out.message = idx + "firmware error code " + std::to_string(code);
    return out;
  }
  if (max_ns > 0 && sc_core::sc_pending_activity()) {
    out.status = RunOutcome::Status::Timeout;
    out.message = "simulation did not finish within " + std::to_string(max_ns) + " ns";
    return out;
  }
  out.status = RunOutcome::Status::Deadlock;
  std::string blocked;
  for (const QueueUnit* q : queues())
    if (!q->blocked_on().empty()) blocked += (blocked.empty() ? "" : "; ") + q->blocked_on();
  out.message = "deadlock: no unit can make progress" +
                (blocked.empty() ? std::string() : ": " + blocked + " is never signalled");
  return out;
}

nlohmann::json Platform::report(const RunOutcome& outcome) const {
  using nlohmann::json;
  const double t = outcome.simulated_time_ns;
  json units = json::object(), energy = json::object(), queue_rows = json::object();
  double total_energy = 0;
  auto add_unit = [&](const std::string& name, const UnitStats& s) {
    units[name] = {{"busy_ns", s.busy_ns}, {"utilization", t > 0 ? std::min(1.0, s.busy_ns / t) : 0.0},
                   {"commands", s.commands}, {"counters", s.counters}};
    energy[name] = s.energy_pj;
    total_energy += s.energy_pj;
  };
  for (const QueueUnit* q : queues()) {
    add_unit(q->unit_name(), q->stats());
    units[q->unit_name()]["impl"] = q->impl();
    queue_rows[q->unit_name()] = {{"mean_occupancy", q->mean_occupancy(t)}, {"max_occupancy", q->max_occupancy()},
                              {"depth", cfg_.cpu.queue_depth}};
  }
  for (auto* cu : {gemm_.get(), ntt_.get(), vec_.get()})
    for (const auto& [k, v] : cu->engine().counters()) units[cu->unit_name()]["counters"][k] = v;
  add_unit("scratchpad", spm_->stats());
  UnitStats hs = hbm_->stats();
  add_unit("hbm", hs);
  units["firmware_cpu"] = {{"busy_ns", cpu_->busy_ns()},
                           {"utilization", t > 0 ? std::min(1.0, cpu_->busy_ns() / t) : 0.0},
                           {"mmio_accesses", cpu_->mmio_accesses()}};
  energy["total"] = total_energy;

  // Per-op rows from the trace: first start, last end, busy time per unit.
  // Per-op rows from the trace: first start, last end, and per unit the length of the union of
  // the op's command intervals (commands of one unit may overlap, e.g. the NTT unit's engines).
  struct Row {
    double start = 1e300, end = 0;
    std::map<std::string, std::vector<std::pair<double, double>>> intervals;
    std::map<std::string, double> unit_ns;
  };
  std::vector<Row> rows(program_.ops.size());
  for (const auto& e : trace_.events()) {
    if (e.tag >= rows.size() || e.sync) continue;
    Row& r = rows[e.tag];
    r.start = std::min(r.start, e.start_ns);
    r.end = std::max(r.end, e.end_ns);
    r.intervals[e.track.substr(e.track.find('.') + 1)].push_back({e.start_ns, e.end_ns});
  }
  for (Row& r : rows)
    for (auto& [unit, iv] : r.intervals) {
      std::sort(iv.begin(), iv.end());
      double total = 0, cur_s = 0, cur_e = -1;
      for (const auto& [a, b] : iv) {
        if (a > cur_e) {
          if (cur_e > cur_s) total += cur_e - cur_s;
          cur_s = a;
          cur_e = b;
        } else {
          cur_e = std::max(cur_e, b);
        }
      }
      if (cur_e > cur_s) total += cur_e - cur_s;
      r.unit_ns[unit] = total;
    }
  const std::vector<OpWork> work = count_op_work(program_, cfg_.noc.hbm_base, cfg_.hbm.capacity_bytes());
  json ops = json::array();
  OpWork total;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& op = program_.ops[i];
    json row = {{"name", op.name}, {"kind", op.kind},
                {"start_ns", rows[i].end > 0 ? rows[i].start : 0.0}, {"end_ns", rows[i].end},
                {"latency_ns", rows[i].end > 0 ? rows[i].end - rows[i].start : 0.0},
                {"unit_ns", rows[i].unit_ns}, {"work", work[i].to_json()}};
    if (!op.detail.empty()) row["detail"] = op.detail;
    ops.push_back(row);
    total += work[i];
  }
  json errors = json::array();
  for (const auto& e : bus_->error_log()) errors.push_back(e);
  for (const auto& e : cpu_->bus_error_log()) errors.push_back(e);
  if (noc_->decode_errors()) errors.push_back(noc_->last_error());
  return json{{"units", units},
              {"hbm", hbm_->report()},
              {"energy_pj", energy},
              {"queues", queue_rows},
              {"firmware", {{"mmio_accesses", cpu_->mmio_accesses()},
                            {"commands", program_.commands.size()},
                            {"control_bus_errors", bus_->errors()},
                            {"noc_decode_errors", noc_->decode_errors()},
                            {"errors", errors}}},
              {"ops", ops},
              {"work_total", total.to_json()}};
}

}  // namespace photon

// libsystemc's own main() calls sc_main; Photon's executables have their own main() and drive the
// kernel through Platform, so this is never called, but the shared library needs the symbol.
int sc_main(int, char**) { return 0; }
