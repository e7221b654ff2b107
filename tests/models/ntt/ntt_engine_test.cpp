// NttEngine: functional results against ntt_core, faults before writes, timing formulas,
// overlap of independent commands and the scratchpad-range scoreboard.
#include "models/ntt/ntt_engine.h"

#include <cstring>
#include <random>

#include <gtest/gtest.h>

namespace photon {
namespace {

pcs::Command cmd(const pcs::Ntt& n) {
  pcs::Command c;
  c.opcode = pcs::Opcode::Ntt;
  c.body = n;
  return c;
}

struct Spm {
  std::vector<uint64_t> words;
  explicit Spm(size_t n) : words(n, 0) {}
  MemView view() { return MemView{reinterpret_cast<uint8_t*>(words.data()), words.size() * 8}; }
  uint64_t* at(uint64_t byte) { return words.data() + byte / 8; }
};

TEST(NttEngine, FunctionalForwardInverseAndMulMatchCore) {
  const uint32_t log_n = 10, N = 1024, limbs = 3;
  const auto qs = ntt::generate_ntt_primes(50, log_n, limbs);
  Spm spm(8 + 3 * limbs * N);
  std::memcpy(spm.at(0), qs.data(), limbs * 8);
  const uint64_t a = 64, b = a + limbs * N * 8, d = b + limbs * N * 8;
  std::mt19937_64 rng(7);
  for (uint32_t i = 0; i < limbs * N; ++i) {
    spm.at(a)[i] = rng() % qs[i / N];
    spm.at(b)[i] = rng() % qs[i / N];
  }
  std::vector<uint64_t> a0(spm.at(a), spm.at(a) + limbs * N), b0(spm.at(b), spm.at(b) + limbs * N);
  NttEngine e(NttConfig{});
  pcs::Ntt f;
  f.op = pcs::Ntt::kForward;
  f.log_n = log_n;
  f.limbs = limbs;
  f.src0 = a;
  f.dst = a;
  f.moduli = 0;
  e.issue(cmd(f), 0, spm.view());
  f.src0 = f.dst = b;
  e.issue(cmd(f), 0, spm.view());
  pcs::Ntt m = f;
  m.op = pcs::Ntt::kMulMod;
  m.src0 = a;
  m.src1 = b;
  m.dst = d;
  e.issue(cmd(m), 0, spm.view());
  pcs::Ntt inv = f;
  inv.op = pcs::Ntt::kInverse;
  inv.src0 = inv.dst = d;
  e.issue(cmd(inv), 0, spm.view());
  for (uint32_t l = 0; l < limbs; ++l) {
    ntt::NttTables t(qs[l], log_n);
    std::vector<uint64_t> x(a0.begin() + l * N, a0.begin() + (l + 1) * N),
        y(b0.begin() + l * N, b0.begin() + (l + 1) * N), z(N);
    t.forward(x.data());
    t.forward(y.data());
    ntt::mul_vec(x.data(), y.data(), z.data(), N, qs[l]);
    t.inverse(z.data());
    EXPECT_TRUE(std::equal(z.begin(), z.end(), spm.at(d) + l * N)) << "limb " << l;
  }
  auto c = e.counters();
  EXPECT_EQ(c["transforms"], 9);
  EXPECT_EQ(c["butterflies"], 9.0 * N / 2 * log_n);
  EXPECT_EQ(c["modmuls"], double(limbs) * N);
}

TEST(NttEngine, BConvAndAutomorphMatchCore) {
  const uint32_t log_n = 10, N = 1024;
  const auto qs = ntt::generate_ntt_primes(40, log_n, 5);  // 2 source, 3 target
  Spm spm(8 + 8 * N);
  std::memcpy(spm.at(0), qs.data(), 5 * 8);
  const uint64_t src = 64, dst = src + 2 * N * 8;
  std::mt19937_64 rng(8);
  for (uint32_t i = 0; i < 2 * N; ++i) spm.at(src)[i] = rng() % qs[i / N];
  NttEngine e(NttConfig{});
  pcs::Ntt b;
  b.op = pcs::Ntt::kBConv;
  b.log_n = log_n;
  b.limbs = 2;
  b.out_limbs = 3;
  b.src0 = src;
  b.dst = dst;
  e.issue(cmd(b), 0, spm.view());
  ntt::BaseConverter conv({qs[0], qs[1]}, {qs[2], qs[3], qs[4]});
  std::vector<uint64_t> want(3 * N);
  conv.convert(spm.at(src), want.data(), N);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), spm.at(dst)));
  EXPECT_EQ(e.counters()["bconv_macs"], 6.0 * N);
  // In-place automorphism, coefficient form.
  pcs::Ntt a;
  a.op = pcs::Ntt::kAutomorph;
  a.log_n = log_n;
  a.limbs = 1;
  a.src0 = a.dst = src;
  a.galois = 5;
  std::vector<uint64_t> before(spm.at(src), spm.at(src) + N), expect(N);
  ntt::automorph_coeff(before.data(), expect.data(), log_n, 5, qs[0]);
  e.issue(cmd(a), 0, spm.view());
  EXPECT_TRUE(std::equal(expect.begin(), expect.end(), spm.at(src)));
  // NTT-domain automorphism (galois bit 31): the permutation of the transformed input.
  a.galois = 25 | NttEngine::kGaloisNttDomain;
  a.dst = dst;
  std::vector<uint64_t> in(spm.at(src), spm.at(src) + N), want_ntt(N);
  ntt::automorph_ntt(in.data(), want_ntt.data(), log_n, 25);
  e.issue(cmd(a), 0, spm.view());
  EXPECT_TRUE(std::equal(want_ntt.begin(), want_ntt.end(), spm.at(dst)));
  EXPECT_EQ(e.counters()["automorph_elements"], 2.0 * N);
}

TEST(NttEngine, FaultsBeforeWritingAnything) {
  const uint32_t log_n = 10, N = 1024;
  Spm spm(2 * N + 8);
  const auto q = ntt::generate_ntt_primes(40, log_n, 1);
  spm.at(0)[0] = q[0];
  for (uint32_t i = 0; i < N; ++i) spm.at(8)[i] = i;
  auto snapshot = spm.words;
  NttEngine e(NttConfig{});
  pcs::Ntt n;
  n.op = pcs::Ntt::kForward;
  n.log_n = log_n;
  n.limbs = 3;
  n.src0 = 8;
  n.dst = 8;  // 3 limbs do not fit
  try {
    e.issue(cmd(n), 0, spm.view());
    FAIL();
  } catch (const UnitFault& f) { EXPECT_EQ(f.code(), UnitErrorCode::ADDRESS); }
  n.limbs = 1;
  n.op = 9;
  try {
    e.issue(cmd(n), 0, spm.view());
    FAIL();
  } catch (const UnitFault& f) { EXPECT_EQ(f.code(), UnitErrorCode::DECODE); }
  n.op = pcs::Ntt::kAutomorph;
  n.galois = 4;
  try {
    e.issue(cmd(n), 0, spm.view());
    FAIL();
  } catch (const UnitFault& f) { EXPECT_EQ(f.code(), UnitErrorCode::DECODE); }
  n.op = pcs::Ntt::kForward;
  spm.at(0)[0] = 97;  // not 1 mod 2N
  try {
    e.issue(cmd(n), 0, spm.view());
    FAIL();
  } catch (const UnitFault& f) { EXPECT_EQ(f.code(), UnitErrorCode::DECODE); }
  spm.at(0)[0] = q[0];
  EXPECT_EQ(spm.words, snapshot);
}

TEST(NttEngine, CycleFormulasPerInternalEngine) {
  NttConfig c;
  c.lanes = 1024;
  c.pipeline_depth = 20;
  c.transpose_cycles = 272;
  c.bconv_macs = 1024;
  c.bconv_latency_cycles = 24;
  c.modmul_lanes = 512;
  c.ewe_latency_cycles = 4;
  c.automorph_lanes = 256;
  c.automorph_latency_cycles = 36;
  pcs::Ntt n;
  n.log_n = 16;
  n.limbs = 36;
  n.out_limbs = 12;
  n.op = pcs::Ntt::kForward;
  // T = 2^16 / 2048 = 32 rows per stage; two interleaved limbs cover T/2 + 20 = 36 < 64: the
  // stream rate, plus the fill D + 3 and the transposes.
  EXPECT_EQ(NttEngine::busy_cycles(n, c), 36ull * 32768 * 16 / 1024 + 20 + 3 + 272);
  n.op = pcs::Ntt::kBConv;
  EXPECT_EQ(NttEngine::busy_cycles(n, c), 36ull * 12 * 65536 / 1024 + 24);
  n.op = pcs::Ntt::kMulAccMod;
  EXPECT_EQ(NttEngine::busy_cycles(n, c), 36ull * 65536 / 512 + 4);
  n.op = pcs::Ntt::kAutomorph;
  EXPECT_EQ(NttEngine::busy_cycles(n, c), 36ull * 65536 / 256 + 36);
  c.spm_words_per_cycle = 64;  // MulAcc moves 4 words per element
  n.op = pcs::Ntt::kMulAccMod;
  EXPECT_EQ(NttEngine::busy_cycles(n, c), 4ull * 36 * 65536 / 64 + 4);
}

// The stage-dependency formula of models/ntt/README.md at points where stages wait.
TEST(NttEngine, NttCyclesWaitForThePreviousStageAtSmallN) {
  NttConfig c;  // 64 lanes, pipeline_depth 20, limb_interleave 2
  pcs::Ntt n;
  n.op = pcs::Ntt::kInverse;
  n.log_n = 10;  // T = 8 rows, T/2 + D = 24
  n.limbs = 2;   // one pair: 10 x 16 rows + 9 x (24 - 16) gap cycles + 23
  EXPECT_EQ(NttEngine::busy_cycles(n, c), 160u + 72 + 23);
  n.limbs = 1;  // 10 x 8 + 9 x (24 - 8)
  EXPECT_EQ(NttEngine::busy_cycles(n, c), 80u + 144 + 23);
  n.limbs = 3;  // a pair and a single limb
  EXPECT_EQ(NttEngine::busy_cycles(n, c), 232u + 224 + 23);
  c.limb_interleave = 1;
  n.limbs = 2;
  EXPECT_EQ(NttEngine::busy_cycles(n, c), 2u * 224 + 23);
  c.limb_interleave = 4;  // 4 T = 32 >= 24: no gap
  n.limbs = 4;
  EXPECT_EQ(NttEngine::busy_cycles(n, c), 4u * 10 * 8 + 23);
  n.log_n = 4;  // N/2 = 8 butterflies < 64 lanes: one row per stage, T/2 = 0
  n.limbs = 1;
  EXPECT_EQ(NttEngine::busy_cycles(n, c), 4u + 3 * 19 + 23);
}

TEST(NttEngine, IndependentCommandsOverlapDependentOnesWait) {
  NttConfig c;
  NttEngine e(c);
  const MemView timing{nullptr, 0};
  pcs::Ntt f;
  f.op = pcs::Ntt::kForward;
  f.log_n = 12;
  f.limbs = 4;
  f.src0 = f.dst = 0;
  const uint64_t t_ntt = NttEngine::busy_cycles(f, c);
  auto r1 = e.issue(cmd(f), 0, timing);
  EXPECT_EQ(r1.done_cycle, t_ntt);
  // Element-wise on a disjoint range overlaps the NTT.
  pcs::Ntt m;
  m.op = pcs::Ntt::kMulMod;
  m.log_n = 12;
  m.limbs = 4;
  m.src0 = 1 << 20;
  m.src1 = 2 << 20;
  m.dst = 3 << 20;
  auto r2 = e.issue(cmd(m), r1.accept_cycle, timing);
  EXPECT_EQ(r2.done_cycle, r1.accept_cycle + NttEngine::busy_cycles(m, c));
  // Reading the NTT's output waits for it (RAW).
  m.src0 = 4096 * 8;  // limb 1 of the NTT output
  m.dst = 5 << 20;
  auto r3 = e.issue(cmd(m), r2.accept_cycle, timing);
  EXPECT_EQ(r3.done_cycle, t_ntt + NttEngine::busy_cycles(m, c));
  // A second NTT on another range queues behind the first on the same internal engine.
  f.src0 = f.dst = 6 << 20;
  auto r4 = e.issue(cmd(f), r3.accept_cycle, timing);
  EXPECT_EQ(r4.done_cycle, 2 * t_ntt);
  // Writing a range that r3 still reads waits for r3 (WAR).
  pcs::Ntt w = m;
  w.src0 = 7 << 20;
  w.src1 = 8 << 20;
  w.dst = 4096 * 8;
  auto r5 = e.issue(cmd(w), r4.accept_cycle, timing);
  EXPECT_EQ(r5.done_cycle, r3.done_cycle + NttEngine::busy_cycles(w, c));
  auto k = e.counters();
  EXPECT_EQ(k["busy_cycles.ntt"], double(2 * t_ntt));
  EXPECT_EQ(k["busy_cycles.ewe"], 3.0 * NttEngine::busy_cycles(m, c));
}

}  // namespace
}  // namespace photon
