// Row-hit runs of HbmChannelController (hbm_channel.h, set_row_hit_runs()): the cycles in which
// every queued command goes to one row per bank, the bank's open row or, for a closed bank, the
// row its ACT will open, processed without the general step's machinery.
//
// Why the result is that of step(), cycle by cycle, while the run lasts (no refresh due, cycle
// before the next tREFI grid point, every non-empty bank queue either open with all its entries
// to the open row, or closed with all its entries to one row):
// - Refresh: nothing is due, so step() does no refresh work.
// - PRE needs an open bank whose oldest queued entry misses the open row: there is none. A closed
//   queue's next command is its ACT, an open queue's its oldest legal RD/WR (first_ready()).
// - The first pick takes the first non-empty queue after the last one served (round robin) with
//   a legal command; step()'s bounds only skip queues that cannot have one, so looking at every
//   queue's RD/WR/ACT ready times gives the same choice. A queue of reads only (writes only) has
//   its oldest entry legal iff RD (WR) is. The second pick (HBM's separate row and column command
//   buses) starts after the first one's queue: after a RD/WR, the first queue with a legal ACT;
//   after an ACT, the first queue with any legal command, issued if it is a RD/WR; either moves
//   the round robin as step() does.
// - The transaction move is schedule() itself. A move that puts a command to another row into a
//   queue ends the run after its cycle. An ACT opens the row all its queue's entries go to.
// - A cycle without progress changes nothing but the clock and, once, the start of a write drain
//   that has nothing to move yet (schedule() depends on the queues only, not on the cycle); that
//   cycle itself is processed, so the cycles after it repeat it exactly, and the run skips them:
//   to the next cycle at which a command becomes legal, the next refresh or the limit (step()
//   skips to a lower bound of that and then finds nothing in between). The callers' conditions (room in a queue, the group done, the feed enqueued)
//   change only in cycles with progress, so the run stops in the same cycle as the run_cycle()
//   loop it replaces, and accept_all() enqueues each request at the cycle accept() would.
// The bounds step() keeps (wake_of_, pick_wake_, row_pick_wake_) are not updated during a run.
// Its RD/WR commands leave them valid lower bounds (ready times only grow, commands only leave
// queues); a moved command can add a candidate, so the bounds of the queues the run moved
// commands into, and the channel-wide ones, are reset (0: look again) when the run ends.
#include <algorithm>

#include "models/hbm/hbm_channel.h"
#include "models/hbm/hbm_channel_ops.h"

namespace photon {

bool HbmChannelController::in_hit_run() const {
  if (refresh_due_ != 0 || now_ >= next_refresh_ || busy_.size() != 1) return false;
  if (queued_cmds_ == 0 && rq_.empty() && wq_.empty()) return false;  // idle: the general path
  for (uint64_t m = busy_[0]; m != 0; m &= m - 1) {
    const uint32_t b = uint32_t(__builtin_ctzll(m));
    const auto& q = bq_[b];
    if (tim_.is_open(b)) {
      if (hits_rd_[b] + hits_wr_[b] != q.size()) return false;
    } else {
      for (size_t j = 1; j < q.size(); ++j)
        if (q[j].row != q.front().row) return false;
    }
  }
  return true;
}

inline bool HbmChannelController::run_pick(uint64_t t, bool row_only, uint64_t closed, Pick& p,
                                           uint64_t& next) const {
  const uint32_t start = rr_ + 1 == nbanks_ ? 0 : rr_ + 1;
  const uint64_t m = busy_[0];
  const uint64_t high = ~uint64_t(0) << start;
  // Round robin: the queues from `start` up, then those below it.
  for (uint64_t w = m & high, wrapped = m & ~high;; w = wrapped, wrapped = 0) {
    for (; w != 0; w &= w - 1) {
      const uint32_t b = uint32_t(__builtin_ctzll(w));
      if (closed >> b & 1) {  // the queue's ACT
        const uint64_t act_t = tim_.ready_time(HbmCmd::ACT, b);
        if (act_t > t) {
          next = std::min(next, act_t);
          continue;
        }
        p = Pick{b, 0, HbmCmd::ACT};
        return true;
      }
      if (row_only) continue;  // an open queue of a run has no legal row command
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
      p = Pick{b, j, cmd};
      return true;
    }
    if (wrapped == 0) return false;
  }
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
  uint64_t closed = 0;  // non-empty queues of closed banks (waiting for their ACT)
  for (uint64_t m = busy_[0]; m != 0; m &= m - 1)
    if (!tim_.is_open(uint32_t(__builtin_ctzll(m)))) closed |= m & (~m + 1);
  // No command is legal before cmd_at: after a cycle without one, the earliest ready time of the
  // queues' commands; after a RD/WR, the channel-scope RD/WR ready times or a closed queue's ACT
  // (after an ACT: the next cycle); a command moved to an open bank is not legal before the
  // channel-scope times either, one moved to a closed bank not before its ACT.
  auto column_bound = [&] {
    return std::min(tim_.channel_ready(HbmCmd::RD), tim_.channel_ready(HbmCmd::WR));
  };
  auto act_bound = [&] {  // the closed queues' ACTs
    uint64_t b = kNever;
    for (uint64_t m = closed; m != 0; m &= m - 1)
      b = std::min(b, tim_.ready_time(HbmCmd::ACT, uint32_t(__builtin_ctzll(m))));
    return b;
  };
  auto issue_run = [&](const Pick& p) {
    if (p.cmd == HbmCmd::ACT) {
      issue(p, t);
      closed &= ~(uint64_t(1) << p.bank);
      run_dirty_ |= uint64_t(1) << p.bank;
    } else {
      issue_column(p.bank, size_t(p.idx), p.cmd, t, false);
    }
  };
  uint64_t cmd_at = 0;
  while (t < limit && t < next_refresh_) {
    bool progress = false;
    if (queued_cmds_ > 0 && t >= cmd_at) {
      uint64_t next = kNever;
      Pick first;
      if (run_pick(t, false, closed, first, next)) {
        rr_ = first.bank;
        const bool first_col = first.cmd != HbmCmd::ACT;
        issue_run(first);
        progress = true;
        Pick second;  // row and column command buses: one of each per cycle
        uint64_t unused = kNever;
        // After a RD/WR only an ACT can follow, and only a closed queue has one.
        if (queued_cmds_ > 0 && (!first_col || closed != 0) && run_pick(t, first_col, closed, second, unused)) {
          rr_ = second.bank;
          if ((second.cmd != HbmCmd::ACT) != first_col) issue_run(second);
        }
        cmd_at = first_col ? std::min(column_bound(), act_bound()) : t + 1;
      } else {
        cmd_at = next;
      }
    }
    moved_off_run_ = false;
    if ((!rq_.empty() || !wq_.empty()) && schedule()) {
      progress = true;
      if (!tim_.is_open(last_moved_bank_)) {
        closed |= uint64_t(1) << last_moved_bank_;
        cmd_at = std::min(cmd_at, tim_.ready_time(HbmCmd::ACT, last_moved_bank_));
      } else {
        cmd_at = std::min(cmd_at, column_bound());
      }
    }
    if (progress) {
      last_busy_ = t;
      now_ = wake_ = t + 1;
      processed = true;
      if (f) feed(*f);  // the requests the caller would enqueue now, arriving at now_
      if (moved_off_run_ || until_met(u, is_write, limit, f)) return true;
      t = now_;
      continue;
    }
    // Nothing happened: nothing moves until a command issues, and none is legal before cmd_at;
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
