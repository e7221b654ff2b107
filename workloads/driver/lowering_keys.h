// The configuration keys the frontends and lowerings read: two configurations that agree on
// these keys compile a workload to the same command stream (tests/workloads/driver checks it by
// changing every other key). The sweep uses this to lower a workload once per distinct value of
// these keys instead of once per point.
#pragma once

#include <string>
#include <vector>

#include "workloads/config/run_config.h"

namespace photon {

/// The keys compile_workload() reads for a workload of `frontend` ("onnx", "heir", "pcs",
/// "pasm"); an entry ending in '.' stands for every key under that prefix.
const std::vector<std::string>& lowering_config_keys(const std::string& frontend);

/// The frontend that compile_workload() uses for `path`, from its extension ("onnx", "heir",
/// "pcs", "pasm"); empty for an unknown extension.
std::string workload_frontend(const std::string& path);

/// The values of lowering_config_keys(frontend) in `cfg`, as one compact JSON text: equal
/// signatures mean the same compiled program for the same workload file and shapes.
std::string lowering_signature(const RunConfig& cfg, const std::string& frontend);

}  // namespace photon
