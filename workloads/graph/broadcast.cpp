#include "workloads/graph/broadcast.h"

#include <set>
#include <string>

#include "base/error.h"

namespace photon {
namespace {

std::string dims(const std::vector<int64_t>& s) {
  if (s.empty()) return "scalar";
  std::string r;
  for (size_t k = 0; k < s.size(); ++k) r += (k ? "x" : "") + std::to_string(s[k]);
  return r;
}

const std::vector<int64_t>* shape_of(const Graph& g, const std::string& name) {
  if (name.empty()) return nullptr;
  auto it = g.tensors.find(name);
  return it == g.tensors.end() ? nullptr : &it->second.shape;
}

bool is_multidirectional(const std::string& op) {
  static const std::set<std::string> ops = {"Add",  "Sub",      "Mul",   "Div",  "Pow",  "Mod",
                                            "Equal", "Less",    "Greater", "LessOrEqual", "GreaterOrEqual",
                                            "And",  "Or",       "Xor",   "BitShift", "Where", "Max",
                                            "Min",  "Sum",      "Mean",  "BitwiseAnd", "BitwiseOr", "BitwiseXor"};
  return ops.count(op) > 0;
}

void check_output(const Node& n, const Graph& g, const std::vector<int64_t>& want, const char* rule) {
  if (n.outputs.empty()) return;
  const auto* out = shape_of(g, n.outputs[0]);
  if (out && *out != want)
    throw Error("output '" + n.outputs[0] + "' has shape " + dims(*out) + ", " + rule + " gives " + dims(want));
}

void check_gemm(const Node& n, const Graph& g) {
  if (n.inputs.size() < 2) return;
  const auto* a = shape_of(g, n.inputs[0]);
  const auto* b = shape_of(g, n.inputs[1]);
  if (!a || !b) return;
  if (a->size() != 2 || b->size() != 2)
    throw Error("A (" + dims(*a) + ") and B (" + dims(*b) + ") must be matrices (rank 2)");
  const bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
  const int64_t m = ta ? (*a)[1] : (*a)[0], ka = ta ? (*a)[0] : (*a)[1];
  const int64_t kb = tb ? (*b)[1] : (*b)[0], nn = tb ? (*b)[0] : (*b)[1];
  if (ka != kb)
    throw Error("inner dimensions differ: op(A) is " + std::to_string(m) + "x" + std::to_string(ka) + ", op(B) is " +
                std::to_string(kb) + "x" + std::to_string(nn));
  const std::vector<int64_t> mn = {m, nn};
  if (n.inputs.size() > 2) {
    const auto* c = shape_of(g, n.inputs[2]);
    if (c && !broadcasts_to(*c, mn))
      throw Error("C '" + n.inputs[2] + "' of shape " + dims(*c) + " does not broadcast to (M, N) = " + dims(mn) +
                  " (ONNX unidirectional broadcasting)");
  }
  check_output(n, g, mn, "(M, N) of op(A) x op(B)");
}

}  // namespace

std::optional<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r);
  for (size_t k = 0; k < r; ++k) {
    const int64_t da = k < r - a.size() ? 1 : a[k - (r - a.size())];
    const int64_t db = k < r - b.size() ? 1 : b[k - (r - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[k] = da == 1 ? db : da;
  }
  return out;
}

bool broadcasts_to(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  if (from.size() > to.size()) return false;
  const size_t off = to.size() - from.size();
  for (size_t k = 0; k < from.size(); ++k)
    if (from[k] != 1 && from[k] != to[k + off]) return false;
  return true;
}

void check_broadcasting(const Node& n, const Graph& g) {
  if (n.op_type == "Gemm") return check_gemm(n, g);
  if (n.op_type == "PRelu") {
    if (n.inputs.size() < 2) return;
    const auto* x = shape_of(g, n.inputs[0]);
    const auto* slope = shape_of(g, n.inputs[1]);
    if (x && slope && !broadcasts_to(*slope, *x))
      throw Error("slope '" + n.inputs[1] + "' of shape " + dims(*slope) + " does not broadcast to X (" + dims(*x) +
                  ") (ONNX unidirectional broadcasting)");
    return;
  }
  if (n.op_type == "Expand") {
    const auto* x = n.inputs.empty() ? nullptr : shape_of(g, n.inputs[0]);
    const auto* y = n.outputs.empty() ? nullptr : shape_of(g, n.outputs[0]);
    if (!x || !y) return;
    const auto b = broadcast_shapes(*x, *y);
    if (!b || *b != *y)
      throw Error("input '" + n.inputs[0] + "' of shape " + dims(*x) + " does not broadcast to the output shape " +
                  dims(*y));
    return;
  }
  if (!is_multidirectional(n.op_type)) return;
  std::optional<std::vector<int64_t>> acc;
  std::string names;
  for (const auto& in : n.inputs) {
    const auto* s = shape_of(g, in);
    if (!s) continue;
    names += (names.empty() ? "" : ", ") + ("'" + in + "' " + dims(*s));
    acc = acc ? broadcast_shapes(*acc, *s) : std::optional<std::vector<int64_t>>(*s);
    if (!acc) throw Error("inputs " + names + " do not broadcast together (ONNX multidirectional broadcasting)");
  }
  if (acc) check_output(n, g, *acc, "broadcasting the inputs");
}

}  // namespace photon
