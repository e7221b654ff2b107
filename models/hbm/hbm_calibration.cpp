#include "models/hbm/hbm_calibration.h"

#include <array>
#include <tuple>
#include <utility>

#include "base/error.h"
#include "base/param_set.h"

namespace photon {

namespace {

constexpr size_t kCounterFields = 11;

/// The counters' fields in their JSON order (the memo's format).
template <class Counters>  // HbmCounters or const HbmCounters
auto counter_fields(Counters& c) {
  return std::array{&c.reads,      &c.writes,    &c.read_cmds, &c.write_cmds, &c.activates,
                    &c.precharges, &c.refreshes, &c.row_hits,  &c.reads_done, &c.total_read_latency,
                    &c.last_done};
}
static_assert(std::tuple_size_v<decltype(counter_fields(std::declval<HbmCounters&>()))> == kCounterFields);

nlohmann::json counters_json(const HbmCounters& c) {
  nlohmann::json j = nlohmann::json::array();
  for (const uint64_t* f : counter_fields(c)) j.push_back(*f);
  return j;
}

/// Above any cycle or count of a calibration, which simulates a few MiB on a fresh controller
/// (hbm3: about 16 MiB, 10^5 to 10^6 cycles); larger values (which would make the fast-forward
/// run for ~forever) are refused.
constexpr uint64_t kMaxCount = uint64_t(1) << 40;

/// A count of the memo: a JSON unsigned integer below kMaxCount, nothing else (a negative or
/// fractional number would otherwise be converted silently into another count).
uint64_t count_of(const nlohmann::json& j) {
  if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<int64_t>() >= 0))
    throw Error("hbm calibration: a count is not an unsigned integer");
  const uint64_t v = j.get<uint64_t>();
  if (v >= kMaxCount) throw Error("hbm calibration: a count of 2^40 or more");
  return v;
}

HbmCounters counters_of(const nlohmann::json& j) {
  if (!j.is_array() || j.size() != kCounterFields) throw Error("hbm calibration: bad counters");
  HbmCounters c;
  const auto f = counter_fields(c);
  for (size_t i = 0; i < kCounterFields; ++i) *f[i] = count_of(j[i]);
  return c;
}

/// Counters are cumulative (and last_done is a clock), so none goes down across a window.
bool counters_ordered(const HbmCounters& start, const HbmCounters& end) {
  const auto a = counter_fields(start), b = counter_fields(end);
  for (size_t i = 0; i < kCounterFields; ++i)
    if (*b[i] < *a[i]) return false;
  return true;
}

bool same_windows(const std::vector<HbmRateProbe>& a, const std::vector<HbmRateProbe>& b) {
  return HbmCalibrationMemo::entry_json("", a) == HbmCalibrationMemo::entry_json("", b);
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
  if (add(key, probes)) {
    if (store_) store_->save(key, probes);
    return;
  }
  // The key is known with other windows: only a damaged store entry the controller refused
  // (a calibration is a pure function of its key), so the computed windows replace it there too.
  std::vector<HbmRateProbe>& known = entries_.at(key);
  if (same_windows(known, probes)) return;
  known = probes;
  if (store_) store_->save(key, probes);
}

nlohmann::json HbmCalibrationMemo::entry_json(const std::string& key, const std::vector<HbmRateProbe>& probes) {
  nlohmann::json j = nlohmann::json::array();
  for (const HbmRateProbe& p : probes)
    j.push_back({uint64_t(p.state), p.start_ref, p.cycle, p.end_cycle, p.accesses, counters_json(p.ctr),
                 counters_json(p.end_ctr)});
  return {{"key", key}, {"probes", j}};
}

std::vector<HbmRateProbe> HbmCalibrationMemo::entry_probes(const nlohmann::json& entry) {
  try {
    std::vector<HbmRateProbe> probes;
    const nlohmann::json& list = entry.at("probes");
    if (!list.is_array()) throw Error("hbm calibration: probes are not a list");
    for (const auto& p : list) {
      if (!p.is_array() || p.size() != 7) throw Error("hbm calibration: a probe is not a list of 7");
      HbmRateProbe r;
      const uint64_t state = count_of(p[0]);
      if (state > HbmRateProbe::kClosed) throw Error("hbm calibration: bad state");
      r.state = HbmRateProbe::State(state);
      r.start_ref = count_of(p[1]);
      r.cycle = count_of(p[2]);
      r.end_cycle = count_of(p[3]);
      r.accesses = count_of(p[4]);
      r.ctr = counters_of(p[5]);
      r.end_ctr = counters_of(p[6]);
      if (r.end_cycle < r.cycle || !counters_ordered(r.ctr, r.end_ctr))
        throw Error("hbm calibration: a window ends before it starts");
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
