#include "workloads/driver/workload_info.h"

namespace photon {

nlohmann::json UnsupportedOp::to_json() const {
  nlohmann::json j = {{"op", op}, {"reason", reason}};
  if (name) j["name"] = *name;
  if (location) j["location"] = *location;
  if (host_cost_ns) j["host_cost_ns"] = *host_cost_ns;
  if (graph_op) j["graph_op"] = *graph_op;
  return j;
}

nlohmann::json WorkloadInfo::to_json() const {
  nlohmann::json j = {{"frontend", frontend}, {"commands", commands}};
  if (graph) {
    j["graph"] = graph->graph;
    j["opset"] = graph->opset;
    if (graph->opset_converted_from) j["onnx_opset_converted_from"] = graph->opset_converted_from;
    j["coverage"] = {{"nodes", graph->nodes},
                     {"lowered", graph->lowered},
                     {"free", graph->free},
                     {"folded", graph->folded},
                     {"fallback", graph->fallback},
                     {"lowered_by_op", graph->lowered_by_op},
                     {"fallback_by_op", graph->fallback_by_op}};
    if (graph->unit != "nodes") j["coverage"]["unit"] = graph->unit;
    j["host_fallback_ns"] = graph->host_fallback_ns;
    j["hbm_footprint_bytes"] = graph->hbm_footprint_bytes;
  }
  if (trace) {
    j["model"] = trace->model;
    j["mode"] = trace->mode;
    j["producer"] = trace->producer;
    j["graph_coverage"] = {{"nodes", trace->nodes}, {"lowered", trace->lowered}, {"free", trace->free},
                           {"folded", trace->folded}, {"fallback", trace->fallback}};
  }
  if (fhe) {
    j["scheme"] = fhe->scheme;
    j["fhe_ops"] = fhe->fhe_ops;
    j["fhe_op_counts"] = fhe->fhe_op_counts;
    j["derived"] = fhe->derived;
    j["warnings"] = fhe->warnings;
  }
  if (graph || !functional_notes.empty()) j["functional_notes"] = functional_notes;
  return j;
}

}  // namespace photon
