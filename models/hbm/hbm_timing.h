// HBM bank state machine and command timing checks for one (pseudo-)channel. Pure C++.
//
// Every command sets, for the commands that may follow it, the earliest cycle at which they are
// legal, at three scopes (the channel, the command's bank group, the command's bank), following
// DRAMsim3 src/timing.cc. Constraint values (tCK) derived from HbmConfig, JEDEC names:
//   RD -> RD   same BG: max(burst, tCCD_L)        other BG: max(burst, tCCD_S)
//   WR -> WR   same BG: max(burst, tCCD_L)        other BG: max(burst, tCCD_S)
//   RD -> WR   any bank: CL + burst - CWL + tRTRS (bus turnaround)
//   WR -> RD   same BG: CWL + burst + tWTR_L      other BG: CWL + burst + tWTR_S
//   RD -> PRE  same bank: tRTP;   WR -> PRE same bank: CWL + burst + tWR
//   ACT -> RD/WR same bank: tRCD; ACT -> PRE same bank: tRAS; ACT -> ACT same bank: tRC,
//          same BG: tRRD_L, other BG: tRRD_S, and at most 4 ACTs in any tFAW window
//   PRE -> ACT / REF same bank: tRP;  REF -> ACT / REF: tRFC
// burst = burst_length / beats_per_tck. Read data returns CL + burst after the RD command.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/hbm/hbm_config.h"

namespace photon {

enum class HbmCmd : uint8_t { ACT = 0, PRE = 1, RD = 2, WR = 3, REF = 4 };
constexpr int kHbmCmdTypes = 5;
const char* hbm_cmd_name(HbmCmd c);

/// Command-to-command distances in tCK, derived once from a config (formulas above).
struct HbmTimingParams {
  explicit HbmTimingParams(const HbmConfig& c);
  uint32_t burst, rd_rd_s, rd_rd_l, rd_wr, rd_pre;
  uint32_t wr_rd_s, wr_rd_l, wr_wr_s, wr_wr_l, wr_pre;
  uint32_t act_act, act_rd, act_wr, act_pre, rrd_s, rrd_l, faw;
  uint32_t pre_act, rfc;
  uint32_t read_delay;   ///< RD command to last data beat: CL + burst, tCK
  uint32_t write_delay;  ///< WR command to last data beat: CWL + burst, tCK
};

/// Bank states and next-legal cycles of one (pseudo-)channel.
class HbmChannelTiming {
 public:
  HbmChannelTiming(const HbmConfig& cfg, const HbmTimingParams& tp);

  uint32_t banks() const { return uint32_t(bank_.size()); }
  bool is_open(uint32_t bank) const { return bank_[bank].open; }
  uint32_t open_row(uint32_t bank) const { return bank_[bank].row; }
  /// Column commands issued to the open row since its ACT (0 right after the ACT).
  uint32_t row_hit_count(uint32_t bank) const { return bank_[bank].hits; }
  bool all_closed() const { return open_banks_ == 0; }

  /// Earliest cycle at which `cmd` to `bank` is legal (REF: ignores `bank`, needs all banks
  /// closed, which the caller checks). Does not check the bank state (open/closed, row).
  uint64_t ready_time(HbmCmd cmd, uint32_t bank) const {
    const auto c = size_t(cmd);
    uint64_t t = chan_[c];
    if (bg_[bg_of(bank)][c] > t) t = bg_[bg_of(bank)][c];
    if (bank_[bank].next[c] > t) t = bank_[bank].next[c];
    if (cmd == HbmCmd::ACT && faw_count_ == 4 && faw_[faw_head_] + tp_.faw > t) t = faw_[faw_head_] + tp_.faw;
    return t;
  }
  /// The channel-scope part of ready_time(): no `cmd` to any bank is legal before this cycle.
  uint64_t channel_ready(HbmCmd cmd) const { return chan_[size_t(cmd)]; }
  /// Earliest cycle of an all-bank REF (banks assumed closed).
  uint64_t refresh_ready_time() const;

  /// Applies `cmd` at cycle `t`. Throws photon::Error if it is illegal (too early, RD/WR to a
  /// closed bank or another row, ACT to an open bank, PRE to a closed bank, REF with open banks).
  void issue(HbmCmd cmd, uint32_t bank, uint32_t row, uint64_t t);
  /// A RD (or WR if is_write) at t to the open row of `bank` that the caller knows to be legal
  /// (t >= ready_time(), bank open on that row): the same state change as issue(), without
  /// issue()'s checks (HbmChannelController's row-hit runs, which have just computed ready_time).
  void issue_legal_column(bool is_write, uint32_t bank, uint64_t t) {
    Bank& b = bank_[bank];
    ++b.hits;
    auto& g = bg_[bg_of(bank)];
    const size_t RD = size_t(HbmCmd::RD), WR = size_t(HbmCmd::WR), PRE = size_t(HbmCmd::PRE);
    if (!is_write) {
      bump(chan_[RD], t + tp_.rd_rd_s);
      bump(g[RD], t + tp_.rd_rd_l);
      bump(chan_[WR], t + tp_.rd_wr);
      bump(b.next[PRE], t + tp_.rd_pre);
    } else {
      bump(chan_[WR], t + tp_.wr_wr_s);
      bump(g[WR], t + tp_.wr_wr_l);
      bump(chan_[RD], t + tp_.wr_rd_s);
      bump(g[RD], t + tp_.wr_rd_l);
      bump(b.next[PRE], t + tp_.wr_pre);
    }
  }
  /// Moves every next-legal cycle and the tFAW window `delta` tCK later (fast-forward).
  void shift(uint64_t delta);

 private:
  struct Bank {
    bool open = false;
    uint32_t row = 0;
    uint32_t hits = 0;
    uint64_t next[kHbmCmdTypes] = {};
  };
  uint32_t bg_of(uint32_t bank) const { return bank >> bg_shift_; }
  static void bump(uint64_t& v, uint64_t t) {
    if (t > v) v = t;
  }

  HbmTimingParams tp_;
  uint32_t banks_per_group_;
  uint32_t bg_shift_ = 0;  ///< log2(banks_per_group) (a power of two, HbmConfig::validate)
  std::vector<Bank> bank_;
  std::vector<std::array<uint64_t, kHbmCmdTypes>> bg_;
  uint64_t chan_[kHbmCmdTypes] = {};
  uint64_t faw_[4] = {};  ///< last four ACT cycles (ring), oldest at faw_head_ when full
  uint32_t faw_head_ = 0, faw_count_ = 0;
  uint32_t open_banks_ = 0;
};

}  // namespace photon
