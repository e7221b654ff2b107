#include "workloads/driver/tensor_files.h"

#include "base/error.h"
#include "workloads/onnx/tensor_io.h"

namespace photon {

namespace {
std::string shape_text(const std::vector<int64_t>& s) {
  std::string t;
  for (auto d : s) t += (t.empty() ? "" : "x") + std::to_string(d);
  return t.empty() ? "scalar" : t;
}
int64_t numel(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}
}  // namespace

std::vector<float> read_input_tensor(const std::string& file, const TensorBinding& b) {
  TensorInfo t = onnx_frontend::read_tensor_pb(file);
  if (t.numel() != numel(b.shape) || (t.shape.size() == b.shape.size() && t.shape != b.shape))
    throw Error("tensor has shape " + shape_text(t.shape) + " but input '" + b.name + "' expects " +
                shape_text(b.shape))
        .with_context(file);
  if (t.splat) return std::vector<float>(size_t(t.numel()), t.splat_value);
  return t.data;
}

void write_output_tensor(const Platform& p, const TensorBinding& b, const std::string& file) {
  TensorInfo t;
  t.name = b.name;
  t.shape = b.shape;
  t.data.resize(size_t(numel(b.shape)));
  p.read(b.address, t.data.data(), t.data.size() * sizeof(float));
  onnx_frontend::write_tensor_pb(file, t);
}

std::string sanitize_file_name(const std::string& name) {
  std::string s = name;
  for (char& c : s)
    if (c == '/' || c == ':' || c == '\\' || c == ' ') c = '_';
  return s.empty() ? "output" : s;
}

}  // namespace photon
