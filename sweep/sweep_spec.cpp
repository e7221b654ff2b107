#include "sweep/sweep_spec.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "base/error.h"
#include "base/file_read.h"
#include "base/yaml_document.h"
#include "workloads/config/run_config.h"

namespace photon::sweep {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxAxisValues = 1000000;  // a larger axis is a typo, not a sweep

bool is_file(const std::string& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

struct Reader {
  std::string file;
  fs::path dir;
  const ParamSet& params;

  std::string at(const YAML::Node& n) const {
    return file + ":" + std::to_string(n.Mark().line + 1) + ":" + std::to_string(n.Mark().column + 1);
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const {
    throw Error(msg).with_context(at(n));
  }
  std::string scalar(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, what + ": expected a single value");
    return n.Scalar();
  }
  double number(const YAML::Node& n, const std::string& what) const {
    const std::string s = scalar(n, what);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v))
      fail(n, what + ": expected a number, got '" + s + "'");
    return v;
  }
  uint64_t count(const YAML::Node& n, const std::string& what) const {
    const double v = number(n, what);
    if (v < 1 || v != std::floor(v) || v > double(kMaxAxisValues))
      fail(n, what + ": expected a whole number from 1 to " + std::to_string(kMaxAxisValues));
    return uint64_t(v);
  }
  /// The configuration parameter of `key`, or an error at `n` naming it.
  const ParamSet::Param& param(const YAML::Node& n, const std::string& key) const {
    try {
      return params.param(key);
    } catch (const Error& e) { fail(n, e.message()); }
  }
  bool integer_kind(const ParamSet::Param& p) const {
    return p.kind == ParamSet::Kind::UInt || p.kind == ParamSet::Kind::UInt32;
  }
  bool numeric_kind(const ParamSet::Param& p) const {
    return integer_kind(p) || p.kind == ParamSet::Kind::Double;
  }
  std::string path(const YAML::Node& n, const std::string& what) const {
    const std::string s = scalar(n, what);
    if (s.empty()) fail(n, what + ": empty path");
    fs::path p(s);
    return (p.is_absolute() ? p : dir / p).lexically_normal().string();
  }
  /// A mapping's entries in order; a key given twice is an error.
  std::vector<std::pair<YAML::Node, YAML::Node>> entries(const YAML::Node& map,
                                                         const std::string& what) const {
    if (!map.IsMap()) fail(map, what + ": expected a mapping");
    std::vector<std::pair<YAML::Node, YAML::Node>> out;
    std::set<std::string> seen;
    for (const auto& kv : map) {
      const std::string k = scalar(kv.first, what);
      if (!seen.insert(k).second) fail(kv.first, what + ": '" + k + "' is given twice");
      out.emplace_back(kv.first, kv.second);
    }
    return out;
  }
};

std::vector<std::string> axis_values(const Reader& r, const YAML::Node& key_node, const std::string& key,
                                     const YAML::Node& v) {
  const ParamSet::Param& p = r.param(key_node, key);
  const std::string what = "grid: " + key;
  std::vector<std::string> out;
  if (v.IsSequence()) {
    for (const auto& e : v) out.push_back(r.scalar(e, what));
  } else if (v.IsMap()) {
    if (!r.numeric_kind(p)) r.fail(v, what + ": a range needs a numeric key; list the values instead");
    double from = 0, to = 0, step = 0, factor = 0;
    uint64_t count = 0;
    bool log = false, has_from = false, has_to = false, has_step = false, has_factor = false;
    for (const auto& [k, val] : r.entries(v, what)) {
      const std::string name = k.Scalar();
      if (name == "from")
        from = r.number(val, what + ".from"), has_from = true;
      else if (name == "to")
        to = r.number(val, what + ".to"), has_to = true;
      else if (name == "step")  // its value is checked by linear_range
        step = r.number(val, what + ".step"), has_step = true;
      else if (name == "factor")  // and by log_range
        factor = r.number(val, what + ".factor"), has_factor = true;
      else if (name == "count")
        count = r.count(val, what + ".count");
      else if (name == "scale") {
        const std::string s = r.scalar(val, what + ".scale");
        if (s != "linear" && s != "log")
          r.fail(val, what + ".scale: expected linear or log, got '" + s + "'");
        log = s == "log";
      } else {
        r.fail(k, what + ": unknown range field '" + name + "' (from, to, step, count, factor, scale)");
      }
    }
    if (!has_from || !has_to) r.fail(v, what + ": a range needs from and to");
    const int given = has_step + has_factor + (count != 0);
    if (given != 1) r.fail(v, what + ": give exactly one of step, count (with scale) or factor");
    if (has_factor) log = true;
    if (has_step && log)
      r.fail(v, what + ": step is for linear ranges; use factor or count with scale: log");
    const bool integer = r.integer_kind(p);
    std::vector<double> xs;
    with_error_context(r.at(v), [&] {
      with_error_context(what, [&] {
        xs = log ? log_range(from, to, factor, count, integer) : linear_range(from, to, step, count, integer);
      });
    });
    for (double x : xs) out.push_back(format_value(x, integer));
  } else {
    out.push_back(r.scalar(v, what));
  }
  if (out.empty()) r.fail(v, what + ": empty list of values");
  std::set<std::string> seen;
  for (const auto& s : out)
    if (!seen.insert(s).second) r.fail(v, what + ": value " + s + " is listed twice");
  return out;
}

SampleSpec read_sample(const Reader& r, const YAML::Node& n, std::vector<std::string>& keys,
                       std::map<std::string, std::string>& where) {
  SampleSpec s;
  bool has_params = false;
  for (const auto& [k, v] : r.entries(n, "sample")) {
    const std::string name = k.Scalar();
    if (name == "method") {
      s.method = r.scalar(v, "sample.method");
      if (s.method != "random" && s.method != "lhs")
        r.fail(v, "sample.method: expected random or lhs, got '" + s.method + "'");
    } else if (name == "count") {
      s.count = r.count(v, "sample.count");
    } else if (name == "seed") {
      const double d = r.number(v, "sample.seed");
      if (d < 0 || d != std::floor(d) || d > 9.0e15) r.fail(v, "sample.seed: expected a whole number >= 0");
      s.seed = uint64_t(d);
    } else if (name == "parameters") {
      has_params = true;
      for (const auto& [kk, vv] : r.entries(v, "sample.parameters")) {
        SampleDim d;
        d.key = kk.Scalar();
        const ParamSet::Param& p = r.param(kk, d.key);
        const std::string what = "sample: " + d.key;
        if (vv.IsSequence()) {
          for (const auto& e : vv) d.choices.push_back(r.scalar(e, what));
          if (d.choices.empty()) r.fail(vv, what + ": empty list of values");
        } else if (vv.IsMap()) {
          if (!r.numeric_kind(p)) r.fail(vv, what + ": a range needs a numeric key; list the values instead");
          bool has_from = false, has_to = false;
          for (const auto& [f, fv] : r.entries(vv, what)) {
            const std::string field = f.Scalar();
            if (field == "from")
              d.from = r.number(fv, what + ".from"), has_from = true;
            else if (field == "to")
              d.to = r.number(fv, what + ".to"), has_to = true;
            else if (field == "scale") {
              const std::string sc = r.scalar(fv, what + ".scale");
              if (sc != "linear" && sc != "log") r.fail(fv, what + ".scale: expected linear or log");
              d.log = sc == "log";
            } else {
              r.fail(f, what + ": unknown field '" + field + "' (from, to, scale)");
            }
          }
          if (!has_from || !has_to) r.fail(vv, what + ": a range needs from and to");
          if (d.from > d.to) r.fail(vv, what + ": from is larger than to (an empty range)");
          if (d.log && d.from <= 0) r.fail(vv, what + ": a log range needs from > 0");
          d.integer = r.integer_kind(p);
          if (d.integer && std::floor(d.to) < std::ceil(d.from))
            r.fail(vv, what + ": no integer in the range");
        } else {
          r.fail(vv, what + ": expected a range {from, to} or a list of values");
        }
        where[d.key] = r.at(kk);
        keys.push_back(d.key);
        s.dims.push_back(std::move(d));
      }
    } else {
      r.fail(k, "sample: unknown field '" + name + "' (method, count, seed, parameters)");
    }
  }
  if (s.method.empty()) r.fail(n, "sample: method is missing (random or lhs)");
  if (s.count == 0) r.fail(n, "sample: count is missing");
  if (!has_params || s.dims.empty()) r.fail(n, "sample: no parameters to sample");
  return s;
}

}  // namespace

std::vector<std::string> SweepSpec::swept_keys() const {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& k) {
    if (seen.insert(k).second) out.push_back(k);
  };
  for (const auto& a : grid) add(a.key);
  if (sample)
    for (const auto& d : sample->dims) add(d.key);
  for (const auto& p : points)
    for (const auto& kv : p) add(kv.first);
  return out;
}

std::vector<double> linear_range(double from, double to, double step, uint64_t count, bool integer) {
  std::vector<double> out;
  if (count) {
    if (count == 1) {
      if (from != to) throw Error("count: 1 needs from = to");
      out.push_back(from);
    } else {
      for (uint64_t i = 0; i < count; ++i) out.push_back(from + (to - from) * double(i) / double(count - 1));
    }
  } else {
    if (step <= 0) throw Error("step must be positive");
    if (integer && (from != std::floor(from) || step != std::floor(step)))
      throw Error("an integer key needs a whole-number from and step");
    const double n = std::floor((to - from) / step * (1 + 1e-12) + 1e-9);
    if (n + 1 > double(kMaxAxisValues))
      throw Error("more than " + std::to_string(kMaxAxisValues) + " values");
    for (double i = 0; i <= n; ++i) out.push_back(from + i * step);
  }
  if (integer)
    for (double& x : out) x = std::round(x);
  std::vector<double> uniq;
  for (double x : out)
    if (uniq.empty() || uniq.back() != x) uniq.push_back(x);
  if (uniq.empty() || from > to) throw Error("empty range (from is larger than to)");
  return uniq;
}

std::vector<double> log_range(double from, double to, double factor, uint64_t count, bool integer) {
  if (from <= 0 || to <= 0) throw Error("a log range needs from > 0 and to > 0");
  if (from > to) throw Error("empty range (from is larger than to)");
  std::vector<double> out;
  if (count) {
    if (count == 1) {
      if (from != to) throw Error("count: 1 needs from = to");
      out.push_back(from);
    } else {
      const double a = std::log(from), b = std::log(to);
      for (uint64_t i = 0; i < count; ++i)
        out.push_back(i + 1 == count ? to : std::exp(a + (b - a) * double(i) / double(count - 1)));
    }
  } else {
    if (factor <= 1) throw Error("factor must be larger than 1");
    for (double x = from; x <= to * (1 + 1e-12); x *= factor) {
      out.push_back(x);
      if (out.size() > kMaxAxisValues) throw Error("more than " + std::to_string(kMaxAxisValues) + " values");
    }
  }
  if (integer)
    for (double& x : out) x = std::round(x);
  std::vector<double> uniq;
  for (double x : out)
    if (uniq.empty() || uniq.back() != x) uniq.push_back(x);
  return uniq;
}

std::string format_value(double v, bool integer) {
  if (integer || (v == std::floor(v) && std::fabs(v) < 9.0e15))
    return fmt::format("{}", int64_t(std::llround(v)));
  return fmt::format("{}", v);
}

SweepSpec parse_sweep_spec(const std::string& path) {
  // A spec lists a few hundred values at most: 16 MiB is far above any real one.
  return parse_sweep_spec_text(read_file(path, "a sweep spec (YAML)", uint64_t(16) << 20), path);
}

SweepSpec parse_sweep_spec_text(const std::string& text, const std::string& path) {
  const YAML::Node root = load_yaml_document(text, path, "a sweep spec");
  static RunConfig defaults_cfg;
  static const ParamSet defaults = bind_params(defaults_cfg);
  Reader r{path, fs::absolute(fs::path(path)).parent_path(), defaults};
  if (!root.IsMap()) throw Error("expected a mapping (name, base, workloads, grid, ...)").with_context(path);
  SweepSpec s;
  s.file = path;
  s.name = fs::path(path).stem().string();
  std::vector<std::string> part_keys[3];  // grid, sample, points
  const char* part_names[3] = {"grid", "sample", "points"};
  bool has_base = false;
  for (const auto& [k, v] : r.entries(root, "spec")) {
    const std::string name = k.Scalar();
    if (name == "name") {
      s.name = r.scalar(v, "name");
      if (s.name.empty()) r.fail(v, "name: empty");
    } else if (name == "base") {
      s.base_config = r.path(v, "base");
      has_base = true;
    } else if (name == "set") {
      for (const auto& [kk, vv] : r.entries(v, "set")) {
        r.param(kk, kk.Scalar());
        s.set.emplace_back(kk.Scalar(), r.scalar(vv, "set: " + kk.Scalar()));
        s.where[kk.Scalar()] = r.at(kk);
      }
    } else if (name == "workloads") {
      if (!v.IsSequence() || v.size() == 0) r.fail(v, "workloads: expected a list of workload files");
      for (const auto& w : v) {
        WorkloadSpec ws;
        if (w.IsScalar()) {
          ws.file = r.path(w, "workloads");
        } else {
          bool has_file = false;
          for (const auto& [kk, vv] : r.entries(w, "workloads")) {
            const std::string f = kk.Scalar();
            if (f == "file")
              ws.file = r.path(vv, "workloads.file"), has_file = true;
            else if (f == "name")
              ws.name = r.scalar(vv, "workloads.name");
            else if (f == "shapes") {
              if (vv.IsMap()) {
                for (const auto& [sk, sv] : r.entries(vv, "workloads.shapes"))
                  ws.shapes.push_back(sk.Scalar() + "=" + r.scalar(sv, "workloads.shapes"));
              } else if (vv.IsSequence()) {
                for (const auto& e : vv) ws.shapes.push_back(r.scalar(e, "workloads.shapes"));
              } else {
                r.fail(vv, "workloads.shapes: expected {NAME: 1x128} or a list of NAME=1x128");
              }
            } else {
              r.fail(kk, "workloads: unknown field '" + f + "' (file, name, shapes)");
            }
          }
          if (!has_file) r.fail(w, "workloads: file is missing");
        }
        if (ws.name.empty()) ws.name = fs::path(ws.file).stem().string();
        for (const auto& other : s.workloads)
          if (other.name == ws.name)
            r.fail(w, "workloads: two workloads are named '" + ws.name + "'; give each a name:");
        std::error_code ec;
        if (!fs::exists(ws.file, ec)) r.fail(w, "workloads: no such file: " + ws.file);
        try {
          regular_file_size(ws.file, "a workload file");
        } catch (const Error& e) {
          r.fail(w, std::string("workloads: ") + e.what());
        }
        s.workloads.push_back(std::move(ws));
      }
    } else if (name == "grid") {
      for (const auto& [kk, vv] : r.entries(v, "grid")) {
        GridAxis a{kk.Scalar(), axis_values(r, kk, kk.Scalar(), vv)};
        s.where[a.key] = r.at(kk);
        part_keys[0].push_back(a.key);
        s.grid.push_back(std::move(a));
      }
      if (s.grid.empty()) r.fail(v, "grid: no parameters");
    } else if (name == "sample") {
      s.sample = read_sample(r, v, part_keys[1], s.where);
    } else if (name == "points") {
      if (!v.IsSequence() || v.size() == 0) r.fail(v, "points: expected a list of {key: value} points");
      std::set<std::string> keys;
      size_t i = 0;
      for (const auto& p : v) {
        const std::string what = "points[" + std::to_string(i++) + "]";
        std::vector<KeyValue> kvs;
        for (const auto& [kk, vv] : r.entries(p, what)) {
          r.param(kk, kk.Scalar());
          kvs.emplace_back(kk.Scalar(), r.scalar(vv, what + ": " + kk.Scalar()));
          if (keys.insert(kk.Scalar()).second) {
            part_keys[2].push_back(kk.Scalar());
            s.where[kk.Scalar()] = r.at(kk);
          }
        }
        if (kvs.empty()) r.fail(p, what + ": empty point");
        s.points.push_back(std::move(kvs));
      }
    } else if (name == "constraints") {
      if (v.IsScalar())
        s.constraints.push_back(v.Scalar());
      else if (v.IsSequence())
        for (const auto& c : v) s.constraints.push_back(r.scalar(c, "constraints"));
      else
        r.fail(v, "constraints: expected a list of expressions");
    } else if (name == "metrics") {
      for (const auto& [kk, vv] : r.entries(v, "metrics")) {
        MetricSpec m{kk.Scalar(), r.scalar(vv, "metrics: " + kk.Scalar())};
        bool ok =
            !m.name.empty() && (std::islower(static_cast<unsigned char>(m.name[0])) || m.name[0] == '_');
        for (char c : m.name)
          ok = ok && (std::islower(static_cast<unsigned char>(c)) ||
                      std::isdigit(static_cast<unsigned char>(c)) || c == '_');
        if (!ok) r.fail(kk, "metrics: name '" + m.name + "' must be lower case letters, digits and _");
        s.metrics.push_back(std::move(m));
      }
    } else if (name == "timeout_s") {
      s.timeout_s = r.number(v, "timeout_s");
      if (s.timeout_s <= 0 || s.timeout_s > 1e7) r.fail(v, "timeout_s: expected seconds in (0, 1e7]");
    } else {
      r.fail(k, "unknown field '" + name +
                    "' (name, base, set, workloads, grid, sample, points, constraints, metrics, timeout_s)");
    }
  }
  if (!has_base)
    throw Error("base is missing: the platform configuration every point starts from").with_context(path);
  if (!is_file(s.base_config))
    throw Error("base: no such configuration file: " + s.base_config).with_context(path);
  if (s.workloads.empty()) throw Error("workloads is missing: at least one workload file").with_context(path);
  if (s.grid.empty() && !s.sample && s.points.empty())
    throw Error("nothing to sweep: give a grid, a sample or points").with_context(path);
  // A key belongs to one part of the design, and is not also fixed by set:.
  std::map<std::string, std::string> owner;
  for (int i = 0; i < 3; ++i)
    for (const auto& k : part_keys[i]) {
      auto [it, fresh] = owner.emplace(k, part_names[i]);
      if (!fresh)
        throw Error("parameter " + k + " is given twice (in " + it->second + " and in " + part_names[i] + ")")
            .with_context(s.where[k]);
    }
  for (const auto& [k, v] : s.set)
    if (owner.count(k))
      throw Error("parameter " + k + " is given twice (in set and in " + owner[k] + ")")
          .with_context(s.where[k]);
  return s;
}

}  // namespace photon::sweep
