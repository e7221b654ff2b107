// Output error of the optical engine's physical numerics against an ideal run.
//
// A functional run with optical_gemm.numerics = physical (DAC/ADC quantisation and noise) is
// compared with the same workload, inputs and configuration in `ideal` numerics (exact fp32).
// The ideal run happens in a forked child process, because SystemC elaborates one platform per
// process; the child sends its output tensors back through a pipe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/config/run_config.h"
#include "workloads/driver/workload.h"

namespace photon {

using TensorValues = std::map<std::string, std::vector<float>>;

/// Runs `w` on a platform built from `cfg` with ideal numerics and returns every output tensor.
/// `inputs` are written to their bindings first. Throws Error if the ideal run fails.
TensorValues run_ideal_outputs(const CompiledWorkload& w, RunConfig cfg, const TensorValues& inputs);

/// Per output: max_abs_error, rms_error, rms_ideal, relative_rms_error (rms_error / rms_ideal)
/// and snr_db (20 log10(rms_ideal / rms_error)).
nlohmann::json output_error(const TensorValues& physical, const TensorValues& ideal);

}  // namespace photon
