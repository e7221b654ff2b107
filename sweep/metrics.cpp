#include "sweep/metrics.h"

#include <set>

#include "base/error.h"

namespace photon::sweep {

namespace {

std::vector<std::string> split(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    out.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return out;
}

/// Walks `parts[i..]` from `node`; `stop` receives the deepest node reached and the index.
const nlohmann::json* walk(const nlohmann::json& node, const std::vector<std::string>& parts, size_t i,
                           const nlohmann::json** stop, size_t* stop_i) {
  if (i == parts.size()) return &node;
  if (stop && (!*stop || i >= *stop_i)) *stop = &node, *stop_i = i;
  if (node.is_object()) {
    std::string key;
    for (size_t j = parts.size(); j > i; --j) {  // longest key first: counters contain dots
      key.clear();
      for (size_t k = i; k < j; ++k) key += (k > i ? "." : "") + parts[k];
      auto it = node.find(key);
      if (it != node.end())
        if (const nlohmann::json* r = walk(*it, parts, j, stop, stop_i)) return r;
    }
  } else if (node.is_array()) {
    const std::string& s = parts[i];
    if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos && s.size() < 10) {
      const size_t idx = std::stoul(s);
      if (idx < node.size()) return walk(node[idx], parts, i + 1, stop, stop_i);
    }
  }
  return nullptr;
}

bool workload_dependent(const std::string& path) {
  static const std::set<std::string> sections = {"fhe", "workload_info", "ops", "numerics_error", "outputs"};
  return sections.count(path.substr(0, path.find('.'))) != 0;
}

}  // namespace

std::vector<MetricSpec> default_metrics(const std::vector<std::string>& units) {
  std::vector<MetricSpec> m = {{"latency_ns", "simulated_time_ns"},
                               {"energy_pj", "energy_pj.total"},
                               {"area_mm2", "area_mm2.total"},
                               {"hbm_bytes_read", "hbm.bytes_read"},
                               {"hbm_bytes_written", "hbm.bytes_written"},
                               {"hbm_bandwidth_gbps", "hbm.avg_bandwidth_gbps"}};
  for (const auto& u : units) m.push_back({"util_" + u, "units." + u + ".utilization"});
  return m;
}

std::vector<MetricSpec> all_metrics(const std::vector<std::string>& units,
                                    const std::vector<MetricSpec>& extra) {
  std::vector<MetricSpec> m = default_metrics(units);
  for (const auto& e : extra) {
    for (const auto& d : m)
      if (d.name == e.name)
        throw Error("metrics: " + e.name + ": the name is taken (by " + d.path + "); choose another");
    m.push_back(e);
  }
  return m;
}

const nlohmann::json* find_path(const nlohmann::json& report, const std::string& path) {
  return walk(report, split(path), 0, nullptr, nullptr);
}

std::optional<double> metric_value(const nlohmann::json& report, const std::string& path) {
  const nlohmann::json* v = find_path(report, path);
  if (!v) return std::nullopt;
  if (v->is_number()) return v->get<double>();
  if (v->is_boolean()) return v->get<bool>() ? 1.0 : 0.0;
  return std::nullopt;
}

void check_metric_paths(const std::vector<MetricSpec>& metrics, const nlohmann::json& probe) {
  for (const auto& m : metrics) {
    std::vector<std::string> parts = split(m.path);
    // The FHE summary's sections are fixed (fhe.total, fhe.bootstrap), and every fhe.by_kind.KIND
    // has the fields of fhe.total; only the kinds depend on the workload.
    const bool fhe = parts[0] == "fhe" && probe.contains("fhe");
    if (fhe && parts.size() >= 3 && parts[1] == "by_kind") {
      std::vector<std::string> t = {"fhe", "total"};
      t.insert(t.end(), parts.begin() + 3, parts.end());
      parts = t;
    }
    const nlohmann::json* stop = nullptr;
    size_t stop_i = 0;
    const nlohmann::json* v = walk(probe, parts, 0, &stop, &stop_i);
    if (v) {
      if (!v->is_number() && !v->is_boolean())
        throw Error("metrics: " + m.name + ": report path '" + m.path + "' is " +
                    (v->is_object()   ? "a section"
                     : v->is_array()  ? "a list"
                     : v->is_string() ? "text"
                                      : "null") +
                    ", not a number");
      continue;
    }
    if (workload_dependent(m.path) && !fhe && stop && stop_i > 0) continue;  // the probe has no such workload
    if (workload_dependent(m.path) && !probe.contains(parts[0])) continue;
    std::string keys;
    if (stop && stop->is_object()) {
      int n = 0;
      for (const auto& [k, _] : stop->items()) {
        if (n++ == 12) {
          keys += ", ...";
          break;
        }
        keys += (keys.empty() ? "" : ", ") + k;
      }
    }
    std::string at;
    for (size_t k = 0; k < stop_i; ++k) at += (k ? "." : "") + parts[k];
    throw Error("metrics: " + m.name + ": report path '" + m.path + "' does not exist" +
                (keys.empty() ? std::string()
                              : " (keys " + (at.empty() ? std::string("at the top") : "under '" + at + "'") +
                                    ": " + keys + ")"));
  }
}

}  // namespace photon::sweep
