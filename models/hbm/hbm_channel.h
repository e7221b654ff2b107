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
#pragma once

#include <cstdint>
#include <vector>

#include "models/hbm/hbm_address.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_timing.h"

namespace photon {

/// Counters of one channel (or, summed, of the device).
struct HbmCounters {
  uint64_t reads = 0, writes = 0;            ///< requests accepted
  uint64_t read_cmds = 0, write_cmds = 0;    ///< RD / WR commands issued (column accesses)
  uint64_t activates = 0, precharges = 0, refreshes = 0;
  uint64_t row_hits = 0;                     ///< RD/WR to a row already accessed since its ACT
  uint64_t reads_done = 0;                   ///< reads whose data returned
  uint64_t total_read_latency = 0;           ///< sum over reads of (data return - arrival), tCK
  uint64_t last_done = 0;                    ///< latest completion cycle of any request
  void add(const HbmCounters& o);
};

class HbmChannelController {
 public:
  HbmChannelController(const HbmConfig& cfg, const HbmTimingParams& tp);

  /// Next cycle to be processed; requests enqueued now arrive at this cycle.
  uint64_t now() const { return now_; }
  /// True when a request of this kind can be appended at now().
  bool has_room(bool is_write) const {
    return is_write ? wq_.size() < wq_cap_ : rq_.size() < rq_cap_;
  }
  /// Appends a request arriving at now() (has_room() must be true). `group` != 0 tags it for
  /// group_pending()/group_done() (the bulk access path).
  void enqueue(uint64_t addr, const HbmAddress& a, bool is_write, uint32_t group);
  /// Processes cycles until now() == t (no-op if t <= now()), skipping cycles in which nothing
  /// can happen.
  void advance_to(uint64_t t);
  /// Processes at least one cycle, then skips cycles in which nothing can happen.
  void run_cycle();
  /// True when no read is waiting for data (queued reads included).
  bool reads_idle() const { return pending_reads_ == 0; }

  /// Requests of the current group not done yet, and the latest done cycle of the group.
  uint64_t group_pending() const { return group_pending_; }
  uint64_t group_done() const { return group_done_; }

  const HbmCounters& counters() const { return ctr_; }
  const HbmChannelTiming& timing() const { return tim_; }

 private:
  struct Req {
    uint64_t addr;
    uint64_t arrival;
    uint32_t row;
    uint16_t bank;
    bool is_write;
    uint32_t group;
  };
  struct Follower {
    uint64_t addr, arrival;
    uint32_t group;
  };

  struct Pick {
    uint32_t bank = 0;
    int idx = 0;
    HbmCmd cmd = HbmCmd::ACT;
  };

  bool step();  ///< processes cycle now_; true if anything was issued, moved or became due
  bool issue_refresh(uint64_t t);
  /// Round-robin over the non-empty bank queues: the first queue's first ready command. `wake`
  /// is lowered to the earliest future cycle at which a visited candidate becomes legal.
  /// `row_only`: consider ACT/PRE only (after a column command none other can be legal).
  bool pick(uint64_t t, Pick& p, uint64_t& wake, bool row_only = false);
  int first_ready(uint32_t bank, uint64_t t, HbmCmd& cmd, uint64_t& wake, bool row_only) const;
  int next_busy(uint32_t from) const;  ///< first non-empty bank queue >= from, or -1
  void issue(const Pick& p, uint64_t t);
  bool schedule();
  bool move_from(std::vector<Req>& q, uint32_t movable);  ///< oldest movable request of q
  void move(std::vector<Req>& q, size_t i);               ///< q[i] -> its bank queue
  /// While a refresh is due: earliest cycle > t at which a PRE or the REF becomes legal.
  uint64_t refresh_wake(uint64_t t) const;
  void done(uint32_t group, uint64_t cycle);
  void finish_read(uint64_t arrival, uint32_t group, uint64_t cycle);

  size_t slot(uint64_t addr) const { return size_t(((addr >> 6) * 0x9E3779B97F4A7C15ull) >> 54); }
  bool pending_read(uint64_t addr, uint32_t bank) const;
  bool pending_write(uint64_t addr, uint32_t bank) const;

  HbmConfig cfg_;
  HbmTimingParams tp_;
  HbmChannelTiming tim_;
  size_t rq_cap_, wq_cap_, bq_cap_;
  std::vector<Req> rq_, wq_;
  std::vector<std::vector<Req>> bq_;
  std::vector<Follower> followers_;
  std::vector<uint16_t> rd_filter_, wr_filter_;  ///< 1024-slot counting filters of pending addrs
  uint32_t nbanks_;
  std::vector<uint64_t> busy_;     ///< bit per bank: command queue not empty
  uint64_t wake_ = 0;              ///< after a step without progress: next cycle worth processing
  uint32_t rr_ = 0;                ///< round-robin position (last bank queue served)
  uint32_t queued_cmds_ = 0;       ///< commands in all bank queues
  uint32_t write_draining_ = 0;
  std::vector<uint32_t> cnt_r_, cnt_w_;  ///< per bank: requests waiting in rq_ / wq_
  uint32_t movable_r_ = 0, movable_w_ = 0;  ///< requests in rq_ / wq_ whose bank queue has room
  uint32_t refresh_due_ = 0;       ///< refreshes due, not yet issued
  uint64_t next_refresh_;
  uint64_t now_ = 0;
  uint64_t pending_reads_ = 0;
  uint32_t group_ = 0;
  uint64_t group_pending_ = 0, group_done_ = 0;
  HbmCounters ctr_;
};

}  // namespace photon
