// NttRtlCore: a verilated ntt_core behind its TLM-to-pin transactor, as the NTT unit's shell and
// the RTL tests see it. One implementation per verilated variant (ntt_pin_driver.h); pick one
// with make_ntt_rtl_core() (ntt_rtl_variants.h).
//
// Use: submit() jobs in the order they are to run, each with the core clock cycle in which its
// start is driven (not earlier than the previous job's done). The transactor runs the core on a
// real sc_clock (stopped while no job is left), streams the job's coefficients and twiddle
// tables into the core, collects its output, and calls the done callback in simulation time at
// the cycle done is seen, with the job's cycle count or an error.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cosim/ntt/ntt_rtl_params.h"

namespace photon::cosim {

/// One command of the core: `limbs` transforms of N = 2^log_n words, each limb with its modulus.
struct NttRtlJob {
  uint32_t log_n = 0;
  bool inverse = false;
  uint32_t limbs = 0;
  std::vector<uint64_t> moduli;  ///< one per limb: odd, below 2^width, 1 mod 2N
  /// limbs x N words, limb-major: the input, replaced by the result. Empty: zeros go in and the
  /// result is dropped (timing-only runs).
  std::vector<uint64_t> data;
  uint64_t start_cycle = 0;  ///< core clock cycle in which start is driven
  std::string label;         ///< names the job in errors, e.g. "command 12 (ntt forward)"
  uint64_t id = 0;           ///< caller's tag

  // Filled in before the done callback.
  uint64_t done_cycle = 0;  ///< cycle at whose rising edge done was seen: start_cycle + cycles
  double done_ns = 0;       ///< simulated time of that edge, ns
  std::string error;        ///< empty on success; else one line naming time, job and cause
};

/// Test stimulus: gaps on the input streams, back-pressure on the output, and a deliberate
/// protocol violation. The platform leaves all of them off (full-rate streams).
struct NttRtlStimulus {
  std::function<bool(uint64_t cycle)> in_gap;     ///< true: in_valid low in this cycle
  std::function<bool(uint64_t cycle)> tw_gap;     ///< true: tw_valid low in this cycle
  std::function<bool(uint64_t cycle)> out_stall;  ///< true: out_ready low in this cycle
  /// Change in_data while a beat waits for ready (breaks the stream rule; the checker must fire).
  bool corrupt_held_in_beat = false;
  /// Assert start again while the core is busy (breaks the control rule).
  bool restart_while_busy = false;
  /// Send a wrong Montgomery constant q' with the first limb (the checker must fire).
  bool corrupt_q_inv = false;
};

class NttRtlCore {
 public:
  using DoneFn = std::function<void(NttRtlJob&)>;
  virtual ~NttRtlCore() = default;
  virtual const NttRtlParams& params() const = 0;
  /// Period of the core clock (the sc_clock the core runs on).
  virtual double period_ns() const = 0;
  /// Rising clock edges the verilated core has seen so far (its clock runs only during jobs, so
  /// this is the sum of their cycle counts plus the cycles of jobs that failed).
  virtual uint64_t clocked_cycles() const = 0;
  /// Queues a job; it starts in its start_cycle. Must not be earlier than the current cycle.
  virtual void submit(NttRtlJob job) = 0;
  /// Called in simulation time with each finished job (success or error). It may submit jobs.
  virtual void on_done(DoneFn fn) = 0;
  virtual void set_stimulus(NttRtlStimulus s) = 0;
  /// Dumps the core's signals in FST format (Verilator tracing) from start_ns to end_ns of
  /// simulated time (end_ns <= start_ns: to the end of the run). Call before the simulation runs.
  virtual void trace_window(const std::string& fst_path, double start_ns, double end_ns) = 0;
  /// Closes the waveform file, if any (also done by the destructor).
  virtual void close_trace() = 0;
};

/// Names of the core's error codes (err_code) and the checker's rules (chk_code).
const char* ntt_core_error_name(uint32_t code);
const char* ntt_checker_rule_name(uint32_t code);

}  // namespace photon::cosim
