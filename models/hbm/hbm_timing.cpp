#include "models/hbm/hbm_timing.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace photon {

const char* hbm_cmd_name(HbmCmd c) {
  switch (c) {
    case HbmCmd::ACT: return "ACT";
    case HbmCmd::PRE: return "PRE";
    case HbmCmd::RD: return "RD";
    case HbmCmd::WR: return "WR";
    case HbmCmd::REF: return "REF";
  }
  return "?";
}

HbmTimingParams::HbmTimingParams(const HbmConfig& c) {
  burst = c.burst_cycles();
  rd_rd_s = std::max(burst, c.tCCD_S);
  rd_rd_l = std::max(burst, c.tCCD_L);
  rd_wr = c.CL + burst + c.tRTRS > c.CWL ? c.CL + burst + c.tRTRS - c.CWL : 1;
  rd_pre = c.tRTP;
  wr_rd_s = c.CWL + burst + c.tWTR_S;
  wr_rd_l = c.CWL + burst + c.tWTR_L;
  wr_wr_s = std::max(burst, c.tCCD_S);
  wr_wr_l = std::max(burst, c.tCCD_L);
  wr_pre = c.CWL + burst + c.tWR;
  act_act = c.tRC;
  act_rd = c.tRCD;
  act_wr = c.tRCD;
  act_pre = c.tRAS;
  rrd_s = c.tRRD_S;
  rrd_l = c.tRRD_L;
  faw = c.tFAW;
  pre_act = c.tRP;
  rfc = c.tRFC;
  read_delay = c.CL + burst;
  write_delay = c.CWL + burst;
}

HbmChannelTiming::HbmChannelTiming(const HbmConfig& cfg, const HbmTimingParams& tp)
    : tp_(tp),
      banks_per_group_(cfg.banks_per_group),
      bank_(size_t(cfg.bank_groups) * cfg.banks_per_group),
      bg_(cfg.bank_groups) {
  for (auto& g : bg_) g.fill(0);
  while ((1u << bg_shift_) < banks_per_group_) ++bg_shift_;
}

uint64_t HbmChannelTiming::refresh_ready_time() const {
  uint64_t t = chan_[size_t(HbmCmd::REF)];
  for (const auto& b : bank_) t = std::max(t, b.next[size_t(HbmCmd::REF)]);
  return t;
}

void HbmChannelTiming::issue(HbmCmd cmd, uint32_t bank, uint32_t row, uint64_t t) {
  const uint64_t ready = cmd == HbmCmd::REF ? refresh_ready_time() : ready_time(cmd, bank);
  if (t < ready)
    throw Error(std::string("hbm timing: ") + hbm_cmd_name(cmd) + " to bank " + std::to_string(bank) +
                " at cycle " + std::to_string(t) + " violates timing (legal from cycle " +
                std::to_string(ready) + ")");
  auto fail = [&](const char* why) {
    throw Error(std::string("hbm timing: ") + hbm_cmd_name(cmd) + " to bank " + std::to_string(bank) +
                " at cycle " + std::to_string(t) + ": " + why);
  };
  const size_t ACT = size_t(HbmCmd::ACT), PRE = size_t(HbmCmd::PRE), RD = size_t(HbmCmd::RD),
               WR = size_t(HbmCmd::WR), REF = size_t(HbmCmd::REF);
  switch (cmd) {
    case HbmCmd::ACT: {
      Bank& b = bank_[bank];
      if (b.open) fail("bank already open");
      b.open = true;
      b.row = row;
      b.hits = 0;
      ++open_banks_;
      bump(b.next[ACT], t + tp_.act_act);
      bump(b.next[RD], t + tp_.act_rd);
      bump(b.next[WR], t + tp_.act_wr);
      bump(b.next[PRE], t + tp_.act_pre);
      bump(bg_[bg_of(bank)][ACT], t + tp_.rrd_l);
      bump(chan_[ACT], t + tp_.rrd_s);
      if (faw_count_ < 4) {
        faw_[(faw_head_ + faw_count_) % 4] = t;
        ++faw_count_;
      } else {
        faw_[faw_head_] = t;
        faw_head_ = (faw_head_ + 1) % 4;
      }
      break;
    }
    case HbmCmd::PRE: {
      Bank& b = bank_[bank];
      if (!b.open) fail("bank is closed");
      b.open = false;
      b.hits = 0;
      --open_banks_;
      bump(b.next[ACT], t + tp_.pre_act);
      bump(b.next[REF], t + tp_.pre_act);
      break;
    }
    case HbmCmd::RD:
    case HbmCmd::WR: {
      Bank& b = bank_[bank];
      if (!b.open) fail("bank is closed");
      if (b.row != row) fail("row is not the open row");
      issue_legal_column(cmd == HbmCmd::WR, bank, t);
      break;
    }
    case HbmCmd::REF: {
      if (open_banks_ != 0) fail("banks are open");
      bump(chan_[ACT], t + tp_.rfc);
      bump(chan_[REF], t + tp_.rfc);
      break;
    }
  }
}

void HbmChannelTiming::shift(uint64_t delta) {
  for (auto& b : bank_)
    for (auto& v : b.next) v += delta;
  for (auto& g : bg_)
    for (auto& v : g) v += delta;
  for (auto& v : chan_) v += delta;
  for (auto& v : faw_) v += delta;
}

}  // namespace photon
