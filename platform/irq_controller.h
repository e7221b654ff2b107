// IrqController: latches interrupt sources into IRQ.PENDING, masks them with IRQ.ENABLE and wakes
// the firmware CPU (event `line`) when an enabled source is pending. Units call raise(bit) — the
// bit numbers are the IRQ.PENDING fields of registers.yaml. The firmware clears bits through
// IRQ.ACK (write 1 to clear).
#pragma once

#include <cstdint>

#include <systemc>

#include "platform/regs/register_block.h"

namespace photon {

class IrqController : public sc_core::sc_module {
 public:
  explicit IrqController(sc_core::sc_module_name name);

  RegisterBlock& regs() { return regs_; }
  /// Latches source `bit` and notifies `line` if it is enabled.
  void raise(unsigned bit);
  /// True while an enabled source is pending (the level of the CPU's interrupt input).
  bool asserted() const { return (pending_ & enable_) != 0; }
  /// Waits (in the calling thread) until `line` is notified; with `timeout`, at most that long.
  /// The line is notified only while some thread waits on it this way (a notification nobody
  /// waits for changes nothing but costs a delta cycle).
  void wait_line();
  void wait_line(const sc_core::sc_time& timeout);
  /// Notified whenever the line becomes asserted (while a thread waits in wait_line()).
  sc_core::sc_event line;

  uint32_t pending() const { return pending_; }

 private:
  RegisterBlock regs_;
  uint32_t pending_ = 0;
  uint32_t enable_ = 0;
  uint32_t listeners_ = 0;  ///< threads in wait_line()
  void notify_line() {
    if (listeners_ > 0 && asserted()) line.notify(sc_core::SC_ZERO_TIME);
  }
};

}  // namespace photon
