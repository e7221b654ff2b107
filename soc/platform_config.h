// PlatformConfig: the assembled platform's typed configuration, one section per unit.
//
// Each section is the unit's own config struct (defaults, ranges and units in its declare());
// sections() is the one list of them. load_platform_config(file, overrides) starts from the
// defaults, applies the YAML file and then each "a.b.c=value" override (base/config_loader.h),
// then validates every section and the cross-section rules. Errors name the file, the line:col
// and the key path. The workloads' run configuration (workloads/config/run_config.h) extends this
// with the lowerings' own sections.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/config_loader.h"
#include "base/param_set.h"
#include "cosim/cosim_config.h"
#include "models/dma/dma_config.h"
#include "models/hbm/hbm_config.h"
#include "models/ntt/ntt_config.h"
#include "models/optical_gemm/optical_gemm_config.h"
#include "models/rv32/rv32_config.h"
#include "models/scratchpad/scratchpad_config.h"
#include "models/vector/vector_config.h"
#include "platform/noc/noc_config.h"

namespace photon {

/// cpu.model: which implementation runs the firmware: native (firmware.c compiled for the host)
/// or rv32 (the firmware ELF on the RV32IMC instruction-set simulator, models/rv32/).
enum class CpuModelKind { Native, Rv32 };
inline const EnumTable<CpuModelKind>& cpu_model_kind_table() {
  static const EnumTable<CpuModelKind> t{{CpuModelKind::Native, "native"}, {CpuModelKind::Rv32, "rv32"}};
  return t;
}

/// Control bus and firmware CPU.
struct CpuConfig {
  double clock_ghz = 1.0;             ///< firmware CPU clock, GHz
  uint32_t mmio_latency_cycles = 10;  ///< one register access over the control bus, CPU cycles
  /// native: firmware work to decode and route one command, CPU cycles. Measured on the rv32
  /// ISS (firmware.measured.dispatch_cycles, models/rv32/README.md "Firmware cost"): 210 on
  /// light_resnet50 with configs/default.yaml.
  uint32_t dispatch_cycles = 210;
  /// native: firmware work per interrupt wake-up, CPU cycles. Measured on the rv32 ISS as
  /// above (firmware.measured.irq_latency_cycles): 73 on light_resnet50.
  uint32_t irq_latency_cycles = 73;
  uint32_t queue_depth = 16;            ///< per-unit hardware command queue entries
  uint32_t semaphores = 64;             ///< hardware semaphores
  uint64_t ring_base = 0x100000000ull;  ///< HBM address of the command ring (4 GiB)
  /// Which implementation runs the firmware: native (firmware.c compiled for the host, costs
  /// from dispatch_cycles and irq_latency_cycles) or rv32 (the firmware ELF on the RV32IMC
  /// instruction-set simulator, costs from its cycle table, cpu.rv32.*).
  CpuModelKind model = CpuModelKind::Native;
  std::string firmware;      ///< rv32: firmware ELF; empty: the one built with photon
  double watchdog_us = 1e6;  ///< rv32: simulated time the firmware may run without finishing, us
  Rv32Config rv32;
  void declare(ParamSet& ps, const std::string& p);
};

/// timing: no arithmetic and no backing stores (sweeps); functional: data moves and is computed.
enum class SimMode { Timing, Functional };
inline const EnumTable<SimMode>& sim_mode_table() {
  static const EnumTable<SimMode> t{{SimMode::Timing, "timing"}, {SimMode::Functional, "functional"}};
  return t;
}

/// Simulation kernel settings.
struct SimConfig {
  SimMode mode = SimMode::Timing;  ///< timing | functional
  double quantum_ns = 1000.0;      ///< temporal-decoupling quantum, ns
  uint64_t seed = 1;               ///< global RNG seed
  /// Watchdog (Platform::run): a run whose simulated time reaches max_time_ns, or whose wall
  /// time reaches max_wall_s, ends with status `timeout` and its report. 0: no limit.
  double max_time_ns = 0;  ///< simulated-time limit, ns
  double max_wall_s = 0;   ///< wall-clock limit, s
  /// Helper threads that compute HBM calibrations ahead of need (models/hbm/README.md
  /// "Calibration prefetch"), at most the cores less one; results never depend on it, only the
  /// wall time. 0: none.
  uint64_t helper_threads = 1;
  void declare(ParamSet& ps, const std::string& p);
  /// The keys of this section that change the wall time only, never a report's simulated
  /// figures or status (a sweep's run key leaves them out, sweep/plan.h run_key).
  static const std::vector<std::string>& wall_time_only_keys() {
    static const std::vector<std::string> keys{"sim.helper_threads"};
    return keys;
  }
};

/// `<unit>.impl` for every unit of the unit table (soc/unit_table.h): which implementation of the
/// unit the platform builds. Defaults to each unit's first implementation.
struct UnitImplChoices {
  UnitImplChoices();
  /// The chosen implementation of `unit`. Throws Error for a unit not in the table.
  const std::string& at(const std::string& unit) const;
  /// Declares `<unit>.impl` for each unit (the prefix is not used: the keys live in the units'
  /// own sections).
  void declare(ParamSet& ps, const std::string& prefix);
  std::map<std::string, std::string> of;  ///< unit -> implementation
};

struct PlatformConfig {
  SimConfig sim;
  NocConfig noc;
  CpuConfig cpu;
  HbmConfig hbm;
  ScratchpadConfig scratchpad;
  DmaConfig dma;
  OpticalGemmConfig optical_gemm;
  NttConfig ntt;
  VectorConfig vector;
  CosimConfig cosim;
  UnitImplChoices impl;

  /// The one list of sections, in report order: calls f(name, section) for each.
  template <class Self, class F>
  static void sections(Self& self, F&& f) {
    f("sim", self.sim);
    f("noc", self.noc);
    f("cpu", self.cpu);
    f("hbm", self.hbm);
    f("scratchpad", self.scratchpad);
    f("dma", self.dma);
    f("optical_gemm", self.optical_gemm);
    f("ntt", self.ntt);
    f("vector", self.vector);
    f("cosim", self.cosim);
    f("impl", self.impl);
  }
  /// Cross-section checks (e.g. the scratchpad window does not overlap HBM). Throws Error
  /// naming the key.
  void validate() const;
};

/// Loads `yaml_path` (may be empty: defaults only) and then the overrides, in order, and
/// validates. Throws Error with context "<file>:<line>:<col>: <key>" or "--set <key>".
inline PlatformConfig load_platform_config(const std::string& yaml_path,
                                           const std::vector<std::string>& overrides) {
  return load_config<PlatformConfig>(yaml_path, overrides);
}

}  // namespace photon
