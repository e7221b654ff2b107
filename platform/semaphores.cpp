#include "platform/semaphores.h"

#include <algorithm>

namespace photon {

Semaphores::Semaphores(sc_core::sc_module_name name, uint32_t count)
    : sc_module(name), regs_("SEM"), count_(std::min<uint32_t>(count, 64)) {
  regs_.on_write(regs::SEM::VALUE, [this](uint32_t, uint32_t) { changed.notify(sc_core::SC_ZERO_TIME); });
}

void Semaphores::signal(uint32_t sem) {
  regs_.set(regs::SEM::VALUE, regs_.get(regs::SEM::VALUE, sem) + 1, sem);
  changed.notify(sc_core::SC_ZERO_TIME);
}

bool Semaphores::try_take(uint32_t sem) {
  uint32_t v = regs_.get(regs::SEM::VALUE, sem);
  if (v == 0) return false;
  regs_.set(regs::SEM::VALUE, v - 1, sem);
  return true;
}

}  // namespace photon
