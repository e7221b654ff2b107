// Broadcasting rules of the ONNX specification (docs/Broadcasting.md): multidirectional
// (numpy-style) broadcasting for the element-wise ops, unidirectional broadcasting of one input
// to another's shape (Gemm's C to (M, N), PRelu's slope to X).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "workloads/graph/graph.h"

namespace photon {

/// numpy broadcast of `a` and `b` (shapes right-aligned; each pair of dims equal or one of them
/// 1); nullopt if they do not broadcast.
std::optional<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

/// True if `from` broadcasts unidirectionally to `to`: rank(from) <= rank(to) and, right-aligned,
/// every dim of `from` equals that of `to` or is 1.
bool broadcasts_to(const std::vector<int64_t>& from, const std::vector<int64_t>& to);

/// Checks node `n` of `g` against the broadcasting rule of its op type: the multidirectional ops
/// (Add, Sub, Mul, Div, Pow, Mod, the comparisons, And/Or/Xor, BitShift, Where, Max, Min, Sum,
/// Mean) need inputs that broadcast together and an output of the broadcast shape; Expand an
/// output equal to the broadcast of its input and its output shape; PRelu a slope that broadcasts
/// to X; Gemm a C that broadcasts to (M, N) of op(A) x op(B) (transA/transB) and an output of
/// (M, N). Other ops, and tensors the graph does not know, are not checked. Throws Error naming
/// the inputs and their shapes (no node context: the caller adds it).
void check_broadcasting(const Node& n, const Graph& g);

}  // namespace photon
