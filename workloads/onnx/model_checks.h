// Structural checks of a parsed ONNX model, run before the ONNX library (version converter,
// shape inference) sees it: the library trusts a tensor's payload to match its dims and type and
// a node to carry what its schema requires, and reads past buffers when they do not.
// Rules: onnx/onnx.proto (TensorProto fields per data type) and the operator schemas of the
// installed ONNX library (onnx::OpSchema: input/output counts, required attributes and types).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include <onnx/onnx_pb.h>

#include "base/checked_size.h"

namespace photon::onnx_frontend {

/// Calls f(tensor, where) for every TensorProto of `g`: initializers, then per node the TENSOR and
/// TENSORS attributes, recursing into GRAPH and GRAPHS attributes (subgraphs of If, Loop, Scan).
/// `where` names the tensor ("tensor 'w'", "node 'c1' (Constant) attribute 'value'").
void for_each_tensor(onnx::GraphProto& g, const std::function<void(onnx::TensorProto&, const std::string&)>& f);

/// Element count of `t`'s dims as a checked Size; Error "dimension D of tensor 'x' is negative" or
/// "size overflow: ..." (no context: the caller adds it).
Size tensor_element_count(const onnx::TensorProto& t);

/// Checks that the payload of `t` matches its dims and data type without decoding it: raw_data
/// holds exactly numel * element-size bytes; otherwise the typed field of the type
/// (float_data, int32_data, int64_data, double_data, uint64_data, string_data; COMPLEX types two
/// values per element) holds numel values. A tensor still marked EXTERNAL, an undefined or unknown
/// data type, a negative dimension and a size overflow are errors too. Throws Error (no context).
void check_tensor_payload(const onnx::TensorProto& t);

/// Checks every tensor of the model (check_tensor_payload, for_each_tensor) and every node,
/// subgraphs included, against the schema of its op at the model's opset for its domain
/// (`versions`: domain, "" for ai.onnx -> version): the number of inputs within the schema's
/// min..max and no required (non-optional) input left empty; the number of outputs within
/// min..max; every required attribute present (a GRAPH attribute with its graph: Scan and Loop
/// need `body`, If `then_branch` and `else_branch`); every attribute whose type is set of the type
/// the schema declares; no SPARSE_TENSOR attributes or sparse initializers. Nodes of op types the
/// library does not know are left to the caller. Throws Error naming the node ("node 'bn'
/// (BatchNormalization): 1 input, BatchNormalization-15 requires 5") or the tensor.
void check_model_structure(onnx::ModelProto& m, const std::map<std::string, int64_t>& versions);

}  // namespace photon::onnx_frontend
