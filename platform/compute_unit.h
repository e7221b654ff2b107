// ComputeUnit: a QueueUnit whose commands are executed by a pure-C++ Engine (optical GEMM, NTT,
// vector). Converts between sc_time and the engine's own clock cycles:
//   now_cycle = ceil(now_ns * clock_ghz),  done_ns = done_cycle / clock_ghz.
// Energy and scratchpad traffic from each IssueResult go into the unit's statistics.
#pragma once

#include <memory>

#include "platform/engine.h"
#include "platform/queue_unit.h"

namespace photon {

class ComputeUnit : public QueueUnit {
 public:
  ComputeUnit(sc_core::sc_module_name name, std::unique_ptr<Engine> engine, const MemView& spm,
              const Wiring& w);

  Engine& engine() { return *engine_; }
  /// The engine's check_command(), its error prefixed "command <index>: <unit>: ".
  void check_command(const pcs::Command& c, uint32_t index, const LoadImage& image) const override;
  std::map<std::string, double> extra_counters() const override { return engine_->counters(); }

 protected:
  Timing execute(const pcs::Command& c, uint32_t index) override;
  std::string event_name(const pcs::Command& c) const override;

 private:
  std::unique_ptr<Engine> engine_;
  MemView spm_;
};

}  // namespace photon
