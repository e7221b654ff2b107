#include "base/yaml_document.h"

#include <sstream>
#include <vector>

#include <yaml-cpp/eventhandler.h>

#include "base/error.h"

namespace photon {
namespace {

std::string place(const std::string& path, const YAML::Mark& m) {
  return path + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

/// Records where each document's first node starts (yaml-cpp marks a document's start at its
/// '---'); builds nothing.
struct DocumentStarts : YAML::EventHandler {
  std::vector<YAML::Mark> starts;
  bool first_node = false;
  void node(const YAML::Mark& m) {
    if (first_node) starts.push_back(m);
    first_node = false;
  }
  void OnDocumentStart(const YAML::Mark&) override { first_node = true; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override {
    node(m);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    node(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    node(m);
  }
  void OnMapEnd() override {}
};

/// The first line up to `last_line` (1-based) whose indentation holds a tab, as "path:line:col",
/// or "" if none.
std::string tab_indentation(const std::string& text, const std::string& path, size_t last_line) {
  size_t line = 1;
  for (size_t i = 0; i < text.size() && line <= last_line; ++line) {
    size_t e = text.find('\n', i);
    if (e == std::string::npos) e = text.size();
    size_t j = i;
    while (j < e && (text[j] == ' ' || text[j] == '\t')) ++j;
    const bool content = j < e && text[j] != '#' && text[j] != '\r';
    const size_t tab = text.find('\t', i);
    if (content && tab < j) return path + ":" + std::to_string(line) + ":" + std::to_string(tab - i + 1);
    i = e + 1;
  }
  return "";
}

[[noreturn]] void invalid(const YAML::Exception& e, const std::string& text, const std::string& path) {
  const std::string tab = tab_indentation(text, path, size_t(e.mark.line) + 1);
  if (!tab.empty())
    throw Error("tab character in the indentation (YAML indents with spaces only)").with_context(tab);
  throw Error("invalid YAML: " + e.msg).with_context(place(path, e.mark));
}

}  // namespace

YAML::Node load_yaml_document(const std::string& text, const std::string& path, const std::string& what) {
  // Pass 1, events only: count the documents, and stop where the parser makes no progress. Every
  // real document consumes at least one character, so the loop ends.
  DocumentStarts docs;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(docs)) {
      const size_t n = docs.starts.size();
      if (n >= 2 && docs.starts[n - 1].pos == docs.starts[n - 2].pos) {
        const YAML::Mark& m = docs.starts[n - 1];
        const std::string at =
            size_t(m.pos) < text.size() ? std::string(1, text[size_t(m.pos)]) : "end of file";
        throw Error("invalid YAML: unexpected '" + at + "' (outside a flow collection [...] or {...})")
            .with_context(place(path, m));
      }
    }
  } catch (const YAML::Exception& e) { invalid(e, text, path); }
  if (docs.starts.size() > 1)
    throw Error("the file holds " + std::to_string(docs.starts.size()) + " YAML documents ('---'); " + what +
                " is one document")
        .with_context(place(path, docs.starts[1]));
  // Pass 2: the one document as a node tree.
  try {
    return docs.starts.empty() ? YAML::Node() : YAML::Load(text);
  } catch (const YAML::Exception& e) { invalid(e, text, path); }
}

}  // namespace photon
