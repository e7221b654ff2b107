// Semaphores: the hardware semaphore block (registers SEM.VALUE[n]) that queue Signal/Wait
// entries use. signal() increments and wakes waiters; a queue waits on `changed` until
// try_take() succeeds. Firmware may read or preset the counters over the control bus.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>

#include "platform/regs/register_block.h"

namespace photon {

class Semaphores : public sc_core::sc_module {
 public:
  Semaphores(sc_core::sc_module_name name, uint32_t count);

  RegisterBlock& regs() { return regs_; }
  uint32_t count() const { return count_; }
  void signal(uint32_t sem);
  /// Decrements and returns true if the counter is positive.
  bool try_take(uint32_t sem);
  uint32_t value(uint32_t sem) const { return regs_.get(regs::SEM::VALUE, sem); }
  sc_core::sc_event changed;

 private:
  RegisterBlock regs_;
  uint32_t count_;
};

}  // namespace photon
