#include "platform/irq_controller.h"

namespace photon {

IrqController::IrqController(sc_core::sc_module_name name) : sc_module(name), regs_("IRQ") {
  regs_.on_read(regs::IRQ::PENDING, [this](uint32_t) { return pending_; });
  regs_.on_write(regs::IRQ::ENABLE, [this](uint32_t, uint32_t v) {
    enable_ = v;
    if (asserted()) line.notify(sc_core::SC_ZERO_TIME);
  });
  regs_.on_write(regs::IRQ::ACK, [this](uint32_t, uint32_t v) { pending_ &= ~v; });
}

void IrqController::raise(unsigned bit) {
  pending_ |= 1u << bit;
  if (asserted()) line.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace photon
