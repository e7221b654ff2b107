// OpticalGemmEngine functional tests (ideal numerics) against a naive triple loop that reads
// the operands straight from the scratchpad image with the documented layouts.
#include <gtest/gtest.h>

#include <random>

#include "models/optical_gemm/optical_gemm_engine.h"
#include "tests/models/optical_gemm/gemm_test_util.h"

namespace photon {
namespace {

using test::Spm;

struct Layout {
  pcs::Gemm g;
  uint64_t a_elems, b_elems, c_elems;
};

// Reference: acc = C_old or 0; acc += A(i,p)*B(p,j) in p order (fp32); acc += bias(j).
std::vector<float> reference(const Spm& s, const pcs::Gemm& g) {
  const bool ta = g.flags & pcs::Gemm::kTransposeA, tb = g.flags & pcs::Gemm::kTransposeB;
  std::vector<float> out(uint64_t(g.m) * g.n);
  for (uint32_t i = 0; i < g.m; ++i)
    for (uint32_t j = 0; j < g.n; ++j) {
      float acc = (g.flags & pcs::Gemm::kAccumulate) ? s.get(g.c + 4ull * (i * g.ldc + j)) : 0.0f;
      for (uint32_t p = 0; p < g.k; ++p) {
        const float a = s.get(g.a + 4ull * (ta ? p * g.lda + i : i * g.lda + p));
        const float b = s.get(g.b + 4ull * (tb ? j * g.ldb + p : p * g.ldb + j));
        acc += a * b;
      }
      if (g.flags & pcs::Gemm::kBias) acc += s.get(g.bias + 4ull * j);
      out[i * g.n + j] = acc;
    }
  return out;
}

void fill_ints(Spm& s, uint64_t off, uint64_t count, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(-8, 8);
  for (uint64_t e = 0; e < count; ++e) s.put(off + 4 * e, float(d(rng)));
}

TEST(OpticalGemmEngine, IdealEqualsTripleLoopForEveryFlagCombination) {
  OpticalGemmConfig cfg;
  cfg.rows = 4;
  cfg.cols = 3;  // several K and N tiles
  const uint32_t m = 7, n = 9, k = 11;
  std::mt19937 rng(42);
  for (uint8_t flags = 0; flags < 32; ++flags) {
    OpticalGemmEngine eng(cfg);
    pcs::Gemm g;
    g.flags = flags;
    g.m = m;
    g.n = n;
    g.k = k;
    const bool ta = flags & pcs::Gemm::kTransposeA, tb = flags & pcs::Gemm::kTransposeB;
    g.lda = (ta ? m : k) + 2;  // ld > row length
    g.ldb = (tb ? k : n) + 3;
    g.ldc = n + 1;
    g.a = 64;
    g.b = 4096;
    g.c = 8192;
    g.bias = 12288;
    Spm s(16384);
    fill_ints(s, g.a, uint64_t(ta ? k : m) * g.lda, rng);
    fill_ints(s, g.b, uint64_t(tb ? n : k) * g.ldb, rng);
    fill_ints(s, g.c, uint64_t(m) * g.ldc, rng);
    fill_ints(s, g.bias, n, rng);
    const std::vector<float> want = reference(s, g);
    const Spm before = s;
    eng.issue(test::gemm_cmd(g), 0, s.view());
    for (uint32_t i = 0; i < m; ++i) {
      for (uint32_t j = 0; j < n; ++j)
        ASSERT_EQ(s.get(g.c + 4ull * (i * g.ldc + j)), want[i * n + j])
            << "flags " << int(flags) << " i " << i << " j " << j;
      // The ld padding element after each C row is untouched.
      ASSERT_EQ(s.get(g.c + 4ull * (i * g.ldc + n)), before.get(g.c + 4ull * (i * g.ldc + n)));
    }
    // Nothing outside C changed.
    for (uint64_t off = 0; off < s.bytes.size(); ++off)
      if (off < g.c || off >= g.c + 4ull * m * g.ldc) { ASSERT_EQ(s.bytes[off], before.bytes[off]); }
  }
}

TEST(OpticalGemmEngine, KSplitWithAccumulateEqualsSingleCommandBitForBit) {
  OpticalGemmConfig cfg;
  const uint32_t m = 5, n = 6, k = 40;
  Spm s(8192);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1, 1);
  for (uint32_t e = 0; e < m * k; ++e) s.put(4 * e, d(rng));
  for (uint32_t e = 0; e < k * n; ++e) s.put(2048 + 4 * e, d(rng));
  for (uint32_t e = 0; e < n; ++e) s.put(6000 + 4 * e, d(rng));
  pcs::Gemm whole;
  whole.flags = pcs::Gemm::kBias;
  whole.m = m;
  whole.n = n;
  whole.k = k;
  whole.lda = k;
  whole.ldb = n;
  whole.ldc = n;
  whole.a = 0;
  whole.b = 2048;
  whole.c = 4096;
  whole.bias = 6000;
  OpticalGemmEngine eng(cfg);
  eng.issue(test::gemm_cmd(whole), 0, s.view());
  std::vector<float> one(m * n);
  for (uint32_t e = 0; e < m * n; ++e) one[e] = s.get(4096 + 4 * e);
  // Same product as two commands: k = 17 then 23 with kAccumulate, bias on the last.
  pcs::Gemm p1 = whole, p2 = whole;
  p1.flags = 0;
  p1.k = 17;
  p2.flags = pcs::Gemm::kAccumulate | pcs::Gemm::kBias;
  p2.k = 23;
  p2.a = whole.a + 4 * 17;
  p2.b = whole.b + 4 * 17 * n;
  eng.issue(test::gemm_cmd(p1), 0, s.view());
  eng.issue(test::gemm_cmd(p2), 0, s.view());
  for (uint32_t e = 0; e < m * n; ++e) EXPECT_EQ(s.get(4096 + 4 * e), one[e]) << e;
  // And the single command matches the reference (non-integer data, same order).
  std::vector<float> want = reference(s, whole);
  for (uint32_t e = 0; e < m * n; ++e) EXPECT_EQ(one[e], want[e]) << e;
}

TEST(OpticalGemmEngine, OverlappingCEqualsA) {
  // C written over A: operands are read before C is written.
  OpticalGemmConfig cfg;
  Spm s(1024);
  const uint32_t m = 3, n = 3, k = 3;
  for (uint32_t e = 0; e < 9; ++e) {
    s.put(4 * e, float(e + 1));
    s.put(256 + 4 * e, float(e % 2));
  }
  pcs::Gemm g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.lda = 3;
  g.ldb = 3;
  g.ldc = 3;
  g.a = 0;
  g.b = 256;
  g.c = 0;
  std::vector<float> want = reference(s, g);
  OpticalGemmEngine eng(cfg);
  eng.issue(test::gemm_cmd(g), 0, s.view());
  for (uint32_t e = 0; e < 9; ++e) EXPECT_EQ(s.get(4 * e), want[e]);
}

pcs::Gemm small_gemm() {
  pcs::Gemm g;
  g.m = 4;
  g.n = 4;
  g.k = 4;
  g.lda = 4;
  g.ldb = 4;
  g.ldc = 4;
  g.a = 0;
  g.b = 64;
  g.c = 128;
  g.bias = 192;
  return g;
}

void expect_fault(OpticalGemmEngine& eng, const pcs::Command& cmd, UnitErrorCode code) {
  Spm s(256);
  const Spm before = s;
  try {
    eng.issue(cmd, 0, s.view());
    ADD_FAILURE() << "no fault";
  } catch (const UnitFault& f) { EXPECT_EQ(f.code(), code) << f.what(); }
  EXPECT_EQ(s.bytes, before.bytes) << "memory written on a fault";
}

TEST(OpticalGemmEngine, DecodeFaults) {
  OpticalGemmEngine eng(OpticalGemmConfig{});
  auto bad = [&](auto mutate) {
    pcs::Gemm g = small_gemm();
    mutate(g);
    expect_fault(eng, test::gemm_cmd(g), UnitErrorCode::DECODE);
  };
  bad([](pcs::Gemm& g) { g.m = 0; });
  bad([](pcs::Gemm& g) { g.n = 0; });
  bad([](pcs::Gemm& g) { g.k = 0; });
  bad([](pcs::Gemm& g) { g.lda = 3; });
  bad([](pcs::Gemm& g) { g.ldb = 3; });
  bad([](pcs::Gemm& g) { g.ldc = 3; });
  bad([](pcs::Gemm& g) {
    g.k = 5;
    g.lda = 4;
  });  // A row is k long
  bad([](pcs::Gemm& g) {
    g.m = 5;
    g.flags = pcs::Gemm::kTransposeA;
  });  // A^T row is m long
  bad([](pcs::Gemm& g) {
    g.k = 5;
    g.lda = 5;
    g.flags = pcs::Gemm::kTransposeB;
  });  // B^T row is k
  bad([](pcs::Gemm& g) { g.flags = 0x20; });
  pcs::Command wrong;
  wrong.opcode = pcs::Opcode::Vector;
  wrong.body = pcs::Vector{};
  expect_fault(eng, wrong, UnitErrorCode::DECODE);
  EXPECT_EQ(eng.counters().at("commands"), 0);
}

TEST(OpticalGemmEngine, AddressFaultsWriteNothing) {
  OpticalGemmEngine eng(OpticalGemmConfig{});
  auto bad = [&](auto mutate) {
    pcs::Gemm g = small_gemm();
    mutate(g);
    expect_fault(eng, test::gemm_cmd(g), UnitErrorCode::ADDRESS);
  };
  bad([](pcs::Gemm& g) { g.c = 256 - 60; });  // last C element at 252..256 is needed: 196+64
  bad([](pcs::Gemm& g) { g.a = 200; });
  bad([](pcs::Gemm& g) { g.b = 0xFFFFFFF0u; });
  bad([](pcs::Gemm& g) { g.ldc = 40; });  // 3*40+4 = 124 floats from 128
  bad([](pcs::Gemm& g) {
    g.flags = pcs::Gemm::kBias;
    g.bias = 250;
  });
  // Bias is not checked without kBias.
  pcs::Gemm ok = small_gemm();
  ok.bias = 0xFFFFFFF0u;
  Spm s(256);
  EXPECT_NO_THROW(eng.issue(test::gemm_cmd(ok), 0, s.view()));
}

TEST(OpticalGemmEngine, TimingOnlyModeLeavesNoDataAndCountsWork) {
  OpticalGemmConfig cfg;
  OpticalGemmEngine eng(cfg);
  pcs::Gemm g = small_gemm();
  g.m = 100000;
  g.n = 4096;
  g.k = 4096;
  g.lda = g.k;
  g.ldb = g.n;
  g.ldc = g.n;
  const IssueResult r = eng.issue(test::gemm_cmd(g), 10, MemView{});
  const OpticalGemmCost c = optical_gemm_cost(cfg, g);
  EXPECT_EQ(r.done_cycle, 10 + c.cycles);
  EXPECT_EQ(r.accept_cycle, r.done_cycle);
  EXPECT_DOUBLE_EQ(r.energy_pj, c.energy_pj);
  EXPECT_EQ(eng.counters().at("macs"), 100000.0 * 4096 * 4096);
  EXPECT_EQ(eng.counters().at("weight_tiles"), 128.0 * 128);
  // A second command issued before the first is done starts when the engine is free.
  const IssueResult r2 = eng.issue(test::gemm_cmd(g), 11, MemView{});
  EXPECT_EQ(r2.done_cycle, r.done_cycle + c.cycles);
}

TEST(OpticalGemmEngine, RejectsBadConfig) {
  OpticalGemmConfig cfg;
  cfg.rows = 0;
  EXPECT_THROW(OpticalGemmEngine{cfg}, Error);
  cfg = OpticalGemmConfig{};
  cfg.modulation_ghz = 0;
  EXPECT_THROW(OpticalGemmEngine{cfg}, Error);
}

}  // namespace
}  // namespace photon
