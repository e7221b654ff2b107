// .onnx -> ONNX frontend -> AI lowering.
#include "base/error.h"
#include "workloads/driver/ai_workload.h"
#include "workloads/driver/workload.h"
#include "workloads/lowering/ai_lowering.h"
#include "workloads/onnx/onnx_loader.h"

namespace photon {

CompiledWorkload compile_onnx(const std::string& path, const RunConfig& cfg, const CompileOptions& opts) {
  Graph g = onnx_frontend::load_onnx(path, opts.shapes);
  lowering::LoweringResult r = with_error_context(path, [&] { return lowering::lower_graph(g, cfg); });
  CompiledWorkload w = ai_workload(g, r, path, cfg);
  w.frontend = "onnx";
  return w;
}

}  // namespace photon
