// Test oracle for HbmController::sample_rates: the calibration run as a plain interleaved loop
// (every request of the stream in order, each queued on its unit's channel controller after
// waiting for room there, windows opened and closed as models/hbm/README.md "Sampling"
// describes), on the channel controller's public interface only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/hbm/hbm_address.h"
#include "models/hbm/hbm_calibration.h"
#include "models/hbm/hbm_channel.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_controller.h"
#include "models/hbm/hbm_timing.h"

namespace photon::test {

/// The windows the interleaved calibration run of `stream` gives on a fresh controller of `cfg`
/// (empty: the stream cannot be sampled or a unit with work in the middle was not saturated).
inline std::vector<HbmRateProbe> interleaved_sample_rates(const HbmConfig& cfg, const HbmStream& stream,
                                                          bool is_write) {
  using Probe = HbmRateProbe;
  const HbmTimingParams tp(cfg);
  const HbmAddressMap map(cfg);
  const uint64_t ab = cfg.access_bytes();
  HbmStream s = stream;
  if (s.rows == 1 || s.stride == s.row_bytes) s = HbmStream{s.addr, s.bytes(), 1, 0};
  std::vector<uint64_t> seq;  // the stream's column accesses, byte addresses
  for (uint64_t r = 0; r < s.rows; ++r) {
    const uint64_t a = s.addr + r * s.stride;
    for (uint64_t k = a >> map.offset_bits(); k <= (a + s.row_bytes - 1) >> map.offset_bits(); ++k)
      seq.push_back(k * ab);
  }
  const uint64_t n = seq.size();
  const uint32_t units = cfg.units();
  const uint64_t period = std::max<uint64_t>(uint64_t(1) << map.row_shift(), uint64_t(units) * cfg.columns);
  const uint64_t w0 = HbmController::kFfWarmPeriods * period;
  const uint64_t w1 = w0 + HbmController::kFfWindowPeriods * period;
  const uint64_t tail = HbmController::kFfTailPeriods * period;
  const bool refresh = cfg.refresh_enabled;
  if (s.bytes() == 0 || cfg.fast_forward_bytes == 0 || s.bytes() < cfg.fast_forward_bytes ||
      n < HbmController::kFfMinPeriods * period)
    return {};
  std::vector<HbmChannelController> ch;
  for (uint32_t u = 0; u < units; ++u) ch.emplace_back(cfg, tp);
  std::vector<Probe> probe(units);
  uint32_t pending = 0;
  for (uint64_t i = 0; i + period + tail <= n; ++i) {
    if (i > w0 && (refresh ? pending == 0 : i == w1)) {
      std::vector<uint64_t> todo(units, 0);
      for (uint64_t j = i; j < n - tail; ++j) ++todo[map.decode(seq[j]).unit];
      for (uint32_t u = 0; u < units; ++u) {
        if (todo[u] == 0) continue;
        Probe& p = probe[u];
        if (p.state == Probe::kOpen) {
          p.state = Probe::kClosed;
          p.end_cycle = ch[u].now();
          p.end_ctr = ch[u].counters();
        }
        if (!(p.state == Probe::kClosed && p.accesses >= cfg.columns && p.end_cycle > p.cycle)) return {};
      }
      return probe;
    }
    const HbmAddress d = map.decode(seq[i]);
    HbmChannelController& c = ch[d.unit];
    while (!c.has_room(is_write)) c.run_cycle();
    c.enqueue(seq[i], d, is_write, 1);
    if (i < w0) continue;
    Probe& p = probe[d.unit];
    const uint64_t refs = c.counters().refreshes;
    if (p.state == Probe::kIdle) {
      p.start_ref = refs + 1;
      p.state = Probe::kWaiting;
      ++pending;
    }
    if (p.state == Probe::kWaiting) {
      if (refresh && refs < p.start_ref) continue;
      p.state = Probe::kOpen;
      p.cycle = c.now();
      p.ctr = c.counters();
      p.accesses = 0;
    } else if (p.state == Probe::kOpen) {
      ++p.accesses;
      if (!refresh || refs < p.start_ref + HbmController::kFfWindowRefreshes) continue;
      p.state = Probe::kClosed;
      p.end_cycle = c.now();
      p.end_ctr = c.counters();
      --pending;
    }
  }
  return {};
}

}  // namespace photon::test
