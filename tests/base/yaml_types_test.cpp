// ParamSet with YAML's types (YAML 1.2 core schema): a quoted scalar is a string and a plain
// 5 or true is not, whatever key it is given to. --set text has no quotes and stays untyped.
#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "base/config_loader.h"
#include "base/error.h"
#include "base/param_set.h"

namespace {

struct Keys {
  std::string file;
  double start_ns = 0;
  uint64_t count = 0;
  bool on = false;
  photon::ParamSet ps;
  Keys() {
    ps.add_text("w.file", &file, "a file name");
    ps.add_double("w.start_ns", &start_ns, 0, 1e15, "start, ns");
    ps.add_uint("w.count", &count, 0, 100, "a count");
    ps.add_bool("w.on", &on, "a switch");
  }
};

std::string load(Keys& k, const std::string& yaml) {
  const std::string path = ::testing::TempDir() + "yaml_types_test.yaml";
  std::ofstream(path) << yaml;
  try {
    photon::load_params(k.ps, path, {});
  } catch (const photon::Error& e) {
    std::remove(path.c_str());
    return e.what();
  }
  std::remove(path.c_str());
  return "";
}

TEST(YamlTypes, QuotedNumberForANumberKeyIsAnError) {
  Keys k;
  const std::string e = load(k, "w:\n  start_ns: \"12\"\n");
  EXPECT_NE(e.find("w.start_ns: expected a number, got the string \"12\""), std::string::npos) << e;
  Keys b;
  EXPECT_NE(load(b, "w:\n  on: 'true'\n").find("w.on: expected true or false"), std::string::npos);
}

TEST(YamlTypes, PlainNumberOrBoolForATextKeyIsAnError) {
  Keys k;
  EXPECT_NE(load(k, "w:\n  file: 5\n").find("w.file: expected a string, got the YAML number 5 (quote it: \"5\")"),
            std::string::npos);
  Keys b;
  EXPECT_NE(load(b, "w:\n  file: true\n").find("w.file: expected a string, got the YAML bool true"),
            std::string::npos);
}

TEST(YamlTypes, WellTypedValuesAndUntypedOverridesLoad) {
  Keys k;
  EXPECT_EQ(load(k, "w:\n  file: \"5\"\n  start_ns: 12.5\n  count: 0x10\n  on: true\n"), "");
  EXPECT_EQ(k.file, "5");
  EXPECT_EQ(k.start_ns, 12.5);
  EXPECT_EQ(k.count, 16u);
  EXPECT_TRUE(k.on);
  photon::load_params(k.ps, "", {"w.file=out.fst", "w.start_ns=3"});
  EXPECT_EQ(k.file, "out.fst");
  EXPECT_EQ(k.start_ns, 3.0);
}

}  // namespace

namespace {

// A key written without a value (`key:`) is refused with what the key takes, and the file and
// line.
TEST(YamlTypes, AMissingValueNamesWhatTheKeyTakes) {
  Keys k;
  std::string mode = "fast";
  k.ps.add_choice("w.mode", &mode, {"fast", "exact"}, "a choice");
  const std::string e = load(k, "w:\n  count: 7\n  mode:\n");
  EXPECT_NE(e.find("w.mode: missing value; expected one of: fast, exact"), std::string::npos) << e;
  EXPECT_NE(e.find("yaml_types_test.yaml:3"), std::string::npos) << e;
  Keys n;
  EXPECT_NE(load(n, "w:\n  count:\n").find("w.count: missing value; expected a non-negative integer in [0, 100]"),
            std::string::npos);
  Keys b;
  EXPECT_NE(load(b, "w:\n  on:\n").find("w.on: missing value; expected true or false"), std::string::npos);
  Keys t;
  EXPECT_NE(load(t, "w:\n  file:\n").find("w.file: missing value; expected a string (\"\" for none)"),
            std::string::npos);
}

}  // namespace
