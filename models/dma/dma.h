// DmaUnit: the descriptor-driven DMA engine. Its command queue (QUEUE_DMA registers) takes
// pcs::DmaCopy commands: 1-D/2-D/3-D strided copies between any two data-NoC addresses (HBM,
// scratchpad), issued as TLM transactions on `data` (initiator socket to the data NoC).
//
// Timing (loosely timed, temporal decoupling; no wait per burst):
//   a copy starts at max(now, free time of its channel) + setup_cycles / clock_ghz;
//   each row is split into bursts of at most burst_bytes; burst i is issued at
//     issue_i = max(issue_{i-1}, done_{i-outstanding})
//   and completes at done_i = issue_i + read latency + write latency (as the NoC and the
//   targets annotate them); the copy completes at max(done_i).
// The queue moves on once the copy is issued (copies on different channels overlap); a Signal
// waits for every copy to complete. Errors: before writing anything, both the whole source and
// destination extents are probed (debug transport); an unmapped range or a malformed descriptor
// (zero size, n1/n2 zero) stops the queue with UNIT_ERR_ADDRESS / UNIT_ERR_DECODE and raises the
// error interrupt; a TLM error response mid-copy stops it with UNIT_ERR_BUS.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include "models/dma/dma_config.h"
#include "platform/noc/stream_extension.h"
#include "platform/queue_unit.h"

namespace photon {

class DmaUnit : public QueueUnit {
 public:
  tlm_utils::simple_initiator_socket<DmaUnit> data;

  DmaUnit(sc_core::sc_module_name name, const DmaConfig& cfg, bool functional, const Wiring& w);

  uint64_t bytes_copied() const { return bytes_; }
  tlm::tlm_initiator_socket<>* data_initiator() override { return &data; }
  /// A bulk copy's streams after its measured bursts (README "Bulk copies"): per part, the
  /// source read, then the destination write. None for other copies or malformed descriptors.
  void bulk_streams(const pcs::Command& c, std::vector<BulkStream>& out) const override;
  /// Bulk path: bursts simulated exactly before the streams, to measure the round trip.
  static constexpr uint64_t kMeasuredBursts = 4;
  /// Largest copy one descriptor may describe (inner_bytes x n1 x n2), bytes: 1 TiB.
  static constexpr uint64_t kMaxCopyBytes = uint64_t(1) << 40;

 protected:
  Timing execute(const pcs::Command& c, uint32_t index) override;

 private:
  /// One TLM transaction at absolute time `at`; returns its completion time. Throws UnitFault(Bus).
  /// With `ext`, the transaction is a 2-D stream (StreamExtension) and `buf` may be null
  /// (timing only).
  sc_core::sc_time transfer(bool write, uint64_t addr, uint8_t* buf, uint32_t len, sc_core::sc_time at,
                            StreamExtension* ext = nullptr);
  /// One debug transaction (no timing); a null `buf` probes the range. True if it succeeded.
  bool debug(bool write, uint64_t addr, uint8_t* buf, uint32_t len);
  void probe(uint64_t lo, uint64_t hi, const char* what);
  /// One side of a bulk copy: `rows` rows of `row_bytes` bytes, `stride` bytes apart.
  struct Stream {
    uint64_t addr, row_bytes, rows, stride;
  };
  /// One timing-only stream transaction (transfer() with a StreamExtension) at absolute time
  /// `at`; returns its completion time. Throws UnitFault(Bus).
  sc_core::sc_time stream(bool write, const Stream& s, sc_core::sc_time at);
  /// Moves the data of a bulk part by debug transport (functional mode).
  void copy_data(const Stream& src, const Stream& dst);
  /// How a copy issues: `per_row` bursts per row, `bursts` in all, the first `exact` of them
  /// burst by burst (all of them unless `bulk`).
  struct Plan {
    uint64_t per_row = 0, bursts = 0, exact = 0;
    bool bulk = false;
  };
  /// `measured`: the round trip between the copy's two memories has settled (dma.trip_patience),
  /// so a bulk copy streams from its first burst.
  Plan plan(const pcs::DmaCopy& d, bool measured) const;
  /// dma.trip_patience: a pair's round trip is settled after `quiet` measuring copies in a row
  /// that did not lower it (never with trip_patience = 0).
  bool settled(uint64_t quiet) const { return cfg_.trip_patience > 0 && quiet >= cfg_.trip_patience; }
  /// A copy's memory pair: its source and destination 4 GiB regions.
  using MemoryPair = std::pair<uint64_t, uint64_t>;
  static MemoryPair pair_of(const pcs::DmaCopy& d) { return {d.src >> 32, d.dst >> 32}; }
  /// Refuses a descriptor no copy can run (UnitFault DECODE: channel out of range, a zero size,
  /// more than kMaxCopyBytes; ADDRESS: an extent past 64-bit addresses). execute() and
  /// bulk_streams() ask the same question.
  void check(const pcs::DmaCopy& d) const;
  /// One past the last byte that one side of `d` touches from `base` with row stride `s1` and
  /// plane stride `s2`, bytes; nullopt if it overflows 64-bit addresses.
  static std::optional<uint64_t> side_extent(const pcs::DmaCopy& d, uint64_t base, uint64_t s1, uint64_t s2);
  /// Bulk path: bursts [first, end) of `d` as (source, destination) streams, at most 2 GiB each
  /// (README "Bulk copies").
  std::vector<std::pair<Stream, Stream>> split_rest(const pcs::DmaCopy& d, uint64_t first) const;
  /// Bulk path: bursts [first, end) of `d` as streams issued at `at`; returns the completion
  /// time (formula in README "Bulk copies").
  sc_core::sc_time stream_rest(const pcs::DmaCopy& d, uint64_t first, sc_core::sc_time at,
                               sc_core::sc_time read_lat, sc_core::sc_time write_lat);

  DmaConfig cfg_;
  bool functional_;
  std::vector<sc_core::sc_time> channel_free_;
  /// Bulk path, per memory pair: the fastest (read, write) latency measured, and how many
  /// measuring copies since it last improved.
  struct Trip {
    sc_core::sc_time read, write;
    uint32_t stale = 0;
  };
  std::map<MemoryPair, Trip> trips_;
  /// Bulk copies per memory pair that bulk_streams() has seen: it replays execute()'s order and
  /// takes a pair's round trip as settled after dma.trip_patience of them.
  mutable std::map<MemoryPair, uint64_t> planned_;
  std::vector<uint8_t> buffer_;
  uint64_t bytes_ = 0;
  /// The payload every transaction reuses (one blocking transaction at a time; a payload's
  /// construction allocates its extension array).
  tlm::tlm_generic_payload gp_;
};

}  // namespace photon
