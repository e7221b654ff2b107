// .mlir -> HEIR frontend -> FHE lowering.
#include <cstdio>

#include "base/error.h"
#include "workloads/driver/workload.h"
#include "workloads/fhe/fhe_lowering.h"
#include "workloads/fhe/fhe_op_traits.h"
#include "workloads/heir/heir_frontend.h"

namespace photon {

CompiledWorkload compile_heir(const std::string& path, const RunConfig& cfg) {
  fhe::FheProgram p = heir::load_heir(path);
  CompiledWorkload w;
  w.frontend = "heir";
  try {
    w.program = fhe::lower_fhe(p, cfg);
  } catch (Error& e) {
    // Op-level errors already carry "file:line:col"; only module-level ones need the file.
    if (e.context().empty() || e.context().front().rfind(path, 0) != 0) e.with_context(path);
    throw;
  }
  if (!p.warnings.empty())
    for (const auto& wmsg : p.warnings) {  // located warnings ("path:line:col: ...") already name the file
      if (wmsg.rfind(path + ":", 0) == 0)
        std::fprintf(stderr, "photon: warning: %s\n", wmsg.c_str());
      else
        std::fprintf(stderr, "photon: warning: %s: %s\n", path.c_str(), wmsg.c_str());
    }
  for (const auto& u : p.unsupported)
    w.unsupported.push_back({u.op, std::nullopt, u.location, u.reason, std::nullopt, std::nullopt});
  FheInfo info;
  info.scheme = p.scheme;
  info.fhe_ops = p.ops.size();
  for (const auto& op : p.ops) info.fhe_op_counts[fhe::fhe_op_kind_name(op.kind)]++;
  info.derived = p.derived;
  info.warnings = p.warnings;
  w.info.fhe = info;
  return w;
}

}  // namespace photon
