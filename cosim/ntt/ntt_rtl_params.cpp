#include "cosim/ntt/ntt_rtl_params.h"

namespace photon::cosim {

uint32_t NttRtlParams::log_lanes() const {
  uint32_t l = 0;
  while ((1u << l) < lanes) ++l;
  return l;
}

uint64_t NttRtlParams::watchdog_cycles(uint32_t log_n, uint32_t limbs) const {
  const uint64_t t = rows(log_n) ? rows(log_n) : 1;
  const uint64_t per_limb = log_n * t + (log_n - 1) * (t / 2 + pipeline_depth);
  return 4 * (limbs * per_limb + pipeline_depth + 3) + 1000;
}

std::string NttRtlParams::describe() const {
  return "lanes=" + std::to_string(lanes) + " word_bits=" + std::to_string(width) +
         " pipeline_depth=" + std::to_string(pipeline_depth) + " limb_interleave=" + std::to_string(group) +
         " log_n_max=" + std::to_string(log_n_max);
}

}  // namespace photon::cosim
