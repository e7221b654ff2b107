// Platform: the whole accelerator, built from a PlatformConfig.
//
//   firmware CPU --ctrl--> ControlBus --> SYS, IRQ, SEM, QUEUE_{DMA,GEMM,NTT,VEC} register blocks
//   firmware CPU --data--+
//   DMA ---------data----+--> DataRouter --> HBM (noc.hbm_base), scratchpad (noc.scratchpad_base)
//   optical GEMM, NTT and vector units read/write the scratchpad through its backing store.
//
// Use: construct (elaborates the SystemC hierarchy; one Platform per process, as SystemC allows
// one elaboration), load() a program, run(). The host side of the protocol is done by load():
// the commands are written into the ring at cpu.ring_base, data segments and fills into HBM,
// SYS.RING_* set, and the doorbell rung at time 0.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "isa/program.h"
#include "platform/engine.h"
#include "platform/report/memory_digest.h"
#include "platform/report/platform_report.h"
#include "platform/report/trace.h"
#include "soc/platform_config.h"

namespace photon {

class Hbm;
class Scratchpad;
class QueueUnit;
class ControlBus;
class DataRouter;
class IrqController;
class Semaphores;
class CpuModel;
class SysRegs;

/// HBM bytes to fill with one fp32 value before the run (splat weights, e.g. ConstantOfShape).
struct FloatFill {
  uint64_t address = 0;  ///< data-NoC address
  uint64_t count = 0;    ///< fp32 elements
  float value = 0;
};

/// How a run ended.
struct RunOutcome {
  enum class Status {
    Done,
    UnitError,
    FirmwareError,
    Deadlock,
    Timeout,
    FirmwareFault,
    Watchdog
  } status = Status::Done;
  std::string message;  ///< one line: why it did not finish (empty when Done)
  uint32_t failing_command = 0;
  double simulated_time_ns = 0;
};

class Platform {
 public:
  /// Builds every unit of unit_table() with the implementation `<unit>.impl` names.
  explicit Platform(const PlatformConfig& cfg);
  ~Platform();
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  /// Places the program's commands in the ring and its segments and `fills` in HBM. Throws Error
  /// if the ring or a segment does not fit in HBM. The platform keeps the program (program()):
  /// pass it as an rvalue to hand it over without a copy.
  void load(pcs::Program&& program, const std::vector<FloatFill>& fills = {});
  void load(const pcs::Program& program, const std::vector<FloatFill>& fills = {}) {
    load(pcs::Program(program), fills);
  }
  /// Runs to the END command, an error, a deadlock (no event left while the firmware still
  /// waits) or the watchdog: simulated time reaching `max_ns` (0: the configuration's
  /// sim.max_time_ns; 0 there too: no limit) or wall time reaching sim.max_wall_s ends the run
  /// with Status::Timeout, and report() then counts busy time up to the stop. `progress`
  /// (optional) is called with the simulated time between slices of `slice_ns` simulated ns.
  RunOutcome run(const std::function<void(double sim_ns)>& progress = {}, double max_ns = 0,
                 double slice_ns = 100000.0);

  /// Host calls: the host side of a command stream that hands work to the host (the AI lowering's
  /// host fallback, docs/lowering.md). Each time the program signals semaphore `request`, a host
  /// process takes it, runs `call(k)` for the k-th request (k = 0, 1, ...; it may use read() and
  /// write()), lets the simulated time it returns (ns) pass, and signals `done`. A call that throws
  /// ends the run with Status::UnitError and the message "host call k: <what>". Call before run().
  void serve_host_calls(uint32_t request, uint32_t done, std::function<double(uint32_t k)> call);
  /// cpu.model=rv32: serves GDB's remote protocol on 127.0.0.1:port (0: any free port) and
  /// stops before the first instruction; returns the port. Throws Error for cpu.model=native.
  int serve_gdb(int port);

  /// Backdoor memory access at data-NoC addresses (HBM or scratchpad), no timing.
  void read(uint64_t address, void* dst, uint64_t bytes) const;
  void write(uint64_t address, const void* src, uint64_t bytes);

  /// Fingerprints of the scratchpad and HBM contents (functional mode; platform/report/
  /// memory_digest.h says what is hashed). Cost: one pass over the scratchpad and the HBM pages
  /// written.
  MemoryDigest memory_digest() const;

  /// The report's platform sections (units, hbm, energy, queues, firmware, per-op rows) as typed
  /// rows; PlatformReport::to_json() serialises them.
  PlatformReport report(const RunOutcome& outcome) const;
  const TraceRecorder& trace() const { return trace_; }
  /// The HBM model (inspection by tests and tools).
  const Hbm& hbm() const { return *hbm_; }
  const PlatformConfig& config() const { return cfg_; }
  const pcs::Program& program() const { return program_; }
  /// The trace's unit tracks ("queue.<unit>"), in queue order.
  std::vector<std::string> trace_tracks() const;

 private:
  /// Plans the HBM calibrations the loaded program's bulk DMA streams will trigger, computed
  /// ahead on sim.helper_threads threads (HbmController::plan_calibrations).
  void plan_hbm_calibrations();

  PlatformConfig cfg_;
  pcs::Program program_;
  TraceRecorder trace_;
  std::unique_ptr<IrqController> irq_;
  std::unique_ptr<Semaphores> sems_;
  std::unique_ptr<SysRegs> sys_;
  std::unique_ptr<ControlBus> bus_;
  std::unique_ptr<DataRouter> noc_;
  std::unique_ptr<Hbm> hbm_;
  std::unique_ptr<Scratchpad> spm_;
  std::vector<std::unique_ptr<QueueUnit>> units_;  ///< unit_table() order = queue order
  std::string host_error_;  ///< set by a host call that failed (serve_host_calls)
  std::unique_ptr<CpuModel> cpu_;
};

}  // namespace photon
