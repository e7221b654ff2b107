// Row-hit runs of HbmChannelController (hbm_channel.h, set_row_hit_runs()): the cycles in which
// every queued command hits its bank's open row, processed without the general step's machinery.
//
// Why the result is that of step(), cycle by cycle, while the run lasts (no refresh due, cycle
// before the next tREFI grid point, every non-empty bank queue open and all its entries to the
// open row):
// - Refresh: nothing is due, so step() does no refresh work.
// - ACT needs a closed bank and PRE a queue whose oldest entry misses the open row: no non-empty
//   queue has either, so no row command is legal, and the second pick of a cycle (a row command
//   after a column command) never issues.
// - The first pick takes the first non-empty queue after the last one served (round robin) with
//   a legal RD/WR, and in it the oldest legal entry (first_ready()). step()'s bounds only skip
//   queues that cannot have one, so looking at every queue's RD/WR ready times gives the same
//   choice. A queue of reads only (writes only) has its oldest entry legal iff RD (WR) is.
// - The transaction move is schedule() itself. A move that misses its bank's open row ends the
//   run after its cycle.
// - A cycle without progress changes nothing but the clock (schedule() depends on the queues
//   only, not on the cycle), so the run skips to the next cycle at which a RD/WR becomes legal,
//   the next refresh or the limit; step() skips to a lower bound of that and then finds nothing
//   in between. The callers' conditions (room in a queue, the group done) change only in cycles
//   with progress, so the run stops in the same cycle as the run_cycle() loop it replaces.
// The bounds step() keeps (wake_of_, pick_wake_, row_pick_wake_) are not updated during a run.
// Its RD/WR commands leave them valid lower bounds (ready times only grow, commands only leave
// queues); a moved command can add a candidate, so the bounds of the queues the run moved
// commands into, and the channel-wide ones, are reset (0: look again) when the run ends.
#include <algorithm>

#include "models/hbm/hbm_channel.h"

namespace photon {

bool HbmChannelController::in_hit_run() const {
  if (refresh_due_ != 0 || now_ >= next_refresh_ || busy_.size() != 1) return false;
  if (queued_cmds_ == 0 && rq_.empty() && wq_.empty()) return false;  // idle: the general path
  for (uint64_t m = busy_[0]; m != 0; m &= m - 1) {
    const uint32_t b = uint32_t(__builtin_ctzll(m));
    if (!tim_.is_open(b) || hits_rd_[b] + hits_wr_[b] != bq_[b].size()) return false;
  }
  return true;
}

bool HbmChannelController::run_hits(Until u, bool is_write, uint64_t limit, Feed* f) {
  in_run_ = true;
  const bool processed = run_hits_loop(u, is_write, limit, f);
  in_run_ = false;
  if (run_dirty_ != 0) {
    for (uint64_t m = run_dirty_; m != 0; m &= m - 1) wake_of_[size_t(__builtin_ctzll(m))] = BankWake{};
    pick_wake_ = row_pick_wake_ = 0;
    run_dirty_ = 0;
  }
  return processed;
}

bool HbmChannelController::run_hits_loop(Until u, bool is_write, uint64_t limit, Feed* f) {
  bool processed = false;
  uint64_t t = now_;
  // No RD/WR is legal before cmd_at: after a RD/WR, none before the channel-scope RD/WR ready
  // times; after a cycle without one, the earliest ready time of the queues' commands; a moved
  // command is not legal before the channel-scope times either.
  auto channel_bound = [&] {
    return std::min(tim_.channel_ready(HbmCmd::RD), tim_.channel_ready(HbmCmd::WR));
  };
  uint64_t cmd_at = 0;
  while (t < limit && t < next_refresh_) {
    bool progress = false;
    if (queued_cmds_ > 0 && t >= cmd_at) {
      const uint32_t start = rr_ + 1 == nbanks_ ? 0 : rr_ + 1;
      const uint64_t m = busy_[0];
      const uint64_t high = ~uint64_t(0) << start;
      uint64_t next = kNever;
      // Round robin: the queues from `start` up, then those below it.
      for (uint64_t w = m & high, wrapped = m & ~high;; w = wrapped, wrapped = 0) {
        for (; w != 0; w &= w - 1) {
          const uint32_t b = uint32_t(__builtin_ctzll(w));
          const uint32_t hr = hits_rd_[b], hw = hits_wr_[b];
          const uint64_t rd_t = hr > 0 ? tim_.ready_time(HbmCmd::RD, b) : kNever;
          const uint64_t wr_t = hw > 0 ? tim_.ready_time(HbmCmd::WR, b) : kNever;
          if (rd_t > t && wr_t > t) {
            next = std::min(next, std::min(rd_t, wr_t));
            continue;
          }
          HbmCmd cmd = rd_t <= t ? HbmCmd::RD : HbmCmd::WR;
          int j = 0;  // one direction only: the oldest entry
          if (hr > 0 && hw > 0) j = oldest_legal_hit(bq_[b], tim_.open_row(b), t, rd_t, wr_t, cmd);
          if (j < 0) {  // writes held back by older reads of their address
            next = t + 1;
            continue;
          }
          rr_ = b;
          issue_column(b, size_t(j), cmd, t, false);
          progress = true;
          break;
        }
        if (progress || wrapped == 0) break;
      }
      cmd_at = progress ? channel_bound() : next;
    }
    moved_miss_ = false;
    if ((!rq_.empty() || !wq_.empty()) && schedule()) {
      progress = true;
      cmd_at = std::min(cmd_at, channel_bound());
    }
    if (progress) {
      last_busy_ = t;
      now_ = wake_ = t + 1;
      processed = true;
      if (f) feed(*f);  // the requests the caller would enqueue now, arriving at now_
      if (moved_miss_ || until_met(u, is_write, limit, f)) return true;
      t = now_;
      continue;
    }
    // Nothing happened: nothing moves until a RD/WR issues, and none is legal before cmd_at;
    // with no command queued, nothing happens before the next refresh.
    const uint64_t next = std::min(queued_cmds_ > 0 ? std::max(cmd_at, t + 1) : kNever, next_refresh_);
    if (next == kNever && limit == kNever) return processed;  // no event left: step() reports it
    now_ = wake_ = std::min(next, limit);
    processed = true;
    if (until_met(u, is_write, limit, f)) return true;
    t = now_;
  }
  return processed;
}

void HbmChannelController::run_until(Until u, bool is_write, uint64_t limit, Feed* f) {
  while (!until_met(u, is_write, limit, f)) {
    if (hit_runs_ && in_hit_run() && run_hits(u, is_write, limit, f)) continue;
    run_cycle();
    if (f) feed(*f);
  }
}

void HbmChannelController::run_until_room(bool is_write) { run_until(Until::kRoom, is_write, kNever); }

void HbmChannelController::run_until_group_done() { run_until(Until::kGroupDone, false, kNever); }

}  // namespace photon
