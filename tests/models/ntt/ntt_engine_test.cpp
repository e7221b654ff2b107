// NttEngine: functional results against ntt_core, faults before writes, timing formulas,
// overlap of independent commands and the scratchpad-range scoreboard.
#include "models/ntt/ntt_engine.h"

#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "models/ntt/ntt_storage.h"

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

// A sum of products (terms > 1) against the naive sum of per-term mul_mod results, in 64-bit
// and in packed 36-bit storage; its cycles are one fill for the whole sum.
TEST(NttEngine, SumOfProductsMatchesTheNaiveSum) {
  const uint32_t log_n = 8, N = 256, limbs = 2, terms = 5;
  const auto qs = ntt::generate_ntt_primes(36, log_n, limbs);
  for (uint32_t bits : {64u, 36u}) {
    NttConfig cfg;
    cfg.storage_bits = bits;
    const uint64_t lb = uint64_t(bits) * N / 8, term = limbs * lb;
    // src0: terms contiguous; src1: every other term slot used (a stride of two terms), as the
    // key switch interleaves the two key components.
    const uint64_t a = 64, b = a + terms * term, d = b + 2 * terms * term;
    Spm spm((d + term) / 8 + 8);
    std::memcpy(spm.at(0), qs.data(), limbs * 8);
    std::mt19937_64 rng(bits);
    std::vector<std::vector<uint64_t>> x(terms), y(terms);
    auto put = [&](uint64_t at, const std::vector<uint64_t>& v) {
      if (bits == 64)
        std::memcpy(spm.at(at), v.data(), v.size() * 8);
      else
        ntt::pack_residues(v.data(), v.size(), bits, reinterpret_cast<uint8_t*>(spm.words.data()) + at);
    };
    auto get = [&](uint64_t at) {
      std::vector<uint64_t> v(limbs * N);
      if (bits == 64)
        std::memcpy(v.data(), spm.at(at), v.size() * 8);
      else
        ntt::unpack_residues(reinterpret_cast<uint8_t*>(spm.words.data()) + at, v.size(), bits, v.data());
      return v;
    };
    for (uint32_t t = 0; t < terms; ++t) {
      x[t].resize(limbs * N);
      y[t].resize(limbs * N);
      for (uint32_t i = 0; i < limbs * N; ++i) {
        x[t][i] = rng() % qs[i / N];
        y[t][i] = rng() % qs[i / N];
      }
      put(a + t * term, x[t]);
      put(b + 2 * t * term, y[t]);
    }
    std::vector<uint64_t> start(limbs * N);
    for (uint32_t i = 0; i < limbs * N; ++i) start[i] = rng() % qs[i / N];
    put(d, start);
    // Oracle: dst + sum_t x_t * y_t, one mul_vec and one addition at a time.
    std::vector<uint64_t> want = start, prod(N);
    for (uint32_t t = 0; t < terms; ++t)
      for (uint32_t l = 0; l < limbs; ++l) {
        ntt::mul_vec(x[t].data() + l * N, y[t].data() + l * N, prod.data(), N, qs[l]);
        for (uint32_t i = 0; i < N; ++i) want[l * N + i] = (want[l * N + i] + prod[i]) % qs[l];
      }
    NttEngine e(cfg);
    pcs::Ntt n;
    n.op = pcs::Ntt::kMulAccMod;
    n.log_n = log_n;
    n.limbs = limbs;
    n.src0 = uint32_t(a);
    n.src1 = uint32_t(b);
    n.dst = uint32_t(d);
    n.terms = terms;
    n.src0_stride = uint32_t(term);
    n.src1_stride = uint32_t(2 * term);
    e.issue(cmd(n), 0, spm.view());
    EXPECT_EQ(get(d), want) << bits << "-bit storage, mul_acc_mod";
    // mul_mod: the same sum without the destination's old value.
    n.op = pcs::Ntt::kMulMod;
    put(d, start);
    e.issue(cmd(n), 0, spm.view());
    std::vector<uint64_t> want_mul(limbs * N);
    for (uint32_t i = 0; i < limbs * N; ++i) want_mul[i] = (want[i] + qs[i / N] - start[i]) % qs[i / N];
    EXPECT_EQ(get(d), want_mul) << bits << "-bit storage, mul_mod";
    EXPECT_EQ(e.counters()["modmuls"], 2.0 * terms * limbs * N);
    EXPECT_EQ(e.counters()["modadds"], double(terms + terms - 1) * limbs * N);
  }
  // Cycles: terms * L * N / modmul_lanes + one fill; with a scratchpad port limit, 2 words per
  // product plus dst read and written once.
  NttConfig c;
  c.modmul_lanes = 512;
  c.ewe_latency_cycles = 4;
  pcs::Ntt n;
  n.op = pcs::Ntt::kMulAccMod;
  n.log_n = 16;
  n.limbs = 2;
  n.terms = 15;
  n.src0_stride = n.src1_stride = 1u << 20;
  EXPECT_EQ(NttEngine::busy_cycles(n, c), 15ull * 2 * 65536 / 512 + 4);
  c.spm_words_per_cycle = 64;
  EXPECT_EQ(NttEngine::busy_cycles(n, c), (2ull * 15 + 2) * 2 * 65536 / 64 + 4);
}

TEST(NttEngine, SumOfProductsFaults) {
  const uint32_t log_n = 8, N = 256;
  const auto q = ntt::generate_ntt_primes(40, log_n, 1);
  Spm spm(8 * N);
  spm.at(0)[0] = q[0];
  NttEngine e(NttConfig{});
  pcs::Ntt n;
  n.op = pcs::Ntt::kMulAccMod;
  n.log_n = log_n;
  n.src0 = 64;
  n.src1 = 64 + 4 * N * 8;
  n.dst = 64 + N * 8;  // inside the second term of src0
  n.terms = 3;
  n.src0_stride = n.src1_stride = N * 8;
  auto fault = [&](const char* want) {
    try {
      e.issue(cmd(n), 0, spm.view());
      ADD_FAILURE() << "no fault, expected: " << want;
    } catch (const UnitFault& f) {
      EXPECT_EQ(f.code(), UnitErrorCode::DECODE);
      EXPECT_NE(std::string(f.what()).find(want), std::string::npos) << f.what();
    }
  };
  const auto snapshot = spm.words;
  fault("dst [0x840, 0x1040) of a 3-term mul_acc_mod overlaps src0's terms, which span [0x40, 0x1840)");
  n.dst = 64 + 3 * N * 8;
  n.op = pcs::Ntt::kAddMod;
  fault("terms and strides are for mul_mod and mul_acc_mod, not add_mod");
  n.op = pcs::Ntt::kMulMod;
  n.src0_stride = 12;
  fault("multiples of 8 bytes");
  n.src0_stride = N * 8;
  n.terms = NttEngine::kMaxTerms + 1;
  fault("above 4096");
  n.terms = 1;  // a stride without a next term
  fault("src0_stride / src1_stride without terms > 1");
  n.src0_stride = n.src1_stride = 0;
  n.op = pcs::Ntt::kInverse;  // terms = 1 is still a field another op does not have
  fault("terms and strides are for mul_mod and mul_acc_mod, not inverse");
  n.op = pcs::Ntt::kMulMod;
  n.src0_stride = n.src1_stride = N * 8;
  n.terms = 4;  // the last term of src1 runs past the scratchpad
  try {
    e.issue(cmd(n), 0, spm.view());
    ADD_FAILURE();
  } catch (const UnitFault& f) { EXPECT_EQ(f.code(), UnitErrorCode::ADDRESS); }
  EXPECT_EQ(spm.words, snapshot);
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
