// The streamed FHE lowering (docs/fhe.md "Memory plan") against three oracles written apart from
// it:
//   - the resident lowering: both command streams run on a sequential functional emulator (real
//     modular arithmetic in the NTT unit's core, DMA copies between a sparse HBM and the
//     scratchpad) from the same inputs and keys, and their results must be equal word for word;
//   - the closed form of every op's work (fhe_closed_form.h): streaming moves data, it does not
//     change the arithmetic;
//   - a happens-before check of the two queues: every pair of DMA and NTT commands that touch
//     overlapping scratchpad bytes (one of them writing) is ordered by a Signal/Wait pair, and
//     the semaphores balance.
// Plus the minimum-scratchpad error and the policies' invariants.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <unordered_map>

#include "models/ntt/ntt_engine.h"
#include "models/ntt/ntt_storage.h"
#include "platform/report/op_work.h"
#include "tests/workloads/fhe/fhe_closed_form.h"
#include "workloads/fhe/fhe_bootstrap.h"
#include "workloads/fhe/fhe_keys.h"
#include "workloads/fhe/fhe_lowering.h"
#include "workloads/fhe/fhe_memory_plan.h"
#include "workloads/fhe/fhe_op_traits.h"
#include "workloads/fhe/fhe_stream_internal.h"

namespace photon::fhe {
namespace {

// ---------------------------------------------------------------------------------------------
// A sequential functional emulator of a command stream: NTT commands through NttEngine (real
// arithmetic, range checks), DMA copies byte for byte; Signal/Wait ignored (program order is a
// valid serialisation of a correctly ordered stream).

class SparseHbm {
 public:
  uint8_t* page(uint64_t a) {
    auto& p = pages_[a >> 12];
    if (p.empty()) p.assign(4096, 0);
    return p.data();
  }
  void write(uint64_t a, const uint8_t* src, uint64_t n) {
    while (n) {
      const uint64_t k = std::min<uint64_t>(n, 4096 - (a & 4095));
      std::memcpy(page(a) + (a & 4095), src, k);
      a += k, src += k, n -= k;
    }
  }
  void read(uint64_t a, uint8_t* dst, uint64_t n) {
    while (n) {
      const uint64_t k = std::min<uint64_t>(n, 4096 - (a & 4095));
      std::memcpy(dst, page(a) + (a & 4095), k);
      a += k, dst += k, n -= k;
    }
  }

 private:
  std::unordered_map<uint64_t, std::vector<uint8_t>> pages_;
};

struct Emulator {
  explicit Emulator(const RunConfig& c) : cfg(c), spm(c.scratchpad.size_kib * 1024, 0), ntt(c.ntt) {}
  const RunConfig& cfg;
  std::vector<uint8_t> spm;
  SparseHbm hbm;
  NttEngine ntt;

  bool in_spm(uint64_t a) const { return a >= cfg.noc.scratchpad_base; }
  void copy(uint64_t src, uint64_t dst, uint64_t n) {
    std::vector<uint8_t> buf(n);
    if (in_spm(src)) {
      ASSERT_LE(src - cfg.noc.scratchpad_base + n, spm.size()) << "DMA source outside the scratchpad";
      std::memcpy(buf.data(), spm.data() + (src - cfg.noc.scratchpad_base), n);
    } else {
      hbm.read(src - cfg.noc.hbm_base, buf.data(), n);
    }
    if (in_spm(dst)) {
      ASSERT_LE(dst - cfg.noc.scratchpad_base + n, spm.size()) << "DMA destination outside the scratchpad";
      std::memcpy(spm.data() + (dst - cfg.noc.scratchpad_base), buf.data(), n);
    } else {
      hbm.write(dst - cfg.noc.hbm_base, buf.data(), n);
    }
  }
  void run(const pcs::Program& p) {
    for (const auto& s : p.segments) hbm.write(s.address - cfg.noc.hbm_base, s.bytes.data(), s.bytes.size());
    const MemView view{spm.data(), spm.size()};
    for (size_t i = 0; i < p.commands.size(); ++i) {
      const pcs::Command& c = p.commands[i];
      if (c.opcode == pcs::Opcode::Ntt) {
        ASSERT_NO_THROW(ntt.issue(c, 0, view)) << "command " << i;
      } else if (c.opcode == pcs::Opcode::DmaCopy) {
        const auto& d = std::get<pcs::DmaCopy>(c.body);
        for (uint32_t b = 0; b < d.n2; ++b)
          for (uint32_t a = 0; a < d.n1; ++a)
            copy(d.src + uint64_t(b) * d.src_stride2 + uint64_t(a) * d.src_stride1,
                 d.dst + uint64_t(b) * d.dst_stride2 + uint64_t(a) * d.dst_stride1, d.inner_bytes);
      }
    }
  }
};

/// A residue pattern below 2^20 (valid mod every prime of the chain).
uint64_t pattern(uint64_t x) { return (x * 2654435761ull + 12345) % 1000003; }

/// Writes / reads limbs of a polynomial region (scratchpad offset or HBM offset).
struct Region {
  bool spm;
  uint64_t addr;
};
void put_words(Emulator& e, Region r, uint64_t byte, const std::vector<uint64_t>& w) {
  std::vector<uint8_t> b((w.size() * e.cfg.ntt.storage_bits + 7) / 8);
  ntt::pack_residues(w.data(), w.size(), e.cfg.ntt.storage_bits, b.data());
  if (r.spm)
    std::memcpy(e.spm.data() + r.addr + byte, b.data(), b.size());
  else
    e.hbm.write(r.addr + byte, b.data(), b.size());
}
std::vector<uint64_t> get_words(Emulator& e, Region r, uint64_t byte, uint64_t count) {
  std::vector<uint8_t> b((count * e.cfg.ntt.storage_bits + 7) / 8);
  if (r.spm)
    std::memcpy(b.data(), e.spm.data() + r.addr + byte, b.size());
  else
    e.hbm.read(r.addr + byte, b.data(), b.size());
  std::vector<uint64_t> w(count);
  ntt::unpack_residues(b.data(), count, e.cfg.ntt.storage_bits, w.data());
  return w;
}

/// Where the program's buffers are, for one lowering.
struct Layout {
  Region cur, opb, d2, konst, keys;
  uint64_t poly_stride = 0, konst_limbs = 0;
};

Layout resident_layout(const std::vector<FheOp>& ops, const RunConfig& cfg) {
  const FheMemoryPlan m = plan_fhe_memory(ops, cfg);
  Layout l;
  l.cur = {true, m.cur};
  l.opb = {true, m.opb};
  l.d2 = {true, m.d2};
  l.konst = {true, m.konst};
  l.konst_limbs = m.q_slots;
  l.keys = {false, m.key_hbm_base};
  l.poly_stride = uint64_t(m.q_slots) * m.lb_max;
  return l;
}

Layout streamed_layout(const std::vector<FheOp>& ops, const RunConfig& cfg) {
  static FheMemoryPlan m;  // the stream plan points at it
  m = plan_fhe_memory(ops, cfg);
  const FheStreamPlan p = plan_fhe_stream(ops, cfg, m);
  Layout l;
  auto at = [](const std::optional<uint64_t>& spm, uint64_t home) {
    return spm ? Region{true, *spm} : Region{false, home};
  };
  l.cur = at(p.cur_spm, p.cur_home);
  l.opb = at(p.opb_spm, p.opb_home);
  l.d2 = at(p.d2_spm, p.d2_home);
  l.konst = {true, p.konst_base};
  l.konst_limbs = p.konst_limbs;
  l.keys = {false, p.key_base};
  l.poly_stride = p.ct_bytes / 2;
  return l;
}

/// The checked ops of `prog` as lower_fhe sees them (dnum filled, composites on their chain).
std::vector<FheOp> checked_ops(const FheProgram& prog, const FheConfig& fc) {
  std::vector<FheOp> ops;
  for (FheOp o : prog.ops) {
    if (o.dnum == 0) o.dnum = (o.max_level + o.alpha) / o.alpha;
    if (const auto chain = fhe_op_traits(o.kind).chain) o = chain(o, fc);
    ops.push_back(o);
  }
  return ops;
}

/// Fills inputs and keys, runs, returns the output words of CUR, OPB and D2 (limbs [0, q_slots)).
std::vector<uint64_t> run_functional(const pcs::Program& prog, const Layout& l, const RunConfig& cfg,
                                     uint32_t q_slots, uint32_t log_n, uint64_t key_bytes) {
  Emulator e(cfg);
  const uint64_t N = uint64_t(1) << log_n, lb = cfg.ntt.limb_bytes(log_n);
  auto fill = [&](Region r, uint32_t polys, uint64_t seed) {
    for (uint32_t k = 0; k < polys; ++k)
      for (uint32_t i = 0; i < q_slots; ++i) {
        std::vector<uint64_t> w(N);
        for (uint64_t x = 0; x < N; ++x) w[x] = pattern(seed + (k * 64 + i) * N + x);
        put_words(e, r, k * l.poly_stride + i * lb, w);
      }
  };
  fill(l.cur, 2, 1u << 30);
  fill(l.opb, 2, 2u << 30);
  fill(l.d2, 1, 3u << 30);
  put_words(e, l.konst, 0, std::vector<uint64_t>(l.konst_limbs * N, 1));  // scalars: 1
  // Keys: the same words at the same offsets from each layout's key region.
  {
    std::vector<uint64_t> w(key_bytes * 8 / cfg.ntt.storage_bits);
    for (size_t x = 0; x < w.size(); ++x) w[x] = pattern(x * 7 + 5);
    put_words(e, l.keys, 0, w);
  }
  e.run(prog);
  std::vector<uint64_t> out;
  for (const auto& [r, polys] : {std::pair{l.cur, 2u}, std::pair{l.opb, 2u}, std::pair{l.d2, 1u}})
    for (uint32_t k = 0; k < polys; ++k) {
      const auto w = get_words(e, r, k * l.poly_stride, uint64_t(q_slots) * N);
      out.insert(out.end(), w.begin(), w.end());
    }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Ordering oracle: happens-before across the DMA and NTT queues from the stream itself.

struct Access {
  uint64_t lo, hi;
  bool write;
  size_t pos;  // position in its queue
};

/// Scratchpad ranges a command touches (NTT operands at the engine's limb size; DMA rows).
std::vector<Access> accesses(const pcs::Command& c, const RunConfig& cfg) {
  std::vector<Access> a;
  const uint64_t sb = cfg.noc.scratchpad_base;
  if (c.opcode == pcs::Opcode::Ntt) {
    const auto& n = std::get<pcs::Ntt>(c.body);
    const uint64_t lb = cfg.ntt.limb_bytes(n.log_n);
    const bool two = n.op == pcs::Ntt::kMulMod || n.op == pcs::Ntt::kAddMod || n.op == pcs::Ntt::kSubMod ||
                     n.op == pcs::Ntt::kMulAccMod;
    a.push_back({n.src0, n.src0 + n.limbs * lb, false, 0});
    if (two) a.push_back({n.src1, n.src1 + n.limbs * lb, false, 0});
    const uint64_t out = (n.op == pcs::Ntt::kBConv ? n.out_limbs : n.limbs) * lb;
    a.push_back({n.dst, n.dst + out, true, 0});
  } else if (c.opcode == pcs::Opcode::DmaCopy) {
    const auto& d = std::get<pcs::DmaCopy>(c.body);
    for (uint32_t r = 0; r < d.n1; ++r) {
      if (d.src >= sb)
        a.push_back(
            {d.src - sb + r * d.src_stride1, d.src - sb + r * d.src_stride1 + d.inner_bytes, false, 0});
      if (d.dst >= sb)
        a.push_back(
            {d.dst - sb + r * d.dst_stride1, d.dst - sb + r * d.dst_stride1 + d.inner_bytes, true, 0});
    }
  }
  return a;
}

/// Fails for a pair of cross-queue conflicting scratchpad accesses not ordered by semaphores.
/// A Signal on queue Q is reached when every earlier command of Q completed; the k-th Wait of a
/// semaphore takes the k-th Signal.
void expect_queues_ordered(const pcs::Program& p, const RunConfig& cfg) {
  enum { kDma = 0, kNtt = 1 };
  std::vector<Access> seen[2];                  // accesses per queue, with queue positions
  std::map<uint32_t, std::vector<size_t>> sig;  // per semaphore: signalling queue position
  std::map<uint32_t, int> sig_queue, waits_taken;
  size_t pos[2] = {0, 0};
  // covered[q]: queue position of `q`'s commands known complete before the other queue's next command
  size_t covered[2] = {0, 0};
  std::map<uint32_t, int> signals_total, waits_total;
  for (size_t i = 0; i < p.commands.size(); ++i) {
    const pcs::Command& c = p.commands[i];
    if (c.opcode == pcs::Opcode::Signal || c.opcode == pcs::Opcode::Wait) {
      const auto& s = std::get<pcs::Sync>(c.body);
      const int q = s.queue == pcs::Queue::Dma ? kDma : kNtt;
      if (c.opcode == pcs::Opcode::Signal) {
        sig[s.sem].push_back(pos[q]);  // everything of q before this position
        sig_queue[s.sem] = q;
        ++signals_total[s.sem];
      } else {
        ++waits_total[s.sem];
        const int k = waits_taken[s.sem]++;
        ASSERT_LT(size_t(k), sig[s.sem].size()) << "command " << i << ": a Wait before its Signal";
        const int from = sig_queue[s.sem];
        if (from != q) covered[from] = std::max(covered[from], sig[s.sem][size_t(k)]);
      }
      continue;
    }
    const int q = c.opcode == pcs::Opcode::DmaCopy ? kDma : (c.opcode == pcs::Opcode::Ntt ? kNtt : -1);
    if (q < 0) continue;
    const int other = 1 - q;
    for (Access a : accesses(c, cfg)) {
      for (const Access& b : seen[other])
        if (b.pos >= covered[other] && a.lo < b.hi && b.lo < a.hi && (a.write || b.write))
          ADD_FAILURE() << "command " << i << " (" << (q == kDma ? "DMA" : "NTT") << ") touches [" << a.lo
                        << ", " << a.hi << ") unordered after the other queue's command at its position "
                        << b.pos;
      a.pos = pos[q];
      seen[q].push_back(a);
    }
    // Forget accesses already ordered before everything that follows on the other queue.
    auto& o = seen[other];
    o.erase(std::remove_if(o.begin(), o.end(), [&](const Access& b) { return b.pos < covered[other]; }),
            o.end());
    ++pos[q];
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_EQ(signals_total, waits_total) << "semaphores balance";
}

// ---------------------------------------------------------------------------------------------

RunConfig base_config() {
  RunConfig cfg;
  cfg.ntt.word_bits = 50;
  return cfg;
}

FheOp make_op(FheOpKind k, uint32_t log_n, uint32_t L, uint32_t l, uint32_t alpha) {
  FheOp op;
  op.kind = k;
  op.name = fhe_op_kind_name(k);
  op.log_n = log_n;
  op.max_level = L;
  op.level = l;
  op.alpha = alpha;
  op.dnum = (L + alpha) / alpha;
  op.rotation = 3;
  op.count = 3;
  return op;
}

bool streamed(const pcs::Program& p) { return p.ops[0].detail.find("streamed") != std::string::npos; }

/// The smallest scratchpad (KiB) in which `prog` lowers at all.
uint64_t minimum_kib(const FheProgram& prog, RunConfig cfg) {
  uint64_t lo = 64, hi = uint64_t(4) << 20;
  while (lo < hi) {
    const uint64_t mid = (lo + hi) / 2;
    cfg.scratchpad.size_kib = mid;
    try {
      lower_fhe(prog, cfg);
      hi = mid;
    } catch (const Error&) { lo = mid + 1; }
  }
  return lo;
}

/// Work of the whole stream except the set-up op, as the report counts it.
FheOpCounts work_of(const pcs::Program& p) {
  FheOpCounts c;
  const std::vector<OpWork> work = count_op_work(p, 0, ~uint64_t(0));
  for (size_t t = 1; t < work.size(); ++t) {
    c.ntt += work[t].ntt_limb_transforms;
    c.bconv_macs += work[t].bconv_macs;
    c.modmuls += work[t].modmul_words;
    c.modadds += work[t].modadd_words;
    c.automorph_elems += work[t].automorph_words;
  }
  return c;
}

struct Case {
  std::string name;
  FheProgram prog;
};

std::vector<Case> cases() {
  std::vector<Case> v;
  auto one = [&](FheOpKind k, uint32_t log_n, uint32_t L, uint32_t l, uint32_t a, uint32_t degree = 1) {
    Case c;
    FheOp op = make_op(k, log_n, L, k == FheOpKind::ModRaise ? 0 : l, a);
    op.ct_degree = degree;
    c.name = std::string(fhe_op_kind_name(k)) + (degree > 1 ? "_d" + std::to_string(degree) : "");
    c.prog.ops = {op};
    v.push_back(c);
  };
  for (FheOpKind k : {FheOpKind::Add, FheOpKind::Sub, FheOpKind::Negate, FheOpKind::AddPlain,
                      FheOpKind::SubPlain, FheOpKind::MulPlain, FheOpKind::MulScalar, FheOpKind::Mul,
                      FheOpKind::Relinearize, FheOpKind::Rescale, FheOpKind::Rotate, FheOpKind::Conjugate,
                      FheOpKind::HoistedRotate, FheOpKind::KeySwitch, FheOpKind::Encode, FheOpKind::ModRaise})
    one(k, 10, 7, 6, 3);
  one(FheOpKind::Mul, 10, 7, 6, 3, 2);
  one(FheOpKind::Relinearize, 10, 7, 6, 3, 3);
  one(FheOpKind::Rotate, 10, 8, 8, 2);       // 5 digits of 2 limbs
  one(FheOpKind::KeySwitch, 10, 15, 15, 8);  // 2 digits of 8 limbs: the digit's coefficients go through HBM
  one(FheOpKind::Rotate, 10, 15, 15, 8);
  auto sequence = [&](const char* name, std::vector<FheOp> ops) {
    Case c;
    c.name = name;
    c.prog.ops = std::move(ops);
    v.push_back(c);
  };
  sequence("MulRelin", {make_op(FheOpKind::Mul, 10, 7, 6, 3), make_op(FheOpKind::Relinearize, 10, 7, 6, 3)});
  sequence("RescaleRotate",
           {make_op(FheOpKind::Rescale, 10, 7, 6, 3), make_op(FheOpKind::Rotate, 10, 7, 5, 3)});
  sequence("RotateRotate",
           {make_op(FheOpKind::Rotate, 10, 7, 6, 3), make_op(FheOpKind::Rotate, 10, 7, 6, 3)});
  sequence("MulRelinRescale",
           {make_op(FheOpKind::Mul, 10, 7, 6, 3), make_op(FheOpKind::Relinearize, 10, 7, 6, 3),
            make_op(FheOpKind::Rescale, 10, 7, 6, 3)});
  sequence("RelinRotate",
           {make_op(FheOpKind::Relinearize, 10, 7, 5, 3), make_op(FheOpKind::Rotate, 10, 7, 5, 3)});
  Case seq;
  seq.name = "MulRelinRescaleRotations";
  for (FheOpKind k : {FheOpKind::Mul, FheOpKind::Relinearize, FheOpKind::Rescale})
    seq.prog.ops.push_back(make_op(k, 10, 7, 6, 3));
  for (int r : {1, 2, 1}) {
    FheOp o = make_op(FheOpKind::Rotate, 10, 7, 5, 3);
    o.rotation = r;
    seq.prog.ops.push_back(o);
  }
  v.push_back(seq);
  return v;
}

/// The policy pairs (key, ciphertext) every case is checked with.
const std::pair<KeyPolicy, CtPolicy> kPolicies[] = {{KeyPolicy::Lru, CtPolicy::Spill},
                                                    {KeyPolicy::None, CtPolicy::None},
                                                    {KeyPolicy::Pinned, CtPolicy::Hottest},
                                                    {KeyPolicy::Lru, CtPolicy::Hottest}};
std::string policies(KeyPolicy k, CtPolicy c) {
  return std::string(key_policy_table().name(k)) + "/" + ct_policy_table().name(c);
}

TEST(FheStream, StreamedResultsEqualTheResidentLoweringAtEveryCapacityAndPolicy) {
  std::string shapes;  // every dataflow and tiling the plans chose, for the coverage check below
  for (const Case& c : cases()) {
    RunConfig big = base_config();
    big.scratchpad.size_kib = 64 * 1024;
    const pcs::Program resident = lower_fhe(c.prog, big);
    ASSERT_FALSE(streamed(resident)) << c.name;
    const std::vector<FheOp> ops = checked_ops(c.prog, big.fhe);
    const FheMemoryPlan m = plan_fhe_memory(ops, big);
    const uint64_t key_bytes = 8 * fhe_key_bytes(ops[0], big.ntt.storage_bits) + (1u << 20);
    const std::vector<uint64_t> want =
        run_functional(resident, resident_layout(ops, big), big, m.q_slots, m.log_n_max, key_bytes);
    for (const auto& [kp, cp] : kPolicies) {
      RunConfig cfg = base_config();
      cfg.fhe.key_policy = kp;
      cfg.fhe.ct_policy = cp;
      const uint64_t lo = minimum_kib(c.prog, cfg);
      for (uint64_t kib : {lo, lo + lo / 2, 3 * lo}) {
        cfg.scratchpad.size_kib = kib;
        const std::string what = c.name + " " + policies(kp, cp) + " at " + std::to_string(kib) + " KiB";
        const pcs::Program p = lower_fhe(c.prog, cfg);
        if (!streamed(p)) continue;  // resident already: checked by fhe_lowering_test
        for (const auto& op : p.ops) shapes += op.detail + "\n";
        const std::vector<uint64_t> got =
            run_functional(p, streamed_layout(ops, cfg), cfg, m.q_slots, m.log_n_max, key_bytes);
        ASSERT_EQ(got.size(), want.size()) << what;
        size_t bad = 0, first = got.size();
        for (size_t i = 0; i < got.size(); ++i)
          if (got[i] != want[i]) {
            bad++;
            first = std::min(first, i);
          }
        const uint64_t limb_words = uint64_t(1) << m.log_n_max;
        EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size()
                           << " words differ, the first in polynomial " << first / (limb_words * m.q_slots)
                           << " (cur 0-1, operand 2-3, d2 4) limb " << first / limb_words % m.q_slots << [&] {
                                std::string d;
                                for (const auto& o : p.ops) d += "\n  " + o.name + ": " + o.detail;
                                return d;
                              }();
        expect_queues_ordered(p, cfg);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
  for (const char* feature :
       {"acc_resident", "raised", "coeff_transposed", "accp_transposed", "rot_on_the_fly", "rot_in_hbm",
        "split=", "tsplit=", "tight", "chunk=1", "chunk=3", "g=2"})
    EXPECT_NE(shapes.find(feature), std::string::npos) << "no case exercised " << feature;
}

TEST(FheStream, StreamingMovesDataButKeepsTheWorkOfTheClosedForm) {
  for (const Case& c : cases()) {
    RunConfig cfg = base_config();
    FheOpCounts want;
    for (const FheOp& o : checked_ops(c.prog, cfg.fhe)) want += count_fhe_op(o, cfg.fhe);
    for (const auto& [kp, cp] : kPolicies) {
      cfg.fhe.key_policy = kp;
      cfg.fhe.ct_policy = cp;
      const uint64_t lo = minimum_kib(c.prog, cfg);
      for (uint64_t kib : {lo, 2 * lo}) {
        cfg.scratchpad.size_kib = kib;
        const pcs::Program p = lower_fhe(c.prog, cfg);
        const FheOpCounts got = work_of(p);
        const std::string what = c.name + " " + policies(kp, cp) + " at " + std::to_string(kib) + " KiB";
        // A rotation rotated on the fly in the raised dataflow rotates its own digits a second
        // time in the inner product: K more limbs through the automorphism unit (docs/fhe.md).
        FheOpCounts want_here = want;
        const std::vector<FheOp> ops = checked_ops(c.prog, cfg.fhe);
        for (size_t i = 1; i < p.ops.size(); ++i)
          if (p.ops[i].detail.find("rot_on_the_fly") != std::string::npos &&
              p.ops[i].detail.find("raised") != std::string::npos)
            want_here.automorph_elems += (ops[i - 1].level + 1ull) << ops[i - 1].log_n;
        EXPECT_EQ(got.ntt, want_here.ntt) << what;
        EXPECT_EQ(got.bconv_macs, want_here.bconv_macs) << what;
        EXPECT_EQ(got.modmuls, want_here.modmuls) << what;
        EXPECT_EQ(got.modadds, want_here.modadds) << what;
        EXPECT_EQ(got.automorph_elems, want_here.automorph_elems) << what;
        // The plan's peak fits the scratchpad.
        for (const auto& op : p.ops)
          for (const auto& [name, v] : op.memory) {
            if (name == "peak_scratchpad_bytes") {
              EXPECT_LE(v, kib * 1024) << what;
            }
          }
      }
    }
  }
}

/// Evaluation-key bytes the program's DMAs read (the op rows' memory figures).
uint64_t key_bytes_read(const pcs::Program& p) {
  uint64_t n = 0;
  for (const auto& op : p.ops)
    for (const auto& [name, v] : op.memory)
      if (name == "key_bytes") n += v;
  return n;
}

TEST(FheStream, PinnedKeysReadNoMoreThanStreamingEveryUse) {
  // A pinned slot loads its key once, over the digits and limbs of the key's highest-level use, so
  // it never reads more than streaming each key switch's part of its key (key_policy none). The
  // rotations here run at level 5 of L = 7: a whole-key load would read more.
  FheProgram prog;
  for (int r : {1, 2, 1}) {
    FheOp o = make_op(FheOpKind::Rotate, 10, 7, 5, 3);
    o.rotation = r;
    prog.ops.push_back(o);
  }
  RunConfig cfg = base_config();
  cfg.fhe.layout = FheLayout::Streamed;
  cfg.scratchpad.size_kib = 4 * 1024;
  cfg.fhe.key_policy = KeyPolicy::None;
  const uint64_t streamed_bytes = key_bytes_read(lower_fhe(prog, cfg));
  cfg.fhe.key_policy = KeyPolicy::Pinned;
  const pcs::Program pinned = lower_fhe(prog, cfg);
  const uint64_t pinned_bytes = key_bytes_read(pinned);
  // Closed form: two distinct keys, each loaded once: 2 beta (K + alpha) limbs of N words,
  // beta = ceil(6 / 3) = 2, K = 6, alpha = 3, N = 2^10, 8-byte words.
  EXPECT_EQ(pinned_bytes, 2ull * (2 * 2 * (6 + 3)) * (1u << 10) * 8) << pinned.ops[0].detail;
  EXPECT_LT(pinned_bytes, streamed_bytes);
}

TEST(FheStream, ALimbGroupAboveTheChainLowersAsTheWholeChain) {
  // fhe.limb_group caps the limbs per tile; a group above L + 1 + alpha limbs has no more limbs to
  // take, so it must lower exactly as the whole chain does (not size buffers for missing limbs).
  FheProgram prog;
  prog.ops = {make_op(FheOpKind::Mul, 12, 5, 5, 2), make_op(FheOpKind::Relinearize, 12, 5, 5, 2)};
  RunConfig cfg = base_config();
  cfg.fhe.layout = FheLayout::Streamed;
  cfg.scratchpad.size_kib = 8 * 1024;
  cfg.fhe.limb_group = 5 + 1 + 2;
  const pcs::Program whole = lower_fhe(prog, cfg);
  for (uint32_t g : {9u, 16u, 64u}) {
    cfg.fhe.limb_group = g;
    EXPECT_TRUE(lower_fhe(prog, cfg) == whole) << "fhe.limb_group=" << g;
  }
  cfg.fhe.limb_group = 2;  // a real cap still changes the tiles
  EXPECT_FALSE(lower_fhe(prog, cfg) == whole);
}

TEST(FheStream, BelowTheMinimumOneErrorNamesTheSizeNeeded) {
  FheProgram prog;
  prog.ops = {make_op(FheOpKind::Rotate, 12, 7, 7, 3)};
  RunConfig cfg = base_config();
  const uint64_t lo = minimum_kib(prog, cfg);
  cfg.scratchpad.size_kib = lo - 1;
  try {
    lower_fhe(prog, cfg);
    FAIL() << "no error below the minimum";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("scratchpad.size_kib"), std::string::npos) << m;
    EXPECT_NE(m.find("needs at least " + std::to_string(lo) + " KiB"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  // The minimum is a few limbs: at most 16 limbs of 2^12 words plus the 64 KiB of tables.
  EXPECT_LE(lo, 64 + 16 * 32) << lo;
}

}  // namespace
}  // namespace photon::fhe
