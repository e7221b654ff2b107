#include "platform/report/trace.h"

#include <map>

namespace photon {

nlohmann::json TraceRecorder::to_chrome_json(const std::vector<std::string>& op_names) const {
  std::map<std::string, int> tids;
  for (const auto& e : events_) tids.emplace(e.track, 0);
  int next = 1;
  for (auto& [track, tid] : tids) tid = next++;
  nlohmann::json evs = nlohmann::json::array();
  evs.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 0},
                 {"args", {{"name", "photon"}}}});
  for (const auto& [track, tid] : tids)
    evs.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid},
                   {"args", {{"name", track}}}});
  for (const auto& e : events_) {
    nlohmann::json args = {{"command", e.command}};
    if (e.sync) args["stall"] = true;
    if (e.tag < op_names.size()) args["op"] = op_names[e.tag];
    evs.push_back({{"name", e.name}, {"ph", "X"}, {"pid", 1}, {"tid", tids[e.track]},
                   {"ts", e.start_ns / 1000.0}, {"dur", (e.end_ns - e.start_ns) / 1000.0},
                   {"args", args}});
  }
  return nlohmann::json{{"traceEvents", evs}, {"displayTimeUnit", "ns"}};
}

}  // namespace photon
