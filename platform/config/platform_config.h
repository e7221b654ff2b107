// PlatformConfig: the whole platform's typed configuration, loaded from YAML plus overrides.
//
// load_platform_config(file, overrides): starts from the defaults in each unit's config struct,
// applies the YAML file (nested maps whose leaves are parameters), then each "a.b.c=value"
// override. Keys ending in ".preset" are applied before the others of their file or override set,
// so explicit keys win over a preset. Errors name the file, the line:col and the key path.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cosim/cosim_config.h"
#include "models/dma/dma_config.h"
#include "models/hbm/hbm_config.h"
#include "models/ntt/ntt_config.h"
#include "models/optical_gemm/optical_gemm_config.h"
#include "models/scratchpad/scratchpad_config.h"
#include "models/vector/vector_config.h"
#include "platform/config/param_set.h"
#include "workloads/fhe/fhe_config.h"

namespace photon {

/// Data NoC: a TLM router with per-port bandwidth and a hop latency.
struct NocConfig {
  double port_bandwidth_gbps = 256.0;  ///< per initiator/target port, GB/s
  double hop_latency_ns = 2.0;         ///< router traversal, ns
  uint64_t hbm_base = 0x0;             ///< data address map: HBM base
  uint64_t scratchpad_base = 0x4000000000ull;  ///< data address map: scratchpad base (256 GiB)
  double energy_pj_per_byte = 0.1;     ///< wire energy, pJ/byte
  void declare(ParamSet& ps, const std::string& p);
};

/// Control bus and firmware CPU.
struct CpuConfig {
  double clock_ghz = 1.0;             ///< firmware CPU clock, GHz
  uint32_t mmio_latency_cycles = 10;  ///< one register access over the control bus, CPU cycles
  uint32_t dispatch_cycles = 50;      ///< firmware work to decode and route one command, CPU cycles
  uint32_t irq_latency_cycles = 20;   ///< interrupt entry to handler, CPU cycles
  uint32_t queue_depth = 16;          ///< per-unit hardware command queue entries
  uint32_t semaphores = 64;           ///< hardware semaphores
  uint64_t ring_base = 0x100000000ull;  ///< HBM address of the command ring (4 GiB)
  void declare(ParamSet& ps, const std::string& p);
};

/// Simulation kernel settings.
struct SimConfig {
  std::string mode = "timing";        ///< timing | functional
  double quantum_ns = 1000.0;         ///< temporal-decoupling quantum, ns
  uint64_t seed = 1;                  ///< global RNG seed
  void declare(ParamSet& ps, const std::string& p);
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
  FheConfig fhe;
  CosimConfig cosim;

  PlatformConfig();
  PlatformConfig(const PlatformConfig& other);
  PlatformConfig& operator=(const PlatformConfig& other);

  /// The parameter registry, bound to this object's fields.
  ParamSet& params() { return *params_; }
  const ParamSet& params() const { return *params_; }
  /// The fully resolved configuration as nested JSON (goes into every report).
  nlohmann::json to_json() const { return params_->to_json(); }

 private:
  void bind();
  std::unique_ptr<ParamSet> params_;
};

/// Applies one "a.b.c=value" override. Throws Error naming the key.
void apply_override(PlatformConfig& cfg, const std::string& assignment);

/// Loads `yaml_path` (may be empty: defaults only) and then the overrides, in order.
/// Throws Error with context "<file>:<line>:<col>: <key>" or "--set <key>".
PlatformConfig load_platform_config(const std::string& yaml_path,
                                    const std::vector<std::string>& overrides);

/// Cross-field checks (e.g. scratchpad fits in its address window). Throws Error naming the key.
void validate(const PlatformConfig& cfg);

}  // namespace photon
