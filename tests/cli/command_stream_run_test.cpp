// Command streams run end to end through the firmware: effects on memory, overlap of DMA and
// compute, and every bad-input case ending in one clear error that names the command.
#include <cstring>

#include <boost/crc.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli_util.h"

using namespace photon_test;
using ::testing::HasSubstr;

namespace {

CliResult run_text(const std::string& name, const std::string& text, const std::string& extra = "") {
  std::string pasm = temp_path(name + ".pasm");
  write_text(pasm, text);
  return photon("run --config " + src("configs/default.yaml") + " --workload " + pasm + " " + extra);
}

double sim_ns(const std::string& name, const std::string& text) {
  std::string rep = temp_path(name + ".json");
  auto r = run_text(name, text, "--report " + rep + " -q");
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(slurp(rep))["simulated_time_ns"].get<double>();
}

const char* kDma = "dma src=0x0 dst=0x4000000000 inner_bytes=262144\n";
const char* kGemm = "gemm a=0x100000 b=0x200000 c=0x300000 m=256 n=256 k=256 lda=256 ldb=256 ldc=256\n";

}  // namespace

TEST(CommandStream, EveryExampleRunsToCompletion) {
  for (const char* ex : {"dma", "gemm", "ntt", "vector", "double_buffer"}) {
    std::string rep = temp_path(std::string(ex) + "_ex.json");
    auto r =
        photon("run --config " + src("configs/default.yaml") + " --workload " +
               src(std::string("examples/") + ex + ".pasm") + " --mode functional --report " + rep + " -q");
    EXPECT_EQ(r.status, 0) << ex << ": " << r.err;
    auto j = nlohmann::json::parse(slurp(rep));
    EXPECT_EQ(j["status"], "ok") << ex;
  }
}

TEST(CommandStream, IndependentDmaAndGemmOverlap) {
  // Alone, each costs its own time; together (independent, different queues) they overlap, so
  // the total is less than the sum and at least the longer of the two.
  double dma = sim_ns("dma_only", std::string(kDma) + "end\n");
  double gemm = sim_ns("gemm_only", std::string(kGemm) + "end\n");
  double both = sim_ns("both", std::string(kDma) + kGemm + "end\n");
  EXPECT_LT(both, dma + gemm);
  EXPECT_GE(both, std::max(dma, gemm) * 0.999);
  // A semaphore that orders them serialises them again.
  double ordered = sim_ns(
      "ordered", std::string(kDma) + "signal queue=dma sem=0\nwait queue=gemm sem=0\n" + kGemm + "end\n");
  EXPECT_GT(ordered, both);
}

TEST(CommandStream, DeadlockIsDetectedAndNamesTheWaitingCommand) {
  auto r = run_text("deadlock", "dma src=0x0 dst=0x4000000000 inner_bytes=64\nwait queue=gemm sem=5\n" +
                                    std::string(kGemm) + "end\n");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.err, HasSubstr("deadlock"));
  EXPECT_THAT(r.err, HasSubstr("command 1"));
  EXPECT_THAT(r.err, HasSubstr("semaphore 5"));
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

TEST(CommandStream, MissingEndIsReported) {
  auto r = run_text("noend", std::string(kDma));
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.err, HasSubstr("without an END"));
}

TEST(CommandStream, OutOfRangeOperandStopsWithTheCommandIndex) {
  auto r = run_text("oob",
                    std::string(kDma) + "gemm a=0x7ff000 b=0 c=0 m=64 n=64 k=64 lda=64 ldb=64 ldc=64\nend\n",
                    "--mode functional");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.err, HasSubstr("command 1"));
  EXPECT_THAT(r.err, HasSubstr("scratchpad"));
}

TEST(CommandStream, DmaToUnmappedAddressRaisesErrorAndWritesNothing) {
  auto r = run_text("dma_bad", "dma src=0x0 dst=0x7000000000 inner_bytes=4096\nend\n");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.err, HasSubstr("command 0"));
  EXPECT_THAT(r.err, HasSubstr("destination"));
}

TEST(CommandStream, TruncatedCorruptAndWrongVersionStreams) {
  std::string pcs = temp_path("good.pcs");
  ASSERT_EQ(photon("asm " + src("examples/gemm.pasm") + " -o " + pcs).status, 0);
  std::string bytes = slurp(pcs);
  std::string trunc = temp_path("trunc.pcs"), corrupt = temp_path("corrupt.pcs"), ver = temp_path("ver.pcs");
  write_text(trunc, bytes.substr(0, bytes.size() / 2));
  std::string c = bytes;
  c[40] ^= 0x5A;
  write_text(corrupt, c);
  std::string v = bytes;
  v[4] = 9;
  write_text(ver, v);
  auto t = photon("run --workload " + trunc);
  EXPECT_NE(t.status, 0);
  EXPECT_THAT(t.err, HasSubstr("truncated"));
  auto k = photon("run --workload " + corrupt);
  EXPECT_NE(k.status, 0);
  EXPECT_THAT(k.err, HasSubstr("CRC"));
  auto w = photon("run --workload " + ver);
  EXPECT_NE(w.status, 0);
  EXPECT_THAT(w.err, HasSubstr("version"));
  for (auto* r : {&t, &k, &w}) EXPECT_EQ(count_lines(r->err), 1) << r->err;
}

TEST(CommandStream, UnknownOpcodeNamesTheCommand) {
  // A valid stream whose command 1 gets opcode 0x7f, with the header's CRC-32 (bytes 28..31,
  // over everything after the 32-byte header) recomputed so that only the opcode is wrong.
  std::string pcs = temp_path("op.pcs");
  std::string pasm = temp_path("op.pasm");
  write_text(pasm, "dma src=0x0 dst=0x4000000000 inner_bytes=64\nfence\nend\n");
  ASSERT_EQ(photon("asm " + pasm + " -o " + pcs).status, 0);
  std::string b = slurp(pcs);
  b[32 + 64] = 0x7f;
  boost::crc_32_type crc;
  crc.process_bytes(b.data() + 32, b.size() - 32);
  uint32_t c = crc.checksum();
  for (int i = 0; i < 4; ++i) b[28 + i] = char((c >> (8 * i)) & 0xFF);
  std::string bad = temp_path("op_bad.pcs");
  write_text(bad, b);
  auto r = photon("run --workload " + bad);
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.err, HasSubstr("command 1"));
  EXPECT_THAT(r.err, HasSubstr("opcode"));
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

TEST(CommandStream, AssemblerErrorsNameTheLine) {
  auto r = run_text("badasm", "dma src=0x0 dst=0x4000000000 inner_bytes=64\nfrobnicate x=1\nend\n");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.err, HasSubstr(":2:"));
  EXPECT_THAT(r.err, HasSubstr("frobnicate"));
}
