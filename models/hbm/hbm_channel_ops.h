// The channel controller's per-request operations (enqueue, move to a bank queue, RD/WR issue and
// their bookkeeping), defined inline so that the general step (hbm_channel.cpp) and the row-hit
// runs (hbm_channel_hits.cpp) both compile them into their loops. Private to those two files.
#pragma once

#include <algorithm>

#include "base/error.h"
#include "models/hbm/hbm_channel.h"

namespace photon {

inline bool HbmChannelController::pending_read(uint64_t addr, uint32_t bank) const {
  if (rd_filter_[slot(addr)] == 0) return false;
  for (size_t i = 0; i < rq_.size(); ++i)
    if (rq_[i].addr == addr) return true;
  const auto& q = bq_[bank];
  for (size_t i = 0; i < q.size(); ++i)
    if (!q[i].is_write && q[i].addr == addr) return true;
  return false;
}

inline bool HbmChannelController::pending_write(uint64_t addr, uint32_t bank) const {
  if (wr_filter_[slot(addr)] == 0) return false;
  for (size_t i = 0; i < wq_.size(); ++i)
    if (wq_[i].addr == addr) return true;
  const auto& q = bq_[bank];
  for (size_t i = 0; i < q.size(); ++i)
    if (q[i].is_write && q[i].addr == addr) return true;
  return false;
}

inline void HbmChannelController::done(uint32_t group, uint64_t cycle) {
  if (cycle > ctr_.last_done) ctr_.last_done = cycle;
  if (group != 0 && group == group_ && cycle > group_done_) group_done_ = cycle;
}

inline void HbmChannelController::finish_read(uint64_t arrival, uint32_t group, uint64_t cycle) {
  ++ctr_.reads_done;
  ctr_.total_read_latency += cycle - arrival;
  --pending_reads_;
  if (group != 0 && group == group_) --group_pending_;
  done(group, cycle);
}

inline void HbmChannelController::enqueue_column(uint64_t addr, uint32_t row, uint16_t bank, bool is_write,
                                          uint32_t group) {
  const uint64_t t = now_;
  if (group != 0 && group != group_) {
    group_ = group;
    group_pending_ = 0;
    group_done_ = 0;
  }
  const bool bank_has_room = bq_[bank].size() < bq_cap_;
  if (is_write) {
    if (!has_room(true)) throw Error("hbm: write buffer full (call has_room() first)");
    ++ctr_.writes;
    if (!pending_write(addr, bank)) {  // a pending write to the same address is replaced
      ++pending_writes_;
      wq_.push_back(Req{addr, t, row, bank, true, group});
      ++wr_filter_[slot(addr)];
      ++cnt_w_[bank];
      if (bank_has_room) ++movable_w_;
    }
    done(group, t + 1);  // posted write
    return;
  }
  if (!has_room(false)) throw Error("hbm: read queue full (call has_room() first)");
  ++ctr_.reads;
  if (pending_write(addr, bank)) {  // served from the write buffer
    ++ctr_.reads_done;
    ctr_.total_read_latency += 1;
    done(group, t + 1);
    return;
  }
  ++pending_reads_;
  if (group != 0) ++group_pending_;
  if (pending_read(addr, bank)) {  // merges with the queued read of the same address
    followers_[addr].push_back(Follower{t, group});
    return;
  }
  rq_.push_back(Req{addr, t, row, bank, false, group});
  ++rd_filter_[slot(addr)];
  ++cnt_r_[bank];
  if (bank_has_room) ++movable_r_;
}

inline void HbmChannelController::rebound(uint32_t bank) {
  BankWake& w = wake_of_[bank];
  if (!tim_.is_open(bank)) {
    w = BankWake{kNever, kNever, tim_.ready_time(HbmCmd::ACT, bank)};
  } else {
    const bool hits = hits_rd_[bank] + hits_wr_[bank] > 0;
    const bool pre_allowed =
        bq_[bank].front().row != tim_.open_row(bank) && (!hits || tim_.row_hit_count(bank) >= 4);
    w.row = pre_allowed ? tim_.ready_time(HbmCmd::PRE, bank) : kNever;
    w.rd = hits_rd_[bank] > 0 ? tim_.ready_time(HbmCmd::RD, bank) : kNever;
    w.wr = hits_wr_[bank] > 0 ? tim_.ready_time(HbmCmd::WR, bank) : kNever;
  }
  pick_wake_ = std::min(pick_wake_, wake_bound(bank, false));
  row_pick_wake_ = std::min(row_pick_wake_, w.row);
}

inline void HbmChannelController::issue_column(uint32_t bank, size_t idx, HbmCmd cmd, uint64_t t, bool bounds) {
  auto& q = bq_[bank];
  const Req& r = q[idx];
  const uint64_t addr = r.addr, arrival = r.arrival;
  const uint32_t group = r.group;
  if (tim_.row_hit_count(bank) != 0) ++ctr_.row_hits;
  const bool is_read = cmd == HbmCmd::RD;
  if (bounds) {
    tim_.issue(cmd, bank, r.row, t);  // checked
    // Channel-wide bounds, as the command bus rules of HbmChannelTiming::issue (RD/WR -> RD/WR,
    // any bank); row-hit runs leave them lower, which keeps them valid.
    chan_rd_ = std::max(chan_rd_, t + (is_read ? tp_.rd_rd_s : tp_.wr_rd_s));
    chan_wr_ = std::max(chan_wr_, t + (is_read ? tp_.rd_wr : tp_.wr_wr_s));
  } else {
    tim_.issue_legal_column(!is_read, bank, t);  // row-hit run: legal by construction
  }
  // A column command always hits the open row.
  --(is_read ? hits_rd_ : hits_wr_)[bank];
  if (q.size() == bq_cap_) {  // bank queue leaves the full state
    movable_r_ += cnt_r_[bank];
    movable_w_ += cnt_w_[bank];
    rq_skip_ = wq_skip_ = 0;
  }
  q.erase(idx);
  if (q.empty())
    busy_[bank >> 6] &= ~(uint64_t(1) << (bank & 63));
  else if (bounds)
    rebound(bank);
  --queued_cmds_;
  if (!is_read) {
    ++ctr_.write_cmds;
    --pending_writes_;
    --wr_filter_[slot(addr)];
    return;
  }
  ++ctr_.read_cmds;
  --rd_filter_[slot(addr)];
  const uint64_t data = t + tp_.read_delay;
  finish_read(arrival, group, data);
  if (!followers_.empty()) {  // the reads merged with this one complete with it
    auto f = followers_.find(addr);
    if (f != followers_.end()) {
      for (const Follower& fl : f->second) finish_read(fl.arrival, fl.group, data);
      followers_.erase(f);
    }
  }
}

inline bool HbmChannelController::schedule() {
  if (write_draining_ == 0 &&
      (wq_.size() >= wq_cap_ || (rq_.empty() && wq_.size() >= (drain_all_ ? 1 : cfg_.write_drain_threshold))))
    write_draining_ = uint32_t(wq_.size());
  if (write_draining_ > 0) {
    if (movable_w_ == 0) return false;  // every target bank queue is full
    for (size_t i = wq_skip_; i < wq_.size(); ++i) {
      const Req& r = wq_[i];
      if (bq_[r.bank].size() >= bq_cap_) continue;
      wq_skip_ = i;
      if (pending_read(r.addr, r.bank)) {
        // Read-before-write to the same address: the drain stops (DRAMsim3) and, so that the
        // read can make progress even with a full buffer, the read queue is served this cycle.
        write_draining_ = 0;
        return move_from(rq_, movable_r_, rq_skip_);
      }
      --write_draining_;
      move(wq_, i);
      return true;
    }
    return false;
  }
  return move_from(rq_, movable_r_, rq_skip_);
}

inline bool HbmChannelController::move_from(HbmRing<Req>& q, uint32_t movable, size_t& skip) {
  if (movable == 0) return false;
  for (size_t i = skip; i < q.size(); ++i) {
    if (bq_[q[i].bank].size() < bq_cap_) {
      skip = i;
      move(q, i);
      return true;
    }
  }
  return false;
}

inline void HbmChannelController::move(HbmRing<Req>& q, size_t i) {
  const Req r = q[i];
  const uint32_t b = r.bank;
  if (r.is_write) {
    --cnt_w_[b];
    --movable_w_;
  } else {
    --cnt_r_[b];
    --movable_r_;
  }
  auto& bq = bq_[b];
  const bool hit = tim_.is_open(b) && tim_.open_row(b) == r.row;
  if (hit) ++(r.is_write ? hits_wr_ : hits_rd_)[b];
  // A command appended to a non-empty queue adds no candidate unless it hits the open row (a
  // RD/WR); it never makes a row command (ACT for the whole queue, PRE for the oldest command)
  // legal earlier. Otherwise the bounds are recomputed.
  const bool was_empty = bq.empty();
  moved_off_run_ = tim_.is_open(b) ? !hit : !was_empty && bq.front().row != r.row;
  last_moved_bank_ = b;
  bq.push_back(r);
  if (in_run_)
    run_dirty_ |= uint64_t(1) << b;  // bounds reset when the row-hit run ends
  else if (was_empty || hit)
    rebound(b);
  busy_[b >> 6] |= uint64_t(1) << (b & 63);
  ++queued_cmds_;
  q.erase(i);
  if (bq_[b].size() == bq_cap_) {  // bank queue now full: its waiting requests cannot move
    movable_r_ -= cnt_r_[b];
    movable_w_ -= cnt_w_[b];
  }
}

}  // namespace photon
