#include "models/hbm/hbm_calibration.h"

#include "base/error.h"
#include "base/param_set.h"

namespace photon {

namespace {

nlohmann::json counters_json(const HbmCounters& c) {
  return {c.reads,     c.writes,   c.read_cmds,  c.write_cmds,         c.activates, c.precharges,
          c.refreshes, c.row_hits, c.reads_done, c.total_read_latency, c.last_done};
}

HbmCounters counters_of(const nlohmann::json& j) {
  if (!j.is_array() || j.size() != 11) throw Error("hbm calibration: bad counters");
  HbmCounters c;
  uint64_t* f[] = {&c.reads,      &c.writes,    &c.read_cmds, &c.write_cmds, &c.activates,
                   &c.precharges, &c.refreshes, &c.row_hits,  &c.reads_done, &c.total_read_latency,
                   &c.last_done};
  for (size_t i = 0; i < 11; ++i) *f[i] = j[i].get<uint64_t>();
  return c;
}

}  // namespace

HbmCalibrationMemo& HbmCalibrationMemo::instance() {
  static HbmCalibrationMemo memo;
  return memo;
}

std::string HbmCalibrationMemo::key(const HbmConfig& cfg, bool is_write, uint64_t addr, uint64_t row_bytes,
                                    uint64_t stride) {
  HbmConfig copy = cfg;  // declare() binds pointers; nothing is written
  ParamSet ps;
  copy.declare(ps, "hbm");
  return ps.to_json().dump() + "|" + (is_write ? "w" : "r") + "|" + std::to_string(addr) + "|" +
         std::to_string(row_bytes) + "|" + std::to_string(stride);
}

const std::vector<HbmRateProbe>* HbmCalibrationMemo::find(const std::string& key) {
  auto it = entries_.find(key);
  if (it != entries_.end()) return &it->second;
  std::vector<HbmRateProbe> probes;
  if (!store_ || !store_->load(key, probes)) return nullptr;
  add(key, probes);
  return &entries_.at(key);
}

bool HbmCalibrationMemo::add(const std::string& key, const std::vector<HbmRateProbe>& probes) {
  if (!entries_.emplace(key, probes).second) return false;
  order_.push_back(key);
  return true;
}

void HbmCalibrationMemo::put(const std::string& key, const std::vector<HbmRateProbe>& probes) {
  if (add(key, probes) && store_) store_->save(key, probes);
}

nlohmann::json HbmCalibrationMemo::entry_json(const std::string& key, const std::vector<HbmRateProbe>& probes) {
  nlohmann::json j = nlohmann::json::array();
  for (const HbmRateProbe& p : probes)
    j.push_back({int(p.state), p.start_ref, p.cycle, p.end_cycle, p.accesses, counters_json(p.ctr),
                 counters_json(p.end_ctr)});
  return {{"key", key}, {"probes", j}};
}

std::vector<HbmRateProbe> HbmCalibrationMemo::entry_probes(const nlohmann::json& entry) {
  try {
    std::vector<HbmRateProbe> probes;
    for (const auto& p : entry.at("probes")) {
      HbmRateProbe r;
      const int state = p.at(0).get<int>();
      if (state < HbmRateProbe::kIdle || state > HbmRateProbe::kClosed) throw Error("hbm calibration: bad state");
      r.state = HbmRateProbe::State(state);
      r.start_ref = p.at(1).get<uint64_t>();
      r.cycle = p.at(2).get<uint64_t>();
      r.end_cycle = p.at(3).get<uint64_t>();
      r.accesses = p.at(4).get<uint64_t>();
      r.ctr = counters_of(p.at(5));
      r.end_ctr = counters_of(p.at(6));
      probes.push_back(r);
    }
    return probes;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("hbm calibration: malformed memo: ") + e.what());
  }
}

nlohmann::json HbmCalibrationMemo::to_json(size_t from) const {
  nlohmann::json entries = nlohmann::json::array();
  for (size_t i = from; i < order_.size(); ++i) entries.push_back(entry_json(order_[i], entries_.at(order_[i])));
  return {{"entries", entries}};
}

void HbmCalibrationMemo::merge(const nlohmann::json& j) {
  try {
    for (const auto& e : j.at("entries")) put(e.at("key").get<std::string>(), entry_probes(e));
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("hbm calibration: malformed memo: ") + e.what());
  }
}

}  // namespace photon
