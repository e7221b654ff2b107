// TensorProto <-> photon::TensorInfo: decoding of ONNX tensor payloads (raw_data or the typed
// fields, per onnx/onnx.proto `TensorProto`), and reading/writing serialized TensorProto .pb files
// (the format of the ONNX test-suite's input_0.pb / output_0.pb).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "workloads/graph/graph.h"

namespace photon::onnx_frontend {

/// True for the ONNX element types held as integers (INT8..INT64, UINT8..UINT64, BOOL).
bool onnx_is_integer_type(int32_t elem_type);
/// True for FLOAT, DOUBLE, FLOAT16, BFLOAT16 (held as fp32 by the frontend).
bool onnx_is_float_type(int32_t elem_type);
/// ONNX element type -> graph DType (DOUBLE and BFLOAT16 map to Float32: values are held as fp32).
DType dtype_from_onnx(int32_t elem_type);
/// ONNX element type name, e.g. "FLOAT", "STRING" (for error messages).
std::string onnx_type_name(int32_t elem_type);

/// Decodes the values of `t` (dims d0..dn-1, numel = product). Float types go to `f` as fp32
/// (DOUBLE rounded, FLOAT16/BFLOAT16 widened exactly); integer and BOOL types go to `i` as int64.
/// Reads raw_data (little-endian) when present, else the typed field (float_data, double_data,
/// int32_data (also FLOAT16/BFLOAT16 bit patterns, INT8..UINT16, BOOL), int64_data, uint64_data).
/// Throws Error naming the tensor for STRING/COMPLEX/UNDEFINED types, external data, or a payload
/// whose element count differs from numel.
void decode_tensor_values(const onnx::TensorProto& t, std::vector<float>* f, std::vector<int64_t>* i);

/// TensorProto -> TensorInfo (is_constant = true; data as fp32, plus int_data for integer types).
TensorInfo tensor_from_proto(const onnx::TensorProto& t);

/// TensorInfo -> FLOAT TensorProto with raw_data (fp32 little-endian). A splat tensor is expanded.
/// Throws Error if data.size() != numel() for a non-splat tensor.
onnx::TensorProto tensor_to_proto(const TensorInfo& t);

/// Reads a serialized TensorProto file. Errors (unreadable, not a TensorProto, bad payload) name
/// the file.
TensorInfo read_tensor_pb(const std::string& path);

/// Writes `t` as a serialized FLOAT TensorProto: to "<path>.tmp.<pid>" first, then renamed over
/// `path`, so a reader never sees a partial file. Errors name the file.
void write_tensor_pb(const std::string& path, const TensorInfo& t);

}  // namespace photon::onnx_frontend
