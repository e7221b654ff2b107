#include "python/photon_torch/csrc/device_state.h"

#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/hbm/hbm_config.h"
#include "models/optical_gemm/optical_gemm_config.h"
#include "workloads/lowering/ai_lowering.h"

namespace photon::torchdev {

namespace {
constexpr uint64_t kBlock = 64;  // HBM block alignment, bytes (lowering/memory_plan.h kHbmAlign)
uint64_t round_up(uint64_t v) { return (v + kBlock - 1) / kBlock * kBlock; }
}  // namespace

namespace {

// The lowering's HBM limit (lowering/memory_plan.h): the capacity, lowered to the command ring.
uint64_t usable_bytes(const HbmConfig& hbm, uint64_t ring_base) {
  const uint64_t cap = hbm.capacity_bytes();
  return ring_base < cap ? ring_base : cap;
}

const nlohmann::json& at(const nlohmann::json& j, const char* section, const char* key) {
  if (!j.contains(section) || !j[section].contains(key))
    throw std::runtime_error(fmt::format("photon device: the configuration has no key {}.{}", section, key));
  return j[section][key];
}

}  // namespace

DeviceConfig DeviceConfig::defaults() {
  DeviceConfig c;
  const OpticalGemmConfig og;
  c.numerics = og.numerics;
  c.physical = {og.rows, og.cols, og.dac_bits, og.weight_bits, og.adc_bits, og.noise_std, og.seed};
  c.capacity_bytes = usable_bytes(HbmConfig(), uint64_t(1) << 32);  // cpu.ring_base default: 4 GiB
  c.source = "defaults";
  return c;
}

DeviceConfig device_config_from_json(const std::string& resolved, const std::string& source) {
  const nlohmann::json j = nlohmann::json::parse(resolved);
  DeviceConfig c;
  try {
    const std::string numerics = at(j, "optical_gemm", "numerics").get<std::string>();
    if (!numerics_table().parse(numerics, c.numerics))
      throw std::runtime_error("photon device: optical_gemm.numerics '" + numerics +
                               "' is not ideal or physical");
    c.physical.rows = at(j, "optical_gemm", "rows").get<uint32_t>();
    c.physical.cols = at(j, "optical_gemm", "cols").get<uint32_t>();
    c.physical.dac_bits = at(j, "optical_gemm", "dac_bits").get<uint32_t>();
    c.physical.weight_bits = at(j, "optical_gemm", "weight_bits").get<uint32_t>();
    c.physical.adc_bits = at(j, "optical_gemm", "adc_bits").get<uint32_t>();
    c.physical.noise_std = at(j, "optical_gemm", "noise_std").get<double>();
    c.physical.seed = at(j, "optical_gemm", "seed").get<uint64_t>();
    c.hbm_base = at(j, "noc", "hbm_base").get<uint64_t>();
    HbmConfig hbm;
    hbm.channels = at(j, "hbm", "channels").get<uint32_t>();
    hbm.pseudo_channels = at(j, "hbm", "pseudo_channels").get<uint32_t>();
    hbm.bank_groups = at(j, "hbm", "bank_groups").get<uint32_t>();
    hbm.banks_per_group = at(j, "hbm", "banks_per_group").get<uint32_t>();
    hbm.rows = at(j, "hbm", "rows").get<uint32_t>();
    hbm.columns = at(j, "hbm", "columns").get<uint32_t>();
    hbm.bus_width_bits = at(j, "hbm", "bus_width_bits").get<uint32_t>();
    hbm.burst_length = at(j, "hbm", "burst_length").get<uint32_t>();
    c.capacity_bytes = usable_bytes(hbm, at(j, "cpu", "ring_base").get<uint64_t>());
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("photon device: a configuration value has the wrong type: ") +
                             e.what());
  }
  c.source = source;
  return c;
}

DeviceState& DeviceState::get() {
  static DeviceState s;
  return s;
}

DeviceState::DeviceState() { configure(DeviceConfig::defaults()); }

void DeviceState::configure(DeviceConfig cfg) {
  std::lock_guard<std::mutex> l(mu_);
  if (in_use_ > cfg.capacity_bytes)
    throw std::runtime_error(
        fmt::format("photon device: the new configuration has {} bytes of HBM, {} are in use",
                    cfg.capacity_bytes, in_use_));
  // Rebuild the free list of the new address space around the live blocks.
  free_.clear();
  uint64_t cur = 0;
  std::map<uint64_t, uint64_t> used;
  for (const auto& [p, blk] : live_) used[blk.first] = blk.second;
  for (const auto& [off, size] : used) {
    if (off > cur) free_[cur] = off - cur;
    cur = std::max(cur, off + size);
  }
  if (cfg.capacity_bytes > cur) free_[cur] = cfg.capacity_bytes - cur;
  cfg_ = std::move(cfg);
  stream_ = 0;
}

DeviceConfig DeviceState::config() const {
  std::lock_guard<std::mutex> l(mu_);
  return cfg_;
}

uint64_t DeviceState::next_stream() {
  std::lock_guard<std::mutex> l(mu_);
  return stream_++;
}

namespace {
std::string out_of_hbm(uint64_t bytes, uint64_t in_use, uint64_t capacity) {
  return fmt::format("photon device: out of simulated HBM: {} bytes requested, {} of {} in use "
                     "(capacity from the hbm.* keys and cpu.ring_base)",
                     bytes, in_use, capacity);
}
}  // namespace

void DeviceState::check_fits(uint64_t bytes) const {
  std::lock_guard<std::mutex> l(mu_);
  const uint64_t size = bytes > cfg_.capacity_bytes ? bytes : round_up(std::max<uint64_t>(bytes, 1));
  for (const auto& [off, free] : free_)
    if (free >= size) return;
  throw std::runtime_error(out_of_hbm(bytes, in_use_, cfg_.capacity_bytes));
}

uint64_t DeviceState::on_alloc(const void* host, uint64_t bytes) {
  std::lock_guard<std::mutex> l(mu_);
  const uint64_t size = round_up(std::max<uint64_t>(bytes, 1));
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < size) continue;
    const uint64_t off = it->first, rest = it->second - size;
    free_.erase(it);
    if (rest) free_[off + size] = rest;
    live_[host] = {off, size};
    in_use_ += size;
    peak_ = std::max(peak_, in_use_);
    ++allocations_;
    return cfg_.hbm_base + off;
  }
  throw std::runtime_error(out_of_hbm(bytes, in_use_, cfg_.capacity_bytes));
}

void DeviceState::on_free(const void* host) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = live_.find(host);
  if (it == live_.end()) return;
  auto [off, size] = it->second;
  live_.erase(it);
  in_use_ -= size;
  // Insert and merge with the neighbours.
  auto next = free_.lower_bound(off);
  if (next != free_.end() && off + size == next->first) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == off) {
      prev->second += size;
      return;
    }
  }
  free_[off] = size;
}

bool DeviceState::address_of(const void* host, uint64_t* address) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = live_.find(host);
  if (it == live_.end()) return false;
  *address = cfg_.hbm_base + it->second.first;
  return true;
}

void DeviceState::count_device_op(const std::string& op, const std::string& signature) {
  std::lock_guard<std::mutex> l(mu_);
  ++device_ops_[op];
  ++signatures_[signature];
}

void DeviceState::count_fallback(const std::string& op, double elements) {
  std::lock_guard<std::mutex> l(mu_);
  auto& f = fallback_ops_[op];
  ++f.first;
  f.second += elements;
}

void DeviceState::count_memory_op(const std::string& op) {
  std::lock_guard<std::mutex> l(mu_);
  ++memory_ops_[op];
}

void DeviceState::count_copy(bool to_device, uint64_t bytes) {
  std::lock_guard<std::mutex> l(mu_);
  (to_device ? h2d_bytes_ : d2h_bytes_) += bytes;
}

void DeviceState::reset_counters() {
  std::lock_guard<std::mutex> l(mu_);
  device_ops_.clear();
  memory_ops_.clear();
  fallback_ops_.clear();
  signatures_.clear();
  h2d_bytes_ = d2h_bytes_ = 0;
  peak_ = in_use_;
}

std::string DeviceState::stats_json() const {
  std::lock_guard<std::mutex> l(mu_);
  nlohmann::json j;
  j["config"] = {{"source", cfg_.source},
                 {"numerics", numerics_table().name(cfg_.numerics)},
                 {"rows", cfg_.physical.rows},
                 {"cols", cfg_.physical.cols},
                 {"dac_bits", cfg_.physical.dac_bits},
                 {"weight_bits", cfg_.physical.weight_bits},
                 {"adc_bits", cfg_.physical.adc_bits},
                 {"noise_std", cfg_.physical.noise_std},
                 {"seed", cfg_.physical.seed}};
  j["device_ops"] = device_ops_;
  j["memory_ops"] = memory_ops_;
  nlohmann::json fb = nlohmann::json::object();
  double host_ns = 0;
  for (const auto& [op, f] : fallback_ops_) {
    // The lowering's host-fallback cost model (workloads/lowering/ai_lowering.h).
    const double ns = double(f.first) * lowering::kHostFixedNs + lowering::kHostNsPerElement * f.second;
    fb[op] = {{"count", f.first}, {"elements", f.second}, {"host_ns", ns}};
    host_ns += ns;
  }
  j["fallback_ops"] = fb;
  j["host_fallback_ns"] = host_ns;
  nlohmann::json sigs = nlohmann::json::array();
  for (const auto& [s, n] : signatures_)
    sigs.push_back({{"signature", nlohmann::json::parse(s)}, {"count", n}});
  j["signatures"] = sigs;
  j["memory"] = {{"in_use_bytes", in_use_},
                 {"peak_bytes", peak_},
                 {"capacity_bytes", cfg_.capacity_bytes},
                 {"allocations", allocations_},
                 {"live_tensors_storages", live_.size()}};
  j["transfers"] = {{"host_to_device_bytes", h2d_bytes_}, {"device_to_host_bytes", d2h_bytes_}};
  return j.dump();
}

}  // namespace photon::torchdev
