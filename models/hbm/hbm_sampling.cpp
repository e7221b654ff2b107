// HbmController::sample_rates: a stream shape's sampled windows (the calibration run), simulated
// one unit at a time (README "Calibration memo").
//
// In a calibration every request arrives at cycle 0, and HbmController::access waits for room on
// the request's own channel only: a unit's controller moves only when one of its own requests is
// queued, so its window depends on nothing but its own request sequence. Two units whose
// sequences agree up to the request that closes a window (same banks, rows and address-equality
// pattern, with the warm-up boundary at the same place) have the same window. This file runs each
// distinct sequence once, up to the request that closes its window, and finds the global request
// index at which the interleaved run would have had every window closed; the result equals, field
// for field, what the interleaved in-stream sampling of access() gives on a fresh controller
// (tests/models/hbm/hbm_sampling_test.cpp, against tests/support/hbm_sampling_oracle.h).
#include <algorithm>
#include <atomic>
#include <limits>

#include "models/hbm/hbm_controller.h"

namespace photon {

namespace {

/// One request of a unit: its byte address and its index in the stream.
struct UnitRequest {
  uint64_t addr, index;
};

/// A unit's window after running its requests up to the one that closes the window (or all of
/// them): the window, the requests run, and the unit's clock and counters after them.
struct UnitWindow {
  HbmRateProbe probe;
  size_t used = 0;
  bool closed = false;
  uint64_t now = 0;
  HbmCounters ctr;
};

constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

}  // namespace

std::vector<HbmRateProbe> HbmController::sample_rates(const HbmStream& stream, bool is_write,
                                                       const std::atomic<bool>* cancel) const {
  if (stream.bytes() == 0) return {};
  const HbmStream s = normalised(stream);
  Cursor cur;
  start_row(s, cur);
  const uint64_t n = column_count(s);
  const uint64_t period = ff_period();
  const uint64_t w0 = kFfWarmPeriods * period, w1 = w0 + kFfWindowPeriods * period;
  const uint64_t tail = kFfTailPeriods * period;
  const bool refresh = cfg_.refresh_enabled;
  const bool big = cfg_.fast_forward_bytes > 0 && s.bytes() >= cfg_.fast_forward_bytes;
  if (!big || n < kFfMinPeriods * period) return {};
  // The windows must close at an index i with i + period + tail <= n (room for one period of
  // middle and the tail); without refresh they close at w1. Only requests before that matter.
  const uint64_t limit = refresh ? n - period - tail : w1;

  // Each unit's requests before `limit`.
  const uint32_t units_n = units();
  const uint64_t unit_mask = map_.unit_mask();
  const uint64_t ab = cfg_.access_bytes();
  const uint32_t ob = map_.offset_bits();
  std::vector<std::vector<UnitRequest>> reqs(units_n);
  for (auto& r : reqs) r.reserve(limit / units_n + 64);
  for (Cursor c = cur; c.i < limit; next(s, c)) {
    const uint64_t a = (c.k0 + c.col) * ab;
    reqs[map_.decode(a).unit].push_back(UnitRequest{a, c.i});
  }
  // Two units' requests meet the same banks, rows and address repeats when their column
  // indices agree outside the unit bits.
  auto same_request = [&](const UnitRequest& x, const UnitRequest& y) {
    return ((x.addr >> ob) & ~unit_mask) == ((y.addr >> ob) & ~unit_mask) &&
           (x.index >= w0) == (y.index >= w0);
  };

  // One unit's controller over its own requests, sampled as access() samples a unit; stops at
  // the request that closes the window.
  // (accept_all() enqueues each request when its queue has room, as access() does, and the hook
  // samples after each.)
  struct UnitRun {
    const std::vector<UnitRequest>* reqs;
    const HbmChannelController* ch;
    UnitWindow* w;
    uint32_t pending;
    uint64_t w0;
    bool refresh;
    const std::atomic<bool>* cancel;
  };
  auto after_enqueue = [](void* ctx, size_t k) {
    UnitRun& run = *static_cast<UnitRun*>(ctx);
    if (run.cancel && run.cancel->load(std::memory_order_relaxed)) return false;
    if ((*run.reqs)[k].index >= run.w0) sample(run.w->probe, *run.ch, run.pending, run.refresh);
    return run.w->probe.state != Probe::kClosed;
  };
  std::vector<HbmColumn> cols;
  auto run_unit = [&](uint32_t u) {
    HbmChannelController ch(cfg_, tp_);
    UnitWindow w;
    cols.clear();
    for (const UnitRequest& r : reqs[u]) {
      const HbmAddress d = map_.decode(r.addr);
      cols.push_back(HbmColumn{r.addr, d.row, uint16_t(d.bank)});
    }
    UnitRun run{&reqs[u], &ch, &w, 0, w0, refresh, cancel};
    w.used = ch.accept_all(cols.data(), cols.size(), is_write, 1, 0, after_enqueue, &run);
    w.closed = w.probe.state == Probe::kClosed;
    w.now = ch.now();
    w.ctr = ch.counters();
    return w;
  };
  // Units whose requests up to a simulated unit's stop agree with it share its window.
  std::vector<uint32_t> reps;  // units simulated
  std::vector<UnitWindow> rep_window;
  auto same_as = [&](uint32_t u, uint32_t r, const UnitWindow& w) {
    const auto& a = reqs[u];
    const auto& b = reqs[r];
    if (a.size() < w.used || (!w.closed && a.size() != w.used)) return false;
    for (size_t j = 0; j < w.used; ++j)
      if (!same_request(a[j], b[j])) return false;
    return true;
  };
  std::vector<int> window_of(units_n, -1);  // index into rep_window
  auto window = [&](uint32_t u) -> const UnitWindow& {
    if (window_of[u] < 0) {
      for (size_t k = 0; k < reps.size() && window_of[u] < 0; ++k)
        if (same_as(u, reps[k], rep_window[k])) window_of[u] = int(k);
      if (window_of[u] < 0) {
        reps.push_back(u);
        rep_window.push_back(run_unit(u));
        window_of[u] = int(rep_window.size() - 1);
      }
    }
    return rep_window[size_t(window_of[u])];
  };

  // A unit's window opens (in access()'s terms: counts as pending) at its first request at or
  // after w0, and closes at the request `used` of its sequence.
  std::vector<uint64_t> start(units_n, kNone);
  for (uint32_t u = 0; u < units_n; ++u)
    for (const UnitRequest& r : reqs[u])
      if (r.index >= w0) {
        start[u] = r.index;
        break;
      }
  // The interleaved run closes the windows at the first index i > w0 at which no unit is
  // pending: no unit with start < i whose window closes at or after i.
  uint64_t at = w1;
  if (refresh) {
    std::vector<uint32_t> order;
    for (uint32_t u = 0; u < units_n; ++u)
      if (start[u] != kNone) order.push_back(u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return start[a] < start[b]; });
    at = w0 + 1;
    for (uint32_t u : order) {
      if (start[u] >= at) break;
      const UnitWindow& w = window(u);
      if (!w.closed) return {};  // still pending when the stream leaves no room
      at = std::max(at, reqs[u][w.used - 1].index + 1);
    }
    if (at > limit) return {};
  }

  std::vector<Probe> probes(units_n);
  for (uint32_t u = 0; u < units_n; ++u)
    if (start[u] != kNone && start[u] < at) probes[u] = window(u).probe;
  Cursor c = cur;
  seek(s, c, at);
  const std::vector<uint64_t> todo = unit_counts(s, c, n - tail);
  for (uint32_t u = 0; u < units_n; ++u) {
    if (todo[u] == 0) continue;
    Probe& p = probes[u];
    if (p.state == Probe::kOpen) {  // windows without refresh end at w1
      const UnitWindow& w = window(u);
      p.state = Probe::kClosed;
      p.end_cycle = w.now;
      p.end_ctr = w.ctr;
    }
    if (!saturated(p)) return {};
  }
  return probes;
}

}  // namespace photon
