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

namespace {
// Number of column indices k in [0, x) with (k & mask) == value.
uint64_t count_below(uint64_t x, uint64_t mask, uint64_t value) {
  uint64_t n = 0;
  for (int b = 63; b >= 0; --b) {
    if (((x >> b) & 1) == 0) continue;
    const uint64_t low = (uint64_t(1) << b) - 1;  // free bits below b
    const uint64_t prefix = (x & ~low) & ~(uint64_t(1) << b);  // x's bits above b, bit b = 0
    if (((prefix ^ value) & mask & ~low) == 0)
      n += uint64_t(1) << __builtin_popcountll(low & ~mask);
  }
  return n;
}
}  // namespace

uint64_t HbmController::access(uint64_t addr, uint64_t bytes, bool is_write,
                               uint64_t arrival_cycle) {
  if (bytes == 0) return arrival_cycle;
  const uint64_t ab = cfg_.access_bytes();
  const uint64_t first = addr & ~(ab - 1);
  const uint64_t last = (addr + bytes - 1) & ~(ab - 1);
  const uint64_t n = (last - first) / ab + 1;
  if (++group_ == 0) {  // group 0 means "untracked"
    group_ = 1;
    std::fill(touched_stamp_.begin(), touched_stamp_.end(), 0);
  }
  touched_.clear();
  // Fast-forward plan (README "Fast-forward of large bulk accesses"): exact warm-up of
  // kFfWarmPeriods address-map periods; then, per unit, a sampled window (with refresh: from the
  // first request after its next tREFI grid point to the first one a whole tREFI later; without:
  // the next kFfWindowPeriods periods); then the middle analytically; exact tail.
  const uint64_t period =
      std::max<uint64_t>(uint64_t(1) << map_.row_shift(), uint64_t(units()) * cfg_.columns);
  const uint64_t w0 = kFfWarmPeriods * period, w1 = w0 + kFfWindowPeriods * period;
  const uint64_t tail = kFfTailPeriods * period;
  const bool refresh = cfg_.refresh_enabled;
  bool ff = cfg_.fast_forward_bytes > 0 && bytes >= cfg_.fast_forward_bytes &&
            n >= kFfMinPeriods * period;
  uint32_t pending = 0;  // units whose window is waiting to open or open
  if (ff) probe_.assign(units(), Probe{});
  for (uint64_t i = 0; i < n; ++i) {
    if (ff && i > w0 && (refresh ? pending == 0 : i == w1)) {
      if (i + period + tail <= n && fast_forward(first, i, n - tail)) i = n - tail;
      ff = false;
    }
    if (ff && i + period + tail > n) ff = false;  // no room left for a fast-forward
    const uint64_t a = first + i * ab;
    const HbmAddress d = map_.decode(a);
    HbmChannelController& ch = ch_[d.unit];
    ch.advance_to(arrival_cycle);
    while (!ch.has_room(is_write)) ch.run_cycle();
    ch.enqueue(a, d, is_write, group_);
    if (touched_stamp_[d.unit] != group_) {
      touched_stamp_[d.unit] = group_;
      touched_.push_back(d.unit);
    }
    if (ff && i >= w0) sample(pending, d.unit, refresh);
  }
  uint64_t done = arrival_cycle;
  for (uint32_t u : touched_) {
    HbmChannelController& ch = ch_[u];
    while (ch.group_pending() > 0) ch.run_cycle();
    done = std::max(done, ch.group_done());
  }
  return done;
}

void HbmController::sample(uint32_t& pending, uint32_t u, bool refresh) {
  Probe& p = probe_[u];
  const HbmChannelController& ch = ch_[u];
  switch (p.state) {
    case Probe::kIdle:  // first request after the warm-up: choose the window's start
      p.start_ref = ch.counters().refreshes + 1;
      p.state = Probe::kWaiting;
      ++pending;
      [[fallthrough]];
    case Probe::kWaiting:  // with refresh: open at the first request after the next REF
      if (refresh && ch.counters().refreshes < p.start_ref) return;
      p.state = Probe::kOpen;
      p.cycle = ch.now();
      p.ctr = ch.counters();
      p.accesses = 0;
      return;
    case Probe::kOpen:  // close at the first request after kFfWindowRefreshes more REFs
      ++p.accesses;
      if (!refresh || ch.counters().refreshes < p.start_ref + kFfWindowRefreshes) return;
      p.state = Probe::kClosed;
      p.end_cycle = ch.now();
      p.end_ctr = ch.counters();
      --pending;
      return;
    case Probe::kClosed:
      return;
  }
}

bool HbmController::fast_forward(uint64_t first, uint64_t from, uint64_t to) {
  const uint64_t k0 = (first >> map_.offset_bits()) + from, k1 = (first >> map_.offset_bits()) + to;
  const uint64_t mask = map_.unit_mask();
  std::vector<uint64_t> todo(units());
  for (uint32_t u = 0; u < units(); ++u) {
    const uint64_t v = map_.unit_bits(u);
    todo[u] = count_below(k1, mask, v) - count_below(k0, mask, v);
    if (todo[u] == 0) continue;
    Probe& p = probe_[u];
    if (p.state == Probe::kOpen) {  // windows without refresh end here
      p.state = Probe::kClosed;
      p.end_cycle = ch_[u].now();
      p.end_ctr = ch_[u].counters();
    }
    // The window must have kept this unit saturated (its clock moved while it took requests).
    if (p.state != Probe::kClosed || p.accesses < cfg_.columns || p.end_cycle <= p.cycle)
      return false;
  }
  for (uint32_t u = 0; u < units(); ++u) {
    if (todo[u] == 0) continue;
    HbmChannelController& ch = ch_[u];
    const Probe& p = probe_[u];
    ch.fast_forward(todo[u], p.end_ctr.minus(p.ctr), p.end_cycle - p.cycle, p.accesses);
    ff_accesses_ += todo[u];
    if (touched_stamp_[u] != group_) {
      touched_stamp_[u] = group_;
      touched_.push_back(u);
    }
  }
  return true;
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
