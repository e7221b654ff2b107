// One (pseudo-)channel controller of the HBM model: transaction queues, per-bank command queues,
// an FR-FCFS open-page scheduler and all-bank refresh, on top of HbmChannelTiming. Pure C++.
//
// Mechanisms follow DRAMsim3 (src/controller.cc, command_queue.cc, refresh.cc):
// - A request is appended to the read queue or the write buffer (depths read_queue_depth /
//   write_queue_depth); the caller asks has_room() first. A read to an address with a pending
//   write is served from the write buffer (done 1 cycle after arrival); a read to an address
//   already pending merges with it; a write to an address already pending replaces it. Writes are
//   posted: they count as done 1 cycle after arrival.
// - Each cycle at most one transaction moves, oldest first, to its bank's command queue
//   (bank_queue_depth), from the write buffer while draining, else from the read queue. A drain
//   starts when the write buffer is full, or when the read queue is empty and the buffer holds
//   >= write_drain_threshold writes, and stops after as many writes as the buffer held, or at a
//   write whose address has a pending read (the read queue is then served in that cycle).
// - Each cycle the scheduler visits the bank queues round-robin and takes, in the first queue
//   that has one, the oldest command whose next DRAM command (ACT if the bank is closed, RD/WR on
//   a row hit, PRE on a conflict) is legal now: row hits thus pass an older row miss. A PRE is
//   only issued for the oldest command of the queue and only if no queued command hits the open
//   row, or 4 column commands have already hit it. HBM's separate row and column command buses:
//   a second command may issue in the same cycle if one is a row command and the other a column
//   command.
// - Every tREFI cycles an all-bank refresh becomes due; from then on the bank queues are frozen,
//   open banks are precharged (one PRE per cycle, bank order) and REF issues when legal.
// Cycle t: (1) refresh due, (2) command issue, (3) requests arriving at t enter the queues
// (enqueue() between advance_to(t) and the next step), (4) one transaction moves to a bank
// queue. A request arriving at t can thus see its first DRAM command at t + 1.
// Simulation speed (no effect on results): cycles in which nothing can happen are skipped, and
// the scheduler avoids re-examining bank queues that cannot have a legal command yet. Per bank
// queue it keeps lower bounds of the next cycle at which a RD, a WR or a row command (ACT/PRE)
// can be legal (from the bank's ready times, kept until the queue or the bank changes: ready
// times only grow), channel-wide bounds for any RD / WR (from the last column commands) and for
// any command of any queue, the number of queued reads / writes that hit the open row, and the
// leading entries of each transaction queue known to wait for a full bank queue.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "models/hbm/hbm_address.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_timing.h"

namespace photon {

/// Counters of one channel (or, summed, of the device).
struct HbmCounters {
  uint64_t reads = 0, writes = 0;          ///< requests accepted
  uint64_t read_cmds = 0, write_cmds = 0;  ///< RD / WR commands issued (column accesses)
  uint64_t activates = 0, precharges = 0, refreshes = 0;
  uint64_t row_hits = 0;            ///< RD/WR to a row already accessed since its ACT
  uint64_t reads_done = 0;          ///< reads whose data returned
  uint64_t total_read_latency = 0;  ///< sum over reads of (data return - arrival), tCK
  uint64_t last_done = 0;           ///< latest completion cycle of any request
  void add(const HbmCounters& o);
  /// Field-wise this - earlier (last_done: this one's).
  HbmCounters minus(const HbmCounters& earlier) const;
};

/// Fixed-capacity FIFO with removal at any position (the smaller side is shifted), used for the
/// controller's queues so that taking the oldest entry costs O(1) instead of a vector erase.
template <class T>
class HbmRing {
 public:
  void init(size_t cap) {
    size_t n = 1;
    while (n < cap) n <<= 1;
    buf_.assign(n, T{});
    mask_ = n - 1;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return buf_[(head_ + i) & mask_]; }
  const T& operator[](size_t i) const { return buf_[(head_ + i) & mask_]; }
  const T& front() const { return buf_[head_]; }
  void push_back(const T& v) {  // caller keeps size() below the capacity given to init()
    buf_[(head_ + size_) & mask_] = v;
    ++size_;
  }
  void erase(size_t i) {
    if (i < size_ / 2) {
      for (size_t j = i; j > 0; --j) (*this)[j] = (*this)[j - 1];
      head_ = (head_ + 1) & mask_;
    } else {
      for (size_t j = i; j + 1 < size_; ++j) (*this)[j] = (*this)[j + 1];
    }
    --size_;
  }
  /// Adds `d` to member `m` of every entry.
  template <class M>
  void shift(M T::*m, M d) {
    for (size_t i = 0; i < size_; ++i) (*this)[i].*m += d;
  }

 private:
  std::vector<T> buf_;
  size_t head_ = 0, size_ = 0, mask_ = 0;
};

/// One column access of a bulk access, decoded: byte address, row and bank within its unit.
struct HbmColumn {
  uint64_t addr;
  uint32_t row;
  uint16_t bank;
};

class HbmChannelController {
 public:
  HbmChannelController(const HbmConfig& cfg, const HbmTimingParams& tp);

  /// Next cycle to be processed; requests enqueued now arrive at this cycle.
  uint64_t now() const { return now_; }
  /// True when a request of this kind can be appended at now().
  bool has_room(bool is_write) const { return is_write ? wq_.size() < wq_cap_ : rq_.size() < rq_cap_; }
  /// Appends a request arriving at now() (has_room() must be true). `group` != 0 tags it for
  /// group_pending()/group_done() (the bulk access path).
  void enqueue(uint64_t addr, const HbmAddress& a, bool is_write, uint32_t group);
  /// A request of the bulk path arriving at `arrival`: rewind_idle(arrival), advance_to(arrival),
  /// run_until_room(is_write), then enqueue() at now().
  void accept(uint64_t addr, const HbmAddress& a, bool is_write, uint32_t group, uint64_t arrival);
  /// Called after each request accept_all() enqueues, with the request's index; false stops
  /// accept_all() there (no further request, no further cycle).
  using AcceptHook = bool (*)(void* ctx, size_t index);
  /// accept() of each of `n` column accesses in order, all arriving at `arrival`; the same result
  /// as n accept() calls, with each request enqueued inside the run of cycles that makes room.
  /// Returns the number of requests enqueued (n unless `hook` stopped it).
  size_t accept_all(const HbmColumn* cols, size_t n, bool is_write, uint32_t group, uint64_t arrival,
                    AcceptHook hook = nullptr, void* hook_ctx = nullptr);
  /// Processes cycles until now() == t (no-op if t <= now()), skipping cycles in which nothing
  /// can happen. An idle channel (nothing queued, banks closed) skips its refresh-only cycles in
  /// constant time: the all-bank REFs of the tREFI grid points before t are counted, not stepped,
  /// with the same result as stepping them (README "Idle time").
  void advance_to(uint64_t t);
  /// Processes at least one cycle, then skips cycles in which nothing can happen.
  void run_cycle();
  /// Processes cycles until has_room(is_write): the same as `while (!has_room(is_write))
  /// run_cycle();`, with row-hit runs (below).
  void run_until_room(bool is_write);
  /// Processes cycles until group_pending() == 0: the same as `while (group_pending() > 0)
  /// run_cycle();`, with row-hit runs.
  void run_until_group_done();
  /// Row-hit runs (on by default; off: every cycle through the general step, the reference the
  /// tests compare against). While no refresh is due and every non-empty bank queue holds only
  /// commands to one row, its bank's open row or, if the bank is closed, the row its ACT will
  /// open, no PRE can be legal, and a cycle is at most one RD/WR, one ACT and one transaction
  /// move; advance_to(), run_until_room(), run_until_group_done() and accept_all() run such
  /// cycles in a loop that looks only at the non-empty queues' RD/WR/ACT ready times, without
  /// the general step's PRE candidates and bounds. Results are identical (models/hbm/README.md
  /// "Simulation speed", hbm_channel_hits.cpp).
  void set_row_hit_runs(bool on) { hit_runs_ = on; }
  /// Temporal decoupling: a request may arrive at a cycle t the channel's clock has already
  /// passed, because another initiator running ahead advanced it. If the channel did nothing
  /// after t (no command, refresh or completion; nothing queued), its clock is set back to t, so
  /// the request is served as it would have been in time order; otherwise nothing changes and
  /// the request waits for the clock (it really queues behind that work).
  void rewind_idle(uint64_t t);
  /// True when no read is waiting for data (queued reads included).
  bool reads_idle() const { return pending_reads_ == 0; }
  /// True when every accepted write has been issued as a WR command (posted writes are done for
  /// their initiator when accepted, but sit in the write buffer until a drain moves them).
  bool writes_idle() const { return pending_writes_ == 0; }
  /// End of the request stream: from now on a drain also starts when the read queue is empty and
  /// the write buffer holds fewer than write_drain_threshold writes, so every write is issued.
  void drain_all_writes() { drain_all_ = true; }

  /// Requests of the current group not done yet, and the latest done cycle of the group.
  uint64_t group_pending() const { return group_pending_; }
  uint64_t group_done() const { return group_done_; }

  const HbmCounters& counters() const { return ctr_; }
  const HbmChannelTiming& timing() const { return tim_; }

  /// Next cycle at which an all-bank refresh falls due (multiples of tREFI; max if disabled).
  uint64_t next_refresh() const { return next_refresh_; }
  /// Analytical fast-forward over `n` more requests of the kind sampled in a steady-state
  /// window: `d` = counter increments and `cycles` = clock advance (tCK) of this channel while it
  /// accepted `accesses` requests (with refresh on, the window spans whole tREFI intervals, so
  /// d and cycles include the refreshes' cost). Advances the clock by T = n * cycles / accesses,
  /// adds n / accesses times every counter increment of the window except refreshes, which are
  /// counted by time (tREFI grid points crossed), and shifts every timing constraint and queued
  /// request by T. Queued requests, open rows and bank queues are kept. Method and error:
  /// models/hbm/README.md "Fast-forward of large bulk accesses".
  void fast_forward(uint64_t n, const HbmCounters& d, uint64_t cycles, uint64_t accesses);

 private:
  struct Req {
    uint64_t addr;
    uint64_t arrival;
    uint32_t row;
    uint16_t bank;
    bool is_write;
    uint32_t group;
  };
  struct Follower {  ///< a read merged with the queued read of its address
    uint64_t arrival;
    uint32_t group;
  };

  struct Pick {
    uint32_t bank = 0;
    int idx = 0;
    HbmCmd cmd = HbmCmd::ACT;
  };

  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
  /// Lower bounds of the next cycle at which a command of one bank queue can be legal: a RD,
  /// a WR, a row command (ACT/PRE); kNever if none can be until the queue or the bank changes.
  /// Set when a visit finds nothing legal, recomputed (rebound()) when a command is appended or
  /// issued, reset (0) by refresh and fast-forward; valid in between because ready times only
  /// grow.
  struct BankWake {
    uint64_t rd = 0, wr = 0, row = 0;
  };
  /// Earliest cycle at which queue `b` can have a legal command (a row command if `row_only`).
  uint64_t wake_bound(uint32_t b, bool row_only) const {
    const BankWake& w = wake_of_[b];
    if (row_only) return w.row;
    return std::min(w.row, std::min(std::max(w.rd, chan_rd_), std::max(w.wr, chan_wr_)));
  }

  /// Recomputes wake_of_[bank] from the bank's state and ready times (queue not empty) and
  /// lowers pick_wake_ / row_pick_wake_ to it.
  void rebound(uint32_t bank);

  bool step();  ///< processes cycle now_; true if anything was issued, moved or became due
  /// Requests of accept_all() still to be enqueued: each as soon as its queue has room.
  struct Feed {
    const HbmColumn* cols;
    size_t n, next;
    bool is_write;
    uint32_t group;
    AcceptHook hook;
    void* hook_ctx;
  };
  /// Enqueues the feed's next requests while their queue has room.
  void feed(Feed& f) {
    while (f.next < f.n && has_room(f.is_write)) {
      const HbmColumn& c = f.cols[f.next++];
      enqueue_column(c.addr, c.row, c.bank, f.is_write, f.group);
      if (f.hook && !f.hook(f.hook_ctx, f.next - 1)) f.n = f.next;
    }
  }
  /// What a run of cycles waits for: now() reaching a cycle, room for a request, the group done,
  /// the feed enqueued.
  enum class Until { kCycle, kRoom, kGroupDone, kFed };
  bool until_met(Until u, bool is_write, uint64_t limit, const Feed* f) const {
    switch (u) {
      case Until::kCycle: return now_ >= limit;
      case Until::kRoom: return has_room(is_write);
      case Until::kGroupDone: return group_pending_ == 0;
      case Until::kFed: return f->next == f->n;
    }
    return true;
  }
  /// True when cycle now_ can be processed as part of a row-hit run (set_row_hit_runs()).
  bool in_hit_run() const;
  /// Processes cycles from now_ as a row-hit run until `u` is met, the run ends (a refresh falls
  /// due, a moved transaction misses its bank's open row) or no event is left; no cycle at or
  /// after `limit` (jumps over idle cycles stop at it). False if it processed no cycle.
  /// The first non-empty queue after rr_ (round robin, rr_'s own last) with a command legal at t
  /// during a row-hit run: ACT for a closed bank (bit set in `closed`), the oldest legal RD/WR
  /// for an open one (none if row_only). Lowers `next` to the ready times of the queues passed.
  bool run_pick(uint64_t t, bool row_only, uint64_t closed, Pick& p, uint64_t& next) const;
  /// `f` (kFed): fed after every cycle with progress.
  bool run_hits(Until u, bool is_write, uint64_t limit, Feed* f = nullptr);
  /// run_hits() without the bounds reset.
  bool run_hits_loop(Until u, bool is_write, uint64_t limit, Feed* f);
  /// Loop of advance_to() / run_until_room() / run_until_group_done() / accept_all().
  void run_until(Until u, bool is_write, uint64_t limit, Feed* f = nullptr);
  /// enqueue() of a decoded column access.
  void enqueue_column(uint64_t addr, uint32_t row, uint16_t bank, bool is_write, uint32_t group);
  /// True when the only thing that can happen before cycle `t` is the REF of each tREFI grid
  /// point, issued exactly at it: nothing queued, no refresh due, every bank closed, the next REF
  /// legal at its grid point and tRFC <= tREFI (so each REF is legal at the next grid point).
  bool idle_refreshes_only(uint64_t t) const;
  /// Counts the REFs of the grid points in [next_refresh_, t) and issues the last one (its
  /// timing state dominates the earlier ones'); needs idle_refreshes_only(t).
  void skip_idle_refreshes(uint64_t t);
  bool issue_refresh(uint64_t t);
  /// Round-robin over the non-empty bank queues: the first queue's first ready command. `wake`
  /// is lowered to a lower bound (> t) of the next cycle at which a visited queue can have a
  /// legal command. `row_only`: consider ACT/PRE only (after a column command none other can be
  /// legal).
  bool pick(uint64_t t, Pick& p, uint64_t& wake, bool row_only = false);
  /// Index of the oldest queued command of `bank` whose next DRAM command (returned in `cmd`) is
  /// legal at t, or -1 after updating the bank's wake_of_ bounds.
  int first_ready(uint32_t bank, uint64_t t, HbmCmd& cmd, bool row_only);
  /// Oldest entry of `q` to the open row `row` whose RD (ready at rd_t) or WR (ready at wr_t,
  /// and no older read of its address queued) is legal at t, or -1; its command in `cmd`.
  int oldest_legal_hit(const HbmRing<Req>& q, uint32_t row, uint64_t t, uint64_t rd_t, uint64_t wr_t,
                       HbmCmd& cmd) const;
  int next_busy(uint32_t from) const;  ///< first non-empty bank queue >= from, or -1
  void issue(const Pick& p, uint64_t t);
  /// RD/WR of queue entry `idx` of `bank` at t; `bounds`: maintain the bank's wake bounds and
  /// let the timing state check the command (off in row-hit runs, which have checked it).
  void issue_column(uint32_t bank, size_t idx, HbmCmd cmd, uint64_t t, bool bounds);
  bool schedule();
  /// Moves the oldest request of q whose bank queue has room; the first `skip` entries are
  /// known to wait for full bank queues (updated).
  bool move_from(HbmRing<Req>& q, uint32_t movable, size_t& skip);
  void move(HbmRing<Req>& q, size_t i);  ///< q[i] -> its bank queue (sets moved_off_run_)
  /// While a refresh is due: earliest cycle > t at which a PRE or the REF becomes legal.
  uint64_t refresh_wake(uint64_t t) const;
  void done(uint32_t group, uint64_t cycle);
  void finish_read(uint64_t arrival, uint32_t group, uint64_t cycle);

  /// Filter slot of a column access's address: its column index (addr / access_bytes), hashed
  /// (Fibonacci hashing, multiplier 2^64 / golden ratio) to 10 bits.
  size_t slot(uint64_t addr) const { return size_t(((addr >> slot_shift_) * 0x9E3779B97F4A7C15ull) >> 54); }
  bool pending_read(uint64_t addr, uint32_t bank) const;
  bool pending_write(uint64_t addr, uint32_t bank) const;

  HbmConfig cfg_;
  HbmTimingParams tp_;
  HbmChannelTiming tim_;
  size_t rq_cap_, wq_cap_, bq_cap_;
  HbmRing<Req> rq_, wq_;
  std::vector<HbmRing<Req>> bq_;
  /// Merged reads by address: each completes with its address's RD in O(1) per read, so a
  /// stream that reads the same bytes many times (a stride-0 DMA source) stays linear.
  std::unordered_map<uint64_t, std::vector<Follower>> followers_;
  std::vector<uint16_t> rd_filter_, wr_filter_;  ///< 1024-slot counting filters of pending addrs
  uint32_t slot_shift_ = 0;                      ///< log2(access_bytes)
  uint32_t nbanks_;
  std::vector<uint64_t> busy_;     ///< bit per bank: command queue not empty
  std::vector<BankWake> wake_of_;  ///< per bank queue: lower bounds of its next command
  /// No RD / WR legal on the channel before this cycle: the channel-scope column-to-column
  /// distances of HbmTimingParams (rd_rd_s, rd_wr, wr_wr_s, wr_rd_s) from the last RD / WR.
  uint64_t chan_rd_ = 0, chan_wr_ = 0;
  uint64_t pick_wake_ = 0;      ///< no bank queue has a legal command before this cycle
  uint64_t row_pick_wake_ = 0;  ///< no bank queue has a legal ACT/PRE before this cycle
  /// Leading entries of rq_ / wq_ known to wait for a full bank queue (cleared when a bank
  /// queue leaves the full state; entries only leave the queues at or after this position).
  size_t rq_skip_ = 0, wq_skip_ = 0;
  std::vector<uint32_t> hits_rd_, hits_wr_;  ///< per bank: queued reads / writes to the open row
  uint64_t wake_ = 0;                        ///< after a step without progress: next cycle worth processing
  uint32_t rr_ = 0;                          ///< round-robin position (last bank queue served)
  uint32_t queued_cmds_ = 0;                 ///< commands in all bank queues
  uint32_t write_draining_ = 0;
  bool hit_runs_ = true;     ///< set_row_hit_runs()
  /// The last move() put a command into a queue that a row-hit run cannot serve: an open bank
  /// and another row, or a closed bank and another row than its queued commands'.
  bool moved_off_run_ = false;
  uint32_t last_moved_bank_ = 0;  ///< bank queue of the last move()
  bool in_run_ = false;      ///< inside run_hits(): move() leaves the bounds to the run's end
  uint64_t run_dirty_ = 0;   ///< bank queues a run moved commands into (bounds to reset)
  std::vector<uint32_t> cnt_r_, cnt_w_;     ///< per bank: requests waiting in rq_ / wq_
  uint32_t movable_r_ = 0, movable_w_ = 0;  ///< requests in rq_ / wq_ whose bank queue has room
  uint32_t refresh_due_ = 0;                ///< refreshes due, not yet issued
  uint64_t next_refresh_;
  uint64_t now_ = 0;
  uint64_t last_busy_ = 0;  ///< last cycle in which step() made progress
  uint64_t pending_reads_ = 0;
  uint64_t pending_writes_ = 0;  ///< accepted writes not yet issued as WR commands
  bool drain_all_ = false;       ///< drain_all_writes() was called
  uint32_t group_ = 0;
  uint64_t group_pending_ = 0, group_done_ = 0;
  HbmCounters ctr_;
};

}  // namespace photon
