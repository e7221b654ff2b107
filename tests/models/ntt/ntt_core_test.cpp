// ntt_core against naive oracles: O(N^2) negacyclic convolution, direct evaluation at psi^(2i+1),
// the automorphism's definition, and big-integer CRT reconstruction for base conversion.
#include "models/ntt/ntt_core.h"

#include <random>

#include <gtest/gtest.h>

#include "base/error.h"

namespace photon::ntt {
namespace {

using u128 = unsigned __int128;

std::vector<uint64_t> random_poly(uint32_t n, uint64_t q, std::mt19937_64& rng) {
  std::vector<uint64_t> a(n);
  for (auto& x : a) x = rng() % q;
  return a;
}

/// Naive negacyclic product in Z_q[X]/(X^N+1), 128-bit accumulation reduced every 128 terms.
std::vector<uint64_t> naive_negacyclic(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b,
                                       uint64_t q) {
  const size_t n = a.size();
  std::vector<uint64_t> out(n);
  for (size_t k = 0; k < n; ++k) {
    u128 pos = 0, neg = 0;
    for (size_t i = 0; i < n; ++i) {
      if (i <= k)
        pos += u128(a[i]) * b[k - i];
      else
        neg += u128(a[i]) * b[n + k - i];
      if ((i & 127) == 127) {
        pos %= q;
        neg %= q;
      }
    }
    uint64_t p = uint64_t(pos % q), m = uint64_t(neg % q);
    out[k] = p >= m ? p - m : p + q - m;
  }
  return out;
}

TEST(NttPrimes, AreNttFriendlyPrimesBelowTheBound) {
  for (uint32_t bits : {30u, 36u, 50u, 60u}) {
    auto ps = generate_ntt_primes(bits, 16, 6);
    ASSERT_EQ(ps.size(), 6u);
    for (size_t i = 0; i < ps.size(); ++i) {
      EXPECT_TRUE(is_prime(ps[i]));
      EXPECT_EQ(ps[i] % (uint64_t(1) << 17), 1u);
      EXPECT_LT(ps[i], uint64_t(1) << bits);
      if (i) { EXPECT_LT(ps[i], ps[i - 1]); }
    }
  }
  EXPECT_THROW(generate_ntt_primes(63, 16, 1), Error);
  EXPECT_THROW(generate_ntt_primes(20, 17, 100), Error);
}

TEST(NttPrimes, MillerRabinKnownValues) {
  EXPECT_TRUE(is_prime(2));
  EXPECT_TRUE(is_prime(0xFFFFFFFFFFFFFFC5ull));  // largest 64-bit prime
  EXPECT_FALSE(is_prime(3215031751ull));         // strong pseudoprime to bases 2, 3, 5, 7
  EXPECT_FALSE(is_prime(uint64_t(4294967291ull) * 4294967279ull));
}

TEST(Ntt, ForwardThenInverseIsIdentity) {
  std::mt19937_64 rng(1);
  for (uint32_t log_n : {10u, 13u, 17u}) {
    for (uint32_t bits : {36u, 60u}) {
      const uint64_t q = generate_ntt_primes(bits, log_n, 1)[0];
      NttTables t(q, log_n);
      auto a = random_poly(1u << log_n, q, rng), b = a;
      t.forward(b.data());
      EXPECT_NE(a, b);
      t.inverse(b.data());
      EXPECT_EQ(a, b) << "log_n " << log_n << " q " << q;
    }
  }
}

TEST(Ntt, ForwardIsBitReversedEvaluationAtOddPowersOfPsi) {
  std::mt19937_64 rng(2);
  const uint32_t log_n = 6, n = 64;
  const uint64_t q = generate_ntt_primes(40, log_n, 1)[0];
  NttTables t(q, log_n);
  auto a = random_poly(n, q, rng), A = a;
  t.forward(A.data());
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t x = pow_mod(t.psi(), 2 * i + 1, q);
    uint64_t v = 0;
    for (uint32_t k = n; k-- > 0;) v = add_mod(mul_mod(v, x, q), a[k], q);  // Horner
    EXPECT_EQ(A[bit_reverse(i, log_n)], v) << i;
  }
}

TEST(Ntt, PointwiseProductEqualsNaiveNegacyclicConvolution) {
  std::mt19937_64 rng(3);
  for (uint32_t log_n : {10u, 11u, 12u}) {
    for (uint32_t bits : {30u, 45u, 60u}) {
      const uint64_t q = generate_ntt_primes(bits, log_n, 2)[1];
      const uint32_t n = 1u << log_n;
      NttTables t(q, log_n);
      auto a = random_poly(n, q, rng), b = random_poly(n, q, rng);
      auto expect = naive_negacyclic(a, b, q);
      t.forward(a.data());
      t.forward(b.data());
      std::vector<uint64_t> c(n);
      mul_vec(a.data(), b.data(), c.data(), n, q);
      t.inverse(c.data());
      EXPECT_EQ(c, expect) << "log_n " << log_n << " bits " << bits;
    }
  }
}

TEST(Ntt, RejectsModulusThatIsNotOneModTwoN) {
  EXPECT_THROW(NttTables(generate_ntt_primes(40, 10, 1)[0], 12), Error);
  EXPECT_THROW(NttTables(97, 18), Error);
}

TEST(Automorph, MatchesDefinitionOnMonomials) {
  // X^i -> X^{i g mod 2N}, negated when i*g mod 2N >= N.
  const uint32_t log_n = 5, n = 32;
  const uint64_t q = 257;
  for (uint32_t g : {1u, 3u, 5u, 25u, 63u}) {
    for (uint32_t i = 0; i < n; ++i) {
      std::vector<uint64_t> a(n, 0), out(n, 7);
      a[i] = 10;
      automorph_coeff(a.data(), out.data(), log_n, g, q);
      const uint32_t k = (i * g) % (2 * n);
      for (uint32_t j = 0; j < n; ++j) {
        uint64_t want = 0;
        if (k < n && j == k) want = 10;
        if (k >= n && j == k - n) want = q - 10;
        EXPECT_EQ(out[j], want) << "g " << g << " i " << i << " j " << j;
      }
    }
  }
}

TEST(Automorph, IsARingHomomorphismAndMatchesTheNttDomainPermutation) {
  std::mt19937_64 rng(4);
  const uint32_t log_n = 10, n = 1024;
  const uint64_t q = generate_ntt_primes(50, log_n, 1)[0];
  NttTables t(q, log_n);
  for (uint32_t g : {5u, 25u, 2047u, 1061u}) {
    auto a = random_poly(n, q, rng), b = random_poly(n, q, rng);
    // sigma(a*b) == sigma(a)*sigma(b)
    auto ab = naive_negacyclic(a, b, q);
    std::vector<uint64_t> sa(n), sb(n), sab(n);
    automorph_coeff(a.data(), sa.data(), log_n, g, q);
    automorph_coeff(b.data(), sb.data(), log_n, g, q);
    automorph_coeff(ab.data(), sab.data(), log_n, g, q);
    EXPECT_EQ(naive_negacyclic(sa, sb, q), sab);
    // NTT(sigma(a)) == permute(NTT(a))
    auto A = a;
    t.forward(A.data());
    std::vector<uint64_t> perm(n);
    automorph_ntt(A.data(), perm.data(), log_n, g);
    t.forward(sa.data());
    EXPECT_EQ(perm, sa) << "g " << g;
  }
}

TEST(BaseConversion, MatchesCrtReconstructionPlusMultipleOfQ) {
  std::mt19937_64 rng(5);
  const auto qs = generate_ntt_primes(30, 10, 3);  // Q < 2^90: fits in 128 bits
  const auto ps = generate_ntt_primes(45, 10, 4);
  BaseConverter conv(qs, ps);
  const uint32_t n = 64;
  u128 Q = 1;
  for (auto q : qs) Q *= q;
  std::vector<uint64_t> in(qs.size() * n), out(ps.size() * n);
  std::vector<u128> X(n);
  for (uint32_t c = 0; c < n; ++c) {
    X[c] = ((u128(rng()) << 64) | rng()) % Q;
    for (size_t i = 0; i < qs.size(); ++i) in[i * n + c] = uint64_t(X[c] % qs[i]);
  }
  conv.convert(in.data(), out.data(), n);
  for (uint32_t c = 0; c < n; ++c) {
    // S = sum_i [x_i qhat_i^-1]_{q_i} qhat_i = X + u Q with 0 <= u < limbs.
    u128 S = 0;
    for (size_t i = 0; i < qs.size(); ++i) {
      const u128 qhat = Q / qs[i];
      const uint64_t v = mul_mod(in[i * n + c], inv_mod(uint64_t(qhat % qs[i]), qs[i]), qs[i]);
      S += u128(v) * qhat;
    }
    ASSERT_GE(S, X[c]);
    EXPECT_EQ((S - X[c]) % Q, 0u);
    EXPECT_LT((S - X[c]) / Q, qs.size());
    for (size_t j = 0; j < ps.size(); ++j) EXPECT_EQ(out[j * n + c], uint64_t(S % ps[j])) << c << " " << j;
  }
}

TEST(BaseConversion, ExactForSmallValues) {
  // With a single source limb qhat = 1, so the conversion is exact: x mod p.
  const auto qs = generate_ntt_primes(40, 10, 1);
  const auto ps = generate_ntt_primes(36, 10, 2);
  BaseConverter conv(qs, ps);
  std::vector<uint64_t> in = {0, 1, 12345, qs[0] - 1}, out(8);
  conv.convert(in.data(), out.data(), 4);
  for (size_t j = 0; j < 2; ++j)
    for (size_t c = 0; c < 4; ++c) EXPECT_EQ(out[j * 4 + c], in[c] % ps[j]);
}

}  // namespace
}  // namespace photon::ntt
