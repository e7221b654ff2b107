// Ordering between the DMA queue and the NTT queue for streamed FHE data (docs/fhe.md "Memory
// plan"): every scratchpad range one queue touches after the other gets a semaphore handshake.
//
// Commands are grouped per queue; a group ends with a Signal on its queue (the queue's Signal
// waits for all its earlier commands, platform/queue_unit.cpp). Before a command touches a
// scratchpad range, the last group of the *other* queue that touched the range must be complete:
// the command's queue Waits once per outstanding Signal up to that group (counting semaphores,
// consumed in order). Read-after-write, write-after-read and write-after-write across the two
// queues are all covered; within a queue the units order their own commands (the DMA in order,
// the NTT unit by its scoreboard). Every Wait follows its Signal in stream order, so the firmware
// (which dispatches in stream order) cannot deadlock. DMA groups are closed explicitly after each
// tile's transfers (so a compute waits for its own tile only); NTT groups are closed when a DMA
// needs them, which drains the NTT queue once per such handshake.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/fhe/fhe_command_writer.h"

namespace photon::fhe {

/// Semaphores of the streamed lowering: DMA group done (DMA -> NTT), NTT group done (NTT -> DMA).
constexpr uint32_t kSemDmaDone = 3;
constexpr uint32_t kSemNttDone = 4;

class FheStreamSync {
 public:
  explicit FheStreamSync(FheCommandWriter& w) : w_(w) {}

  /// Scratchpad bytes [lo, hi).
  struct Span {
    uint64_t lo, hi;
  };
  /// Call before emitting an NTT-unit command that reads or writes scratchpad bytes [lo, hi).
  void ntt_access(uint64_t lo, uint64_t hi) {
    const Span s{lo, hi};
    ntt_access(&s, 1);
  }
  /// Call before emitting an NTT-unit command that touches the `n` ranges `spans` (its sources,
  /// then its destination): the same Waits and table as ntt_access() on each in turn, in one
  /// pass over the table to update it.
  void ntt_access(const Span* spans, size_t n);
  /// Call before emitting a DMA command that reads or writes scratchpad bytes [lo, hi).
  void dma_access(uint64_t lo, uint64_t hi);
  /// Ends the open DMA group (Signal on the DMA queue) if it holds any command.
  void end_dma_group();
  /// Waits for every Signal not yet waited for, so that the semaphores balance at the end.
  void drain();

  uint64_t signals() const { return dma_signals_ + ntt_signals_; }

 private:
  static constexpr uint64_t kNone = ~uint64_t(0);
  struct Range {
    uint64_t lo, hi;
    uint64_t dma = kNone, ntt = kNone;  ///< last group of each queue that touched it
  };
  void end_ntt_group();
  void ntt_wait(uint64_t dma_group);
  void dma_wait(uint64_t ntt_group);
  /// The entries overlapping [lo, hi) updated by `f`; a new entry for the range; stale entries
  /// (both hazards already ordered) dropped.
  template <class F>
  void touch(uint64_t lo, uint64_t hi, F&& f);
  /// Drops the entries inside any of the `n` ranges `spans` (the access that follows supersedes
  /// them) and the stale ones (both hazards already ordered).
  void supersede(const Span* spans, size_t n);

  FheCommandWriter& w_;
  std::vector<Range> ranges_;
  uint64_t dma_signals_ = 0, ntt_signals_ = 0;  // groups closed so far = id of the open group
  uint64_t ntt_waited_ = 0, dma_waited_ = 0;    // DMA-done waits on the NTT queue, and vice versa
  bool dma_open_ = false, ntt_open_ = false;    // the open group holds a command
};

}  // namespace photon::fhe
