// Bad input through the CLI on minimal files written for these tests: each ends in one error line
// through the error path (never "internal error"), with the input's bytes escaped, and an input
// with bytes that are not UTF-8 still gets a complete report and trace.
#include <gtest/gtest.h>

#include "tests/cli/cli_util.h"

namespace photon_test {
namespace {

std::string defaults() { return "--config " + src("configs/default.yaml"); }

TEST(InputErrors, InvalidUtf8InTheOpTableIsEscapedInReportAndTrace) {
  // The assembler's \xHH escapes put raw bytes into the op table of the .pcs file.
  const std::string pasm = temp_path("utf8.pasm"), pcs = temp_path("utf8.pcs"),
                    report = temp_path("utf8.json"), trace = temp_path("utf8t.json");
  write_text(pasm, R"(.op 0 "conv\xff\x1b[2J" "Conv\xc3" "tiles\n")"
                   "\ndma src=0x0 dst=0x100000 inner_bytes=64 tag=0\nend\n");
  ASSERT_EQ(photon("asm " + pasm + " -o " + pcs).status, 0);
  const CliResult r =
      photon("run " + defaults() + " --workload " + pcs + " -q --report " + report + " --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(report));
  ASSERT_EQ(j["ops"].size(), 1u);
  EXPECT_EQ(j["ops"][0]["name"], "conv\\xff\\x1b[2J");  // the whole string printable()
  EXPECT_EQ(j["ops"][0]["kind"], "Conv\\xc3");
  EXPECT_NE(slurp(trace).find(R"(conv\\xff)"), std::string::npos);
}

TEST(InputErrors, SegmentFilesThatAreNotRegularFiles) {
  const std::string pasm = temp_path("seg.pasm");
  for (const auto& [file, why] :
       {std::pair<std::string, std::string>{"/dev/zero", "not a regular file (a character device)"},
        {"/tmp", "is a directory"}}) {
    write_text(pasm, ".segment 0x0 file:" + file + "\nend\n");
    const CliResult r = photon("run " + defaults() + " --workload " + pasm);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.err, "photon: error: " + pasm + ":1:14: cannot read segment file '" + file + "': " + why +
                         ", expected segment data (a regular file)\n");
  }
}

TEST(InputErrors, ControlBytesFromArgumentsAndFilesStayOnOneLine) {
  const std::string odd = temp_path("a\nb\x1b[2J.pcs");
  write_text(odd, "PCS1");
  for (const std::string& args :
       {"run " + defaults() + " --workload '" + odd + "'",
        "run " + defaults() + " --workload x.pcs --set \"hbm.$(printf '\\033')[31mfoo=1\"",
        std::string("asm /dev/zero -o ") + temp_path("z.pcs"), std::string("disasm /tmp")}) {
    const CliResult r = photon(args);
    EXPECT_EQ(r.status, 1) << args << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace photon_test
