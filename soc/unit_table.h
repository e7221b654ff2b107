// The unit table: every command-executing unit of the platform, as data.
//
// One row per unit drives everything that used to list the units by hand: the control-bus
// attach (its QUEUE register block), the queue list (queue id = row, as registers.yaml `units`
// orders them), the interrupt bits, the data-NoC binding, the report loop, the trace's tracks and
// the choice of implementation. A unit has one or more implementations, chosen by the
// configuration key `<unit>.impl`; the first is the default. The firmware routes commands to the
// same queues from the generated unit table (photon_regs.h PHOTON_UNIT_*), so adding a unit is a
// row here, a row in registers.yaml and the unit's own folder (docs/extending.md).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "platform/engine.h"
#include "platform/queue_unit.h"
#include "platform/stats/area.h"
#include "regs_view.h"
#include "soc/platform_config.h"

namespace photon {

/// What a unit's factory is given: the configuration, the mode, the scratchpad's backing store
/// (compute engines read and write it directly) and the wiring into the platform.
struct UnitContext {
  const PlatformConfig& cfg;
  bool functional = false;
  MemView spm;
  QueueUnit::Wiring wiring;
};

/// One implementation of a unit ("tlm"; an RTL co-simulation or another model adds more).
struct UnitImpl {
  std::string name;  ///< value of `<unit>.impl`
  std::string doc;   ///< what it is, for `photon config --list`
  std::function<std::unique_ptr<QueueUnit>(const UnitContext&)> make;
  /// Optional: refuses a configuration this implementation cannot model (throws Error naming the
  /// key); run by PlatformConfig::validate() for the chosen implementation, so every command sees it.
  std::function<void(const PlatformConfig&)> check;
};

/// One command-executing unit.
struct UnitDesc {
  std::string name;             ///< report, trace and configuration-section name ("dma", "optical_gemm")
  regs::QueueId queue;          ///< its queue: QUEUE instance, IRQ DONE/ERR bits, opcode (registers.yaml)
  std::vector<UnitImpl> impls;  ///< the first is the default
  /// Its silicon area from the configuration (models/<unit>/<unit>_area.h), mm2.
  std::function<UnitArea(const PlatformConfig&)> area;
  const regs::UnitHw& hw() const { return regs::kUnits[unsigned(queue)]; }
  /// The implementation `impl` names. Throws Error naming `<unit>.impl` if there is none.
  const UnitImpl& implementation(const std::string& impl) const;
};

/// Every unit, in queue order.
const std::vector<UnitDesc>& unit_table();

}  // namespace photon
