// NTT unit area (README.md "Area"): its four engines from the per-lane areas of F1's functional
// units (Feldmann et al., "F1: A Fast and Programmable Accelerator for Fully Homomorphic
// Encryption", MICRO 2021, Table 3: GF 14/12 nm, 32-bit words, 128 lanes per unit):
//   NTT FU 2.27 mm2 for a fully pipelined 128-point NTT per cycle = 64 x 7 = 448 butterflies,
//   modular multiply FU 0.25 mm2 and add FU 0.03 mm2 for 128 lanes each,
//   automorphism FU 0.58 mm2 for 128 lanes.
// Words other than 32 bits scale multipliers (butterflies, modular multipliers, MACs) with the
// square of the width (an array multiplier's partial products) and adders and the permutation
// network linearly.
#pragma once

#include "models/ntt/ntt_config.h"
#include "platform/stats/area.h"

namespace photon {

constexpr double kNttButterflyMm2 = 2.27 / 448;   ///< per butterfly per cycle, 32-bit words
constexpr double kModMulLaneMm2 = 0.25 / 128;     ///< per modular multiplier lane, 32-bit words
constexpr double kModAddLaneMm2 = 0.03 / 128;     ///< per modular adder lane, 32-bit words
constexpr double kAutomorphLaneMm2 = 0.58 / 128;  ///< per automorphism lane, 32-bit words

/// lanes x butterfly + modmul_lanes x (multiplier + adder) + bconv_macs x (multiplier + adder)
/// + automorph_lanes x automorphism lane, each at word_bits (scaling above). mm2.
UnitArea ntt_area(const NttConfig& c);

}  // namespace photon
