// One YAML document from a file's text, with every way yaml-cpp can fail turned into one
// photon::Error naming the place: the configuration loader and the sweep spec reader use it.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

namespace photon {

/// The single YAML document of `text` (the contents of `path`, which errors name), parsed by
/// yaml-cpp; a Null node for a text without one (empty, or only comments). `what` names the file
/// kind in the several-documents error ("a configuration").
///
/// Errors (photon::Error with context "path:line:col"):
///   - invalid YAML: yaml-cpp's message; a tab in the indentation is named as such (YAML 1.2
///     section 6.1: indentation is spaces only);
///   - several documents ('---');
///   - a token yaml-cpp 0.7 cannot consume, e.g. a ',' outside a flow collection: its event parser
///     then returns an empty document at the same place forever (YAML::LoadAll never returns and
///     exhausts memory; YAML::Load returns what came before and silently drops the rest of the
///     file; jbeder/yaml-cpp issue 1040, fixed upstream after 0.8 by pull request 1319). A
///     document that starts where the previous one started is that case.
YAML::Node load_yaml_document(const std::string& text, const std::string& path, const std::string& what);

}  // namespace photon
