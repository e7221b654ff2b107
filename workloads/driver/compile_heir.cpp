// .mlir -> HEIR frontend -> FHE lowering.
#include "platform/error.h"
#include "workloads/driver/workload.h"
#include "workloads/fhe/fhe_lowering.h"
#include "workloads/heir/heir_frontend.h"

namespace photon {

CompiledWorkload compile_heir(const std::string& path, const PlatformConfig& cfg) {
  FheProgram p = load_heir(path);
  CompiledWorkload w;
  w.frontend = "heir";
  w.program = with_error_context(path, [&] { return lower_fhe(p, cfg); });
  for (const auto& u : p.unsupported)
    w.unsupported.push_back({{"op", u.op}, {"location", u.location}, {"reason", u.reason}});
  std::map<std::string, int> counts;
  for (const auto& op : p.ops) counts[fhe_op_kind_name(op.kind)]++;
  w.info = {{"scheme", p.scheme}, {"fhe_ops", p.ops.size()}, {"fhe_op_counts", counts},
            {"derived", p.derived}, {"warnings", p.warnings}};
  return w;
}

}  // namespace photon
