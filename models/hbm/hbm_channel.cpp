#include "models/hbm/hbm_channel.h"
#include "models/hbm/hbm_channel_ops.h"

#include <algorithm>
#include <limits>
#include <string>

#include "base/error.h"

namespace photon {

void HbmCounters::add(const HbmCounters& o) {
  reads += o.reads;
  writes += o.writes;
  read_cmds += o.read_cmds;
  write_cmds += o.write_cmds;
  activates += o.activates;
  precharges += o.precharges;
  refreshes += o.refreshes;
  row_hits += o.row_hits;
  reads_done += o.reads_done;
  total_read_latency += o.total_read_latency;
  last_done = std::max(last_done, o.last_done);
}

HbmCounters HbmCounters::minus(const HbmCounters& e) const {
  HbmCounters r = *this;
  r.reads -= e.reads;
  r.writes -= e.writes;
  r.read_cmds -= e.read_cmds;
  r.write_cmds -= e.write_cmds;
  r.activates -= e.activates;
  r.precharges -= e.precharges;
  r.refreshes -= e.refreshes;
  r.row_hits -= e.row_hits;
  r.reads_done -= e.reads_done;
  r.total_read_latency -= e.total_read_latency;
  return r;
}

HbmChannelController::HbmChannelController(const HbmConfig& cfg, const HbmTimingParams& tp)
    : cfg_(cfg),
      tp_(tp),
      tim_(cfg, tp),
      rq_cap_(cfg.read_queue_depth),
      wq_cap_(cfg.write_queue_depth),
      bq_cap_(cfg.bank_queue_depth),
      bq_(size_t(cfg.bank_groups) * cfg.banks_per_group),
      rd_filter_(1024, 0),
      wr_filter_(1024, 0),
      nbanks_(cfg.bank_groups * cfg.banks_per_group),
      next_refresh_(cfg.refresh_enabled ? cfg.tREFI : std::numeric_limits<uint64_t>::max()) {
  while ((uint64_t(1) << slot_shift_) < cfg.access_bytes()) ++slot_shift_;
  rq_.init(rq_cap_);
  wq_.init(wq_cap_);
  for (auto& q : bq_) q.init(bq_cap_);
  busy_.assign((nbanks_ + 63) / 64, 0);
  cnt_r_.assign(nbanks_, 0);
  cnt_w_.assign(nbanks_, 0);
  rr_ = nbanks_ - 1;  // the first visit starts at bank queue 0
  wake_of_.assign(nbanks_, BankWake{});
  hits_rd_.assign(nbanks_, 0);
  hits_wr_.assign(nbanks_, 0);
}

void HbmChannelController::accept(uint64_t addr, const HbmAddress& a, bool is_write, uint32_t group,
                                  uint64_t arrival) {
  if (arrival < now_)
    rewind_idle(arrival);
  else if (arrival > now_)
    advance_to(arrival);
  if (!has_room(is_write)) run_until_room(is_write);
  enqueue(addr, a, is_write, group);
}

size_t HbmChannelController::accept_all(const HbmColumn* cols, size_t n, bool is_write, uint32_t group,
                                        uint64_t arrival, AcceptHook hook, void* hook_ctx) {
  if (n == 0) return 0;
  if (arrival < now_)
    rewind_idle(arrival);
  else if (arrival > now_)
    advance_to(arrival);
  Feed f{cols, n, 0, is_write, group, hook, hook_ctx};
  feed(f);
  if (f.next < f.n) run_until(Until::kFed, is_write, kNever, &f);
  return f.next;
}

void HbmChannelController::enqueue(uint64_t addr, const HbmAddress& a, bool is_write, uint32_t group) {
  enqueue_column(addr, a.row, uint16_t(a.bank), is_write, group);
}

int HbmChannelController::first_ready(uint32_t bank, uint64_t t, HbmCmd& cmd, bool row_only) {
  const auto& q = bq_[bank];
  BankWake& w = wake_of_[bank];
  if (!tim_.is_open(bank)) {  // every queued command needs the same ACT
    const uint64_t rt = tim_.ready_time(HbmCmd::ACT, bank);
    if (rt > t) {
      w = BankWake{kNever, kNever, rt};
      return -1;
    }
    cmd = HbmCmd::ACT;
    return 0;
  }
  const uint32_t row = tim_.open_row(bank);
  const bool hits = hits_rd_[bank] + hits_wr_[bank] > 0;
  // Row conflict: PRE only for the oldest command, and only if no queued command hits the open
  // row or the open row has already served 4 column commands. The PRE goes first if legal.
  const bool pre_allowed = q.front().row != row && (!hits || tim_.row_hit_count(bank) >= 4);
  const uint64_t pre_t = pre_allowed ? tim_.ready_time(HbmCmd::PRE, bank) : kNever;
  if (pre_t <= t) {
    cmd = HbmCmd::PRE;
    return 0;
  }
  if (!hits) w.rd = w.wr = kNever;
  w.row = pre_t;
  // Right after a column command no RD/WR can be legal in the same cycle.
  if (row_only || !hits) return -1;
  // Row hits pass older row misses: the oldest legal RD/WR to the open row.
  const uint64_t rd_t = hits_rd_[bank] > 0 ? tim_.ready_time(HbmCmd::RD, bank) : kNever;
  const uint64_t wr_t = hits_wr_[bank] > 0 ? tim_.ready_time(HbmCmd::WR, bank) : kNever;
  w.rd = rd_t;
  w.wr = wr_t;
  if (rd_t > t && wr_t > t) return -1;
  return oldest_legal_hit(q, row, t, rd_t, wr_t, cmd);  // -1: only writes held back by an older
                                                        // read: w.wr <= t, revisited next cycle
}

int HbmChannelController::oldest_legal_hit(const HbmRing<Req>& q, uint32_t row, uint64_t t, uint64_t rd_t,
                                           uint64_t wr_t, HbmCmd& cmd) const {
  for (size_t j = 0; j < q.size(); ++j) {
    const Req& r = q[j];
    if (r.row != row) continue;
    if (r.is_write) {
      if (wr_t > t) continue;
      bool dep = false;  // a write may not pass an older read of the same address
      for (size_t k = 0; k < j && !dep; ++k) dep = !q[k].is_write && q[k].addr == r.addr;
      if (dep) continue;
      cmd = HbmCmd::WR;
    } else {
      if (rd_t > t) continue;
      cmd = HbmCmd::RD;
    }
    return int(j);
  }
  return -1;
}

int HbmChannelController::next_busy(uint32_t from) const {
  for (uint32_t w = from >> 6; w < busy_.size(); ++w) {
    uint64_t m = busy_[w];
    if (w == (from >> 6)) m &= ~uint64_t(0) << (from & 63);
    if (m) return int(w * 64 + uint32_t(__builtin_ctzll(m)));
  }
  return -1;
}

bool HbmChannelController::pick(uint64_t t, Pick& p, uint64_t& wake, bool row_only) {
  const uint64_t bound_all = row_only ? row_pick_wake_ : pick_wake_;
  if (bound_all > t) {  // no queue can have a legal command (row command) yet
    if (bound_all < wake) wake = bound_all;
    return false;
  }
  const uint32_t start = rr_ + 1 == nbanks_ ? 0 : rr_ + 1;
  uint64_t lo = kNever;  // lowest bound (> t) of the visited queues
  auto visit = [&](uint32_t q) {
    const uint64_t bound = wake_bound(q, row_only);
    if (bound > t) {
      if (bound < lo) lo = bound;
      return false;
    }
    const int j = first_ready(q, t, p.cmd, row_only);
    if (j < 0) {
      const uint64_t next = std::max(wake_bound(q, row_only), t + 1);
      if (next < lo) lo = next;
      return false;
    }
    rr_ = q;
    p.bank = q;
    p.idx = j;
    return true;
  };
  auto found = [&]() {
    if (busy_.size() == 1) {  // up to 64 banks: walk the set bits from `start`, then wrap
      const uint64_t m = busy_[0];
      const uint64_t high_mask = ~uint64_t(0) << start;
      for (uint64_t h = m & high_mask; h; h &= h - 1)
        if (visit(uint32_t(__builtin_ctzll(h)))) return true;
      for (uint64_t l = m & ~high_mask; l; l &= l - 1)
        if (visit(uint32_t(__builtin_ctzll(l)))) return true;
      return false;
    }
    for (int q = next_busy(start); q >= 0; q = next_busy(uint32_t(q) + 1))
      if (visit(uint32_t(q))) return true;
    for (int q = next_busy(0); q >= 0 && uint32_t(q) < start; q = next_busy(uint32_t(q) + 1))
      if (visit(uint32_t(q))) return true;
    return false;
  };
  if (found()) return true;
  // Every queue was visited and now has bounds > t: lo bounds them all.
  if (lo < wake) wake = lo;
  (row_only ? row_pick_wake_ : pick_wake_) = lo;
  return false;
}

void HbmChannelController::issue(const Pick& p, uint64_t t) {
  auto& q = bq_[p.bank];
  Req& r = q[size_t(p.idx)];
  switch (p.cmd) {
    case HbmCmd::ACT: {
      tim_.issue(HbmCmd::ACT, p.bank, r.row, t);
      ++ctr_.activates;
      uint32_t rd = 0, wr = 0;
      for (size_t j = 0; j < q.size(); ++j) {
        if (q[j].row != r.row) continue;
        if (q[j].is_write)
          ++wr;
        else
          ++rd;
      }
      hits_rd_[p.bank] = rd;
      hits_wr_[p.bank] = wr;
      rebound(p.bank);
      return;
    }
    case HbmCmd::PRE:
      tim_.issue(HbmCmd::PRE, p.bank, 0, t);
      ++ctr_.precharges;
      hits_rd_[p.bank] = hits_wr_[p.bank] = 0;
      rebound(p.bank);
      return;
    case HbmCmd::RD:
    case HbmCmd::WR: issue_column(p.bank, size_t(p.idx), p.cmd, t, true); return;
    case HbmCmd::REF: break;
  }
}

bool HbmChannelController::issue_refresh(uint64_t t) {
  std::fill(wake_of_.begin(), wake_of_.end(), BankWake{});
  pick_wake_ = row_pick_wake_ = 0;
  for (uint32_t b = 0; b < nbanks_; ++b) {
    if (tim_.is_open(b) && tim_.ready_time(HbmCmd::PRE, b) <= t) {
      tim_.issue(HbmCmd::PRE, b, 0, t);
      ++ctr_.precharges;
      hits_rd_[b] = hits_wr_[b] = 0;
      return true;
    }
  }
  if (!tim_.all_closed() || tim_.refresh_ready_time() > t) return false;
  tim_.issue(HbmCmd::REF, 0, 0, t);
  ++ctr_.refreshes;
  --refresh_due_;
  return true;
}

bool HbmChannelController::step() {
  const uint64_t t = now_;
  bool progress = false;
  uint64_t wake = next_refresh_;
  while (t >= next_refresh_) {  // refresh due every tREFI, first at tREFI (DRAMsim3 refresh.cc)
    ++refresh_due_;
    next_refresh_ += cfg_.tREFI;
    progress = true;
  }
  if (refresh_due_ > 0) {
    if (issue_refresh(t))
      progress = true;
    else
      wake = refresh_wake(t);
  } else if (queued_cmds_ > 0) {
    Pick first;
    if (pick(t, first, wake)) {
      const bool first_col = first.cmd == HbmCmd::RD || first.cmd == HbmCmd::WR;
      issue(first, t);
      progress = true;
      Pick second;  // row and column command buses: one of each per cycle
      uint64_t unused = 0;
      if (queued_cmds_ > 0 && pick(t, second, unused, first_col)) {
        const bool second_col = second.cmd == HbmCmd::RD || second.cmd == HbmCmd::WR;
        if (second_col != first_col) issue(second, t);
      }
    }
  }
  if (!rq_.empty() || !wq_.empty()) progress |= schedule();
  now_ = t + 1;
  wake_ = progress ? t + 1 : std::max(wake, t + 1);
  if (progress) last_busy_ = t;
  return progress;
}

void HbmChannelController::rewind_idle(uint64_t t) {
  if (t >= now_ || t <= last_busy_ || t < ctr_.last_done) return;
  if (!rq_.empty() || !wq_.empty() || queued_cmds_ > 0 || pending_reads_ > 0 || refresh_due_ > 0) return;
  now_ = t;
  wake_ = t;
}

uint64_t HbmChannelController::refresh_wake(uint64_t t) const {
  uint64_t best = next_refresh_;
  auto consider = [&](uint64_t rt) {
    if (rt > t && rt < best) best = rt;
  };
  for (uint32_t b = 0; b < nbanks_; ++b)
    if (tim_.is_open(b)) consider(tim_.ready_time(HbmCmd::PRE, b));
  if (tim_.all_closed()) consider(tim_.refresh_ready_time());
  return best;
}

void HbmChannelController::advance_to(uint64_t t) {
  while (now_ < t) {
    if (hit_runs_ && in_hit_run() && run_hits(Until::kCycle, false, t)) continue;
    if (step() || wake_ <= now_) continue;
    if (wake_ < t && idle_refreshes_only(t))
      skip_idle_refreshes(t);
    else
      now_ = std::min(wake_, t);
  }
}

bool HbmChannelController::idle_refreshes_only(uint64_t t) const {
  return cfg_.refresh_enabled && next_refresh_ < t && refresh_due_ == 0 && rq_.empty() && wq_.empty() &&
         queued_cmds_ == 0 && pending_reads_ == 0 && followers_.empty() && tim_.all_closed() &&
         tim_.refresh_ready_time() <= next_refresh_ && cfg_.tRFC <= cfg_.tREFI;
}

void HbmChannelController::skip_idle_refreshes(uint64_t t) {
  const uint64_t k = (t - 1 - next_refresh_) / cfg_.tREFI + 1;  // grid points in [next_refresh_, t)
  const uint64_t last = next_refresh_ + (k - 1) * cfg_.tREFI;
  tim_.issue(HbmCmd::REF, 0, 0, last);
  ctr_.refreshes += k;
  next_refresh_ = last + cfg_.tREFI;
  std::fill(wake_of_.begin(), wake_of_.end(), BankWake{});  // as issue_refresh()
  pick_wake_ = row_pick_wake_ = 0;
  last_busy_ = last;
  now_ = last + 1;
  wake_ = now_;
}

void HbmChannelController::run_cycle() {
  if (!step() && wake_ > now_) {
    if (wake_ == std::numeric_limits<uint64_t>::max())
      throw Error("hbm: channel controller has pending work but no possible event");
    now_ = wake_;
  }
}

void HbmChannelController::fast_forward(uint64_t n, const HbmCounters& d, uint64_t cycles,
                                        uint64_t accesses) {
  if (n == 0 || accesses == 0) return;
  const double f = double(n) / double(accesses);
  // Rounded half away from zero, as std::llround (y - trunc(y) is exact for these magnitudes).
  auto scaled = [f](uint64_t v) {
    const double y = double(v) * f;
    const uint64_t t = uint64_t(y);
    return y - double(t) >= 0.5 ? t + 1 : t;
  };
  const uint64_t T = scaled(cycles);
  ctr_.reads += scaled(d.reads);
  ctr_.writes += scaled(d.writes);
  ctr_.read_cmds += scaled(d.read_cmds);
  ctr_.write_cmds += scaled(d.write_cmds);
  ctr_.activates += scaled(d.activates);
  ctr_.precharges += scaled(d.precharges);
  ctr_.row_hits += scaled(d.row_hits);
  ctr_.reads_done += scaled(d.reads_done);
  ctr_.total_read_latency += scaled(d.total_read_latency);
  // Refreshes by time: tREFI grid points in [now, now + T) (DRAMsim3 refresh.cc schedule).
  uint64_t k = 0;
  if (cfg_.refresh_enabled && now_ + T > next_refresh_) k = (now_ + T - next_refresh_ - 1) / cfg_.tREFI + 1;
  ctr_.refreshes += k;
  if (cfg_.refresh_enabled) next_refresh_ += k * cfg_.tREFI;
  // Shift the clock, every timing constraint and every queued request by T.
  now_ += T;
  wake_ = now_;
  last_busy_ = now_ - 1;  // the skipped cycles were busy
  tim_.shift(T);
  std::fill(wake_of_.begin(), wake_of_.end(), BankWake{});
  pick_wake_ = row_pick_wake_ = 0;
  chan_rd_ += T;
  chan_wr_ += T;
  rq_.shift(&Req::arrival, T);
  wq_.shift(&Req::arrival, T);
  for (auto& q : bq_) q.shift(&Req::arrival, T);
  for (auto& [a, list] : followers_)
    for (auto& fl : list) fl.arrival += T;
  done(group_, now_);
}

}  // namespace photon
