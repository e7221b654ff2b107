// The verilated ntt_core variants built into Photon (one Verilator model per parameter set; the
// list is cosim/CMakeLists.txt's PHOTON_NTT_RTL_VARIANTS) and the factory that instantiates one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cosim/ntt/ntt_rtl_core.h"

namespace photon::cosim {

/// Every built variant, in the order of the CMake list.
const std::vector<NttRtlParams>& ntt_rtl_variants();
/// The variant with these lanes, width, pipeline depth and limb interleave, or nullptr.
const NttRtlParams* find_ntt_rtl_variant(uint32_t lanes, uint32_t width, uint32_t pipeline_depth,
                                         uint32_t group);
/// "lanes=4 word_bits=64 ...; lanes=64 ..." (for error messages).
std::string describe_ntt_rtl_variants();
/// Elaborates the transactor and verilated core of variant `p` (must be one of
/// ntt_rtl_variants()) as SystemC module `name`, clocked with period `period_ps` (ps). Call
/// during elaboration. Throws photon::Error for an unknown variant.
std::unique_ptr<NttRtlCore> make_ntt_rtl_core(const NttRtlParams& p, const std::string& name,
                                              uint64_t period_ps);

}  // namespace photon::cosim
