#include "base/config_loader.h"

#include <filesystem>
#include <fstream>
#include <set>

#include <yaml-cpp/yaml.h>

#include "base/error.h"

namespace photon {
namespace {

struct Assignment {
  std::string path, value, where;
  std::string base_dir;  ///< directory of the YAML file the value comes from ("" for --set)
};

/// Top-level sections of the parameter space ("hbm", "cpu", ...).
std::set<std::string> sections_of(const ParamSet& ps) {
  std::set<std::string> out;
  for (const auto& [path, p] : ps.params()) out.insert(path.substr(0, path.find('.')));
  return out;
}

bool is_preset(const std::string& path) {
  return path.size() >= 7 && path.compare(path.size() - 7, 7, ".preset") == 0;
}

void apply_all(ParamSet& ps, const std::vector<Assignment>& as) {
  const std::set<std::string> sections = sections_of(ps);
  // Presets first, so that explicit keys (from the file or --set) override them.
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& a : as)
      if (is_preset(a.path) == (pass == 0))
        with_error_context(a.where, [&] {
          if (sections.count(a.path))
            throw Error(a.path + ": is a section; set one of its keys, e.g. " + a.path + ".<key>=value");
          // A file-path key given in a YAML file names a file relative to that file.
          if (!a.base_dir.empty() && ps.has(a.path) && ps.param(a.path).file_path && !a.value.empty() &&
              std::filesystem::path(a.value).is_relative())
            ps.set(a.path, (std::filesystem::path(a.base_dir) / a.value).lexically_normal().string());
          else
            ps.set(a.path, a.value);
        });
}

void collect(const YAML::Node& node, const std::string& prefix, const std::string& file,
             const std::set<std::string>& sections, std::vector<Assignment>& out) {
  auto where = [&](const YAML::Node& n) {
    return file + ":" + std::to_string(n.Mark().line + 1) + ":" + std::to_string(n.Mark().column + 1);
  };
  if (!node.IsMap()) throw Error("expected a mapping of configuration keys").with_context(where(node));
  std::set<std::string> seen;
  for (const auto& kv : node) {
    std::string key = kv.first.as<std::string>();
    std::string path = prefix.empty() ? key : prefix + "." + key;
    if (!seen.insert(key).second)
      throw Error(path + ": key given twice in the same mapping").with_context(where(kv.first));
    const YAML::Node& v = kv.second;
    if (v.IsMap()) {
      collect(v, path, file, sections, out);
    } else if (v.IsScalar()) {
      if (sections.count(path))
        throw Error(path + ": is a section; expected a mapping of its keys, got a value")
            .with_context(where(kv.first));
      out.push_back({path, v.Scalar(), where(kv.first)});
    } else if (v.IsNull()) {
      throw Error(path + ": missing value").with_context(where(kv.first));
    } else {
      throw Error(path + ": expected a scalar value, got a sequence").with_context(where(kv.first));
    }
  }
}

Assignment parse_override(const std::string& o) {
  auto eq = o.find('=');
  if (eq == std::string::npos || eq == 0) throw Error("--set expects key=value, got '" + o + "'");
  return {o.substr(0, eq), o.substr(eq + 1), "--set"};
}

}  // namespace

void apply_override_to(ParamSet& ps, const std::string& assignment) {
  apply_all(ps, {parse_override(assignment)});
}

void load_params(ParamSet& ps, const std::string& yaml_path, const std::vector<std::string>& overrides) {
  std::vector<Assignment> all;  // file keys, then --set keys: one list, presets applied first
  if (!yaml_path.empty()) {
    std::error_code ec;
    if (std::filesystem::is_directory(yaml_path, ec))
      throw Error("is a directory, expected a YAML configuration file").with_context(yaml_path);
    std::ifstream in(yaml_path);
    if (!in) throw Error("cannot open configuration file").with_context(yaml_path);
    YAML::Node root;
    try {
      root = YAML::Load(in);
    } catch (const YAML::Exception& e) {
      throw Error("invalid YAML: " + e.msg)
          .with_context(yaml_path + ":" + std::to_string(e.mark.line + 1) + ":" +
                        std::to_string(e.mark.column + 1));
    }
    if (!root.IsNull()) {
      const size_t first = all.size();
      collect(root, "", yaml_path, sections_of(ps), all);
      const std::string dir = std::filesystem::path(yaml_path).parent_path().string();
      for (size_t i = first; i < all.size(); ++i) all[i].base_dir = dir.empty() ? "." : dir;
    }
  }
  for (const auto& o : overrides) all.push_back(parse_override(o));
  apply_all(ps, all);
}

}  // namespace photon
