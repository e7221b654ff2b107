#include "models/ntt/ntt_area.h"

namespace photon {

UnitArea ntt_area(const NttConfig& c) {
  const double w = double(c.word_bits) / 32.0;  // relative to F1's 32-bit words
  const double mul = w * w, add = w;
  UnitArea a;
  a.add("butterflies", double(c.lanes) * kNttButterflyMm2 * mul);
  a.add("ewe", double(c.modmul_lanes) * (kModMulLaneMm2 * mul + kModAddLaneMm2 * add));
  a.add("bconv", double(c.bconv_macs) * (kModMulLaneMm2 * mul + kModAddLaneMm2 * add));
  a.add("automorph", double(c.automorph_lanes) * kAutomorphLaneMm2 * add);
  return a;
}

}  // namespace photon
