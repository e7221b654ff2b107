#include "platform/report/trace.h"

#include <algorithm>
#include <map>

namespace photon {

nlohmann::json TraceRecorder::to_chrome_json(const std::vector<std::string>& op_names,
                                             const std::vector<std::string>& tracks) const {
  // Perfetto expects complete events on one thread to nest; a unit with overlapping commands
  // (DMA channels, the NTT unit's internal engines) gets extra lanes "<track> #2", ... so that
  // events within a lane never overlap (greedy interval partitioning in start order).
  std::vector<size_t> order(events_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return events_[a].start_ns < events_[b].start_ns; });
  std::map<std::string, std::vector<double>> lane_end;  // track -> end time of each lane
  std::vector<std::string> lane_of(events_.size());
  for (size_t i : order) {
    const TraceEvent& e = events_[i];
    auto& lanes = lane_end[e.track];
    size_t lane = 0;
    while (lane < lanes.size() && lanes[lane] > e.start_ns) ++lane;
    if (lane == lanes.size()) lanes.push_back(0);
    lanes[lane] = e.end_ns;
    lane_of[i] = lane == 0 ? e.track : e.track + " #" + std::to_string(lane + 1);
  }
  std::map<std::string, int> tids;
  for (const auto& t : tracks) tids.emplace(t, 0);
  for (const auto& l : lane_of) tids.emplace(l, 0);
  int next = 1;
  for (auto& [track, tid] : tids) tid = next++;
  nlohmann::json evs = nlohmann::json::array();
  evs.push_back(
      {{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 0}, {"args", {{"name", "photon"}}}});
  for (const auto& [track, tid] : tids)
    evs.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid}, {"args", {{"name", track}}}});
  for (size_t i = 0; i < events_.size(); ++i) {
    const TraceEvent& e = events_[i];
    nlohmann::json args = {{"command", e.command}};
    if (e.sync) args["stall"] = true;
    if (e.tag < op_names.size()) args["op"] = op_names[e.tag];
    evs.push_back({{"name", e.name},
                   {"ph", "X"},
                   {"pid", 1},
                   {"tid", tids[lane_of[i]]},
                   {"ts", e.start_ns / 1000.0},
                   {"dur", (e.end_ns - e.start_ns) / 1000.0},
                   {"args", args}});
  }
  return nlohmann::json{{"traceEvents", evs}, {"displayTimeUnit", "ns"}};
}

}  // namespace photon
