#include "models/hbm/hbm_controller.h"

#include <algorithm>
#include <set>
#include <thread>

#include "base/error.h"

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
  columns_.resize(cfg_.units());
}

void HbmController::start_row(const HbmStream& s, Cursor& c) const {
  const uint64_t a = s.addr + c.row * s.stride;
  c.k0 = a >> map_.offset_bits();
  c.cols = ((a + s.row_bytes - 1) >> map_.offset_bits()) - c.k0 + 1;
  c.col = 0;
}

void HbmController::next(const HbmStream& s, Cursor& c) const {
  ++c.i;
  if (++c.col == c.cols && c.row + 1 < s.rows) {
    ++c.row;
    start_row(s, c);
  }
}

void HbmController::seek(const HbmStream& s, Cursor& c, uint64_t target) const {
  while (c.i + (c.cols - c.col) <= target && c.row + 1 < s.rows) {
    c.i += c.cols - c.col;
    ++c.row;
    start_row(s, c);
  }
  c.col += target - c.i;
  c.i = target;
}

std::vector<uint64_t> HbmController::unit_counts(const HbmStream& s, Cursor c, uint64_t to) const {
  std::vector<uint64_t> todo(units(), 0);
  while (c.i < to) {
    const uint64_t m = std::min(c.cols - c.col, to - c.i);  // columns of this row in range
    const uint64_t k0 = c.k0 + c.col, k1 = k0 + m;
    if (m >= 64) {  // long run: closed-form count on the unit bits
      map_.count_units(k0, k1, todo.data());
    } else {
      for (uint64_t k = k0; k < k1; ++k) ++todo[map_.decode(k << map_.offset_bits()).unit];
    }
    c.i += m - 1;
    c.col += m - 1;
    next(s, c);
  }
  return todo;
}

uint64_t HbmController::column_count(const HbmStream& s) const {
  Cursor c;
  start_row(s, c);
  uint64_t n = c.cols;
  for (c.row = 1; c.row < s.rows; ++c.row) {
    start_row(s, c);
    n += c.cols;
  }
  return n;
}

uint64_t HbmController::access(const HbmStream& stream, bool is_write, uint64_t arrival_cycle) {
  if (stream.bytes() == 0) return arrival_cycle;
  const HbmStream s = normalised(stream);
  const uint64_t ab = cfg_.access_bytes();
  Cursor cur;
  start_row(s, cur);
  const uint64_t n = column_count(s);
  if (++group_ == 0) {  // group 0 means "untracked"
    group_ = 1;
    std::fill(touched_stamp_.begin(), touched_stamp_.end(), 0);
  }
  touched_.clear();
  // Fast-forward plan (README "Fast-forward of large bulk accesses"): exact warm-up of
  // kFfWarmPeriods address-map periods; then, per unit, a sampled window (with refresh: from the
  // first request after its next tREFI grid point to the first one a whole tREFI later; without:
  // the next kFfWindowPeriods periods) or the rates sampled for an earlier stream of the same
  // shape; then the middle analytically; exact tail.
  const uint64_t period = ff_period();
  const uint64_t w0 = kFfWarmPeriods * period, w1 = w0 + kFfWindowPeriods * period;
  const uint64_t tail = kFfTailPeriods * period;
  const bool refresh = cfg_.refresh_enabled;
  const bool big = cfg_.fast_forward_bytes > 0 && s.bytes() >= cfg_.fast_forward_bytes;
  const ShapeKey key = shape_key(s, is_write);
  // With known rates: a short exact head (the request queues fill, bank queues start), the
  // middle fast-forwarded, a short exact tail (the queued requests drain exactly after it).
  const uint64_t edge = edge_columns();
  const bool reusable = big && n >= 3 * edge;
  auto known = big ? rates_.find(key) : rates_.end();
  if (reusable && known == rates_.end()) {
    calibrate(s, is_write);
    known = rates_.find(key);
  }
  bool reuse = reusable && known != rates_.end() && !known->second.empty();
  bool ff = big && known == rates_.end() && n >= kFfMinPeriods * period;
  uint32_t pending = 0;  // units whose window is waiting to open or open
  if (ff) probe_.assign(units(), Probe{});
  bool whole = false;  // no edges: every column access advanced at the shape's rates
  for (uint64_t i = 0; i < n; ++i) {
    if (reuse && i == edge) {
      accept_columns(is_write, arrival_cycle);
      const std::vector<uint64_t> todo = unit_counts(s, cur, n - edge);
      if (probes_ready(todo, known->second, true)) {
        fast_forward(todo, known->second, arrival_cycle);
        ++ff_reuses_;
        seek(s, cur, n - edge);
        i = n - edge;
        whole = edge == 0;
      }
      reuse = false;
      if (whole) break;
    }
    if (ff && i > w0 && (refresh ? pending == 0 : i == w1)) {
      if (i + period + tail <= n) {
        const std::vector<uint64_t> todo = unit_counts(s, cur, n - tail);
        if (probes_ready(todo, probe_, false)) {
          fast_forward(todo, probe_, arrival_cycle);
          rates_[key] = probe_;
          seek(s, cur, n - tail);
          i = n - tail;
        } else {
          rates_[key] = {};  // not saturated: this shape stays exact
        }
      }
      ff = false;
    }
    if (ff && i + period + tail > n) ff = false;  // no room left for a fast-forward
    const uint64_t a = (cur.k0 + cur.col) * ab;
    next(s, cur);
    const HbmAddress d = map_.decode(a);
    HbmChannelController& ch = ch_[d.unit];
    if (touched_stamp_[d.unit] != group_) {
      touched_stamp_[d.unit] = group_;
      touched_.push_back(d.unit);
    }
    if (!ff) {  // units are independent: each takes its column accesses in one accept_all()
      columns_[d.unit].push_back(HbmColumn{a, d.row, uint16_t(d.bank)});
      continue;
    }
    ch.accept(a, d, is_write, group_, arrival_cycle);
    if (i >= w0) sample(probe_[d.unit], ch, pending, refresh);
  }
  accept_columns(is_write, arrival_cycle);
  uint64_t done = arrival_cycle;
  if (whole) {
    // Rate-only: each unit ends at its clock after the fast-forward; the windows' rates cover
    // the steady state, and the first access's activation and the last read's data return are
    // added once (README "Rate-only streams").
    for (uint32_t u : touched_) done = std::max(done, ch_[u].now());
    return done + (is_write ? 1 : 1 + cfg_.tRCD + cfg_.CL + cfg_.burst_cycles());
  }
  for (uint32_t u : touched_) {
    HbmChannelController& ch = ch_[u];
    ch.run_until_group_done();
    done = std::max(done, ch.group_done());
  }
  return done;
}

void HbmController::accept_columns(bool is_write, uint64_t arrival_cycle) {
  for (uint32_t u : touched_) {
    std::vector<HbmColumn>& c = columns_[u];
    ch_[u].accept_all(c.data(), c.size(), is_write, group_, arrival_cycle);
    c.clear();
  }
}

void HbmController::sample(Probe& p, const HbmChannelController& ch, uint32_t& pending, bool refresh) {
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
    case Probe::kClosed: return;
  }
}

HbmController::ShapeKey HbmController::shape_key(const HbmStream& s, bool is_write) const {
  if (s.rows == 1 || s.row_bytes >= 2 * ff_period() * cfg_.access_bytes()) return ShapeKey{is_write, 0, 0};
  return ShapeKey{is_write, s.row_bytes, s.stride};
}

const std::vector<HbmController::Probe>* HbmController::memo_windows(const std::string& memo_key) const {
  // A calibration has a window per unit, or none (a shape that stays exact); any other count
  // is a damaged store entry, computed again rather than read past its end.
  const std::vector<Probe>* known = HbmCalibrationMemo::instance().find(memo_key);
  return known && (known->empty() || known->size() == units()) ? known : nullptr;
}

void HbmController::calibrate(const HbmStream& s, bool is_write) {
  const ShapeKey key = shape_key(s, is_write);
  HbmCalibrationMemo& memo = HbmCalibrationMemo::instance();
  std::string memo_key;
  if (memo.enabled()) {
    memo_key = HbmCalibrationMemo::key(cfg_, is_write, s.addr, std::get<1>(key), std::get<2>(key));
    if (const std::vector<Probe>* known = memo_windows(memo_key)) {
      rates_[key] = *known;
      ++calibrations_;
      return;
    }
  }
  const HbmStream c = calibration_stream(s, is_write);
  std::vector<Probe> probes;
  if (!prefetch_ || !prefetch_->take(HbmCalibrationJob{is_write, c.addr, c.row_bytes, c.rows, c.stride}, probes))
    probes = sample_rates(c, is_write);
  rates_[key] = std::move(probes);
  ++calibrations_;
  if (memo.enabled()) memo.put(memo_key, rates_[key]);
}

HbmStream HbmController::calibration_stream(const HbmStream& s, bool is_write) const {
  // Long enough for the warm-up, a unit's wait for its next REF, the window, one period of
  // middle and the tail: kFfMinPeriods periods plus (kFfWindowRefreshes + 2) tREFI of peak-rate
  // column accesses per unit.
  uint64_t need = kFfMinPeriods * ff_period();
  if (cfg_.refresh_enabled)
    need += uint64_t(units()) * (kFfWindowRefreshes + 2) * cfg_.tREFI / cfg_.burst_cycles();
  HbmStream c = s;
  if (std::get<1>(shape_key(s, is_write)) == 0) {  // contiguous shape
    c = HbmStream{s.addr, need * cfg_.access_bytes(), 1, 0};
  } else {
    const uint64_t per_row = c.row_bytes / cfg_.access_bytes() + 1;
    c.rows = need / per_row + 2;
  }
  return c;
}

namespace {
/// Helpers worth starting: as asked, but no more than the planned calibrations and than the
/// cores beyond the caller's (more would only share those cores, each thread with its own stack
/// and allocator arena); at least one.
unsigned helper_count(unsigned asked, uint64_t jobs) {
  const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
  return unsigned(std::min<uint64_t>({uint64_t(asked), jobs, uint64_t(cores - 1)}));
}
}  // namespace

void HbmController::plan_calibrations(const std::vector<std::pair<HbmStream, bool>>& streams, unsigned threads) {
  prefetch_.reset();
  planned_ = 0;
  if (threads == 0 || cfg_.fast_forward_bytes == 0) return;
  // access()'s decision, stream by stream: a shape not known yet is calibrated by its first
  // stream that is big and long enough to reuse rates.
  std::set<ShapeKey> known;
  for (const auto& r : rates_) known.insert(r.first);
  const HbmCalibrationMemo& memo = HbmCalibrationMemo::instance();
  const uint64_t edge = edge_columns();
  std::vector<HbmCalibrationJob> jobs;
  for (const auto& [stream, is_write] : streams) {
    if (stream.bytes() < cfg_.fast_forward_bytes) continue;
    const HbmStream s = normalised(stream);
    const ShapeKey key = shape_key(s, is_write);
    if (known.count(key) || column_count(s) < 3 * edge) continue;
    known.insert(key);
    if (memo.enabled() &&
        memo_windows(HbmCalibrationMemo::key(cfg_, is_write, s.addr, std::get<1>(key), std::get<2>(key))))
      continue;
    const HbmStream c = calibration_stream(s, is_write);
    jobs.push_back(HbmCalibrationJob{is_write, c.addr, c.row_bytes, c.rows, c.stride});
  }
  planned_ = jobs.size();
  if (jobs.empty()) return;
  // Each calibration samples on a controller of its own with the same configuration
  // (sample_rates reads only the configuration, but this controller keeps simulating meanwhile).
  const HbmConfig cfg = cfg_;
  prefetch_ = std::make_shared<HbmCalibrationPrefetch>(
      std::move(jobs),
      [cfg](const HbmCalibrationJob& j, const std::atomic<bool>& cancel) {
        return HbmController(cfg).sample_rates(HbmStream{j.addr, j.row_bytes, j.rows, j.stride}, j.is_write,
                                                &cancel);
      },
      helper_count(threads, planned_));
}

bool HbmController::saturated(const Probe& p) const {
  return p.state == Probe::kClosed && p.accesses >= cfg_.columns && p.end_cycle > p.cycle;
}

bool HbmController::probes_ready(const std::vector<uint64_t>& todo, std::vector<Probe>& probes,
                                 bool donor) const {
  // Donor: the saturated units' windows pooled (access-weighted mean rates).
  Probe pool;
  pool.state = Probe::kClosed;
  const Probe* spare = nullptr;
  if (donor) {
    for (const Probe& p : probes) {
      if (!saturated(p)) continue;
      pool.end_ctr.add(p.end_ctr.minus(p.ctr));
      pool.end_cycle += p.end_cycle - p.cycle;
      pool.accesses += p.accesses;
      spare = &pool;
    }
  }
  for (uint32_t u = 0; u < units(); ++u) {
    if (todo[u] == 0) continue;
    Probe& p = probes[u];
    if (p.state == Probe::kOpen) {  // windows without refresh end here
      p.state = Probe::kClosed;
      p.end_cycle = ch_[u].now();
      p.end_ctr = ch_[u].counters();
    }
    if (saturated(p)) continue;
    if (!spare) return false;
    p = *spare;  // a unit this shape's calibration did not reach moves like those it did
  }
  return true;
}

void HbmController::fast_forward(const std::vector<uint64_t>& todo, const std::vector<Probe>& probes,
                                 uint64_t arrival_cycle) {
  for (uint32_t u = 0; u < units(); ++u) {
    if (todo[u] == 0) continue;
    HbmChannelController& ch = ch_[u];
    ch.advance_to(arrival_cycle);  // a unit the head did not reach is still at an earlier cycle
    const Probe& p = probes[u];
    ch.fast_forward(todo[u], p.end_ctr.minus(p.ctr), p.end_cycle - p.cycle, p.accesses);
    ff_accesses_ += todo[u];
    if (touched_stamp_[u] != group_) {
      touched_stamp_[u] = group_;
      touched_.push_back(u);
    }
  }
}

bool HbmController::has_room(uint64_t addr, bool is_write, uint64_t cycle) {
  HbmChannelController& ch = ch_[map_.decode(addr).unit];
  ch.rewind_idle(cycle);
  ch.advance_to(cycle);
  return ch.has_room(is_write);
}

uint64_t HbmController::enqueue(uint64_t addr, bool is_write, uint64_t cycle) {
  const uint64_t a = addr & ~(cfg_.access_bytes() - 1);
  const HbmAddress d = map_.decode(a);
  HbmChannelController& ch = ch_[d.unit];
  ch.rewind_idle(cycle);
  ch.advance_to(cycle);
  ch.enqueue(a, d, is_write, 0);
  return ch.now();
}

uint64_t HbmController::wait_for_room(uint64_t addr, bool is_write) {
  HbmChannelController& ch = ch_[map_.decode(addr).unit];
  ch.run_until_room(is_write);
  return ch.now();
}

uint64_t HbmController::finish() {
  uint64_t end = 0, drained = 0;
  for (auto& ch : ch_) {
    while (!ch.reads_idle()) ch.run_cycle();
    end = std::max(end, ch.counters().last_done);
    if (!ch.writes_idle()) {
      ch.drain_all_writes();
      while (!ch.writes_idle()) ch.run_cycle();
      drained = std::max(drained, ch.now());
    }
  }
  drain_cycle_ = std::max(end, drained);
  for (auto& ch : ch_) ch.advance_to(drain_cycle_);
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
         cfg_.write_energy_pj * double(c.write_cmds) + cfg_.refresh_energy_pj * double(c.refreshes);
}

uint64_t HbmController::max_cycle() const {
  uint64_t m = 0;
  for (const auto& ch : ch_) m = std::max(m, ch.now());
  return m;
}

}  // namespace photon
