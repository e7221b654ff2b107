#include "platform/compute_unit.h"

#include <cmath>

namespace photon {

ComputeUnit::ComputeUnit(sc_core::sc_module_name name, std::unique_ptr<Engine> engine, const MemView& spm,
                         const Wiring& w)
    : QueueUnit(name, w), engine_(std::move(engine)), spm_(spm) {}

void ComputeUnit::check_command(const pcs::Command& c, uint32_t index, const LoadImage& image) const {
  try {
    engine_->check_command(c, image);
  } catch (const Error& e) {
    throw Error("command " + std::to_string(index) + ": " + unit_name() + ": " + e.what());
  }
}

std::string ComputeUnit::event_name(const pcs::Command& c) const {
  if (auto* n = std::get_if<pcs::Ntt>(&c.body)) return pcs::ntt_op_name(n->op);
  if (auto* v = std::get_if<pcs::Vector>(&c.body)) return pcs::vector_op_name(v->op);
  return QueueUnit::event_name(c);
}

QueueUnit::Timing ComputeUnit::execute(const pcs::Command& c, uint32_t) {
  const double ghz = engine_->clock_ghz();
  const double now_ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
  const uint64_t now_cycle = uint64_t(std::ceil(now_ns * ghz - 1e-9));
  IssueResult r = engine_->issue(c, now_cycle, spm_);
  stats_.energy_pj += r.energy_pj;
  stats_.counters["spm_bytes_read"] += double(r.spm_bytes_read);
  stats_.counters["spm_bytes_written"] += double(r.spm_bytes_written);
  auto at = [&](uint64_t cycle) {
    double t = double(cycle) / ghz;
    return sc_core::sc_time(t > now_ns ? t : now_ns, sc_core::SC_NS);
  };
  return Timing{at(r.accept_cycle), at(r.done_cycle)};
}

}  // namespace photon
