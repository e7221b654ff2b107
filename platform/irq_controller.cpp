#include "platform/irq_controller.h"

namespace photon {

IrqController::IrqController(sc_core::sc_module_name name) : sc_module(name), regs_("IRQ") {
  regs_.on_read(regs::IRQ::PENDING, [this](uint32_t) { return pending_; });
  regs_.on_write(regs::IRQ::ENABLE, [this](uint32_t, uint32_t v) {
    enable_ = v;
    notify_line();
  });
  regs_.on_write(regs::IRQ::ACK, [this](uint32_t, uint32_t v) { pending_ &= ~v; });
}

void IrqController::raise(unsigned bit) {
  pending_ |= 1u << bit;
  notify_line();
}

void IrqController::wait_line() {
  ++listeners_;
  sc_core::wait(line);
  --listeners_;
}

void IrqController::wait_line(const sc_core::sc_time& timeout) {
  ++listeners_;
  sc_core::wait(timeout, line);
  --listeners_;
}

}  // namespace photon
