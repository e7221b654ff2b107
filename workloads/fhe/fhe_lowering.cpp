// lower_fhe: FheProgram -> pcs::Program. Checks each op, plans memory, then per op writes an
// op-table row and dispatches to the op's emitter through its row of the op table
// (fhe_op_traits.cpp). See fhe_lowering.h and docs/fhe.md for the expansion.
#include "workloads/fhe/fhe_lowering.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "base/error.h"
#include "workloads/fhe/fhe_keys.h"
#include "workloads/fhe/fhe_lowering_internal.h"
#include "workloads/fhe/fhe_op_traits.h"
#include "workloads/fhe/fhe_stream_internal.h"

namespace photon::fhe {

void OpLowerer::lower(const FheOp& op, size_t index) {
  const FheOpTraits& t = fhe_op_traits(op.kind);
  op_ = index;
  w.set_log_n(op.log_n);
  if (t.lower)
    t.lower(*this, op);
  else if (t.expand)
    for (const FheOp& s : t.expand(op, fc)) lower(s, index);
}

namespace {

/// Checks the op's parameters; fills dnum when the program leaves it 0 (fhe.dnum, else
/// ceil((L+1)/alpha)), refuses an fhe.dnum other than the program's own; puts a composite op on
/// its chain.
FheOp checked(FheOp op, const FheConfig& fc) {
  const FheOpTraits& t = fhe_op_traits(op.kind);
  if (op.log_n < 1 || op.log_n > 17)
    throw Error("ring degree 2^" + std::to_string(op.log_n) + " outside [2^1, 2^17]");
  if (op.level > op.max_level)
    throw Error("level " + std::to_string(op.level) + " above max_level " + std::to_string(op.max_level));
  if (op.alpha < 1) throw Error("alpha must be at least 1");
  if (op.max_level + 1 + op.alpha > 256) throw Error("L+1+alpha above 256 limbs");
  // A program that fixes dnum (a HEIR program: from its P primes or numLargeDigits) has keys of
  // that many digits; fhe.dnum cannot change them, so a different value is refused, not ignored.
  if (op.dnum != 0 && fc.dnum != 0 && fc.dnum != op.dnum)
    throw Error("fhe.dnum " + std::to_string(fc.dnum) + ": the program fixes dnum = " + std::to_string(op.dnum) +
                " (alpha " + std::to_string(op.alpha) +
                "); fhe.dnum applies to `photon fhe` ops and programs that leave it implicit (set it to 0)");
  if (op.dnum == 0) op.dnum = fc.dnum ? fc.dnum : (op.max_level + op.alpha) / op.alpha;
  if (t.keys != KeyUse::None && uint64_t(op.dnum) * op.alpha < op.max_level + 1ull)
    throw Error("dnum " + std::to_string(op.dnum) + " * alpha " + std::to_string(op.alpha) +
                " does not cover the L+1 = " + std::to_string(op.max_level + 1) + " Q limbs");
  if (t.hoisted && op.count < 1) throw Error("hoisted rotation count 0");
  if (t.degree && op.ct_degree > 8)
    throw Error("ciphertext degree " + std::to_string(op.ct_degree) + " above 8");
  if (t.chain) op = t.chain(op, fc);
  return op;
}

std::string op_name(const FheOp& op) {
  return op.name.empty() ? std::string(fhe_op_kind_name(op.kind)) : op.name;
}

/// "file:line:col: name" of the op, for error context.
std::string where_of(const FheOp& op) {
  return op.location.empty() ? op_name(op) : op.location + ": " + op_name(op);
}

/// The op-table detail of `op` (checked; `source_max_level`: its L in the program).
std::string describe(const FheOp& op, uint32_t source_max_level, const RunConfig& cfg) {
  const FheConfig& fc = cfg.fhe;
  const FheOpTraits& t = fhe_op_traits(op.kind);
  std::string detail = fmt::format("N=2^{} l={} L={} alpha={} dnum={} beta={}", op.log_n, op.level,
                                   op.max_level, op.alpha, op.dnum, fhe_digits(op));
  if (t.rotation)
    detail += fmt::format(" rotation={} galois={}", op.rotation, rotation_galois(op.rotation, op.log_n));
  if (fhe_rotation_is_identity(op))
    detail += " (identity: shift is a multiple of the N/2 slots; no key switch)";
  if (t.hoisted) detail += fmt::format(" count={}", op.count);
  if (op.kind == FheOpKind::Bootstrap) {
    detail +=
        fmt::format(" cts_levels={} evalmod_levels={} evalmod_hmults={} stc_levels={} bsgs_rotations={}",
                    fc.bootstrap_cts_levels, fc.bootstrap_evalmod_levels, fc.bootstrap_evalmod_hmults,
                    fc.bootstrap_stc_levels, fc.bootstrap_bsgs_rotations);
    if (op.max_level != source_max_level)
      detail +=
          fmt::format(" (chain raised from L={} to the levels bootstrapping consumes)", source_max_level);
  }
  if (t.degree && op.ct_degree > 1) detail += fmt::format(" ct_degree={}", op.ct_degree);
  if (fhe_op_needs_key(op)) detail += fmt::format(" key_bytes={}", fhe_key_bytes(op, cfg.ntt.storage_bits));
  if (t.client) detail += " (client-side: not run)";
  return detail;
}

/// How many times the streamed plan's key bytes the resident layout's key slots may read and
/// still be chosen (fhe.layout=auto). A bytes heuristic, set when slots loaded whole keys, from
/// configs/sharp_like.yaml, bootstrapping at N = 2^16, L = 34, alpha = 12 with 512 MiB: resident
/// 7.24 GB of keys in 13.98 ms, streamed 6.93 GB in 16.51 ms (the resident layout 15 % faster at
/// 4.5 % more bytes). With slots loading only the digits in use (now): 5.36 GB in 11.91 ms there;
/// DaCapo at 1 GiB resident 16.46 GB in 35.52 ms against streamed 18.64 GB in 34.99 ms, and at
/// small N (HMult N = 2^12, equal bytes) streamed tiles are up to 12 % faster: docs/fhe.md
/// "Which layout".
constexpr double kResidentKeySlack = 1.25;
/// The same bound where the resident layout has a single key slot: each reload then waits for
/// the key switch that reads the slot and the next key switch waits for the reload, where the
/// streamed plan overlaps key digits with compute, so it must read fewer bytes to be faster.
/// Measured on configs/sharp_like.yaml with keys loaded ahead (docs/fhe.md "Which layout"):
/// DaCapo at 1 GiB, resident 0.88 of the streamed key bytes, 28.31 against 27.57 ms;
/// bootstrapping at N = 2^16, L = 34, alpha = 12 with 512 MiB, 0.77, 9.41 against 15.48 ms.
constexpr double kOneSlotKeySlack = 0.8;

pcs::Program end_only() {
  pcs::Program out;
  out.commands.push_back(pcs::Command{});
  return out;
}

}  // namespace

pcs::Program lower_fhe(const FheProgram& prog, const RunConfig& cfg) {
  const FheConfig& fc = cfg.fhe;
  std::vector<FheOp> ops;
  for (const FheOp& op : prog.ops) {
    const std::string where = where_of(op);
    ops.push_back(with_error_context(where, [&] { return checked(op, fc); }));
    if (const auto expand = fhe_op_traits(ops.back().kind).expand)
      with_error_context(where, [&] { return expand(ops.back(), fc); });
  }
  if (ops.empty()) return end_only();
  const FheMemoryPlan mem = plan_fhe_memory(ops, cfg);
  // fhe.layout=auto: the resident layout when it fits, no policy asks for streaming, and either
  // every distinct key has a slot (the scratchpad holds everything) or its whole-key slots read at
  // most kResidentKeySlack times the key bytes of the streamed plan: at the sizes of the sweep in
  // docs/fhe.md the resident layout's whole-op passes are mostly faster than streamed tiles
  // (docs/fhe.md "Which layout").
  if (fc.layout == FheLayout::Resident && (fc.key_policy != KeyPolicy::Lru || fc.ct_policy == CtPolicy::None))
    throw Error(fmt::format("fhe.layout=resident keeps whole keys in LRU slots and every ciphertext on chip: "
                            "it needs fhe.key_policy=lru (is {}) and fhe.ct_policy other than none (is {})",
                            key_policy_table().name(fc.key_policy), ct_policy_table().name(fc.ct_policy)));
  if (fc.layout == FheLayout::Resident && fc.ks_dataflow != KsDataflow::Auto)
    throw Error(fmt::format("fhe.layout=resident keeps both key-switch accumulators on chip: it needs "
                            "fhe.ks_dataflow=auto (is {})",
                            ks_dataflow_table().name(fc.ks_dataflow)));
  if (fc.layout == FheLayout::Resident && !mem.fits)
    throw Error(fmt::format("fhe.layout=resident: the resident layout needs {:.1f} MiB of scratchpad "
                            "(scratchpad.size_kib >= {}); scratchpad.size_kib is {}",
                            double(mem.keys_base + (mem.any_key ? mem.slot_bytes : 0)) / (1 << 20),
                            (mem.keys_base + (mem.any_key ? mem.slot_bytes : 0) + 1023) / 1024,
                            cfg.scratchpad.size_kib));
  bool resident = mem.fits && fc.key_policy == KeyPolicy::Lru && fc.ct_policy != CtPolicy::None &&
                  fc.layout != FheLayout::Streamed && fc.ks_dataflow == KsDataflow::Auto;
  std::optional<FheStreamPlan> splan;
  std::vector<KeyId> distinct;
  for (const FheOp& op : ops)
    for (const KeyId& k : fhe_op_keys(op, fc))
      if (std::find(distinct.begin(), distinct.end(), k) == distinct.end()) distinct.push_back(k);
  if (resident && fc.layout == FheLayout::Auto && mem.any_key && distinct.size() > mem.slots) {
    const double slack = mem.slots == 1 ? kOneSlotKeySlack : kResidentKeySlack;
    const double r = double(fhe_key_traffic(ops, mem.slots, cfg, true));
    if (r > slack * double(fhe_key_traffic(ops, 0, cfg))) {
      splan = plan_fhe_stream(ops, cfg, mem);
      resident = r <= slack * double(fhe_key_traffic(ops, splan->slots, cfg));
    }
  }
  if (!resident && !splan) splan = plan_fhe_stream(ops, cfg, mem);
  FheKeyCache keys(resident ? mem.slots : (fc.key_policy == KeyPolicy::Lru ? splan->slots : 0),
                   resident ? mem.key_region_bytes : splan->key_region_bytes, cfg.ntt.storage_bits);
  if (fc.keys_on_chip) {  // warm key cache: the first keys used, as many as fit
    std::vector<KeyId> used;
    for (const FheOp& op : ops) {
      const std::vector<KeyId> k = fhe_op_keys(op, fc);
      used.insert(used.end(), k.begin(), k.end());
    }
    keys.warm(used);
  }
  if (cfg.cpu.semaphores <= (resident ? kSemSlotFree : kSemNttDone))
    throw Error(fmt::format("cpu.semaphores: the FHE lowering needs {} semaphores",
                            resident ? kSemSlotFree + 1 : kSemNttDone + 1));

  pcs::Program out;
  FheCommandWriter w(out);
  w.table(mem.chain);
  // Prologue: moduli tables from HBM into the scratchpad.
  w.set_tag(out.add_op({"fhe.setup", "setup",
                        fmt::format("moduli tables: {} primes of {} bits, q = 1 mod 2^{}", mem.chain.size(),
                                    cfg.ntt.prime_bits(), mem.log_n_max + 1),
                        {}}));
  const size_t tables_dma = out.commands.size();
  w.dma(cfg.noc.hbm_base + kFheTablesHbmOffset, cfg.noc.scratchpad_base, 8, 1, 0, 0, ByteClass::Tables);
  w.sync(pcs::Opcode::Signal, pcs::Queue::Dma, kSemInit);
  w.sync(pcs::Opcode::Wait, pcs::Queue::Ntt, kSemInit);

  // Per op: its row, its commands, and its memory figures (bytes by class, peak scratchpad).
  std::vector<uint64_t> peak(ops.size() + 1, 0);
  if (resident) {
    OpLowerer lowerer(cfg, mem, keys, w, key_acquisitions(ops, cfg));
    for (size_t i = 0; i < ops.size(); ++i) {
      const FheOp& op = ops[i];
      w.set_tag(out.add_op(
          {op_name(op), fhe_op_traits(op.kind).table_kind, describe(op, prog.ops[i].max_level, cfg), {}}));
      with_error_context(where_of(op), [&] { lowerer.lower(op, i); });
      peak[i + 1] = mem.keys_base + uint64_t(keys.occupied()) * mem.slot_bytes;
    }
  } else {
    StreamLowerer lowerer(cfg, *splan, w, keys, false);
    uint64_t ct_slots = 0;
    for (const auto* slot : {&splan->cur_spm, &splan->opb_spm, &splan->d2_spm})
      if (slot->has_value()) ct_slots += slot == &splan->d2_spm ? splan->ct_bytes / 2 : splan->ct_bytes;
    for (size_t i = 0; i < ops.size(); ++i) {
      const FheOp& op = ops[i];
      w.set_tag(out.add_op(
          {op_name(op), fhe_op_traits(op.kind).table_kind, describe(op, prog.ops[i].max_level, cfg), {}}));
      lowerer.reset_peak();
      const std::string shape = with_error_context(where_of(op), [&] { return lowerer.lower(op); });
      if (!shape.empty()) out.ops.back().detail += " stream: " + shape;
      const uint64_t held = fc.key_policy == KeyPolicy::Lru ? keys.occupied() : lowerer.pinned_in_use();
      // Tables, ciphertext and key slots, the constants tile, the op's working buffers.
      peak[i + 1] = kFheTablesBytes + ct_slots + held * splan->slot_bytes + (splan->work_base - splan->konst_base) +
                    lowerer.work_peak();
    }
    lowerer.drain();
  }
  pcs::Command end;
  end.tag = pcs::kNoTag;
  out.commands.push_back(end);

  // Tables segment and the size of its DMA.
  const std::vector<uint64_t>& blob = w.tables();
  pcs::Segment seg;
  seg.address = cfg.noc.hbm_base + kFheTablesHbmOffset;
  seg.bytes.resize(blob.size() * 8);
  for (size_t i = 0; i < blob.size(); ++i)
    for (int b = 0; b < 8; ++b) seg.bytes[i * 8 + b] = uint8_t(blob[i] >> (8 * b));
  out.segments.push_back(std::move(seg));
  std::get<pcs::DmaCopy>(out.commands[tables_dma].body).inner_bytes = uint32_t(blob.size() * 8);
  for (size_t i = 0; i < out.ops.size(); ++i) {
    const ByteTally t = w.tally(uint32_t(i));
    auto& m = out.ops[i].memory;
    if (i == 0) {
      m = {{"table_bytes", blob.size() * 8}, {"peak_scratchpad_bytes", kFheTablesBytes}};
      continue;
    }
    for (ByteClass c :
         {ByteClass::CtIn, ByteClass::CtOut, ByteClass::Keys, ByteClass::Spill, ByteClass::Plaintext})
      m.push_back({byte_class_name(c), t[c]});
    m.push_back({"peak_scratchpad_bytes", peak[i]});
  }
  if (resident) {
    out.ops[0].detail += fmt::format(
        "; resident (key_policy={}, ct_policy={}): every ciphertext on chip; {} key slot{} of {:.1f} MiB, "
        "{} key load{}",
        key_policy_table().name(fc.key_policy), ct_policy_table().name(fc.ct_policy), mem.slots,
        mem.slots == 1 ? "" : "s", mem.slot_bytes / 1048576.0, keys.loads(), keys.loads() == 1 ? "" : "s");
  } else {
    std::string cts;
    for (const auto& [name, slot] : {std::pair{"cur", &splan->cur_spm}, std::pair{"operand", &splan->opb_spm},
                                     std::pair{"d2", &splan->d2_spm}})
      if (slot->has_value()) cts += std::string(cts.empty() ? "" : ", ") + name;
    out.ops[0].detail += fmt::format(
        "; streamed (key_policy={}, ct_policy={}): ciphertexts on chip: {}; {} key slots of {:.1f} MiB; "
        "working region {:.1f} MiB",
        key_policy_table().name(fc.key_policy), ct_policy_table().name(fc.ct_policy), cts.empty() ? "none" : cts, splan->slots, splan->slot_bytes / 1048576.0,
        (splan->work_limit - splan->work_base) / 1048576.0);
  }
  if (keys.aliased())
    out.ops[0].detail += fmt::format(
        "; HBM too small for every distinct key: {} keys reuse HBM addresses "
        "(traffic and timing unchanged)",
        keys.aliased());
  return out;
}

}  // namespace photon::fhe
