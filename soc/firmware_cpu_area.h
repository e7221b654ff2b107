// Firmware CPU area: a small in-order RV32IMC core, lowRISC Ibex in its "small" configuration:
// 26.60 kGE (Ibex README, Yosys synthesis), at 0.199 um2 per gate equivalent (a NAND2 in
// GlobalFoundries 22FDX, as the PULP platform's papers state it). Its memories are not counted
// (the firmware runs from HBM).
#pragma once

#include "platform/stats/area.h"
#include "soc/platform_config.h"

namespace photon {

constexpr double kIbexSmallKge = 26.60;  ///< kGE
constexpr double kGeUm2At22nm = 0.199;   ///< um2 per gate equivalent

/// kIbexSmallKge x 1000 x kGeUm2At22nm, mm2 (independent of the clock).
UnitArea firmware_cpu_area(const CpuConfig& c);

}  // namespace photon
