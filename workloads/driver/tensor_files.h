// Model input/output tensors as ONNX TensorProto files (--input NAME=FILE.pb, --dump-outputs).
#pragma once

#include <string>
#include <vector>

#include "soc/platform.h"
#include "workloads/driver/workload.h"

namespace photon {

/// Reads FILE.pb and checks it has the binding's element count (and shape, where the file gives
/// one of the same rank). Returns fp32 values. Throws Error naming the file and the mismatch.
std::vector<float> read_input_tensor(const std::string& file, const TensorBinding& b);
/// Reads the binding's fp32 tensor out of HBM and writes it as a TensorProto file.
void write_output_tensor(const Platform& p, const TensorBinding& b, const std::string& file);
/// A tensor name made safe as a file name ('/' and ':' become '_').
std::string sanitize_file_name(const std::string& name);

}  // namespace photon
