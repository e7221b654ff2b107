// Workload driver: turns a workload file into a command stream ready to load on the platform.
//   .onnx -> ONNX frontend -> AI lowering       (workloads/onnx, workloads/lowering)
//   .ptrace -> torch frontend -> AI lowering    (workloads/torch, docs/torch.md)
//   .mlir -> HEIR frontend -> FHE lowering      (workloads/heir, workloads/fhe)
//   .pcs  -> read as is                          (isa)
// One code path for `photon run` and `photon compile`.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "isa/program.h"
#include "soc/platform.h"
#include "workloads/fallback/host_calls.h"
#include "workloads/config/run_config.h"
#include "workloads/driver/workload_info.h"

namespace photon {

/// Where a model input or output tensor lives in HBM (fp32, row-major).
struct TensorBinding {
  std::string name;
  uint64_t address = 0;  ///< data-NoC address
  std::vector<int64_t> shape;
};

struct CompiledWorkload {
  std::string path;
  std::string frontend;  ///< "onnx", "torch", "heir", "pcs" or "pasm"
  pcs::Program program;
  std::vector<FloatFill> fills;            ///< splat constants to place in HBM (functional mode)
  std::vector<UnsupportedOp> unsupported;  ///< ops not mapped to the device, with why
  WorkloadInfo info;                       ///< frontend facts for the report
  std::vector<TensorBinding> inputs, outputs;
  bool functional_exact = true;  ///< false if a fallback makes functional outputs invalid
  /// Functional mode: the fallback nodes the host computes (null: none). Serve them with
  /// fallback::serve_host_calls() after Platform::load().
  std::shared_ptr<const fallback::HostCallPlan> host_calls;
  /// True if node `name` is one of host_calls.
  bool host_computed(const std::string& name) const {
    if (!host_calls) return false;
    for (size_t k : host_calls->nodes)
      if (host_calls->graph.nodes[k].name == name) return true;
    return false;
  }
};

struct CompileOptions {
  std::map<std::string, std::vector<int64_t>> shapes;  ///< --shape NAME=1x3x224x224
};

/// Compiles `path` for `cfg`. Throws Error (with the file as context) for bad input or an
/// unknown extension.
CompiledWorkload compile_workload(const std::string& path, const RunConfig& cfg,
                                  const CompileOptions& opts = {});

/// Reads `path` with its frontend only (the ONNX model and its `opts.shapes`, the op trace, the
/// HEIR program, the command stream), without lowering it: the input errors compile_workload()
/// would throw for any configuration. Throws Error with the file as context.
void check_workload(const std::string& path, const CompileOptions& opts = {});

/// Parses "NAME=1x3x224x224". Throws Error naming the argument.
std::pair<std::string, std::vector<int64_t>> parse_shape_arg(const std::string& arg);

}  // namespace photon
