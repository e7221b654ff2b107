// NttRtlUnit: the NTT unit with ntt.impl=rtl. Its NTT and INTT commands run on a verilated
// ntt_core (cosim/ntt/rtl) through the TLM-to-pin transactor (ntt_pin_driver.h); base conversion,
// element-wise ops and automorphisms stay on the TLM engine (NttEngine), which also keeps the
// unit's scheduling: the four internal engines' timelines and the scoreboard on scratchpad ranges
// (models/ntt/README.md), so a stream's commands overlap exactly as with ntt.impl=tlm.
//
// An NTT command starts at the cycle the TLM model gives it (NttEngine::earliest_start) and ends
// when the core says done: its busy cycles are the core's. The unit accepts one command per cycle
// as the model does and does not wait for the core: the command's completion is reported to the
// queue later (QueueUnit deferred completion). The commands issued while the core works are
// checked at once (faults at the same time as with ntt.impl=tlm) and held in order; when the core
// answers, each is booked with its own issue cycle, exactly where the model puts it, and its
// functional result computed (the next NTT goes to the core, and holds the rest again). Holding
// them costs nothing in simulated time: no other unit can see their results before the queue's
// next Signal, which waits for them. In functional mode the transactor reads the operands from
// the scratchpad's backing store when the command goes to the core and writes the results when
// the core is done, the path the TLM engine uses.
//
// Errors. Configuration (at construction): a verilated variant must match ntt.lanes,
// ntt.word_bits, ntt.pipeline_depth and ntt.limb_interleave; ntt.transpose_cycles must be 0 (the
// core has no 4-step transposes), ntt.spm_words_per_cycle 0 or >= 4 lanes (the core's streams
// must not be throttled), and the clock period a whole number of ps. Program (at load): every
// NTT/INTT must fit the core's N range. Run: a modulus wider than the datapath is a decode fault
// at issue; a core error, a protocol violation or a core that gives no done within its watchdog
// bound stops the queue with a unit error naming the time and the command.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cosim/cosim_config.h"
#include "cosim/ntt/ntt_rtl_core.h"
#include "models/ntt/ntt_engine.h"
#include "platform/compute_unit.h"

namespace photon {

class NttRtlUnit : public ComputeUnit {
 public:
  /// Throws Error naming the key for a configuration no built core supports (check_config()).
  NttRtlUnit(sc_core::sc_module_name name, const NttConfig& ntt, const CosimConfig& cosim, const MemView& spm,
             const Wiring& w);
  ~NttRtlUnit() override;

  /// The checks of the constructor, without elaborating anything: throws Error naming the key.
  static const cosim::NttRtlParams& check_config(const NttConfig& ntt, const CosimConfig& cosim);

  void check_command(const pcs::Command& c, uint32_t index) const override;
  cosim::NttRtlCore& core() { return *core_; }

 protected:
  Timing execute(const pcs::Command& c, uint32_t index) override;

 private:
  struct Held {
    pcs::Command cmd;
    uint32_t index;
    uint64_t issue_cycle;
    std::vector<uint64_t> moduli;  // read at issue (functional mode)
  };
  struct InFlight {
    pcs::Command cmd;
    uint32_t index = 0;
    uint64_t issue_cycle = 0, start = 0;
  };
  static bool on_core(const pcs::Command& c);
  uint64_t cycle_now() const;
  sc_core::sc_time time_of(uint64_t cycle) const;
  void book(const IssueResult& r);
  /// Checks what the core needs beyond the TLM engine's checks (moduli below 2^width).
  void check_for_core(const pcs::Ntt& n, const std::vector<uint64_t>& q, uint32_t index) const;
  void launch(const pcs::Command& c, uint32_t index, uint64_t issue_cycle, const std::vector<uint64_t>& q);
  void on_core_done(cosim::NttRtlJob& job);
  /// Schedules held commands in order until one waits for the core again.
  void drain();
  const std::vector<uint64_t>& timing_moduli(uint32_t log_n, uint32_t limbs);

  NttConfig cfg_;
  cosim::NttRtlParams params_;
  MemView spm_;
  NttEngine* eng_;  // owned by ComputeUnit
  std::unique_ptr<cosim::NttRtlCore> core_;
  std::deque<Held> held_;
  bool busy_core_ = false;
  InFlight in_flight_;
  std::map<uint32_t, std::vector<uint64_t>> timing_moduli_;  // log_n -> one prime per limb
};

}  // namespace photon
