// The report's `fhe` summary on a small CKKS program run on the platform: every column of
// by_kind, total and bootstrap is the sum of the per-op rows, and dma_bytes equals the bytes of
// the program's DMA commands counted from the command stream itself (independent of the report).
#include "workloads/driver/fhe_summary.h"

#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "soc/platform.h"
#include "workloads/driver/workload.h"

namespace photon {
namespace {

// N = 2^12, 4 Q limbs; a rotation (key switch), an addition, a product with relinearization, a
// rescale: two distinct evaluation keys.
const char* kProgram = R"(!Z1 = !mod_arith.int<17 : i64>
#ring = #polynomial.ring<coefficientType = !rns.rns<!Z1, !Z1, !Z1, !Z1>, polynomialModulus = <1 + x**4096>>
#chain3 = #lwe.modulus_chain<elements = <17 : i64, 97 : i64, 113 : i64, 193 : i64>, current = 3>
!ct3 = !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = #ring, encryption_type = mix>, modulus_chain = #chain3>
!ct3d = !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = #ring, encryption_type = mix, size = 3>, modulus_chain = #chain3>
module attributes {scheme.ckks} {
  func.func @f(%x: !ct3) -> !ct3 {
    %r = ckks.rotate %x {static_shift = 1 : i32} : !ct3
    %s = ckks.add %r, %x : (!ct3, !ct3) -> !ct3
    %m = ckks.mul %s, %s : (!ct3, !ct3) -> !ct3d
    %l = ckks.relinearize %m {from_basis = array<i32: 0, 1, 2>, to_basis = array<i32: 0, 1>} : (!ct3d) -> !ct3
    return %l : !ct3
  }
}
)";

TEST(FheSummary, EveryColumnIsTheSumOfTheOpRowsAndDmaBytesMatchTheCommands) {
  const std::string path = ::testing::TempDir() + "fhe_summary_small.mlir";
  { std::ofstream(path) << kProgram; }
  const RunConfig cfg;
  const CompiledWorkload w = compile_workload(path, cfg);
  ASSERT_EQ(w.frontend, "heir");
  // Oracle: DMA bytes of every tagged command after the set-up op (tag 0), from the stream.
  uint64_t stream_dma = 0;
  for (const pcs::Command& c : w.program.commands)
    if (c.opcode == pcs::Opcode::DmaCopy && c.tag != 0 && c.tag != pcs::kNoTag) {
      const auto& d = std::get<pcs::DmaCopy>(c.body);
      stream_dma += uint64_t(d.inner_bytes) * d.n1 * d.n2;
    }
  ASSERT_GT(stream_dma, 0u);

  Platform platform(cfg);
  platform.load(w.program, w.fills);
  const RunOutcome out = platform.run();
  ASSERT_EQ(out.status, RunOutcome::Status::Done) << out.message;
  const PlatformReport report = platform.report(out);
  const nlohmann::json s = fhe_summary(report.ops).to_json();

  std::map<std::string, uint64_t> rows_dma;
  uint64_t rows_total = 0, rows_key = 0;
  for (const OpRow& row : report.ops) {
    if (row.kind == "setup") continue;
    rows_dma[row.kind] += row.work.dma_bytes;
    rows_total += row.work.dma_bytes;
    rows_key += row.work.hbm_read_bytes;
  }
  EXPECT_EQ(rows_total, stream_dma);
  EXPECT_EQ(s.at("total").at("dma_bytes").get<uint64_t>(), rows_total);
  EXPECT_EQ(s.at("total").at("key_bytes").get<uint64_t>(), rows_key);
  // In the FHE lowering the DMA moves only keys (HBM -> scratchpad) after the set-up op.
  EXPECT_EQ(s.at("total").at("dma_bytes").get<uint64_t>(), s.at("total").at("key_bytes").get<uint64_t>());
  ASSERT_EQ(s.at("by_kind").size(), rows_dma.size());
  for (const auto& [kind, bytes] : rows_dma)
    EXPECT_EQ(s.at("by_kind").at(kind).at("dma_bytes").get<uint64_t>(), bytes) << kind;
  EXPECT_GT(s.at("by_kind").at("hrot").at("dma_bytes").get<uint64_t>(), 0u);
  EXPECT_EQ(s.at("by_kind").at("hadd").at("dma_bytes").get<uint64_t>(), 0u);
  EXPECT_EQ(s.at("bootstrap").at("dma_bytes").get<uint64_t>(), 0u);  // no bootstrap rows
  EXPECT_EQ(s.at("bootstrap").at("count").get<uint64_t>(), 0u);
}

TEST(FheSummary, BootstrapRowsAreSummedOnTheirOwn) {
  // Hand-made rows: the summary is pure arithmetic over them.
  auto row = [](const char* kind, double latency_ns, uint64_t dma, uint64_t hbm_read) {
    OpRow r;
    r.kind = kind;
    r.latency_ns = latency_ns;
    r.work.dma_bytes = dma;
    r.work.hbm_read_bytes = hbm_read;
    return r;
  };
  const std::vector<OpRow> ops = {row("setup", 0, 1000, 1000), row("bootstrap", 5.0, 300, 200),
                                  row("bootstrap", 1.0, 7, 7), row("hrot", 2.0, 40, 40)};
  const nlohmann::json s = fhe_summary(ops).to_json();
  EXPECT_EQ(s["bootstrap"]["dma_bytes"].get<uint64_t>(), 307u);
  EXPECT_EQ(s["bootstrap"]["key_bytes"].get<uint64_t>(), 207u);
  EXPECT_EQ(s["by_kind"]["hrot"]["dma_bytes"].get<uint64_t>(), 40u);
  EXPECT_EQ(s["total"]["dma_bytes"].get<uint64_t>(), 347u);  // set-up row left out
  EXPECT_EQ(s["total"]["count"].get<uint64_t>(), 3u);
  EXPECT_DOUBLE_EQ(s["bootstrap"]["latency_ns"].get<double>(), 6.0);
}

}  // namespace
}  // namespace photon
