#include "workloads/graph/graph.h"

#include "base/error.h"

namespace photon {
namespace {

// Looks up attribute k and returns a pointer to its value as T, nullptr if absent; throws an
// Error naming the node and attribute if present with another type.
template <typename T>
const T* find_attr(const Node& n, const std::string& k, const char* type_name) {
  auto it = n.attrs.find(k);
  if (it == n.attrs.end()) return nullptr;
  const T* v = std::get_if<T>(&it->second);
  if (!v) {
    throw Error("attribute '" + k + "' is not " + type_name)
        .with_context("node '" + n.name + "' (" + n.op_type + ")");
  }
  return v;
}

}  // namespace

int64_t Node::attr_int(const std::string& k, int64_t dflt) const {
  const int64_t* v = find_attr<int64_t>(*this, k, "an int");
  return v ? *v : dflt;
}

float Node::attr_float(const std::string& k, float dflt) const {
  auto it = attrs.find(k);
  if (it != attrs.end()) {
    if (const int64_t* i = std::get_if<int64_t>(&it->second)) return static_cast<float>(*i);
  }
  const float* v = find_attr<float>(*this, k, "a float");
  return v ? *v : dflt;
}

std::string Node::attr_string(const std::string& k, const std::string& dflt) const {
  const std::string* v = find_attr<std::string>(*this, k, "a string");
  return v ? *v : dflt;
}

std::vector<int64_t> Node::attr_ints(const std::string& k, const std::vector<int64_t>& dflt) const {
  const auto* v = find_attr<std::vector<int64_t>>(*this, k, "a list of ints");
  return v ? *v : dflt;
}

std::vector<float> Node::attr_floats(const std::string& k, const std::vector<float>& dflt) const {
  const auto* v = find_attr<std::vector<float>>(*this, k, "a list of floats");
  return v ? *v : dflt;
}

bool is_window_op(const std::string& op) {
  return op == "Conv" || op == "ConvTranspose" || op == "MaxPool" || op == "AveragePool" || op == "LpPool";
}

void check_window_attrs(const Node& n) {
  if (!is_window_op(n.op_type)) return;
  for (const char* k : {"strides", "dilations", "kernel_shape", "pads"}) {
    const std::vector<int64_t> v = n.attr_ints(k, {});
    const int64_t min = std::string(k) == "pads" ? 0 : 1;
    std::string list;
    bool bad = false;
    for (int64_t e : v) {
      list += (list.empty() ? "" : ",") + std::to_string(e);
      bad = bad || e < min;
    }
    if (bad) throw Error(std::string(k) + " [" + list + "] has an entry < " + std::to_string(min));
  }
  const int64_t group = n.attr_int("group", 1);
  if (group < 1) throw Error("group " + std::to_string(group) + " must be >= 1");
}

const TensorInfo& Graph::tensor(const std::string& tname) const {
  auto it = tensors.find(tname);
  if (it == tensors.end()) {
    throw Error("unknown tensor '" + tname + "'").with_context("graph '" + name + "'");
  }
  return it->second;
}

}  // namespace photon
