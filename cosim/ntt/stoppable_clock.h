// StoppableClock: an sc_clock that can be stopped while the block it drives is idle and restarted
// on a later edge of the same grid. A free-running clock would keep the SystemC kernel busy for
// the whole run (and never let it run out of events, which is how Photon detects the end of a run
// and deadlocks); stopping it is the simulator's counterpart of gating the block's clock.
//
// It uses the two edge events of the Accellera reference sc_clock (SystemC 2.3, protected members
// m_next_posedge_event and m_next_negedge_event): stop() cancels the pending one, start_at()
// schedules the next positive edge. Call stop() while the clock is low (after a negative edge).
#pragma once

#include <systemc>

namespace photon::cosim {

class StoppableClock : public sc_core::sc_clock {
 public:
  StoppableClock(const char* name, const sc_core::sc_time& period)
      : sc_core::sc_clock(name, period, 0.5, sc_core::SC_ZERO_TIME, true) {}

  /// No edge after the current time until start_at(). The clock must be low (read() false), or
  /// the next start_at() edge would not be a rising one.
  void stop() {
    if (read()) SC_REPORT_ERROR("photon/StoppableClock", "stop() while the clock is high");
    m_next_posedge_event.cancel();
    m_next_negedge_event.cancel();
  }
  /// Next positive edge at absolute time `t` (in the future), then free-running again.
  void start_at(const sc_core::sc_time& t) { m_next_posedge_event.notify(t - sc_core::sc_time_stamp()); }
};

}  // namespace photon::cosim
