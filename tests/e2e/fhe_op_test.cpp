// `photon fhe` on configs/sharp_like.yaml against Homulator's measured cycles
// (shared/reference/fhe_homulator/README.md, read from the file): HMult and HRot at N = 2^16,
// Homulator's 35/35/12 (its level counts Q limbs, so our L = l = 34, docs/fhe.md) land within
// 25 %, and the time is spent in base conversion and NTT, not HBM (keys on chip). Bad arguments
// fail with one line naming the flag.
#include <regex>
#include <string>

#include "tests/e2e/e2e_util.h"

namespace photon_e2e {
namespace {

const std::string kHomulator = "reference/fhe_homulator/README.md";

// The cycles of the README's table row "| <op> ... | 35 / 35 / 12 | 3 | 189,451 |".
double homulator_cycles(const std::string& op) {
  const std::string text = slurp(shared(kHomulator));
  std::regex row("\\| " + op + "[^|]*\\| 35 / 35 / 12 \\| 3 \\| ([0-9,]+) \\|");
  std::smatch m;
  EXPECT_TRUE(std::regex_search(text, m, row)) << op << " row in " << kHomulator;
  if (m.empty()) return 0;
  std::string digits;
  for (char c : m[1].str())
    if (c != ',') digits += c;
  return std::stod(digits);
}

// "base conversion about 141 k, NTT about 136 k" (HMult 35/35/12), in cycles.
double homulator_busy(const std::string& what) {
  const std::string text = slurp(shared(kHomulator));
  // The README wraps lines: any whitespace between the words.
  std::regex re(std::regex_replace(what, std::regex(" "), "\\s+") + "\\s+about\\s+([0-9]+)\\s*k");
  std::smatch m;
  EXPECT_TRUE(std::regex_search(text, m, re)) << what << " in " << kHomulator;
  return m.empty() ? 0 : 1000 * std::stod(m[1].str());
}

nlohmann::json run_op(const std::string& op) {
  const std::string dir = fresh_dir("fhe_" + op), report = dir + "/report.json";
  CliResult r = photon("fhe --config " + src("configs/sharp_like.yaml") + " --op " + op +
                       " --ring-degree 65536 --max-level 34 --level 34 --alpha 12 --report " + report);
  record_wall("fhe_" + op, r.wall_s);
  EXPECT_EQ(r.status, 0) << r.err;
  nlohmann::json rep = read_json(report);
  EXPECT_EQ(nlohmann::json::parse(r.out), rep);  // stdout prints the same JSON
  EXPECT_EQ(rep.value("dnum", 0), 3);            // ceil(35 / 12)
  return rep;
}

void expect_bconv_ntt_bound(const nlohmann::json& rep) {
  const nlohmann::json& b = rep["breakdown"];
  const double cycles = rep["cycles"].get<double>();
  const double bconv = b["busy_cycles.bconv"].get<double>(), ntt = b["busy_cycles.ntt"].get<double>();
  const double hbm = b["hbm_busy_cycles"].get<double>();
  // Bound by BConv and NTT: the larger of the two covers most of the op, each dwarfs HBM.
  EXPECT_GE(std::max(bconv, ntt), 0.5 * cycles) << b.dump();
  EXPECT_GT(bconv, 10 * hbm) << b.dump();
  EXPECT_GT(ntt, 10 * hbm) << b.dump();
  EXPECT_LE(std::max(bconv, ntt), cycles) << b.dump();
}

TEST(FheOp, HmultWithin25PercentOfHomulator) {
  const nlohmann::json rep = run_op("hmult");
  const double ref = homulator_cycles("HMult");
  EXPECT_NEAR(rep["cycles"].get<double>(), ref, 0.25 * ref);
  expect_bconv_ntt_bound(rep);
  // Homulator's busy cycles per unit for this op, same tolerance.
  const double bconv_ref = homulator_busy("base conversion"), ntt_ref = homulator_busy("NTT");
  EXPECT_NEAR(rep["breakdown"]["busy_cycles.bconv"].get<double>(), bconv_ref, 0.25 * bconv_ref);
  EXPECT_NEAR(rep["breakdown"]["busy_cycles.ntt"].get<double>(), ntt_ref, 0.25 * ntt_ref);
}

TEST(FheOp, HrotWithin25PercentOfHomulator) {
  const nlohmann::json rep = run_op("hrot");
  const double ref = homulator_cycles("HRot");
  EXPECT_NEAR(rep["cycles"].get<double>(), ref, 0.25 * ref);
  expect_bconv_ntt_bound(rep);
  EXPECT_GT(rep["breakdown"]["busy_cycles.automorph"].get<double>(), 0);  // the rotation's permutation
}

TEST(FheOp, BadRingDegreeIsOneLine) {
  CliResult r = photon("fhe --config " + src("configs/sharp_like.yaml") +
                       " --op hmult --ring-degree 1000 --max-level 34 --level 34 --alpha 12");
  EXPECT_ONE_LINE_ERROR(r, "--ring-degree");
  EXPECT_EQ(r.out, "");
}

TEST(FheOp, UnknownOpIsOneLine) {
  CliResult r = photon("fhe --config " + src("configs/sharp_like.yaml") +
                       " --op nope --ring-degree 65536 --max-level 34 --level 34 --alpha 12");
  EXPECT_ONE_LINE_ERROR(r, "--op");
  EXPECT_NE(r.err.find("nope"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace photon_e2e
