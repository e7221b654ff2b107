// External tensor data (onnx/onnx.proto TensorProto.external_data, docs/ExternalData.md of the
// ONNX specification): a tensor whose data_location is EXTERNAL keeps its bytes in another file,
// named by the key "location" relative to the model file's directory, from byte "offset" for
// "length" bytes (both optional: 0 and the rest of the file).
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

namespace photon::onnx_frontend {

/// Reads the bytes of every EXTERNAL tensor of `m` (initializers and Constant/TENSOR attributes,
/// also inside subgraphs) into its raw_data and marks it DEFAULT, so that the rest of the loader
/// and the ONNX library see an ordinary tensor. Locations are resolved against the directory of
/// `model_path`, per model.
///
/// Throws Error naming the tensor for: a missing "location"; an absolute location, or one that
/// leaves the model's directory (a ".." component, or a symbolic link resolving outside it) — a
/// model file must not make Photon read arbitrary files; a file that is missing or not a regular
/// file (the message names the resolved path); an offset or length that is not a decimal number
/// or that reaches past the end of the file; and a payload larger than the element count of the
/// tensor's dims allows (checked before the bytes are read).
void load_external_data(onnx::ModelProto& m, const std::string& model_path);

}  // namespace photon::onnx_frontend
