// CosimConfig (keys cosim.*): waveforms of the verilated RTL blocks (docs/cosim.md). Which unit
// runs RTL is chosen by the unit's own `impl` key (ntt.impl).
#pragma once

#include <string>

#include "base/param_set.h"

namespace photon {

struct CosimConfig {
  std::string waveform;          ///< FST file for the RTL blocks' signals (Verilator tracing); "" = none
  double waveform_start_ns = 0;  ///< first simulated time dumped, ns
  double waveform_end_ns = 0;    ///< last simulated time dumped, ns; 0 = to the end of the run

  void declare(ParamSet& ps, const std::string& p) {
    ps.add_text(p + ".waveform", &waveform, "FST waveform file of the RTL blocks (\"\": none)");
    ps.add_double(p + ".waveform_start_ns", &waveform_start_ns, 0, 1e15, "waveform window start, ns");
    ps.add_double(p + ".waveform_end_ns", &waveform_end_ns, 0, 1e15,
                  "waveform window end, ns (0: end of run)");
  }
};

}  // namespace photon
