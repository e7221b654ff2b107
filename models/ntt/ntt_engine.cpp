#include "models/ntt/ntt_engine.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "models/ntt/ntt_storage.h"

namespace photon {

namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The shell names the unit ("command 4: ntt: ..."): the messages do not.
UnitFault decode_fault(const std::string& msg) { return UnitFault(UnitErrorCode::DECODE, msg); }

uint32_t bit_length(uint64_t q) {
  uint32_t b = 0;
  while (b < 64 && (q >> b)) ++b;
  return b;
}

/// Source and destination byte ranges of a command: {src0, src1 (may be empty), dst}. A source
/// of several terms spans from its first term to the end of its last (its hull).
struct Ranges {
  uint64_t src0 = 0, src0_bytes = 0, src1 = 0, src1_bytes = 0, dst = 0, dst_bytes = 0;
  uint64_t moduli_bytes = 0;
  uint64_t term_bytes = 0;  // bytes one term reads from each source
  uint32_t terms = 1;
  bool dst_read = false;  // MulAcc reads its destination
  /// Bytes read from the sources (every term of each).
  uint64_t source_reads() const { return terms * term_bytes * (src1_bytes ? 2 : 1); }
};

bool has_terms(uint8_t op) { return op == pcs::Ntt::kMulMod || op == pcs::Ntt::kMulAccMod; }

/// Products a command sums: its `terms` for mul_mod / mul_acc_mod, otherwise one.
uint32_t terms_of(const pcs::Ntt& n) { return has_terms(n.op) ? n.term_count() : 1; }

/// Ranges at `storage_bits` bits per residue (a limb is N * storage_bits / 8 bytes).
Ranges ranges_of(const pcs::Ntt& n, uint32_t storage_bits) {
  const uint64_t limb_bytes = (uint64_t(storage_bits) << n.log_n) / 8;
  Ranges r;
  r.terms = terms_of(n);
  r.term_bytes = n.limbs * limb_bytes;
  r.src0 = n.src0;
  r.src0_bytes = uint64_t(r.terms - 1) * n.src0_stride + r.term_bytes;
  r.dst = n.dst;
  r.dst_bytes = (n.op == pcs::Ntt::kBConv ? n.out_limbs : n.limbs) * limb_bytes;
  r.moduli_bytes = 8ull * (n.limbs + (n.op == pcs::Ntt::kBConv ? n.out_limbs : 0));
  if (n.op == pcs::Ntt::kMulMod || n.op == pcs::Ntt::kAddMod || n.op == pcs::Ntt::kSubMod ||
      n.op == pcs::Ntt::kMulAccMod) {
    r.src1 = n.src1;
    r.src1_bytes = uint64_t(r.terms - 1) * n.src1_stride + r.term_bytes;
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
  if (n.terms || n.src0_stride || n.src1_stride) {
    if (!has_terms(n.op))
      throw decode_fault(std::string("terms and strides are for mul_mod and mul_acc_mod, not ") +
                         pcs::ntt_op_name(n.op));
    if (n.terms > kMaxTerms)
      throw decode_fault("terms " + std::to_string(n.terms) + " above " + std::to_string(kMaxTerms));
    if (n.terms <= 1 && (n.src0_stride || n.src1_stride))
      throw decode_fault("src0_stride / src1_stride without terms > 1 (one product has no next term)");
    if ((n.src0_stride | n.src1_stride) & 7u) throw decode_fault("term strides must be multiples of 8 bytes");
  }
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
      compute = ceil_div(uint64_t(terms_of(n)) * n.limbs * N, cfg.modmul_lanes);
      fill = cfg.ewe_latency_cycles;
      break;
    case kAutomorphUnit:
      compute = ceil_div(n.limbs * N, cfg.automorph_lanes);
      fill = cfg.automorph_latency_cycles;
      break;
  }
  if (cfg.spm_words_per_cycle > 0) {
    const Ranges r = ranges_of(n, cfg.storage_bits);
    const uint64_t words = (r.source_reads() + r.dst_bytes + (r.dst_read ? r.dst_bytes : 0)) / 8;
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
  if ((uint64_t(cfg_.storage_bits) << n.log_n) % 64 != 0)
    throw decode_fault("a limb of 2^" + std::to_string(n.log_n) + " residues at " +
                       std::to_string(cfg_.storage_bits) + " bits is not a whole number of 8-byte words");
  const Ranges r = ranges_of(n, cfg_.storage_bits);
  if (spm.data != nullptr || spm.size != 0) {
    spm.check(n.moduli, r.moduli_bytes, "ntt moduli");
    spm.check(r.src0, r.src0_bytes, "ntt src0");
    if (r.src1_bytes) spm.check(r.src1, r.src1_bytes, "ntt src1");
    spm.check(r.dst, r.dst_bytes, "ntt dst");
  }
  if (r.terms > 1)
    for (int s = 0; s < 2; ++s) {
      const uint64_t lo = s ? r.src1 : r.src0, bytes = s ? r.src1_bytes : r.src0_bytes;
      if (overlaps(r.dst, r.dst_bytes, lo, lo + bytes))
        throw decode_fault(fmt::format(
            "dst [{:#x}, {:#x}) of a {}-term {} overlaps src{}'s terms, which span [{:#x}, {:#x}) (the sum is "
            "accumulated in dst)",
            r.dst, r.dst + r.dst_bytes, r.terms, pcs::ntt_op_name(n.op), s, lo, lo + bytes));
    }
  if (spm.data == nullptr) return {};
  const uint32_t nmod = n.limbs + (n.op == pcs::Ntt::kBConv ? n.out_limbs : 0);
  std::vector<uint64_t> q(nmod);
  std::memcpy(q.data(), spm.data + n.moduli, 8ull * nmod);
  for (uint32_t i = 0; i < nmod; ++i) check_modulus(q[i], i);
  if (unit_of(n.op) == kNttUnit)
    for (uint32_t i = 0; i < n.limbs; ++i) tables(q[i], n.log_n);
  if (n.op == pcs::Ntt::kBConv) converter(q, n.limbs);
  return q;
}

void NttEngine::check_modulus(uint64_t q, uint32_t i) const {
  if (q < 2 || q >= (uint64_t(1) << 62))
    throw decode_fault("modulus " + std::to_string(i) + " = " + std::to_string(q) + " outside [2, 2^62)");
  if (cfg_.word_bits < 64 && (q >> cfg_.word_bits))
    throw decode_fault("modulus " + std::to_string(i) + " = " + std::to_string(q) + " (" +
                       std::to_string(bit_length(q)) + " bits) is not below 2^ntt.word_bits = 2^" +
                       std::to_string(cfg_.word_bits) + " (the unit's modular word width)");
  if (cfg_.storage_bits < 64 && q > (uint64_t(1) << cfg_.storage_bits))
    throw decode_fault("modulus " + std::to_string(i) + " = " + std::to_string(q) +
                       ": its residues are wider than ntt.storage_bits = " + std::to_string(cfg_.storage_bits));
}

void NttEngine::check_command(const pcs::Command& cmd, const LoadImage& image) const {
  const auto* n = std::get_if<pcs::Ntt>(&cmd.body);
  if (cmd.opcode != pcs::Opcode::Ntt || !n) return;  // issue() reports the wrong body
  const uint32_t nmod = std::min<uint32_t>(4096, n->limbs) +
                        (n->op == pcs::Ntt::kBConv ? std::min<uint32_t>(4096, n->out_limbs) : 0);
  std::vector<uint64_t> q(nmod);
  if (!image.read_scratchpad(n->moduli, q.data(), 8ull * nmod)) return;  // known at run time only
  for (uint32_t i = 0; i < nmod; ++i) check_modulus(q[i], i);
}

uint64_t NttEngine::earliest_start(const pcs::Ntt& n, uint64_t now) const {
  const Ranges r = ranges_of(n, cfg_.storage_bits);
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
  const Ranges r = ranges_of(n, cfg_.storage_bits);
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
  const double N = double(uint64_t(1) << n.log_n), elems = n.limbs * N, terms = r.terms;
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
    case pcs::Ntt::kMulMod:  // terms products, terms - 1 additions per element
      modmuls_ += terms * elems;
      modadds_ += (terms - 1) * elems;
      energy = terms * elems * cfg_.modmul_energy_pj + (terms - 1) * elems * cfg_.modadd_energy_pj;
      break;
    case pcs::Ntt::kAddMod:
    case pcs::Ntt::kSubMod:
      modadds_ += elems;
      energy = elems * cfg_.modadd_energy_pj;
      break;
    case pcs::Ntt::kMulAccMod:
      modmuls_ += terms * elems;
      modadds_ += terms * elems;
      energy = terms * elems * (cfg_.modmul_energy_pj + cfg_.modadd_energy_pj);
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
  res.spm_bytes_read = r.source_reads() + (r.dst_read ? r.dst_bytes : 0) + r.moduli_bytes;
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

void NttEngine::execute_terms(const pcs::Ntt& n, const MemView& spm, const std::vector<uint64_t>& q) {
  const size_t N = size_t(1) << n.log_n, words = size_t(n.limbs) * N;
  const uint32_t bits = cfg_.storage_bits;
  auto load = [&](uint64_t at, std::vector<uint64_t>& out) {
    out.resize(words);
    if (bits == 64)
      std::memcpy(out.data(), spm.data + at, words * 8);
    else
      ntt::unpack_residues(spm.data + at, words, bits, out.data());
  };
  std::vector<uint64_t> acc(words, 0), a, b;
  if (n.op == pcs::Ntt::kMulAccMod) load(n.dst, acc);
  for (uint32_t t = 0; t < n.term_count(); ++t) {
    load(n.src0 + uint64_t(t) * n.src0_stride, a);
    load(n.src1 + uint64_t(t) * n.src1_stride, b);
    for (uint32_t i = 0; i < n.limbs; ++i)
      ntt::mul_acc_vec(a.data() + i * N, b.data() + i * N, acc.data() + i * N, uint32_t(N), q[i]);
  }
  if (bits == 64)
    std::memcpy(spm.data + n.dst, acc.data(), words * 8);
  else
    ntt::pack_residues(acc.data(), words, bits, spm.data + n.dst);
}

void NttEngine::execute(const pcs::Ntt& n, const MemView& spm, const std::vector<uint64_t>& q) {
  if (terms_of(n) > 1) return execute_terms(n, spm, q);
  const uint32_t N = 1u << n.log_n;
  // check() resolved everything that can fault before the first write.
  std::vector<const ntt::NttTables*> tabs;
  if (unit_of(n.op) == kNttUnit)
    for (uint32_t i = 0; i < n.limbs; ++i) tabs.push_back(&tables(q[i], n.log_n));
  const ntt::BaseConverter* conv = n.op == pcs::Ntt::kBConv ? &converter(q, n.limbs) : nullptr;
  const size_t words = size_t(n.limbs) * N;
  // Packed words: the unit unpacks its operands into 64-bit lanes and packs the result.
  const uint32_t bits = cfg_.storage_bits;
  std::vector<uint64_t> u0, u1, ud;
  const uint64_t* s0;
  const uint64_t* s1 = nullptr;
  uint64_t* d;
  const size_t dst_words = size_t(n.op == pcs::Ntt::kBConv ? n.out_limbs : n.limbs) * N;
  if (bits == 64) {
    s0 = spm.at<const uint64_t>(n.src0);
    s1 = spm.at<const uint64_t>(n.src1);
    d = spm.at<uint64_t>(n.dst);
  } else {
    const Ranges r = ranges_of(n, bits);
    u0.resize(words);
    ntt::unpack_residues(spm.data + n.src0, words, bits, u0.data());
    s0 = u0.data();
    if (r.src1_bytes) {
      u1.resize(words);
      ntt::unpack_residues(spm.data + n.src1, words, bits, u1.data());
      s1 = u1.data();
    }
    ud.resize(dst_words);
    if (r.dst_read) ntt::unpack_residues(spm.data + n.dst, dst_words, bits, ud.data());
    d = ud.data();
  }
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
  if (bits != 64) ntt::pack_residues(ud.data(), dst_words, bits, spm.data + n.dst);
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
