#include "sweep/plan.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "base/error.h"
#include "sweep/content_hash.h"
#include "sweep/expression.h"
#include "workloads/config/run_config.h"
#include "workloads/driver/lowering_keys.h"
#include "workloads/driver/run_report.h"

namespace photon::sweep {

namespace {

std::vector<std::string> as_sets(const std::vector<KeyValue>& kvs) {
  std::vector<std::string> out;
  for (const auto& [k, v] : kvs) out.push_back(k + "=" + v);
  return out;
}

/// Loads a point's configuration; an error names the spec and the point, not "--set".
RunConfig load_point(const SweepSpec& spec, const std::vector<std::string>& sets, const std::string& where) {
  try {
    return load_run_config(spec.base_config, sets);
  } catch (const Error& e) {
    Error out(e.message());
    for (auto it = e.context().rbegin(); it != e.context().rend(); ++it)
      if (*it != "--set") out.with_context(*it);
    throw out.with_context(where).with_context(spec.file);
  }
}

ExprValue config_value(const ParamSet& ps, const std::string& key) {
  const nlohmann::json v = ps.value(key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  return v.get<double>();
}

/// True when a constraint rejects point `a`, with each key's value taken from `a` when it sets
/// the key and from `base` otherwise (used only for points whose configuration does not load).
bool rejected_by_values(const std::vector<Expression>& constraints, const Assignment& a,
                        const RunConfig& base) {
  RunConfig cfg(base);
  const ParamSet ps = bind_params(cfg);
  auto lookup = [&](const std::string& key) -> ExprValue {
    for (const auto& [k, v] : a)
      if (k == key) {
        RunConfig probe(base);  // parse the text as the key's type
        ParamSet pps = bind_params(probe);
        try {
          pps.set(key, v);
        } catch (const Error&) { return v; }
        return config_value(pps, key);
      }
    return config_value(ps, key);
  };
  for (const auto& c : constraints) {
    try {
      if (!c.holds(lookup)) return true;
    } catch (const Error&) { return false; }
  }
  return false;
}

void remove_path(nlohmann::json& j, const std::string& key) {
  nlohmann::json* node = &j;
  size_t start = 0;
  while (true) {
    const size_t dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!node->is_object() || !node->contains(part)) return;
    if (dot == std::string::npos) {
      node->erase(part);
      return;
    }
    node = &(*node)[part];
    start = dot + 1;
  }
}

}  // namespace

std::string describe_point(uint64_t point, const Assignment& a) {
  std::string s = "point " + std::to_string(point) + " (";
  for (size_t i = 0; i < a.size(); ++i) s += (i ? ", " : "") + a[i].first + "=" + a[i].second;
  return s + ")";
}

std::string run_key(const nlohmann::json& resolved_config, const PlannedWorkload& w) {
  nlohmann::json keyed = resolved_config;
  for (const std::string& k : SimConfig::wall_time_only_keys()) remove_path(keyed, k);
  std::string shapes;
  for (const auto& s : w.spec.shapes) shapes += s + ";";
  return sha256_hex(keyed.dump() + "\n" + w.content_sha + "\n" + shapes + "\n" + kPhotonVersion);
}

SweepPlan make_plan(const SweepSpec& spec, const std::vector<MetricSpec>& metrics,
                    const std::function<void(uint64_t, uint64_t)>& progress) {
  SweepPlan p;
  p.name = spec.name;
  p.spec_file = spec.file;
  p.base_config = spec.base_config;
  p.metrics = metrics;
  p.timeout_s = spec.timeout_s;
  static RunConfig defaults_cfg;
  static const ParamSet defaults = bind_params(defaults_cfg);
  const std::vector<std::string> swept = spec.swept_keys();
  for (const auto& k : swept) {
    const ParamSet::Kind kind = defaults.param(k).kind;
    const char* type =
        kind == ParamSet::Kind::Double ? "REAL"
        : (kind == ParamSet::Kind::UInt || kind == ParamSet::Kind::UInt32 || kind == ParamSet::Kind::Bool)
            ? "INTEGER"
            : "TEXT";
    p.params.push_back({k, type});
  }
  for (const auto& w : spec.workloads) {
    PlannedWorkload pw{w, workload_frontend(w.file), ""};
    if (pw.frontend.empty())
      throw Error("workloads: unknown workload type (expected .onnx, .mlir, .pcs or .pasm)")
          .with_context(w.file);
    pw.content_sha = sha256_file(w.file);
    p.workloads.push_back(std::move(pw));
  }
  std::vector<Expression> constraints;
  for (const auto& text : spec.constraints) {
    const std::string ctx = "constraints: '" + text + "'";
    constraints.push_back(with_error_context(
        spec.file, [&] { return with_error_context(ctx, [&] { return Expression(text); }); }));
    for (const auto& name : constraints.back().names())
      if (!defaults.has(name))
        throw Error("unknown configuration key '" + name + "'").with_context(ctx).with_context(spec.file);
  }

  // What makes two sweeps comparable (SweepPlan::identity).
  {
    RunConfig base = load_point(spec, as_sets(spec.set), "set");
    nlohmann::json id = {{"base", config_json(base)}, {"swept", swept}, {"version", kPhotonVersion}};
    for (const auto& k : swept) remove_path(id["base"], k);
    for (const auto& w : p.workloads) id["workloads"].push_back({w.spec.name, w.content_sha, w.spec.shapes});
    for (const auto& m : metrics) id["metrics"].push_back({m.name, m.path});
    p.identity = sha256_hex(id.dump());
  }

  const RunConfig base_values = load_point(spec, as_sets(spec.set), "set");
  const std::vector<Assignment> points = with_error_context(spec.file, [&] { return expand_design(spec); });
  p.design_points = points.size();
  std::set<std::string> seen;
  for (uint64_t i = 0; i < points.size(); ++i) {
    if (progress && i % 64 == 0) progress(i, points.size());
    const Assignment& a = points[i];
    std::vector<KeyValue> kvs = spec.set;
    kvs.insert(kvs.end(), a.begin(), a.end());
    const std::vector<std::string> sets = as_sets(kvs);
    const std::string where = describe_point(i, a);
    RunConfig cfg;
    try {
      cfg = load_point(spec, sets, where);
    } catch (const Error&) {
      // A point the configuration refuses is still skipped when a constraint rejects it, judged
      // on the point's own values over the base's (e.g. "hbm.channels >= 8" keeps the command
      // ring inside HBM).
      if (constraints.empty() || !rejected_by_values(constraints, a, base_values)) throw;
      ++p.skipped;
      continue;
    }
    const ParamSet ps = bind_params(cfg);
    bool keep = true;
    for (const auto& c : constraints) {
      try {
        keep = c.holds([&](const std::string& k) { return config_value(ps, k); });
      } catch (const Error& e) {
        throw Error(e.message())
            .with_context("constraints: '" + c.text() + "'")
            .with_context(where)
            .with_context(spec.file);
      }
      if (!keep) break;
    }
    if (!keep) {
      ++p.skipped;
      continue;
    }
    const nlohmann::json resolved = ps.to_json();
    nlohmann::json params = nlohmann::json::object();
    for (const auto& k : swept) params[k] = ps.value(k);
    bool duplicate = false;
    for (uint32_t w = 0; w < p.workloads.size(); ++w) {
      PlannedRun r;
      r.point = i;
      r.workload = w;
      r.key = run_key(resolved, p.workloads[w]);
      if (!seen.insert(r.key).second) {
        duplicate = true;
        continue;
      }
      r.group = std::to_string(w) + ":" +
                sha256_hex(lowering_signature(cfg, p.workloads[w].frontend) + "\n" +
                           nlohmann::json(p.workloads[w].spec.shapes).dump())
                    .substr(0, 16);
      r.sets = sets;
      r.params = params;
      p.runs.push_back(std::move(r));
    }
    p.duplicates += duplicate;
  }
  if (progress) progress(points.size(), points.size());
  if (p.runs.empty())
    throw Error("the constraints reject all " + std::to_string(points.size()) + " points")
        .with_context(spec.file);
  std::stable_sort(p.runs.begin(), p.runs.end(), [](const PlannedRun& a, const PlannedRun& b) {
    return std::tie(a.workload, a.group, a.point) < std::tie(b.workload, b.group, b.point);
  });
  for (uint64_t i = 0; i < p.runs.size(); ++i) p.runs[i].index = i;
  return p;
}

nlohmann::json SweepPlan::to_json() const {
  nlohmann::json j = {{"name", name},
                      {"spec_file", spec_file},
                      {"base_config", base_config},
                      {"timeout_s", timeout_s},
                      {"design_points", design_points},
                      {"skipped", skipped},
                      {"duplicates", duplicates},
                      {"identity", identity},
                      {"photon_version", kPhotonVersion}};
  for (const auto& c : params) j["params"].push_back({{"key", c.key}, {"type", c.sql_type}});
  for (const auto& m : metrics) j["metrics"].push_back({{"name", m.name}, {"path", m.path}});
  for (const auto& w : workloads)
    j["workloads"].push_back({{"name", w.spec.name},
                              {"file", w.spec.file},
                              {"shapes", w.spec.shapes},
                              {"frontend", w.frontend},
                              {"content_sha", w.content_sha}});
  j["runs"] = nlohmann::json::array();
  for (const auto& r : runs)
    j["runs"].push_back({{"index", r.index},
                         {"point", r.point},
                         {"workload", r.workload},
                         {"key", r.key},
                         {"group", r.group},
                         {"sets", r.sets},
                         {"params", r.params}});
  return j;
}

SweepPlan SweepPlan::from_json(const nlohmann::json& j) {
  SweepPlan p;
  try {
    p.name = j.at("name");
    p.spec_file = j.at("spec_file");
    p.base_config = j.at("base_config");
    p.timeout_s = j.at("timeout_s");
    p.design_points = j.at("design_points");
    p.skipped = j.at("skipped");
    p.duplicates = j.at("duplicates");
    p.identity = j.at("identity");
    for (const auto& c : j.value("params", nlohmann::json::array()))
      p.params.push_back({c.at("key"), c.at("type")});
    for (const auto& m : j.at("metrics")) p.metrics.push_back({m.at("name"), m.at("path")});
    for (const auto& w : j.at("workloads")) {
      PlannedWorkload pw;
      pw.spec.name = w.at("name");
      pw.spec.file = w.at("file");
      pw.spec.shapes = w.at("shapes").get<std::vector<std::string>>();
      pw.frontend = w.at("frontend");
      pw.content_sha = w.at("content_sha");
      p.workloads.push_back(std::move(pw));
    }
    for (const auto& r : j.at("runs")) {
      PlannedRun pr;
      pr.index = r.at("index");
      pr.point = r.at("point");
      pr.workload = r.at("workload");
      pr.key = r.at("key");
      pr.group = r.at("group");
      pr.sets = r.at("sets").get<std::vector<std::string>>();
      pr.params = r.at("params");
      p.runs.push_back(std::move(pr));
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("malformed sweep plan: ") + e.what());
  }
  return p;
}

}  // namespace photon::sweep
