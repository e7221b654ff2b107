// The YAML side of the configuration loader (base/config_loader.cpp) on minimal files written for
// these tests: merge keys (the local value wins), tab indentation named as such, several
// documents, keys that are not names, and paths that are not regular files.
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "base/error.h"
#include "workloads/config/run_config.h"

namespace photon {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& path) {
  try {
    load_run_config(path, {});
  } catch (const Error& e) { return e.what(); }
  return "";
}

TEST(ConfigYaml, MergeKeysApplyAndTheLocalValueWins) {
  // yaml.org/type/merge.html: `<<: *anchor` or `<<: [*a, *b]`; keys of the mapping itself win,
  // then earlier merged mappings over later ones.
  const std::string p = write_temp("merge.yaml",
                                   "hbm: &slow\n"
                                   "  tRCD: 20\n"
                                   "  tRP: 21\n"
                                   "scratchpad: &spm\n"
                                   "  banks: 16\n"
                                   "dma:\n"
                                   "  channels: 2\n"
                                   "vector:\n"
                                   "  lanes: 32\n");
  EXPECT_EQ(load_run_config(p, {}).hbm.tRCD, 20u);
  const std::string m =
      write_temp("merge2.yaml",
                 "cpu:\n"
                 "  <<: [&a {queue_depth: 8, semaphores: 32}, &b {queue_depth: 4, dispatch_cycles: 7}]\n"
                 "  semaphores: 128\n"
                 "hbm:\n"
                 "  <<: &t {tRCD: 18, tRP: 19}\n"
                 "  tRP: 17\n");
  const RunConfig c = load_run_config(m, {});
  EXPECT_EQ(c.cpu.semaphores, 128u);     // local wins
  EXPECT_EQ(c.cpu.queue_depth, 8u);      // the first merged mapping wins over the second
  EXPECT_EQ(c.cpu.dispatch_cycles, 7u);  // only in the second
  EXPECT_EQ(c.hbm.tRCD, 18u);
  EXPECT_EQ(c.hbm.tRP, 17u);
  // A merged key is checked like any other, where it is written.
  EXPECT_EQ(error_of(write_temp("merge3.yaml", "cpu:\n  <<: {queue_depth: 0}\n")),
            ::testing::TempDir() + "merge3.yaml:2:8: cpu.queue_depth: value 0 out of range [1, 65536]");
  EXPECT_EQ(
      error_of(write_temp("merge4.yaml", "hbm:\n  <<: 3\n")),
      ::testing::TempDir() +
          "merge4.yaml:2:3: merge key '<<': expected a mapping or a sequence of mappings (e.g. <<: *anchor)");
  // A quoted "<<" is an ordinary key, and unknown.
  const std::string quoted = error_of(write_temp("merge5.yaml", "hbm:\n  \"<<\": {tRCD: 3}\n"));
  EXPECT_NE(quoted.find("unknown configuration key 'hbm.<<"), std::string::npos) << quoted;
}

TEST(ConfigYaml, TabIndentationIsNamedWithItsLine) {
  EXPECT_EQ(error_of(write_temp("tab.yaml", "hbm:\n  tRCD: 20\n\ttRP: 14\n")),
            ::testing::TempDir() +
                "tab.yaml:3:1: tab character in the indentation (YAML indents with spaces only)");
  EXPECT_EQ(error_of(write_temp("tab2.yaml", "# comment\nhbm:\n \ttRCD: 20\n")),
            ::testing::TempDir() +
                "tab2.yaml:3:2: tab character in the indentation (YAML indents with spaces only)");
  // A tab between a key and its value is separation, not indentation: valid YAML.
  EXPECT_EQ(load_run_config(write_temp("tab3.yaml", "hbm:\n  tRCD:\t20\n"), {}).hbm.tRCD, 20u);
}

TEST(ConfigYaml, OtherShapesOfInputAreOneError) {
  const std::string d = ::testing::TempDir();
  EXPECT_EQ(error_of(write_temp("docs.yaml", "hbm:\n  tRCD: 20\n---\nhbm:\n  tRCD: 30\n")),
            d + "docs.yaml:4:1: the file holds 2 YAML documents ('---'); a configuration is one document");
  // A ',' outside a flow collection: yaml-cpp 0.7's LoadAll looped forever on it (found by the
  // config fuzz harness; tests/fuzz_regressions/config/), and Load dropped the rest of the file.
  const std::string stuck = "invalid YAML: unexpected ',' (outside a flow collection [...] or {...})";
  EXPECT_EQ(error_of(write_temp("comma.yaml", ",\n")), d + "comma.yaml:1:1: " + stuck);
  EXPECT_EQ(error_of(write_temp("comma2.yaml", "# a comment\n  , hbm\n")), d + "comma2.yaml:2:3: " + stuck);
  EXPECT_EQ(error_of(write_temp("comma3.yaml", "hbm:\n  tRCD: 20\n---\n,\n")),
            d + "comma3.yaml:4:1: " + stuck);
  EXPECT_EQ(error_of(write_temp("key.yaml", "hbm:\n  ? [a, b]\n  : 3\n")),
            d + "key.yaml:2:5: hbm: expected a key name, got a sequence as a key");
  EXPECT_EQ(error_of("/dev/zero"),
            "/dev/zero: not a regular file (a character device), expected a YAML "
            "configuration file");
  EXPECT_EQ(error_of("/tmp"), "/tmp: is a directory, expected a YAML configuration file");
}

}  // namespace
}  // namespace photon
