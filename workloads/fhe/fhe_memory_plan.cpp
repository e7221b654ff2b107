#include "workloads/fhe/fhe_memory_plan.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "base/error.h"
#include "base/modular.h"
#include "workloads/fhe/fhe_op_traits.h"

namespace photon::fhe {

namespace {

/// The chain geometry: maxima over the ops, and which buffers they need.
void size_chain(FheMemoryPlan& m, bool& hoisted, const std::vector<FheOp>& ops, const RunConfig& cfg) {
  for (const FheOp& op : ops) {
    m.log_n_max = std::max(m.log_n_max, op.log_n);
    m.l_max = std::max(m.l_max, op.max_level);
    m.a_max = std::max(m.a_max, op.alpha);
    m.dnum_max = std::max(m.dnum_max, op.dnum);
    m.any_key = m.any_key || fhe_op_needs_key(op);
    hoisted = hoisted || fhe_op_traits(op.kind).hoisted;
  }
  m.q_slots = m.l_max + 1;
  m.ext_slots = m.q_slots + m.a_max;
  m.lb_max = cfg.ntt.limb_bytes(m.log_n_max);
  const uint32_t bits = cfg.ntt.prime_bits();
  m.chain = with_error_context("ntt.word_bits",
                               [&] { return modular::generate_ntt_primes(bits, m.log_n_max, m.ext_slots); });
}

/// Scratchpad layout: tables, ciphertext and temporary buffers, then the key slots.
void lay_out_scratchpad(FheMemoryPlan& m, bool hoisted, const RunConfig& cfg) {
  uint64_t at = kFheTablesBytes;
  auto take = [&](uint64_t limbs) {
    uint64_t a = at;
    at += limbs * m.lb_max;
    return a;
  };
  m.cur = take(2 * m.q_slots);
  m.opb = take(2 * m.q_slots);
  m.d2 = take(m.q_slots);
  m.rot[0] = take(m.q_slots);
  m.rot[1] = take(m.q_slots);
  m.konst = take(m.q_slots);
  m.coeff = take(m.q_slots);
  m.tmp[0] = take(m.q_slots);
  m.tmp[1] = take(m.q_slots);
  if (m.any_key) {
    m.acc[0] = take(m.ext_slots);
    m.acc[1] = take(m.ext_slots);
    for (uint32_t j = 0; j < m.dnum_max; ++j) m.ext.push_back(take(m.ext_slots));
    if (hoisted)
      for (uint32_t j = 0; j < m.dnum_max; ++j) m.rext.push_back(take(m.ext_slots));
  }
  m.keys_base = at;
  m.spm_bytes = std::min<uint64_t>(cfg.scratchpad.size_kib * 1024, uint64_t(1) << 32);
  m.slot_bytes = 2ull * m.dnum_max * m.ext_slots * m.lb_max;
  m.slots = m.any_key && m.spm_bytes > at ? uint32_t((m.spm_bytes - at) / m.slot_bytes) : 0;
  m.fits = at <= m.spm_bytes && (!m.any_key || m.slots > 0);
}

/// HBM key region: the larger gap around the command ring (tables take the first 1 MiB; the ring
/// gets 256 MiB at cpu.ring_base).
void place_key_region(FheMemoryPlan& m, const RunConfig& cfg) {
  const uint64_t hbm = cfg.hbm.capacity_bytes();
  const uint64_t ring =
      cfg.cpu.ring_base >= cfg.noc.hbm_base ? std::min(cfg.cpu.ring_base - cfg.noc.hbm_base, hbm) : hbm;
  const uint64_t lo1 = uint64_t(1) << 20, hi1 = std::max(ring, lo1);
  const uint64_t lo2 = std::min<uint64_t>(ring + (uint64_t(256) << 20), hbm);
  if (hi1 - lo1 >= hbm - lo2) {
    m.key_hbm_base = lo1;
    m.key_region_bytes = hi1 - lo1;
  } else {
    m.key_hbm_base = lo2;
    m.key_region_bytes = hbm - lo2;
  }
}

}  // namespace

FheMemoryPlan plan_fhe_memory(const std::vector<FheOp>& ops, const RunConfig& cfg) {
  FheMemoryPlan m;
  bool hoisted = false;
  size_chain(m, hoisted, ops, cfg);
  lay_out_scratchpad(m, hoisted, cfg);
  place_key_region(m, cfg);
  return m;
}

}  // namespace photon::fhe
