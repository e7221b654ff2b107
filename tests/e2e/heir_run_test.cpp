// The HEIR programs of shared/inputs/heir run through `photon run --config configs/sharp_like.yaml`
// (FHE working sets need SHARP's large scratchpad), and the report's op rows are the FHE ops the
// file contains.
//
// Oracle, independent of the HEIR parser: a line-based regex over the file text (non-comment
// lines; the op name that starts a line after an optional `%results =`, as
// tests/workloads/heir/heir_files_test.cpp does) counts each FHE-dialect op (ckks., bgv.,
// openfhe., lwe., orion.). Every such op is either executed (the report has one row named after
// it, e.g. "ckks.rotate", "openfhe.rot") or listed in `unsupported` (set-up and client-side ops),
// so for each name: grep count = rows + unsupported entries. The one macro-op,
// orion.linear_transform, expands into several rows, counted from its attributes in closed form
// (baby-step giant-step, docs/heir.md). The rows are compared rather than
// workload_info.fhe_op_counts because the rows are what the platform ran, keyed by the source op
// name, while fhe_op_counts only restates the parser's own op list.
//
// dacapo_mlp_ckks.mlir is not run here: see the note at the end of the file.
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "tests/e2e/e2e_util.h"

namespace photon_e2e {
namespace {

std::map<std::string, int> grep_fhe_ops(const std::string& text) {
  static const std::regex op_re(R"(^\s*(?:%[\w#:]+(?:\s*,\s*%[\w#:]+)*\s*=\s*)?([a-z_]+\.[a-z_]+)\b)");
  std::map<std::string, int> n;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line.compare(first, 2, "//") == 0) continue;
    std::smatch m;
    if (!std::regex_search(line, m, op_re)) continue;
    const std::string name = m[1].str(), dialect = name.substr(0, name.find('.'));
    if (dialect == "ckks" || dialect == "bgv" || dialect == "openfhe" || dialect == "lwe" ||
        dialect == "orion")
      ++n[name];
  }
  return n;
}

// Rows of one orion.linear_transform with D diagonals (indices d), BSGS ratio r, 4096 slots:
// baby-step size n1 = the largest power of two with (#baby - 1) / (#giant - 1) <= r (Lattigo's
// FindBestBSGSRatio), one hoisted rotation (the baby steps), one rotation per nonzero giant step
// floor(d / n1) * n1, D plaintext products and D - 1 additions.
int linear_transform_rows(const std::vector<long>& d, double ratio) {
  const long slots = 4096;
  auto groups = [&](long n, std::set<long>* baby, std::set<long>* giant) {
    for (long x : d) {
      baby->insert(x % n);
      giant->insert(x / n * n);
    }
  };
  long n1 = 1;
  for (long n = 1; n < slots; n *= 2) {
    std::set<long> b, g;
    groups(n, &b, &g);
    const double q = g.size() == 1 ? 1e300 : double(b.size() - 1) / double(g.size() - 1);
    if (q == ratio) {
      n1 = n;
      break;
    }
    if (q > ratio) {
      n1 = n / 2;
      break;
    }
  }
  std::set<long> baby, giant;
  groups(n1, &baby, &giant);
  giant.erase(0);
  return 1 + int(giant.size()) + int(d.size()) + int(d.size()) - 1;
}

int orion_transform_rows(const std::string& text) {
  static const std::regex lt_re(
      R"(orion\.linear_transform.*bsgs_ratio = ([0-9.e+]+) : f64.*diagonal_indices = array<i32: ([0-9, ]+)>)");
  int rows = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, lt_re)) continue;
    std::vector<long> d;
    std::istringstream ds(m[2].str());
    std::string tok;
    while (std::getline(ds, tok, ',')) d.push_back(std::stol(tok));
    rows += linear_transform_rows(d, std::stod(m[1].str()));
  }
  return rows;
}

class HeirRun : public ::testing::TestWithParam<std::string> {};

TEST_P(HeirRun, RowsAreTheFileOps) {
  const std::string f = GetParam(), path = heir_input(f + ".mlir");
  const std::string dir = fresh_dir("h_" + f), report = dir + "/report.json";
  CliResult r = photon("run --config " + src("configs/sharp_like.yaml") + " --workload " + path +
                       " --report " + report + " -q");
  record_wall(f, r.wall_s);
  ASSERT_EQ(r.status, 0) << r.err.substr(0, 2000);
  EXPECT_EQ(r.err, "");
  const nlohmann::json rep = read_json(report);
  EXPECT_EQ(rep.value("status", ""), "ok") << rep.value("error", "");
  EXPECT_GT(rep.value("simulated_time_ns", 0.0), 0);
  EXPECT_GT(rep["units"]["ntt"].value("busy_ns", 0.0), 0);

  const std::string text = slurp(path);
  std::map<std::string, int> expected = grep_fhe_ops(text);
  ASSERT_FALSE(expected.empty());
  for (const auto& u : rep["unsupported"]) --expected[u.value("op", "")];
  if (expected.count("orion.linear_transform"))
    expected["orion.linear_transform"] = orion_transform_rows(text);
  expected["fhe.setup"] = 1;  // moduli tables and key-slot set-up, one row per program
  for (auto it = expected.begin(); it != expected.end();)
    it = it->second == 0 ? expected.erase(it) : std::next(it);

  std::map<std::string, int> rows;
  for (const auto& row : rep["ops"]) ++rows[row.value("name", "")];
  EXPECT_EQ(rows, expected);
  EXPECT_EQ(rep["workload_info"].value("fhe_ops", size_t(0)) + 1, rep["ops"].size());
}

INSTANTIATE_TEST_SUITE_P(Heir, HeirRun,
                         ::testing::Values("bgv_to_openfhe_zoo", "ckks_to_openfhe_zoo", "openfhe_rotations",
                                           "orion_mlp_ckks", "simfhe_op_zoo_ckks"),
                         [](const auto& info) { return info.param; });

// With configs/default.yaml (8 MiB scratchpad) orion's resident working set (N = 2^13, L = 5,
// alpha = 2: 8.2 MiB of buffers plus a 3 MiB key slot) does not fit, so it streams (docs/fhe.md
// "Memory plan") and runs; below its stated minimum, one line naming the key and the size needed,
// and no report written.
TEST(HeirRun, OrionStreamsOnTheDefaultScratchpad) {
  const std::string dir = fresh_dir("h_orion_default"), report = dir + "/report.json";
  CliResult r = photon("run --config " + src("configs/default.yaml") + " --workload " +
                       heir_input("orion_mlp_ckks.mlir") + " --report " + report + " -q");
  ASSERT_EQ(r.status, 0) << r.err.substr(0, 2000);
  const nlohmann::json rep = read_json(report);
  EXPECT_EQ(rep.value("status", ""), "ok") << rep.value("error", "");
  EXPECT_NE(rep["ops"][0].value("detail", "").find("streamed"), std::string::npos);
}

TEST(HeirRunErrors, ScratchpadBelowTheMinimumNamesTheSizeNeeded) {
  const std::string dir = fresh_dir("h_orion_small"), report = dir + "/report.json";
  CliResult r = photon("run --config " + src("configs/default.yaml") + " --set scratchpad.size_kib=1024 --workload " +
                       heir_input("orion_mlp_ckks.mlir") + " --report " + report + " -q");
  EXPECT_ONE_LINE_ERROR(r, "scratchpad.size_kib");
  EXPECT_NE(r.err.find("orion_mlp_ckks.mlir"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("needs at least"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(report));
}

// dacapo_mlp_ckks.mlir (N = 2^17, one bootstrap, 119 rotations) is left out of this suite: its
// wall time with configs/sharp_like.yaml is far above the 60 s budget of an end-to-end test.
// Measured: 1460 s wall on 2 shared cores (niced), simulated 719.5 ms, status ok; 169 evaluation-
// key loads of ~460 MB (77.6 GB read from HBM) through one 480 MiB key slot, DMA 98 % busy. Its
// op rows were checked by hand against the same grep oracle (119 ckks.rotate, 116 ckks.add,
// 111 ckks.mul_plain, 12 ckks.rescale, 1 ckks.bootstrap).

}  // namespace
}  // namespace photon_e2e
