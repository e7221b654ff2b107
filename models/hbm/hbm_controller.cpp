#include "models/hbm/hbm_controller.h"

#include <algorithm>

#include "platform/error.h"

namespace photon {

namespace {
const HbmConfig& validated(const HbmConfig& c) {
  c.validate();
  return c;
}
}  // namespace

HbmController::HbmController(const HbmConfig& cfg)
    : cfg_(validated(cfg)), tp_(cfg_), map_(cfg_), touched_stamp_(cfg_.units(), 0) {
  ch_.reserve(cfg_.units());
  for (uint32_t u = 0; u < cfg_.units(); ++u) ch_.emplace_back(cfg_, tp_);
  touched_.reserve(cfg_.units());
}

uint64_t HbmController::access(uint64_t addr, uint64_t bytes, bool is_write,
                               uint64_t arrival_cycle) {
  if (bytes == 0) return arrival_cycle;
  const uint64_t ab = cfg_.access_bytes();
  const uint64_t first = addr & ~(ab - 1);
  const uint64_t last = (addr + bytes - 1) & ~(ab - 1);
  if (++group_ == 0) {  // group 0 means "untracked"
    group_ = 1;
    std::fill(touched_stamp_.begin(), touched_stamp_.end(), 0);
  }
  touched_.clear();
  for (uint64_t a = first;; a += ab) {
    const HbmAddress d = map_.decode(a);
    HbmChannelController& ch = ch_[d.unit];
    ch.advance_to(arrival_cycle);
    while (!ch.has_room(is_write)) ch.run_cycle();
    ch.enqueue(a, d, is_write, group_);
    if (touched_stamp_[d.unit] != group_) {
      touched_stamp_[d.unit] = group_;
      touched_.push_back(d.unit);
    }
    if (a == last) break;
  }
  uint64_t done = arrival_cycle;
  for (uint32_t u : touched_) {
    HbmChannelController& ch = ch_[u];
    while (ch.group_pending() > 0) ch.run_cycle();
    done = std::max(done, ch.group_done());
  }
  return done;
}

bool HbmController::has_room(uint64_t addr, bool is_write, uint64_t cycle) {
  HbmChannelController& ch = ch_[map_.decode(addr).unit];
  ch.advance_to(cycle);
  return ch.has_room(is_write);
}

uint64_t HbmController::enqueue(uint64_t addr, bool is_write, uint64_t cycle) {
  const uint64_t a = addr & ~(cfg_.access_bytes() - 1);
  const HbmAddress d = map_.decode(a);
  HbmChannelController& ch = ch_[d.unit];
  ch.advance_to(cycle);
  ch.enqueue(a, d, is_write, 0);
  return ch.now();
}

uint64_t HbmController::wait_for_room(uint64_t addr, bool is_write) {
  HbmChannelController& ch = ch_[map_.decode(addr).unit];
  while (!ch.has_room(is_write)) ch.run_cycle();
  return ch.now();
}

uint64_t HbmController::finish() {
  uint64_t end = 0;
  for (auto& ch : ch_) {
    while (!ch.reads_idle()) ch.run_cycle();
    end = std::max(end, ch.counters().last_done);
  }
  for (auto& ch : ch_) ch.advance_to(end);
  return end;
}

HbmCounters HbmController::counters() const {
  HbmCounters c;
  for (const auto& ch : ch_) c.add(ch.counters());
  return c;
}

double HbmController::energy_pj() const {
  const HbmCounters c = counters();
  return cfg_.act_energy_pj * double(c.activates) + cfg_.read_energy_pj * double(c.read_cmds) +
         cfg_.write_energy_pj * double(c.write_cmds) +
         cfg_.refresh_energy_pj * double(c.refreshes);
}

uint64_t HbmController::max_cycle() const {
  uint64_t m = 0;
  for (const auto& ch : ch_) m = std::max(m, ch.now());
  return m;
}

}  // namespace photon
