// TraceRecorder: what ran where and when, for the Chrome trace-event file and the report's
// per-op rows. Pure C++; units append events as they complete.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace photon {

struct TraceEvent {
  std::string track;  ///< unit or queue, e.g. "queue.gemm", "firmware"
  std::string name;   ///< e.g. "gemm", "dma", "wait sem 3"
  double start_ns = 0, end_ns = 0;
  uint32_t tag = 0xFFFFFFFFu;  ///< op-table index (pcs::kNoTag if none)
  uint32_t command = 0;        ///< command index in the stream
  bool sync = false;           ///< a semaphore wait/signal stall, not work of the unit
};

class TraceRecorder {
 public:
  void add(TraceEvent e) { events_.push_back(std::move(e)); }
  /// Room for `n` events (a run records about one per command).
  void reserve(size_t n) { events_.reserve(n); }
  const std::vector<TraceEvent>& events() const { return events_; }

  /// Chrome trace-event JSON (Perfetto-loadable): one thread ("track") per unit/queue (every name
  /// in `tracks` appears even without events; overlapping events get extra lanes), complete
  /// ("X") events in microseconds, with thread_name metadata. `op_names` names tags.
  nlohmann::json to_chrome_json(const std::vector<std::string>& op_names,
                                const std::vector<std::string>& tracks = {}) const;

 private:
  std::vector<TraceEvent> events_;
};

}  // namespace photon
