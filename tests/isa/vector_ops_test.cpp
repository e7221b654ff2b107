// The vector-op table (isa/vector_ops.h) against docs/command-stream.md ("Vector (0x40)": op values,
// spellings, class ranges) and the codec: every byte value either has exactly the documented row or
// is rejected.
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "base/error.h"
#include "isa/vector_ops.h"

namespace photon::pcs {
namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// Op value -> spelling, from the "| op | names |" table of the Vector section: rows such as
// "| 0..11 | copy, relu, ... |", "| 64, 65 | max_pool, avg_pool (...) |", "| 66 | im2col (...) |".
std::map<int, std::string> documented_ops() {
  std::ifstream f(std::string(PHOTON_SOURCE_DIR) + "/docs/command-stream.md");
  std::string line;
  bool in_section = false;
  std::map<int, std::string> ops;
  const std::regex row(R"(^\| *([0-9][0-9 .,]*) *\| *([a-z_0-9, ]+)(\(.*\))? *\|$)");
  while (std::getline(f, line)) {
    if (line.rfind("### ", 0) == 0) in_section = line == "### Vector (0x40)";
    std::smatch m;
    if (!in_section || !std::regex_match(line, m, row)) continue;
    std::vector<int> values;
    const std::string spec = trim(m[1]);
    const auto dots = spec.find("..");
    if (dots != std::string::npos) {
      for (int v = std::stoi(spec.substr(0, dots)); v <= std::stoi(spec.substr(dots + 2)); ++v)
        values.push_back(v);
    } else {
      std::stringstream ss(spec);
      for (std::string v; std::getline(ss, v, ',');) values.push_back(std::stoi(v));
    }
    std::vector<std::string> names;
    std::stringstream ns(m[2].str());
    for (std::string n; std::getline(ns, n, ',');) names.push_back(trim(n));
    EXPECT_EQ(values.size(), names.size()) << line;
    for (size_t i = 0; i < values.size() && i < names.size(); ++i) ops[values[i]] = names[i];
  }
  return ops;
}

// The class ranges of docs/command-stream.md.
bool class_in_range(int op, VectorClass c) {
  using C = VectorClass;
  if (op < 16) return c == C::Unary;
  if (op < 32) return c == C::Binary;
  if (op < 48) return c == C::Scalar;
  if (op < 64) return c == C::Softmax || c == C::LayerNorm || c == C::Reduce;
  if (op < 80) return c == C::Pool || c == C::Im2col || c == C::Transpose;
  return false;
}

TEST(VectorOps, EveryByteValueIsTheDocumentedOpOrRejected) {
  const std::map<int, std::string> doc = documented_ops();
  ASSERT_FALSE(doc.empty()) << "no op table found in docs/command-stream.md";
  for (int op = 0; op < 256; ++op) {
    const VectorOpInfo* row = vector_op_info(static_cast<uint8_t>(op));
    Vector v;
    v.op = static_cast<uint8_t>(op);
    const auto it = doc.find(op);
    if (it == doc.end()) {
      EXPECT_EQ(row, nullptr) << "op " << op << " (" << row->name << ") is not documented";
      EXPECT_THROW(validate(make_vector(v)), Error) << "op " << op;
      continue;
    }
    ASSERT_NE(row, nullptr) << "documented op " << op << " (" << it->second << ") has no row";
    EXPECT_EQ(row->op, op);
    EXPECT_EQ(row->name, it->second);
    EXPECT_TRUE(class_in_range(op, row->cls)) << row->name << " is outside its class's range";
    EXPECT_NO_THROW(validate(make_vector(v))) << row->name;
  }
}

TEST(VectorOps, RowsAreInOpcodeOrderWithUniqueSpellings) {
  std::set<std::string> names;
  int last = -1;
  for (const auto& row : vector_ops()) {
    EXPECT_GT(row.op, last) << row.name;
    last = row.op;
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_EQ(vector_op_by_name(row.name), &row);
    EXPECT_EQ(vector_op_info(row.op), &row);
  }
  EXPECT_EQ(vector_op_by_name("swish"), nullptr);
}

// models/vector/README.md "Timing": exp/erf/tanh/sigmoid/gelu/silu/pow use the special-function
// unit; sqrt, recip and the rest do not.
TEST(VectorOps, TranscendentalOpsAreTheOnesTheTimingModelNames) {
  const std::set<std::string> want = {"gelu", "silu", "sigmoid", "tanh", "erf", "exp", "pow", "pow_scalar"};
  std::set<std::string> got;
  for (const auto& row : vector_ops())
    if (row.transcendental) got.insert(row.name);
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace photon::pcs
