// Test helper: builds op traces (docs/torch.md) in memory and writes them to temp files.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/scratch.h"

namespace photon::test {

/// An op trace under construction: tensors by id, ops in order.
struct TraceBuilder {
  nlohmann::json tensors = nlohmann::json::array();
  nlohmann::json ops = nlohmann::json::array();
  std::vector<int64_t> inputs, outputs;

  int64_t tensor(const std::string& kind, std::vector<int64_t> shape, const std::string& name = "",
                 const std::string& dtype = "float32") {
    nlohmann::json t = {{"kind", kind}, {"shape", shape}, {"dtype", dtype}};
    if (!name.empty()) t["name"] = name;
    tensors.push_back(t);
    const int64_t id = static_cast<int64_t>(tensors.size()) - 1;
    if (kind == "input") inputs.push_back(id);
    return id;
  }
  int64_t input(std::vector<int64_t> shape, const std::string& name) { return tensor("input", shape, name); }
  int64_t param(std::vector<int64_t> shape, const std::string& name) { return tensor("param", shape, name); }
  /// Appends op `op` with `args`, producing new values of the given shapes; returns their ids.
  std::vector<int64_t> op(const std::string& op, nlohmann::json args, std::vector<std::vector<int64_t>> outs,
                          const std::string& module = "", const std::string& dtype = "float32") {
    std::vector<int64_t> ids;
    for (auto& s : outs) ids.push_back(tensor("value", s, "", dtype));
    nlohmann::json o = {{"op", op}, {"args", args}, {"outputs", ids}};
    if (!module.empty()) o["module"] = module;
    ops.push_back(o);
    return ids;
  }
  int64_t op1(const std::string& o, nlohmann::json args, std::vector<int64_t> shape,
              const std::string& module = "") {
    return op(o, std::move(args), {shape}, module)[0];
  }
  nlohmann::json json() const {
    return {{"format", "photon-op-trace"},
            {"version", 1},
            {"producer", "test"},
            {"model", "Test"},
            {"mode", "inference"},
            {"tensors", tensors},
            {"inputs", inputs},
            {"outputs", outputs},
            {"ops", ops}};
  }
};

inline nlohmann::json T(int64_t id) { return {{"tensor", id}}; }

/// Writes `text` to a fresh file in the process's scratch directory and returns its path.
inline std::string write_trace(const std::string& text, const std::string& stem) {
  const std::string path = photon_test::scratch_path(stem + ".ptrace");
  std::ofstream(path) << text;
  return path;
}

inline std::string write_trace(const TraceBuilder& b, const std::string& stem) {
  return write_trace(b.json().dump(), stem);
}

}  // namespace photon::test
