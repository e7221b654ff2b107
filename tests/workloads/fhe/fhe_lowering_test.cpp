// FHE lowering: the command expansion of every op, tallied here from the commands themselves,
// against the closed forms of count_fhe_op() (fhe_closed_form.h, the oracle); key traffic and the
// key LRU; semaphores; errors.
#include "workloads/fhe/fhe_lowering.h"
#include "tests/support/queue_semantics.h"

#include <cstring>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "models/ntt/ntt_engine.h"
#include "platform/report/op_work.h"
#include "tests/workloads/fhe/fhe_closed_form.h"
#include "workloads/fhe/fhe_bootstrap.h"
#include "workloads/fhe/fhe_keys.h"
#include "workloads/fhe/fhe_op_traits.h"

namespace photon::fhe {
namespace {

/// Work of the commands with tag `tag` (all tags if kNoTag), as the report counts it from their
/// fields (platform/report/op_work.h).
FheOpCounts tally(const pcs::Program& p, uint32_t tag) {
  FheOpCounts c;
  const std::vector<OpWork> work = count_op_work(p, 0, ~uint64_t(0));
  for (size_t t = 0; t < work.size(); ++t) {
    if (tag != pcs::kNoTag && t != tag) continue;
    const OpWork& w = work[t];
    c.ntt += w.ntt_limb_transforms;
    c.bconv_macs += w.bconv_macs;
    c.modmuls += w.modmul_words;
    c.modadds += w.modadd_words;
    c.automorph_elems += w.automorph_words;
    c.hbm_bytes += w.dma_bytes;
  }
  return c;
}

/// True if `prog` lowers with the resident layout (every buffer on chip, whole-key slots) at cfg;
/// below that size it is streamed (tests/workloads/fhe/fhe_stream_test.cpp).
bool lowers_resident(const FheProgram& prog, const RunConfig& cfg) {
  try {
    return lower_fhe(prog, cfg).ops[0].detail.find("streamed") == std::string::npos;
  } catch (const Error&) { return false; }
}

/// The smallest scratchpad.size_kib (binary search up to 1 GiB) in which `prog` lowers with the
/// resident layout.
uint64_t smallest_scratchpad_kib(const FheProgram& prog, RunConfig cfg) {
  uint64_t lo = 1, hi = uint64_t(1) << 20;
  while (lo < hi) {
    const uint64_t mid = (lo + hi) / 2;
    cfg.scratchpad.size_kib = mid;
    if (lowers_resident(prog, cfg))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

RunConfig big_config() {
  RunConfig cfg;
  cfg.scratchpad.size_kib = uint64_t(4) << 20;  // 4 GiB
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

void expect_counts_equal(const FheOpCounts& got, const FheOpCounts& want, const std::string& what) {
  EXPECT_EQ(got.ntt, want.ntt) << what;
  EXPECT_EQ(got.bconv_macs, want.bconv_macs) << what;
  EXPECT_EQ(got.modmuls, want.modmuls) << what;
  EXPECT_EQ(got.modadds, want.modadds) << what;
  EXPECT_EQ(got.automorph_elems, want.automorph_elems) << what;
  EXPECT_EQ(got.hbm_bytes, want.hbm_bytes) << what;
}

struct Point {
  uint32_t log_n, L, l, alpha;
};

TEST(FheLowering, ExpansionMatchesClosedFormForEveryOp) {
  const RunConfig cfg = big_config();
  const Point points[] = {{12, 5, 5, 2},   {12, 7, 4, 3},    {13, 10, 10, 4},
                          {13, 12, 9, 13}, {16, 34, 34, 12}, {16, 23, 23, 6}};
  const FheOpKind kinds[] = {FheOpKind::Add,           FheOpKind::Sub,        FheOpKind::Negate,
                             FheOpKind::AddPlain,      FheOpKind::SubPlain,   FheOpKind::MulPlain,
                             FheOpKind::MulScalar,     FheOpKind::Mul,        FheOpKind::Relinearize,
                             FheOpKind::Rescale,       FheOpKind::Rotate,     FheOpKind::Conjugate,
                             FheOpKind::HoistedRotate, FheOpKind::KeySwitch,  FheOpKind::Encode,
                             FheOpKind::ModRaise,      FheOpKind::LevelReduce};
  for (const Point& pt : points) {
    for (FheOpKind k : kinds) {
      FheOp op = make_op(k, pt.log_n, pt.L, k == FheOpKind::ModRaise ? 0 : pt.l, pt.alpha);
      FheProgram prog;
      prog.ops.push_back(op);
      const pcs::Program out = lower_fhe(prog, cfg);
      ASSERT_EQ(out.ops.size(), 2u);  // setup + the op
      const std::string what = std::string(fhe_op_kind_name(k)) + " N=2^" + std::to_string(pt.log_n) +
                               " L=" + std::to_string(pt.L) + " l=" + std::to_string(op.level) +
                               " alpha=" + std::to_string(pt.alpha);
      const FheOpCounts want = count_fhe_op(op, cfg.fhe);
      expect_counts_equal(tally(out, 1), want, what);
      // Each key loads what its key switch reads: the whole key at l = L, else 2 beta (K + alpha)
      // limbs of N residues.
      const uint64_t K = op.level + 1ull, beta = (K + op.alpha - 1) / op.alpha;
      const uint64_t part = K == op.max_level + 1ull ? fhe_key_bytes(op, cfg.ntt.storage_bits)
                                                    : 2 * beta * (K + op.alpha) * (uint64_t(cfg.ntt.storage_bits) << op.log_n) / 8;
      EXPECT_EQ(want.key_bytes, want.keys * part) << what;
    }
    // Higher-degree inputs (HEIR emits relinearize of degree-3 ciphertexts).
    for (uint32_t d : {2u, 3u}) {
      for (FheOpKind k : {FheOpKind::Mul, FheOpKind::Relinearize}) {
        FheOp op = make_op(k, pt.log_n, pt.L, pt.l, pt.alpha);
        op.ct_degree = d;
        FheProgram prog;
        prog.ops.push_back(op);
        const std::string what = std::string(fhe_op_kind_name(k)) + " degree " + std::to_string(d);
        expect_counts_equal(tally(lower_fhe(prog, cfg), 1), count_fhe_op(op, cfg.fhe), what);
      }
    }
  }
  // Closed forms for degree d: (d+1)^2 products; d-1 key switches.
  FheOp mul = make_op(FheOpKind::Mul, 12, 5, 5, 2);
  mul.ct_degree = 2;
  EXPECT_EQ(count_fhe_op(mul, FheConfig{}).modmuls, 9u * 6 * 4096);
  EXPECT_EQ(count_fhe_op(mul, FheConfig{}).modadds, 4u * 6 * 4096);
  FheOp relin = make_op(FheOpKind::Relinearize, 12, 5, 5, 2);
  const FheOpCounts one = count_fhe_op(relin, FheConfig{});
  relin.ct_degree = 3;
  EXPECT_EQ(count_fhe_op(relin, FheConfig{}).ntt, 2 * one.ntt);
  EXPECT_EQ(count_fhe_op(relin, FheConfig{}).key_bytes, 2 * one.key_bytes);
}

TEST(FheLowering, KeySwitchClosedFormAtTheSharpPoint) {
  // L = l = 34 (35 Q limbs), alpha = 12, dnum = beta = 3, N = 2^16, derived by hand:
  // ModUp beta * (K + alpha) = 3 * 47 = 141 limb-transforms, ModDown 2 * (12 + 35) = 94.
  FheOp op = make_op(FheOpKind::Relinearize, 16, 34, 34, 12);
  const FheOpCounts c = count_fhe_op(op, FheConfig{});
  const uint64_t N = 65536;
  EXPECT_EQ(c.ntt, 141u + 94u);
  // digits 12, 12, 11: sum d (47 - d) = 12*35 + 12*35 + 11*36 = 1236; ModDown 2 * 12 * 35 = 840
  EXPECT_EQ(c.bconv_macs, (1236u + 840u) * N);
  EXPECT_EQ(c.modmuls, (2u * 3 * 47 + 2 * 35) * N);
  EXPECT_EQ(c.key_bytes, 2ull * 3 * 47 * N * 8);  // 147,849,216 bytes
}

TEST(FheLowering, BootstrapKeyTrafficEqualsItsFormula) {
  for (uint32_t capacity_slack : {0u, 1u, 2u}) {
    RunConfig cfg = big_config();
    FheOp op = make_op(FheOpKind::Bootstrap, 12, capacity_slack == 2 ? 10 : 16, 0, 4);
    if (capacity_slack == 2) op = bootstrap_chain(op, cfg.fhe);  // L 10 -> 14, dnum 3 -> 4
    if (capacity_slack == 2) {
      EXPECT_EQ(op.max_level, 14u);
      EXPECT_EQ(op.dnum, 4u);
    }
    FheProgram prog;
    prog.ops.push_back(op);
    if (capacity_slack == 0) {
      // Smallest scratchpad that lowers: exactly one key slot; every distinct key still loads once.
      cfg.scratchpad.size_kib = smallest_scratchpad_kib(prog, cfg);
    }
    const pcs::Program out = lower_fhe(prog, cfg);
    const FheConfig& fc = cfg.fhe;
    const uint64_t keys =
        uint64_t(fc.bootstrap_cts_levels + fc.bootstrap_stc_levels) * fc.bootstrap_bsgs_rotations + 2;
    // Each distinct key loads once, for its first use: the whole key where that use is at
    // l = L, else 2 beta (K + alpha) limbs of N words (its digits over the limbs it reads).
    uint64_t key_bytes = 0;
    std::set<std::pair<int, int64_t>> seen;
    for (const FheOp& s : bootstrap_sequence(op, fc)) {
      const bool rot = s.kind == FheOpKind::Rotate || s.kind == FheOpKind::Conjugate;
      if (!rot && s.kind != FheOpKind::Relinearize) continue;
      if (!seen.insert({int(s.kind), rot ? s.rotation : 0}).second) continue;
      const uint64_t K = s.level + 1ull, beta = (K + s.alpha - 1) / s.alpha;
      key_bytes += K == s.max_level + 1ull
                       ? 2ull * s.dnum * (s.max_level + 1 + s.alpha) * 4096 * (cfg.ntt.storage_bits / 8)
                       : 2ull * beta * (K + s.alpha) * 4096 * (cfg.ntt.storage_bits / 8);
    }
    EXPECT_EQ(seen.size(), keys);
    EXPECT_EQ(tally(out, 1).hbm_bytes, key_bytes);
    const FheOpCounts want = count_fhe_op(op, fc);
    EXPECT_EQ(want.key_bytes, key_bytes);
    expect_counts_equal(tally(out, 1), want, "bootstrap");
    // The sub-op sequence: 2 * 3 * 8 rotations + conjugation + 12 relinearizations.
    uint64_t ks = 0;
    for (const FheOp& s : bootstrap_sequence(op, fc)) ks += count_fhe_op(s, fc).key_switches;
    EXPECT_EQ(ks, 48u + 1 + 12);
    EXPECT_EQ(want.key_switches, ks);
  }
}

uint64_t key_loads(const pcs::Program& p, uint64_t key_bytes) {
  uint64_t bytes = 0;
  for (const auto& c : p.commands)
    if (c.opcode == pcs::Opcode::DmaCopy && c.tag != 0) {
      const auto& d = std::get<pcs::DmaCopy>(c.body);
      bytes += uint64_t(d.inner_bytes) * d.n1 * d.n2;
    }
  EXPECT_EQ(bytes % key_bytes, 0u);
  return bytes / key_bytes;
}

TEST(FheLowering, KeyCacheIsLruOfWholeKeys) {
  RunConfig cfg = big_config();
  auto rot = [](int64_t r) {
    FheOp o = make_op(FheOpKind::Rotate, 10, 5, 5, 2);
    o.rotation = r;
    return o;
  };
  FheProgram prog;
  prog.ops = {rot(1), rot(2), rot(1)};
  const uint64_t kb = fhe_key_bytes(prog.ops[0], cfg.ntt.storage_bits);
  // The resident layout's cache (auto would stream at one slot here: kOneSlotKeySlack).
  cfg.fhe.layout = FheLayout::Resident;
  // Smallest scratchpad: one slot; r1, r2, r1 reloads r1.
  const uint64_t lo = smallest_scratchpad_kib(prog, cfg);
  cfg.scratchpad.size_kib = lo;
  EXPECT_EQ(key_loads(lower_fhe(prog, cfg), kb), 3u);
  const uint64_t slot_kib = 2ull * 3 * (6 + 2) * 1024 * 8 / 1024;  // 2*dnum*(L+1+alpha)*N*8 bytes
  cfg.scratchpad.size_kib = lo + slot_kib;
  EXPECT_EQ(key_loads(lower_fhe(prog, cfg), kb), 2u);
  // Relinearization key reused across products.
  FheProgram mul;
  for (int i = 0; i < 3; ++i) {
    mul.ops.push_back(make_op(FheOpKind::Mul, 10, 5, 5, 2));
    mul.ops.push_back(make_op(FheOpKind::Relinearize, 10, 5, 5, 2));
  }
  EXPECT_EQ(key_loads(lower_fhe(mul, cfg), kb), 1u);
  // Warm cache: no key traffic.
  cfg.fhe.keys_on_chip = true;
  EXPECT_EQ(key_loads(lower_fhe(mul, cfg), kb), 0u);
  EXPECT_EQ(key_loads(lower_fhe(prog, cfg), kb), 0u);
}

TEST(FheLowering, ResidentKeySlotsLoadWhatTheKeySwitchReads) {
  RunConfig cfg = big_config();
  auto rot = [](uint32_t level) {
    FheOp o = make_op(FheOpKind::Rotate, 10, 5, level, 2);
    o.rotation = 1;
    return o;
  };
  FheProgram prog;
  prog.ops = {rot(3), rot(5), rot(3)};
  cfg.scratchpad.size_kib = smallest_scratchpad_kib(prog, cfg);  // one key slot
  const uint64_t limb = 1024 * 8;                                  // N = 2^10, 8-byte residues
  // Level 3: K = 4, beta = 2 digits of (K + alpha) = 6 limbs, 2 polys each; level 5 = L: the
  // whole key (dnum 3, L + 1 + alpha = 8 limbs) reloads the slot; the second level-3 use hits.
  const uint64_t part = 2 * 2 * 6 * limb, whole = 2 * 3 * 8 * limb;
  ASSERT_EQ(whole, fhe_key_bytes(prog.ops[0], cfg.ntt.storage_bits));
  const pcs::Program out = lower_fhe(prog, cfg);  // tag 0: the moduli tables
  EXPECT_EQ(tally(out, 1).hbm_bytes, part);
  EXPECT_EQ(tally(out, 2).hbm_bytes, whole);
  EXPECT_EQ(tally(out, 3).hbm_bytes, 0u);
}

TEST(FheLowering, LayoutKnobForcesOrRefusesTheResidentLayout) {
  RunConfig cfg = big_config();
  FheOp op = make_op(FheOpKind::Rotate, 10, 5, 5, 2);
  op.rotation = 1;
  FheProgram prog;
  prog.ops = {op};
  const uint64_t lo = smallest_scratchpad_kib(prog, cfg);
  cfg.fhe.layout = FheLayout::Resident;
  cfg.scratchpad.size_kib = lo;
  EXPECT_TRUE(lowers_resident(prog, cfg));
  cfg.scratchpad.size_kib = lo - 1;
  try {
    lower_fhe(prog, cfg);
    ADD_FAILURE() << "no error below the resident layout's size";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fhe.layout=resident"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("scratchpad.size_kib >= " + std::to_string(lo)), std::string::npos)
        << e.what();
  }
  cfg.scratchpad.size_kib = lo;
  cfg.fhe.key_policy = KeyPolicy::None;
  try {
    lower_fhe(prog, cfg);
    ADD_FAILURE() << "fhe.layout=resident accepted with fhe.key_policy=none";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fhe.key_policy=lru (is none)"), std::string::npos) << e.what();
  }
  cfg.fhe.key_policy = KeyPolicy::Lru;
  cfg.fhe.layout = FheLayout::Streamed;
  cfg.scratchpad.size_kib = uint64_t(1) << 20;  // where the resident layout fits with room to spare
  EXPECT_FALSE(lowers_resident(prog, cfg));
  cfg.fhe.layout = FheLayout::Auto;
  EXPECT_TRUE(lowers_resident(prog, cfg));
}

TEST(FheLowering, AnFheDnumOtherThanTheProgramsIsRefused) {
  // A HEIR program fixes dnum (its keys have that many digits): fhe.dnum equal to it or 0 lowers,
  // another value is one error naming both (it used to be ignored silently).
  RunConfig cfg = big_config();
  FheOp op = make_op(FheOpKind::Rotate, 10, 5, 5, 2);
  op.rotation = 1;
  op.dnum = 3;
  FheProgram prog;
  prog.ops = {op};
  cfg.fhe.dnum = 3;
  EXPECT_NO_THROW(lower_fhe(prog, cfg));
  cfg.fhe.dnum = 4;
  try {
    lower_fhe(prog, cfg);
    ADD_FAILURE() << "fhe.dnum 4 accepted for a program with dnum 3";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fhe.dnum 4: the program fixes dnum = 3 (alpha 2)"), std::string::npos)
        << e.what();
  }
  // A program that leaves dnum implicit takes fhe.dnum (the key of 4 digits: 2 x 4 x (L+1+alpha) limbs).
  prog.ops[0].dnum = 0;
  const pcs::Program p = lower_fhe(prog, cfg);
  EXPECT_NE(p.ops[1].detail.find("dnum=4"), std::string::npos) << p.ops[1].detail;
}

TEST(FheLowering, SemaphoresBalanceAndEveryCommandIsValidForTheEngine) {
  RunConfig cfg = big_config();
  FheProgram prog;
  for (FheOpKind k : {FheOpKind::Mul, FheOpKind::Relinearize, FheOpKind::Rescale, FheOpKind::Rotate,
                      FheOpKind::HoistedRotate, FheOpKind::AddPlain})
    prog.ops.push_back(make_op(k, 10, 6, 5, 3));
  cfg.scratchpad.size_kib = 16 * 1024;
  const pcs::Program out = lower_fhe(prog, cfg);
  std::map<uint32_t, int> signals, waits;
  for (const auto& c : out.commands) {
    if (c.opcode == pcs::Opcode::Signal) ++signals[std::get<pcs::Sync>(c.body).sem];
    if (c.opcode == pcs::Opcode::Wait) ++waits[std::get<pcs::Sync>(c.body).sem];
  }
  EXPECT_EQ(signals, waits);
  EXPECT_EQ(out.commands.back().opcode, pcs::Opcode::End);
  // Balanced is not enough: the queues must also get through every Fence and the End.
  const photon_test::QueueRunResult run = photon_test::run_queue_semantics(out);
  EXPECT_EQ(run.blocked_at, -1);
  for (const auto& [sem, v] : run.sems) EXPECT_EQ(v, 0) << "semaphore " << sem;
  // Functional run of every NTT command on a real scratchpad holding the moduli tables:
  // bounds, alignment and NTT-friendly moduli are all checked by the engine.
  std::vector<uint64_t> spm(cfg.scratchpad.size_kib * 1024 / 8, 0);
  ASSERT_EQ(out.segments.size(), 1u);
  const auto& seg = out.segments[0];
  std::memcpy(spm.data(), seg.bytes.data(), seg.bytes.size());
  NttEngine eng(cfg.ntt);
  const MemView view{reinterpret_cast<uint8_t*>(spm.data()), spm.size() * 8};
  size_t n = 0;
  for (const auto& c : out.commands)
    if (c.opcode == pcs::Opcode::Ntt) {
      EXPECT_NO_THROW(eng.issue(c, 0, view)) << "command " << n;
      ++n;
    }
  EXPECT_GT(n, 50u);
}

TEST(FheLowering, BadArgumentsNameTheFlag) {
  RunConfig cfg = big_config();
  auto msg = [&](auto f) {
    try {
      f();
    } catch (const Error& e) { return std::string(e.what()); }
    return std::string("no error");
  };
  EXPECT_NE(msg([&] { make_single_op_program("hfoo", 12, 5, 5, 2, cfg); }).find("--op"), std::string::npos);
  EXPECT_NE(msg([&] { make_single_op_program("hmult", 9, 5, 5, 2, cfg); }).find("--ring-degree"),
            std::string::npos);
  EXPECT_NE(msg([&] { make_single_op_program("hmult", 12, 5, 6, 2, cfg); }).find("--level"),
            std::string::npos);
  EXPECT_NE(msg([&] { make_single_op_program("hmult", 12, 5, 5, 0, cfg); }).find("--alpha"),
            std::string::npos);
  EXPECT_NE(msg([&] { make_single_op_program("rescale", 12, 5, 0, 2, cfg); }).find("--level"),
            std::string::npos);
  // A chain too short for bootstrapping is raised (as OpenFHE adds its level budget) and said so.
  const pcs::Program boot = make_single_op_program("bootstrap", 12, 5, 0, 2, cfg);
  EXPECT_NE(boot.ops[1].detail.find("chain raised from L=5"), std::string::npos) << boot.ops[1].detail;
  EXPECT_NE(boot.ops[1].detail.find("L=14 alpha=2 dnum=8"), std::string::npos) << boot.ops[1].detail;
  RunConfig small;  // below the streamed minimum (a few limbs of 512 KiB)
  small.scratchpad.size_kib = 1024;
  EXPECT_NE(msg([&] { make_single_op_program("hmult", 16, 34, 34, 12, small); }).find("scratchpad.size_kib"),
            std::string::npos);
  const pcs::Program p = make_single_op_program("hrot", 12, 5, 5, 2, cfg);
  ASSERT_EQ(p.ops.size(), 2u);
  EXPECT_EQ(p.ops[1].kind, "hrot");
  EXPECT_EQ(p.ops[1].detail.rfind("N=2^12 l=5 L=5 alpha=2 dnum=3 beta=3", 0), 0u) << p.ops[1].detail;
}

}  // namespace
}  // namespace photon::fhe

namespace photon::fhe {
namespace {

TEST(FheLowering, KeysStayInsideHbmAndAliasWhenItIsFull) {
  RunConfig cfg = big_config();
  FheProgram prog;
  for (int r = 1; r <= 6; ++r) {
    FheOp o = make_op(FheOpKind::Rotate, 12, 5, 5, 2);
    o.rotation = r;
    prog.ops.push_back(o);
  }
  auto check = [&](bool expect_alias) {
    const pcs::Program out = lower_fhe(prog, cfg);
    const uint64_t cap = cfg.hbm.capacity_bytes();
    for (const auto& c : out.commands)
      if (c.opcode == pcs::Opcode::DmaCopy) {
        const auto& d = std::get<pcs::DmaCopy>(c.body);
        const uint64_t last = d.src + uint64_t(d.n1 - 1) * d.src_stride1 + d.inner_bytes;
        EXPECT_GE(d.src, cfg.noc.hbm_base);
        EXPECT_LE(last, cfg.noc.hbm_base + cap);
      }
    EXPECT_EQ(out.ops[0].detail.find("reuse HBM addresses") != std::string::npos, expect_alias)
        << out.ops[0].detail;
  };
  check(false);
  const uint64_t key = fhe_key_bytes(prog.ops[0], cfg.ntt.storage_bits);  // 1.5 MiB
  cfg.cpu.ring_base = cfg.noc.hbm_base + 2 * key;                         // the larger gap is above the ring
  cfg.hbm.rows = 1056;  // 264 MiB: 5 MiB above the ring hold 3 of the 6 keys
  ASSERT_LT(cfg.hbm.capacity_bytes(), 2 * key + (256ull << 20) + 6 * key);
  ASSERT_GT(cfg.hbm.capacity_bytes(), 2 * key + (256ull << 20) + key);
  check(true);
}

}  // namespace
}  // namespace photon::fhe

namespace photon::fhe {
namespace {

TEST(FheLowering, RotationByAMultipleOfTheSlotCountIsTheIdentity) {
  const RunConfig cfg = big_config();
  const uint32_t log_n = 12;
  const int64_t slots = int64_t(1) << (log_n - 1);
  for (int64_t r : {int64_t(0), slots, -slots, 3 * slots}) {
    FheOp op = make_op(FheOpKind::Rotate, log_n, 5, 5, 2);
    op.rotation = r;
    EXPECT_TRUE(fhe_rotation_is_identity(op)) << r;
    FheProgram prog;
    prog.ops.push_back(op);
    const pcs::Program out = lower_fhe(prog, cfg);
    ASSERT_EQ(out.ops.size(), 2u);  // still one hrot row
    EXPECT_EQ(out.ops[1].kind, "hrot");
    EXPECT_NE(out.ops[1].detail.find("identity"), std::string::npos) << out.ops[1].detail;
    EXPECT_EQ(out.ops[1].detail.find("key_bytes"), std::string::npos) << out.ops[1].detail;
    const FheOpCounts got = tally(out, 1);
    EXPECT_EQ(got.hbm_bytes, 0u) << r;  // no key load
    EXPECT_EQ(got.ntt, 0u) << r;
    EXPECT_EQ(got.bconv_macs, 0u) << r;
    EXPECT_EQ(got.automorph_elems, 0u) << r;
    const FheOpCounts want = count_fhe_op(op, cfg.fhe);
    EXPECT_EQ(want.key_bytes, 0u);
    EXPECT_EQ(want.key_switches, 0u);
    expect_counts_equal(got, want, "identity rotation");
  }
  // Rotation by 1 (and by slots + 1): the full key switch, one key of 2 dnum (L+1+alpha) N 8 bytes.
  for (int64_t r : {int64_t(1), slots + 1}) {
    FheOp op = make_op(FheOpKind::Rotate, log_n, 5, 5, 2);
    op.rotation = r;
    EXPECT_FALSE(fhe_rotation_is_identity(op));
    FheProgram prog;
    prog.ops.push_back(op);
    const FheOpCounts got = tally(lower_fhe(prog, cfg), 1);
    EXPECT_EQ(got.hbm_bytes, 2ull * 3 * (6 + 2) * 4096 * 8) << r;
    // beta = 3 digits: ModUp 3 * (6 + 2) + ModDown 2 * (2 + 6) limb-transforms.
    EXPECT_EQ(got.ntt, 3u * 8 + 2 * 8) << r;
    EXPECT_EQ(got.automorph_elems, 2u * 6 * 4096) << r;
  }
  // Identity rotations alone need no key slot: the smallest scratchpad they lower in is too
  // small for one real rotation (key-switch buffers plus a key slot).
  FheOp id = make_op(FheOpKind::Rotate, log_n, 5, 5, 2);
  id.rotation = 0;
  FheProgram prog;
  prog.ops = {id, id};
  RunConfig small = cfg;
  const uint64_t lo = smallest_scratchpad_kib(prog, small);
  small.scratchpad.size_kib = lo;
  EXPECT_NO_THROW(lower_fhe(prog, small));
  FheProgram real;
  real.ops = {make_op(FheOpKind::Rotate, log_n, 5, 5, 2)};
  EXPECT_FALSE(lowers_resident(real, small));                       // streamed instead
  small.scratchpad.size_kib = lo + 2ull * 3 * 8 * 4096 * 8 / 1024;  // one key slot is not enough either
  EXPECT_FALSE(lowers_resident(real, small));
}

}  // namespace
}  // namespace photon::fhe
