#include "workloads/driver/run_report.h"

namespace photon {

const char* run_status_name(RunOutcome::Status s) {
  switch (s) {
    case RunOutcome::Status::Done: return "ok";
    case RunOutcome::Status::UnitError: return "unit_error";
    case RunOutcome::Status::FirmwareError: return "firmware_error";
    case RunOutcome::Status::Deadlock: return "deadlock";
    case RunOutcome::Status::Timeout: return "timeout";
    case RunOutcome::Status::FirmwareFault: return "firmware_fault";
    case RunOutcome::Status::Watchdog: return "watchdog";
  }
  return "error";
}

RunReport make_run_report(const Platform& platform, const RunOutcome& out, const CompiledWorkload& w,
                          const RunConfig& cfg, const std::string& workload_arg, double wall_s) {
  RunReport report;
  report.platform = platform.report(out);
  report.status = run_status_name(out.status);
  if (out.status != RunOutcome::Status::Done) report.error = out.message;
  report.photon_version = kPhotonVersion;
  report.workload = workload_arg;
  report.info = w.info;
  report.mode = sim_mode_table().name(cfg.sim.mode);
  report.simulated_time_ns = out.simulated_time_ns;
  report.wall_time_s = wall_s;
  report.config = config_json(cfg);
  report.unsupported = w.unsupported;
  if (w.frontend == "heir") report.fhe = fhe_summary(report.platform.ops);
  return report;
}

nlohmann::json RunReport::to_json() const {
  nlohmann::json j = platform.to_json();
  j["status"] = status;
  if (!error.empty()) j["error"] = error;
  j["photon_version"] = photon_version;
  j["workload"] = workload;
  j["workload_info"] = info.to_json();
  j["mode"] = mode;
  j["simulated_time_ns"] = simulated_time_ns;
  j["wall_time_s"] = wall_time_s;
  j["config"] = config;
  j["unsupported"] = nlohmann::json::array();
  for (const auto& u : unsupported) j["unsupported"].push_back(u.to_json());
  if (fhe) j["fhe"] = fhe->to_json();
  if (outputs) {
    j["outputs"] = nlohmann::json::array();
    for (const auto& o : *outputs) j["outputs"].push_back({{"name", o.name}, {"file", o.file}});
  }
  if (!outputs_note.empty()) j["outputs_note"] = outputs_note;
  if (!numerics_error.is_null()) j["numerics_error"] = numerics_error;
  if (!numerics_error_note.empty()) j["numerics_error_note"] = numerics_error_note;
  return j;
}

}  // namespace photon
