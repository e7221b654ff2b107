// State of the Photon PyTorch device, shared by its allocator and kernels: the configuration
// (numerics of the optical GEMM engine, simulated HBM capacity), the simulated memory map and
// the op counters that photon_torch.stats() reports. Free of torch types; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "models/optical_gemm/optical_gemm_config.h"
#include "models/optical_gemm/optical_numerics.h"

namespace photon::torchdev {

/// What the device takes from a platform configuration (soc/platform_config.h).
struct DeviceConfig {
  Numerics numerics = Numerics::Ideal;  ///< optical_gemm.numerics: ideal | physical
  optical::PhysicalParams
      physical;                 ///< optical_gemm.{rows,cols,dac_bits,weight_bits,adc_bits,noise_std,seed}
  uint64_t hbm_base = 0;        ///< noc.hbm_base, data-NoC address of HBM byte 0
  uint64_t capacity_bytes = 0;  ///< usable HBM bytes: hbm capacity, below cpu.ring_base if the ring is in HBM
  /// The defaults of every key (configs/default.yaml's values).
  static DeviceConfig defaults();
  std::string source;  ///< "configs/default.yaml --set ..." (for the stats)
};

/// The device's part of a resolved configuration, the JSON that `photon config --config FILE
/// --set k=v ...` prints (validated there by the platform's parameter registry). Reads the
/// optical_gemm numerics keys, noc.hbm_base, cpu.ring_base and the hbm organisation keys (the
/// capacity is HbmConfig::capacity_bytes(), models/hbm/hbm_config.h). Throws std::runtime_error
/// naming a missing or mistyped key.
DeviceConfig device_config_from_json(const std::string& resolved, const std::string& source);

class DeviceState {
 public:
  static DeviceState& get();

  /// Replaces the configuration and restarts the noise streams (same seed -> same results).
  /// Throws std::runtime_error if tensors are allocated and the new capacity is below their bytes.
  void configure(DeviceConfig cfg);
  DeviceConfig config() const;
  /// Noise stream of the next GEMM command (the engine's command count, optical_numerics.h).
  uint64_t next_stream();

  /// Places `bytes` in the simulated HBM (first fit, 64-byte blocks as the lowering's HBM plan)
  /// for the host buffer `host`; returns the data-NoC address. Throws std::runtime_error naming
  /// the request, the bytes in use and the capacity when it does not fit.
  uint64_t on_alloc(const void* host, uint64_t bytes);
  /// Throws the error of on_alloc() if `bytes` would not fit now (checked before the host
  /// backing store is allocated).
  void check_fits(uint64_t bytes) const;
  void on_free(const void* host);
  /// Data-NoC address of the block of host buffer `host`; false if it is not a device block.
  bool address_of(const void* host, uint64_t* address) const;

  /// Counters. `signature` (JSON text) identifies a device op's shape for the platform timing.
  void count_device_op(const std::string& op, const std::string& signature);
  void count_fallback(const std::string& op, double elements);
  void count_memory_op(const std::string& op);
  void count_copy(bool to_device, uint64_t bytes);
  void reset_counters();

  /// Everything above as JSON text (photon_torch.stats() adds the platform timing).
  std::string stats_json() const;

 private:
  DeviceState();
  mutable std::mutex mu_;
  DeviceConfig cfg_;
  uint64_t stream_ = 0;
  // Simulated memory: free blocks (offset -> size) and live blocks by host pointer.
  std::map<uint64_t, uint64_t> free_;
  std::map<const void*, std::pair<uint64_t, uint64_t>> live_;  // host -> (offset, size)
  uint64_t in_use_ = 0, peak_ = 0, allocations_ = 0;
  std::map<std::string, uint64_t> device_ops_, memory_ops_;
  std::map<std::string, std::pair<uint64_t, double>> fallback_ops_;  // count, elements
  std::map<std::string, uint64_t> signatures_;
  uint64_t h2d_bytes_ = 0, d2h_bytes_ = 0;
};

}  // namespace photon::torchdev
