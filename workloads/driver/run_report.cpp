#include "workloads/driver/run_report.h"

namespace photon {

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
  if (memory) j["functional"] = memory->to_json();
  if (!numerics_error.is_null()) j["numerics_error"] = numerics_error;
  if (!numerics_error_note.empty()) j["numerics_error_note"] = numerics_error_note;
  return j;
}

}  // namespace photon
