// Randomised .pcs programs for round-trip tests: every opcode, every NTT/vector op, every GEMM
// flag, every payload field at random full-width values.
#pragma once

#include <algorithm>
#include <cstring>
#include <random>

#include "isa/fields.h"
#include "isa/program.h"

namespace photon::pcs::test_support {

inline std::vector<uint8_t> all_vector_ops() {
  std::vector<uint8_t> ops;
  for (int op = 0; op < 256; ++op)
    if (detail::valid_vector_op(static_cast<uint8_t>(op))) ops.push_back(static_cast<uint8_t>(op));
  return ops;
}

template <class T>
void randomise_fields(const std::vector<detail::Field<T>>& fields, T& body, std::mt19937_64& rng) {
  for (const auto& f : fields) {
    uint64_t v = rng();
    if (f.bytes < 8) v &= (uint64_t{1} << (8 * f.bytes)) - 1;
    // Small values half of the time, so defaults and short spellings are exercised too.
    if (rng() % 2) v %= 3;
    f.set(body, v);
  }
}

inline std::string random_string(std::mt19937_64& rng) {
  std::string s;
  const int n = static_cast<int>(rng() % 12);
  for (int i = 0; i < n; ++i) s += static_cast<char>(rng() % 256);
  return s;
}

/// A command of kind `k` (0..7, one per opcode) with random fields; `sub` picks the NTT/vector
/// op and GEMM flags.
inline Command random_command(int k, uint64_t sub, std::mt19937_64& rng) {
  const uint32_t tag = rng() % 3 == 0 ? kNoTag : static_cast<uint32_t>(rng());
  switch (k) {
    case 0: {
      Command c = make_end();
      c.tag = tag;
      return c;
    }
    case 1: {
      Command c = make_fence();
      c.tag = tag;
      return c;
    }
    case 2:
    case 3: {
      Sync s;
      s.queue = static_cast<Queue>(rng() % kQueueCount);
      randomise_fields(detail::sync_fields(), s, rng);
      return k == 2 ? make_signal(s.queue, s.sem, tag) : make_wait(s.queue, s.sem, tag);
    }
    case 4: {
      DmaCopy d;
      randomise_fields(detail::dma_fields(), d, rng);
      return make_dma(d, tag);
    }
    case 5: {
      Gemm g;
      randomise_fields(detail::gemm_fields(), g, rng);
      g.flags = static_cast<uint8_t>(sub & detail::kGemmFlagMask);
      return make_gemm(g, tag);
    }
    case 6: {
      Ntt n;
      randomise_fields(detail::ntt_fields(), n, rng);
      n.op = static_cast<uint8_t>(sub % (Ntt::kMulAccMod + 1));
      return make_ntt(n, tag);
    }
    default: {
      static const std::vector<uint8_t> ops = all_vector_ops();
      Vector v;
      randomise_fields(detail::vector_fields(), v, rng);
      v.op = ops[sub % ops.size()];
      return make_vector(v, tag);
    }
  }
}

/// A program that holds every opcode, every NTT op, every vector op and every GEMM flag
/// combination at least once, plus random ops and segments.
inline Program random_program(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Program p;
  const int n_ops = static_cast<int>(rng() % 5);
  for (int i = 0; i < n_ops; ++i) p.add_op({random_string(rng), random_string(rng), random_string(rng), {}});
  for (uint64_t sub = 0; sub < 40; ++sub)
    for (int k = 0; k < 8; ++k) p.commands.push_back(random_command(k, sub, rng));
  std::shuffle(p.commands.begin(), p.commands.end(), rng);
  const int n_seg = static_cast<int>(rng() % 4);
  for (int i = 0; i < n_seg; ++i) {
    Segment s;
    s.address = rng();
    s.bytes.resize(rng() % 100);
    for (auto& b : s.bytes) b = static_cast<uint8_t>(rng());
    p.segments.push_back(std::move(s));
  }
  return p;
}

}  // namespace photon::pcs::test_support
