#include "models/ntt/ntt_engine.h"

#include <algorithm>
#include <cstring>

namespace photon {

namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

UnitFault decode_fault(const std::string& msg) { return UnitFault(UnitErrorCode::DECODE, "ntt: " + msg); }

/// Source and destination byte ranges of a command: {src0, src1 (may be empty), dst}.
struct Ranges {
  uint64_t src0 = 0, src0_bytes = 0, src1 = 0, src1_bytes = 0, dst = 0, dst_bytes = 0;
  uint64_t moduli_bytes = 0;
  bool dst_read = false;  // MulAcc reads its destination
};

Ranges ranges_of(const pcs::Ntt& n) {
  const uint64_t limb_bytes = (uint64_t(1) << n.log_n) * 8;
  Ranges r;
  r.src0 = n.src0;
  r.src0_bytes = n.limbs * limb_bytes;
  r.dst = n.dst;
  r.dst_bytes = (n.op == pcs::Ntt::kBConv ? n.out_limbs : n.limbs) * limb_bytes;
  r.moduli_bytes = 8ull * (n.limbs + (n.op == pcs::Ntt::kBConv ? n.out_limbs : 0));
  if (n.op == pcs::Ntt::kMulMod || n.op == pcs::Ntt::kAddMod || n.op == pcs::Ntt::kSubMod ||
      n.op == pcs::Ntt::kMulAccMod) {
    r.src1 = n.src1;
    r.src1_bytes = r.src0_bytes;
  }
  r.dst_read = n.op == pcs::Ntt::kMulAccMod;
  return r;
}

bool overlaps(uint64_t a, uint64_t a_bytes, uint64_t lo, uint64_t hi) {
  return a_bytes != 0 && a < hi && lo < a + a_bytes;
}

}  // namespace

NttEngine::Unit NttEngine::unit_of(uint8_t op) {
  switch (op) {
    case pcs::Ntt::kForward:
    case pcs::Ntt::kInverse: return kNttUnit;
    case pcs::Ntt::kBConv: return kBConvUnit;
    case pcs::Ntt::kAutomorph: return kAutomorphUnit;
    default: return kEweUnit;
  }
}

const char* NttEngine::unit_name(Unit u) {
  static const char* names[] = {"ntt", "bconv", "ewe", "automorph"};
  return names[u];
}

void NttEngine::check_fields(const pcs::Ntt& n) {
  if (n.op > pcs::Ntt::kMulAccMod) throw decode_fault("unknown op " + std::to_string(n.op));
  if (n.log_n < 1 || n.log_n > 17)
    throw decode_fault("log_n " + std::to_string(n.log_n) + " outside [1, 17]");
  if (n.limbs < 1 || n.limbs > 4096)
    throw decode_fault("limbs " + std::to_string(n.limbs) + " outside [1, 4096]");
  if (n.op == pcs::Ntt::kBConv) {
    if (n.limbs > 64) throw decode_fault("bconv source limbs " + std::to_string(n.limbs) + " above 64");
    if (n.out_limbs < 1 || n.out_limbs > 4096)
      throw decode_fault("bconv out_limbs " + std::to_string(n.out_limbs) + " outside [1, 4096]");
  }
  if (n.op == pcs::Ntt::kAutomorph) {
    const uint64_t g = n.galois & ~kGaloisNttDomain;
    if ((g & 1) == 0 || g >= (uint64_t(2) << n.log_n))
      throw decode_fault("galois element " + std::to_string(g) +
                         " must be odd and below 2N = " + std::to_string(uint64_t(2) << n.log_n));
  }
  if ((n.src0 | n.src1 | n.dst | n.moduli) & 7u) throw decode_fault("operand offsets must be 8-byte aligned");
}

uint64_t NttEngine::busy_cycles(const pcs::Ntt& n, const NttConfig& cfg) {
  const uint64_t N = uint64_t(1) << n.log_n;
  uint64_t compute = 0, fill = 0;
  switch (unit_of(n.op)) {
    case kNttUnit: {
      const uint64_t t = ceil_div(N, 2ull * cfg.lanes), d = cfg.pipeline_depth, stages = n.log_n;
      auto group = [&](uint64_t g) {  // g limbs interleaved stage by stage
        const uint64_t gap = std::max<int64_t>(0, int64_t(t / 2 + d) - int64_t(g * t));
        return g * stages * t + (stages - 1) * gap;
      };
      const uint64_t g = std::max<uint64_t>(1, std::min<uint64_t>(cfg.limb_interleave, n.limbs));
      compute = (n.limbs / g) * group(g) + (n.limbs % g ? group(n.limbs % g) : 0);
      fill = d + kNttHandshakeCycles + cfg.transpose_cycles;
      break;
    }
    case kBConvUnit:
      compute = ceil_div(uint64_t(n.limbs) * n.out_limbs * N, cfg.bconv_macs);
      fill = cfg.bconv_latency_cycles;
      break;
    case kEweUnit:
      compute = ceil_div(n.limbs * N, cfg.modmul_lanes);
      fill = cfg.ewe_latency_cycles;
      break;
    case kAutomorphUnit:
      compute = ceil_div(n.limbs * N, cfg.automorph_lanes);
      fill = cfg.automorph_latency_cycles;
      break;
  }
  if (cfg.spm_words_per_cycle > 0) {
    const Ranges r = ranges_of(n);
    const uint64_t words = (r.src0_bytes + r.src1_bytes + r.dst_bytes + (r.dst_read ? r.dst_bytes : 0)) / 8;
    compute = std::max(compute, ceil_div(words, cfg.spm_words_per_cycle));
  }
  return compute + fill;
}

const pcs::Ntt& NttEngine::decode(const pcs::Command& cmd) {
  const auto* np = std::get_if<pcs::Ntt>(&cmd.body);
  if (cmd.opcode != pcs::Opcode::Ntt || np == nullptr) throw decode_fault("not an NTT command");
  return *np;
}

std::vector<uint64_t> NttEngine::check(const pcs::Ntt& n, const MemView& spm) {
  check_fields(n);
  const Ranges r = ranges_of(n);
  if (spm.data != nullptr || spm.size != 0) {
    spm.check(n.moduli, r.moduli_bytes, "ntt moduli");
    spm.check(r.src0, r.src0_bytes, "ntt src0");
    if (r.src1_bytes) spm.check(r.src1, r.src1_bytes, "ntt src1");
    spm.check(r.dst, r.dst_bytes, "ntt dst");
  }
  if (spm.data == nullptr) return {};
  const uint32_t nmod = n.limbs + (n.op == pcs::Ntt::kBConv ? n.out_limbs : 0);
  std::vector<uint64_t> q(nmod);
  std::memcpy(q.data(), spm.data + n.moduli, 8ull * nmod);
  for (uint32_t i = 0; i < nmod; ++i)
    if (q[i] < 2 || q[i] >= (uint64_t(1) << 62))
      throw decode_fault("modulus " + std::to_string(i) + " = " + std::to_string(q[i]) +
                         " outside [2, 2^62)");
  if (unit_of(n.op) == kNttUnit)
    for (uint32_t i = 0; i < n.limbs; ++i) tables(q[i], n.log_n);
  if (n.op == pcs::Ntt::kBConv) converter(q, n.limbs);
  return q;
}

uint64_t NttEngine::earliest_start(const pcs::Ntt& n, uint64_t now) const {
  const Ranges r = ranges_of(n);
  uint64_t start = std::max(now, next_free_[unit_of(n.op)]);
  for (const Access& a : scoreboard_) {
    const bool hits_dst = overlaps(r.dst, r.dst_bytes, a.lo, a.hi);
    if (a.write) {
      if (hits_dst || overlaps(r.src0, r.src0_bytes, a.lo, a.hi) ||
          overlaps(r.src1, r.src1_bytes, a.lo, a.hi))
        start = std::max(start, a.cycle);
    } else if (hits_dst) {
      start = std::max(start, a.cycle);
    }
  }
  return start;
}

IssueResult NttEngine::issue(const pcs::Command& cmd, uint64_t now, const MemView& spm) {
  const pcs::Ntt& n = decode(cmd);
  const std::vector<uint64_t> q = check(n, spm);
  if (spm.data != nullptr) execute(n, spm, q);
  return commit(n, now, earliest_start(n, now), busy_cycles(n, cfg_));
}

IssueResult NttEngine::commit(const pcs::Ntt& n, uint64_t now, uint64_t start, uint64_t cycles) {
  const Ranges r = ranges_of(n);
  const Unit u = unit_of(n.op);
  // Entries that ended by now cannot delay anything issued from now on.
  scoreboard_.erase(std::remove_if(scoreboard_.begin(), scoreboard_.end(),
                                   [now](const Access& a) { return a.cycle <= now; }),
                    scoreboard_.end());
  const uint64_t done = start + cycles;
  next_free_[u] = done;
  busy_[u] += cycles;
  last_done_ = std::max(last_done_, done);
  // Entries inside the destination are superseded (this command waited for all of them); a read
  // of a range already read keeps the later end. The scoreboard stays as small as the set of
  // live buffers.
  const uint64_t dlo = r.dst, dhi = r.dst + r.dst_bytes;
  scoreboard_.erase(std::remove_if(scoreboard_.begin(), scoreboard_.end(),
                                   [dlo, dhi](const Access& a) { return a.lo >= dlo && a.hi <= dhi; }),
                    scoreboard_.end());
  auto add_read = [&](uint64_t lo, uint64_t bytes) {
    if (bytes == 0 || (lo >= dlo && lo + bytes <= dhi)) return;  // inside dst: the write covers it
    for (Access& a : scoreboard_)
      if (!a.write && a.lo == lo && a.hi == lo + bytes) {
        a.cycle = std::max(a.cycle, done);
        return;
      }
    scoreboard_.push_back({lo, lo + bytes, done, false});
  };
  add_read(r.src0, r.src0_bytes);
  add_read(r.src1, r.src1_bytes);
  scoreboard_.push_back({dlo, dhi, done, true});

  // Counters and energy.
  const double N = double(uint64_t(1) << n.log_n), elems = n.limbs * N;
  double energy = 0;
  switch (n.op) {
    case pcs::Ntt::kForward:
    case pcs::Ntt::kInverse: {
      const double bf = elems / 2 * n.log_n;
      transforms_ += n.limbs;
      butterflies_ += bf;
      energy = bf * cfg_.butterfly_energy_pj;
      break;
    }
    case pcs::Ntt::kMulMod:
      modmuls_ += elems;
      energy = elems * cfg_.modmul_energy_pj;
      break;
    case pcs::Ntt::kAddMod:
    case pcs::Ntt::kSubMod:
      modadds_ += elems;
      energy = elems * cfg_.modadd_energy_pj;
      break;
    case pcs::Ntt::kMulAccMod:
      modmuls_ += elems;
      modadds_ += elems;
      energy = elems * (cfg_.modmul_energy_pj + cfg_.modadd_energy_pj);
      break;
    case pcs::Ntt::kAutomorph:
      automorph_elements_ += elems;
      energy = elems * cfg_.automorph_energy_pj;
      break;
    case pcs::Ntt::kBConv: {
      const double macs = elems * n.out_limbs;
      bconv_macs_ += macs;
      energy = macs * (cfg_.modmul_energy_pj + cfg_.modadd_energy_pj) + elems * cfg_.modmul_energy_pj;
      break;
    }
  }
  commands_ += 1;
  IssueResult res;
  res.accept_cycle = now + 1;  // one command dispatched per cycle into the internal engines
  res.done_cycle = done;
  res.energy_pj = energy;
  res.spm_bytes_read = r.src0_bytes + r.src1_bytes + (r.dst_read ? r.dst_bytes : 0) + r.moduli_bytes;
  res.spm_bytes_written = r.dst_bytes;
  return res;
}

const ntt::NttTables& NttEngine::tables(uint64_t q, uint32_t log_n) {
  auto& t = tables_[{q, log_n}];
  if (!t) {
    try {
      t = std::make_unique<ntt::NttTables>(q, log_n);
    } catch (const Error& e) {
      tables_.erase({q, log_n});
      throw decode_fault(e.message());
    }
  }
  return *t;
}

const ntt::BaseConverter& NttEngine::converter(const std::vector<uint64_t>& q, uint32_t from) {
  auto& c = converters_[q];
  if (!c) {
    try {
      c = std::make_unique<ntt::BaseConverter>(std::vector<uint64_t>(q.begin(), q.begin() + from),
                                               std::vector<uint64_t>(q.begin() + from, q.end()));
    } catch (const Error& e) {
      converters_.erase(q);
      throw decode_fault(e.message());
    }
  }
  return *c;
}

void NttEngine::execute(const pcs::Ntt& n, const MemView& spm, const std::vector<uint64_t>& q) {
  const uint32_t N = 1u << n.log_n;
  // check() resolved everything that can fault before the first write.
  std::vector<const ntt::NttTables*> tabs;
  if (unit_of(n.op) == kNttUnit)
    for (uint32_t i = 0; i < n.limbs; ++i) tabs.push_back(&tables(q[i], n.log_n));
  const ntt::BaseConverter* conv = n.op == pcs::Ntt::kBConv ? &converter(q, n.limbs) : nullptr;
  const uint64_t* s0 = spm.at<const uint64_t>(n.src0);
  const uint64_t* s1 = spm.at<const uint64_t>(n.src1);
  uint64_t* d = spm.at<uint64_t>(n.dst);
  const size_t words = size_t(n.limbs) * N;
  switch (n.op) {
    case pcs::Ntt::kForward:
    case pcs::Ntt::kInverse:
      if (d != s0) std::memmove(d, s0, words * 8);
      for (uint32_t i = 0; i < n.limbs; ++i) {
        if (n.op == pcs::Ntt::kForward)
          tabs[i]->forward(d + size_t(i) * N);
        else
          tabs[i]->inverse(d + size_t(i) * N);
      }
      break;
    case pcs::Ntt::kMulMod:
      for (uint32_t i = 0; i < n.limbs; ++i)
        ntt::mul_vec(s0 + size_t(i) * N, s1 + size_t(i) * N, d + size_t(i) * N, N, q[i]);
      break;
    case pcs::Ntt::kAddMod:
      for (uint32_t i = 0; i < n.limbs; ++i)
        ntt::add_vec(s0 + size_t(i) * N, s1 + size_t(i) * N, d + size_t(i) * N, N, q[i]);
      break;
    case pcs::Ntt::kSubMod:
      for (uint32_t i = 0; i < n.limbs; ++i)
        ntt::sub_vec(s0 + size_t(i) * N, s1 + size_t(i) * N, d + size_t(i) * N, N, q[i]);
      break;
    case pcs::Ntt::kMulAccMod:
      for (uint32_t i = 0; i < n.limbs; ++i)
        ntt::mul_acc_vec(s0 + size_t(i) * N, s1 + size_t(i) * N, d + size_t(i) * N, N, q[i]);
      break;
    case pcs::Ntt::kAutomorph: {
      std::vector<uint64_t> tmp(words);
      const uint32_t g = n.galois & ~kGaloisNttDomain;
      for (uint32_t i = 0; i < n.limbs; ++i) {
        if (n.galois & kGaloisNttDomain)
          ntt::automorph_ntt(s0 + size_t(i) * N, tmp.data() + size_t(i) * N, n.log_n, g);
        else
          ntt::automorph_coeff(s0 + size_t(i) * N, tmp.data() + size_t(i) * N, n.log_n, g, q[i]);
      }
      std::memcpy(d, tmp.data(), words * 8);
      break;
    }
    case pcs::Ntt::kBConv: {
      std::vector<uint64_t> tmp(size_t(n.out_limbs) * N);
      conv->convert(s0, tmp.data(), N);
      std::memcpy(d, tmp.data(), tmp.size() * 8);
      break;
    }
  }
}

std::map<std::string, double> NttEngine::counters() const {
  std::map<std::string, double> c{{"commands", commands_},
                                  {"transforms", transforms_},
                                  {"butterflies", butterflies_},
                                  {"modmuls", modmuls_},
                                  {"modadds", modadds_},
                                  {"bconv_macs", bconv_macs_},
                                  {"automorph_elements", automorph_elements_}};
  for (int u = 0; u < kUnits; ++u) c[std::string("busy_cycles.") + unit_name(Unit(u))] = double(busy_[u]);
  return c;
}

}  // namespace photon
