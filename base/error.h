// photon::Error: the one exception type of the project.
//
// An Error carries a message and a context chain (outermost first when printed), e.g.
//   configs/a.yaml: hbm.tRCD: value 0 out of range [1, 1000]
//   model.onnx: node 'conv1' (Conv): kernel_shape has 3 entries, expected 2
// Code that adds context catches, calls with_context(), and rethrows. The CLI catches Error,
// prints what() on one line and exits non-zero. The message and every context element are
// stored printable() (base/text.h): input text quoted in them (a file name, a token, a node
// name) cannot break the line or carry terminal escape sequences or invalid UTF-8.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/text.h"

namespace photon {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(""), message_(printable(message)) {
    rebuild();
  }

  /// Prepends a context element (a file, "line:col", a key path, a node name, "command 12").
  Error& with_context(std::string ctx) {
    context_.insert(context_.begin(), printable(ctx));
    rebuild();
    return *this;
  }

  const char* what() const noexcept override { return full_.c_str(); }
  const std::string& message() const { return message_; }
  const std::vector<std::string>& context() const { return context_; }

 private:
  void rebuild() {
    full_.clear();
    for (const auto& c : context_) full_ += c + ": ";
    full_ += message_;
  }
  std::string message_;
  std::vector<std::string> context_;
  std::string full_;
};

/// Runs f(); an Error escaping it gets `ctx` prepended to its context chain.
template <typename F>
auto with_error_context(const std::string& ctx, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (Error& e) {
    e.with_context(ctx);
    throw;
  }
}

}  // namespace photon
