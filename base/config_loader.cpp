#include "base/config_loader.h"

#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "base/error.h"
#include "base/file_read.h"
#include "base/yaml_document.h"

namespace photon {
namespace {

struct Assignment {
  std::string path, value, where;
  ParamSet::Style style = ParamSet::Style::Untyped;
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
            ps.set(a.path, (std::filesystem::path(a.base_dir) / a.value).lexically_normal().string(),
                   a.style);
          else
            ps.set(a.path, a.value, a.style);
        });
}

std::string where(const std::string& file, const YAML::Node& n) {
  return file + ":" + std::to_string(n.Mark().line + 1) + ":" + std::to_string(n.Mark().column + 1);
}

/// The YAML merge key `<<` (yaml.org/type/merge.html): a plain (unquoted) scalar `<<`.
bool is_merge_key(const YAML::Node& k) { return k.IsScalar() && k.Scalar() == "<<" && k.Tag() != "!"; }

using Entry = std::pair<YAML::Node, YAML::Node>;  ///< (key, value) of a mapping

/// The entries of mapping `node` with its merge keys resolved (yaml.org/type/merge.html): its own
/// keys first, then those of each mapping a `<<` names (a mapping or a sequence of mappings,
/// earlier ones first) that are not already present: the local value wins. A key given twice in
/// one mapping is an error; keys are names (scalars). `prefix` names the mapping in errors.
std::vector<Entry> entries(const YAML::Node& node, const std::string& prefix, const std::string& file,
                           int depth) {
  if (depth > 64) throw Error("merge keys nested deeper than 64 levels").with_context(where(file, node));
  std::vector<Entry> out;
  std::vector<YAML::Node> merged;
  std::set<std::string> seen;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar())
      throw Error((prefix.empty() ? std::string() : prefix + ": ") + "expected a key name, got a " +
                  (kv.first.IsMap() ? "mapping" : "sequence") + " as a key")
          .with_context(where(file, kv.first));
    if (is_merge_key(kv.first)) {
      const YAML::Node& v = kv.second;
      if (v.IsMap()) {
        merged.push_back(v);
      } else if (v.IsSequence()) {
        for (const auto& m : v) {
          if (!m.IsMap())
            throw Error("merge key '<<': expected a mapping or a sequence of mappings")
                .with_context(where(file, m));
          merged.push_back(m);
        }
      } else {
        throw Error("merge key '<<': expected a mapping or a sequence of mappings (e.g. <<: *anchor)")
            .with_context(where(file, kv.first));
      }
      continue;
    }
    const std::string key = kv.first.Scalar();
    if (!seen.insert(key).second)
      throw Error((prefix.empty() ? key : prefix + "." + key) + ": key given twice in the same mapping")
          .with_context(where(file, kv.first));
    out.emplace_back(kv.first, kv.second);
  }
  for (const auto& m : merged)
    for (auto& e : entries(m, prefix, file, depth + 1))
      if (seen.insert(e.first.Scalar()).second) out.push_back(std::move(e));
  return out;
}

void collect(const YAML::Node& node, const std::string& prefix, const std::string& file,
             const std::set<std::string>& sections, std::vector<Assignment>& out) {
  if (!node.IsMap()) throw Error("expected a mapping of configuration keys").with_context(where(file, node));
  for (const auto& [k, v] : entries(node, prefix, file, 0)) {
    const std::string key = k.Scalar();
    std::string path = prefix.empty() ? key : prefix + "." + key;
    if (v.IsMap()) {
      collect(v, path, file, sections, out);
    } else if (v.IsScalar()) {
      if (sections.count(path))
        throw Error(path + ": is a section; expected a mapping of its keys, got a value")
            .with_context(where(file, k));
      // yaml-cpp tags a quoted (non-plain) scalar "!", a plain one "?": the YAML type of the value.
      out.push_back({path, v.Scalar(), where(file, k),
                     v.Tag() == "!" ? ParamSet::Style::Quoted : ParamSet::Style::Plain, /*base_dir=*/""});
    } else if (v.IsNull()) {  // refused when applied, naming what the key takes
      if (sections.count(path))
        throw Error(path + ": is a section; expected a mapping of its keys, got nothing").with_context(where(file, k));
      out.push_back({path, "", where(file, k), ParamSet::Style::Missing, /*base_dir=*/""});
    } else {
      throw Error(path + ": expected a scalar value, got a sequence").with_context(where(file, k));
    }
  }
}

Assignment parse_override(const std::string& o) {
  auto eq = o.find('=');
  if (eq == std::string::npos || eq == 0) throw Error("--set expects key=value, got '" + o + "'");
  return {o.substr(0, eq), o.substr(eq + 1), "--set", ParamSet::Style::Untyped, /*base_dir=*/""};
}

}  // namespace

void apply_override_to(ParamSet& ps, const std::string& assignment) {
  apply_all(ps, {parse_override(assignment)});
}

void load_params(ParamSet& ps, const std::string& yaml_path, const std::vector<std::string>& overrides) {
  std::vector<Assignment> all;  // file keys, then --set keys: one list, presets applied first
  if (!yaml_path.empty()) {
    // A configuration has a few hundred keys: 16 MiB is far above any real one.
    const std::string text = read_file(yaml_path, "a YAML configuration file", uint64_t(16) << 20);
    const YAML::Node root = load_yaml_document(text, yaml_path, "a configuration");
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
