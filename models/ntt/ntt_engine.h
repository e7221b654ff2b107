// NttEngine: the NTT unit's pure-C++ core executing pcs::Ntt commands (no SystemC).
//
// Structure (after SHARP, Kim et al., ISCA 2023, Fig. 5, and Homulator's config_4.cfg): four
// internal engines, each with its own next-free cycle, so independent commands overlap:
//   ntt       kForward, kInverse
//   bconv     kBConv
//   ewe       kMulMod, kAddMod, kSubMod, kMulAccMod (element-wise engine)
//   automorph kAutomorph
// A command starts at max(issue cycle, its engine's next-free cycle, the completion of the last
// writer of any scratchpad range it reads or writes, the completion of the last reader of any
// range it writes): a scoreboard on scratchpad byte ranges (RAW, WAW and WAR hazards).
//
// Cycles of one command (N = 2^log_n, L = limbs, L' = out_limbs; ceil divisions):
//   ntt       sum over groups of g limbs [ g log2 N T + (log2 N - 1) max(0, floor(T/2) + D - g T) ]
//             + D + kNttHandshakeCycles + transpose_cycles
//             with T = ceil(N / (2 lanes)) rows of `lanes` butterflies per stage, D =
//             pipeline_depth, groups of limb_interleave limbs (the last one smaller). A stage
//             needs rows of the previous stage of the same limb, readable D cycles after issue;
//             interleaving g limbs stage by stage hides D when g T >= T/2 + D (the calibration
//             against cosim/ntt's RTL core, models/ntt/README.md). The transposes of a 4-step NTT
//             overlap the butterflies except for one fill per command (SHARP Sec. 4.2).
//   bconv     L * L' * N / bconv_macs + bconv_latency_cycles   (BEHZ/HPS fast base conversion:
//             one MAC per source limb, target limb and coefficient; the [x*qhat^-1] prescale
//             runs in the same pipeline)
//   ewe       terms * L * N / modmul_lanes + ewe_latency_cycles  (terms = 1 except a mul_mod or
//             mul_acc_mod summing several products, pcs::Ntt::terms: one pipeline fill per sum,
//             the accumulator stays in the MAC lanes and dst is read and written once)
//   automorph L * N / automorph_lanes + automorph_latency_cycles
// and, when spm_words_per_cycle > 0, at least (words read + words written) / spm_words_per_cycle
// plus the fill. Energy: butterflies * butterfly_energy_pj; element-wise multiplies and BConv
// MACs * modmul_energy_pj (+ modadd_energy_pj for each accumulation); adds * modadd_energy_pj;
// automorphism elements * automorph_energy_pj.
//
// Functional mode (spm.data != nullptr): every field and every scratchpad range is checked
// before anything is written; a bad field throws UnitFault(Decode), a range outside the
// scratchpad UnitFault(Address). Moduli are read from the table at `moduli` (BConv: `limbs`
// source moduli then `out_limbs` target moduli); each must lie in [2, 2^62) and below
// 2^word_bits, checked before the run where the stream loads the table from its data segments
// (check_command) and again at issue (a table computed at run time). kAutomorph with galois bit 31 set
// (kGaloisNttDomain) permutes NTT-domain data (bit-reversed evaluation order, as NttTables
// produces it); without it the command works in coefficient form as pcs::Ntt documents.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/ntt/ntt_config.h"
#include "models/ntt/ntt_core.h"
#include "platform/engine.h"

namespace photon {

class NttEngine : public Engine {
 public:
  /// Internal engines (pipelines with their own timelines).
  enum Unit : int { kNttUnit = 0, kBConvUnit = 1, kEweUnit = 2, kAutomorphUnit = 3 };
  static constexpr int kUnits = 4;
  /// Flag in pcs::Ntt::galois: the automorphism permutes NTT-domain (evaluation) data.
  static constexpr uint32_t kGaloisNttDomain = pcs::Ntt::kGaloisNttDomain;
  /// Control cycles of an NTT command besides its rows and its pipeline drain: start (1), the
  /// first twiddle beat before the first row (1), done after the last result (1).
  static constexpr uint64_t kNttHandshakeCycles = 3;
  /// Most products one mul_mod / mul_acc_mod sums (pcs::Ntt::terms): the largest dnum of the
  /// lowering's parameter sets is far below it.
  static constexpr uint32_t kMaxTerms = 4096;

  explicit NttEngine(const NttConfig& cfg) : cfg_(cfg) {}

  const char* name() const override { return "ntt"; }
  double clock_ghz() const override { return cfg_.clock_ghz; }
  IssueResult issue(const pcs::Command& cmd, uint64_t now_cycle, const MemView& spm) override;
  std::map<std::string, double> counters() const override;
  /// Before the run: the moduli table the command reads, where `image` knows it (a table the
  /// stream loads from its data segments), must pass check_modulus(). Throws Error naming the
  /// modulus and ntt.word_bits.
  void check_command(const pcs::Command& cmd, const LoadImage& image) const override;
  /// Throws UnitFault(Decode) "modulus <i> = <q> ..." unless 2 <= q < 2^62 (NttTables' Shoup
  /// products need q < 2^62) and q < 2^ntt.word_bits (the unit's modular word width).
  void check_modulus(uint64_t q, uint32_t i) const;

  /// The internal engine that executes `op` (a pcs::Ntt::Op value).
  static Unit unit_of(uint8_t op);
  static const char* unit_name(Unit u);
  /// Cycles the command occupies its internal engine (formulas above), without dependencies.
  static uint64_t busy_cycles(const pcs::Ntt& n, const NttConfig& cfg);
  /// Throws UnitFault(Decode) for an invalid op, log_n, limb count or galois element.
  static void check_fields(const pcs::Ntt& n);
  /// The command's body; throws UnitFault(Decode) for another opcode.
  static const pcs::Ntt& decode(const pcs::Command& cmd);

  // issue() in steps, for a shell that runs some commands elsewhere (cosim/ntt's RTL core, whose
  // cycles are known only when it is done): check() at issue, earliest_start(), then commit()
  // with the cycles the command took. issue() = check, execute, commit(busy_cycles()).
  /// Every check issue() makes before writing (fields, scratchpad ranges; in functional mode the
  /// moduli, the NTT tables and base converters they need). Returns the moduli table
  /// (functional mode; empty otherwise). Throws UnitFault.
  std::vector<uint64_t> check(const pcs::Ntt& n, const MemView& spm);
  /// Start cycle of `n` issued at `now`: its engine's next-free cycle and the scoreboard.
  uint64_t earliest_start(const pcs::Ntt& n, uint64_t now) const;
  /// Books `n` issued at `now` from `start` for `cycles`: engine timeline, scoreboard, counters
  /// and energy. Commands are committed in issue order.
  IssueResult commit(const pcs::Ntt& n, uint64_t now, uint64_t start, uint64_t cycles);
  /// Computes `n` on the scratchpad (functional mode); `q` from check().
  void execute(const pcs::Ntt& n, const MemView& spm, const std::vector<uint64_t>& q);
  /// A sum of several products (terms > 1): dst does not overlap the sources (check()).
  void execute_terms(const pcs::Ntt& n, const MemView& spm, const std::vector<uint64_t>& q);

  uint64_t next_free(Unit u) const { return next_free_[u]; }
  /// Latest completion cycle of any command issued so far.
  uint64_t last_done() const { return last_done_; }

 private:
  struct Access {
    uint64_t lo, hi, cycle;
    bool write;
  };
  const ntt::NttTables& tables(uint64_t q, uint32_t log_n);
  const ntt::BaseConverter& converter(const std::vector<uint64_t>& q, uint32_t from);

  NttConfig cfg_;
  std::array<uint64_t, kUnits> next_free_{};
  std::array<uint64_t, kUnits> busy_{};
  uint64_t last_done_ = 0;
  std::vector<Access> scoreboard_;
  std::map<std::pair<uint64_t, uint32_t>, std::unique_ptr<ntt::NttTables>> tables_;
  std::map<std::vector<uint64_t>, std::unique_ptr<ntt::BaseConverter>> converters_;
  double transforms_ = 0, butterflies_ = 0, modmuls_ = 0, modadds_ = 0, bconv_macs_ = 0,
         automorph_elements_ = 0, commands_ = 0;
};

}  // namespace photon
