#include "workloads/driver/workload.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>

#include "base/error.h"
#include "base/file_read.h"
#include "isa/assembler.h"
#include "isa/program.h"
#include "workloads/heir/heir_frontend.h"
#include "workloads/onnx/onnx_loader.h"
#include "workloads/torch/torch_frontend.h"

namespace photon {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

// Frontend entry points, each in its own file of this folder.
CompiledWorkload compile_onnx(const std::string& path, const RunConfig& cfg, const CompileOptions& opts);
CompiledWorkload compile_heir(const std::string& path, const RunConfig& cfg);
CompiledWorkload compile_torch(const std::string& path, const RunConfig& cfg);

std::pair<std::string, std::vector<int64_t>> parse_shape_arg(const std::string& arg) {
  auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
    throw Error("--shape expects NAME=DxDxD, got '" + arg + "'");
  // Limits as in the ONNX frontend (onnx_loader.cpp): each dimension in the int32 range, fewer
  // than 2^40 elements in all.
  constexpr long long kMaxDim = (1LL << 31) - 1;
  constexpr long long kMaxElements = 1LL << 40;
  std::vector<int64_t> dims;
  std::string rest = arg.substr(eq + 1);
  size_t start = 0;
  long long elements = 1;
  while (start <= rest.size()) {
    size_t x = rest.find('x', start);
    std::string d = rest.substr(start, x == std::string::npos ? std::string::npos : x - start);
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(d.c_str(), &end, 10);
    if (d.empty() || *end != '\0' || v <= 0 || (d[0] < '0' || d[0] > '9'))
      throw Error("--shape " + arg + ": dimension '" + d + "' is not a positive integer");
    if (errno == ERANGE || v > kMaxDim)
      throw Error("--shape " + arg + ": dimension " + d + " is larger than " + std::to_string(kMaxDim));
    elements *= v;  // no overflow: elements < 2^40 and v < 2^31 before each step
    if (elements >= kMaxElements) throw Error("--shape " + arg + ": 2^40 or more elements");
    dims.push_back(v);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  return {arg.substr(0, eq), dims};
}

namespace {

enum class Frontend { Onnx, Torch, Heir, Pcs, Pasm };

/// The frontend of `path` by its extension, after checking that it is a readable regular file.
/// Throws Error with the file as context.
Frontend open_workload(const std::string& path) {
  regular_file_size(
      path, "a workload file (.onnx, .ptrace, .mlir, .pcs, .pasm)");  // before any open: a FIFO blocks
  {
    std::ifstream probe(path);
    if (!probe) throw Error("cannot open workload file").with_context(path);
  }
  if (ends_with(path, ".onnx")) return Frontend::Onnx;
  if (ends_with(path, ".ptrace")) return Frontend::Torch;
  if (ends_with(path, ".mlir")) return Frontend::Heir;
  if (ends_with(path, ".pcs")) return Frontend::Pcs;
  if (ends_with(path, ".pasm")) return Frontend::Pasm;
  throw Error("unknown workload type (expected .onnx, .ptrace, .mlir, .pcs or .pasm)").with_context(path);
}

void check_torch_shapes(const std::string& path, const CompileOptions& opts) {
  if (!opts.shapes.empty())
    throw Error("--shape does not apply to an op trace: its shapes were fixed when it was traced").with_context(path);
}

}  // namespace

void check_workload(const std::string& path, const CompileOptions& opts) {
  switch (open_workload(path)) {
    case Frontend::Onnx: onnx_frontend::load_onnx(path, opts.shapes); return;
    case Frontend::Torch:
      check_torch_shapes(path, opts);
      load_op_trace(path);
      return;
    case Frontend::Heir: heir::load_heir(path); return;
    case Frontend::Pcs: pcs::read_program(path); return;
    case Frontend::Pasm: pcs::assemble_file(path); return;
  }
}

CompiledWorkload compile_workload(const std::string& path, const RunConfig& cfg, const CompileOptions& opts) {
  CompiledWorkload w;
  switch (open_workload(path)) {
    case Frontend::Onnx: w = compile_onnx(path, cfg, opts); break;
    case Frontend::Torch:
      check_torch_shapes(path, opts);
      w = compile_torch(path, cfg);
      break;
    case Frontend::Heir: w = compile_heir(path, cfg); break;
    case Frontend::Pcs:
      w.program = pcs::read_program(path);
      w.frontend = "pcs";
      break;
    case Frontend::Pasm:
      w.program = pcs::assemble_file(path);
      w.frontend = "pasm";
      break;
  }
  w.path = path;
  w.info.frontend = w.frontend;
  w.info.commands = w.program.commands.size();
  return w;
}

}  // namespace photon
