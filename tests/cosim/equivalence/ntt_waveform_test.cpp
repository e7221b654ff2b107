// --set cosim.waveform=FILE.fst through the real CLI: the FST file (Verilator FST tracing) covers
// the window asked for. The FST header block (GTKWave's fstapi: block type 0, section length,
// start time, end time, big-endian u64, in the file's time unit, here ps) bounds the dumped times.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

uint64_t be64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}

TEST(NttRtlWaveform, FstCoversTheAskedWindow) {
  const std::string fst = std::string(::testing::TempDir()) + "ntt_window.fst";
  std::remove(fst.c_str());
  const std::string cmd = std::string(PHOTON_BINARY) + " run --config " + PHOTON_SOURCE_DIR +
                          "/configs/default.yaml --workload " + PHOTON_SOURCE_DIR +
                          "/examples/ntt.pasm --set ntt.impl=rtl --set cosim.waveform=" + fst +
                          " --set cosim.waveform_start_ns=2000 --set cosim.waveform_end_ns=4000 --quiet";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream f(fst, std::ios::binary);
  std::vector<unsigned char> b((std::istreambuf_iterator<char>(f)), {});
  ASSERT_GT(b.size(), 1000u);
  ASSERT_EQ(b[0], 0);  // FST_BL_HDR
  const uint64_t start_ps = be64(&b[9]), end_ps = be64(&b[17]);
  EXPECT_GE(start_ps, 2000000u);
  EXPECT_LE(end_ps, 4000000u);
  EXPECT_GT(end_ps, start_ps);  // the core was clocked inside the window (ntt.pasm's NTTs run there)
}

TEST(NttRtlWaveform, UnwritableWaveformPathIsAConfigError) {
  const std::string cmd =
      std::string(PHOTON_BINARY) + " run --config " + PHOTON_SOURCE_DIR +
      "/configs/default.yaml --workload " + PHOTON_SOURCE_DIR +
      "/examples/ntt.pasm --set ntt.impl=rtl --set cosim.waveform=/no/such/dir/w.fst --quiet 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[256];
  while (fgets(buf, sizeof buf, p)) out += buf;
  EXPECT_NE(pclose(p), 0);
  EXPECT_NE(out.find("cosim.waveform: /no/such/dir/w.fst: directory /no/such/dir does not exist"),
            std::string::npos)
      << out;
}

}  // namespace
