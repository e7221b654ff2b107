#include "platform/config/platform_config.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "platform/error.h"

namespace photon {

void NocConfig::declare(ParamSet& ps, const std::string& p) {
  ps.add_double(p + ".port_bandwidth_gbps", &port_bandwidth_gbps, 0.001, 1e6, "per-port bandwidth, GB/s");
  ps.add_double(p + ".hop_latency_ns", &hop_latency_ns, 0, 1e6, "router traversal latency, ns");
  ps.add_uint(p + ".hbm_base", &hbm_base, 0, ~uint64_t(0) >> 1, "data address of HBM, bytes");
  ps.add_uint(p + ".scratchpad_base", &scratchpad_base, 0, ~uint64_t(0) >> 1, "data address of the scratchpad, bytes");
  ps.add_double(p + ".energy_pj_per_byte", &energy_pj_per_byte, 0, 1e6, "NoC energy, pJ/byte");
}

void CpuConfig::declare(ParamSet& ps, const std::string& p) {
  ps.add_double(p + ".clock_ghz", &clock_ghz, 0.01, 100, "firmware CPU clock, GHz");
  ps.add_uint(p + ".mmio_latency_cycles", &mmio_latency_cycles, 0, 1000000, "register access latency, CPU cycles");
  ps.add_uint(p + ".dispatch_cycles", &dispatch_cycles, 0, 1000000, "firmware work per command, CPU cycles");
  ps.add_uint(p + ".irq_latency_cycles", &irq_latency_cycles, 0, 1000000, "interrupt entry latency, CPU cycles");
  ps.add_uint(p + ".queue_depth", &queue_depth, 1, 65536, "hardware command queue entries per unit");
  ps.add_uint(p + ".semaphores", &semaphores, 1, 4096, "hardware semaphores");
  ps.add_uint(p + ".ring_base", &ring_base, 0, ~uint64_t(0) >> 1, "HBM address of the command ring, bytes");
}

void SimConfig::declare(ParamSet& ps, const std::string& p) {
  ps.add_choice(p + ".mode", &mode, {"timing", "functional"}, "timing: no arithmetic; functional: data computed");
  ps.add_double(p + ".quantum_ns", &quantum_ns, 0.001, 1e9, "temporal-decoupling quantum, ns");
  ps.add_uint(p + ".seed", &seed, 0, ~uint64_t(0) >> 1, "global RNG seed");
}

PlatformConfig::PlatformConfig() { bind(); }
PlatformConfig::PlatformConfig(const PlatformConfig& o)
    : sim(o.sim), noc(o.noc), cpu(o.cpu), hbm(o.hbm), scratchpad(o.scratchpad), dma(o.dma),
      optical_gemm(o.optical_gemm), ntt(o.ntt), vector(o.vector), fhe(o.fhe), cosim(o.cosim) {
  bind();
}
PlatformConfig& PlatformConfig::operator=(const PlatformConfig& o) {
  sim = o.sim; noc = o.noc; cpu = o.cpu; hbm = o.hbm; scratchpad = o.scratchpad; dma = o.dma;
  optical_gemm = o.optical_gemm; ntt = o.ntt; vector = o.vector; fhe = o.fhe; cosim = o.cosim;
  bind();
  return *this;
}

void PlatformConfig::bind() {
  params_ = std::make_unique<ParamSet>();
  sim.declare(*params_, "sim");
  noc.declare(*params_, "noc");
  cpu.declare(*params_, "cpu");
  hbm.declare(*params_, "hbm");
  scratchpad.declare(*params_, "scratchpad");
  dma.declare(*params_, "dma");
  optical_gemm.declare(*params_, "optical_gemm");
  ntt.declare(*params_, "ntt");
  vector.declare(*params_, "vector");
  fhe.declare(*params_, "fhe");
  cosim.declare(*params_, "cosim");
}

namespace {

struct Assignment {
  std::string path, value, where;
};

/// Top-level sections of the parameter space ("hbm", "cpu", ...).
const std::set<std::string>& cfg_sections() {
  static const std::set<std::string> sections = [] {
    std::set<std::string> out;
    PlatformConfig c;
    for (const auto& [path, p] : c.params().params()) out.insert(path.substr(0, path.find('.')));
    return out;
  }();
  return sections;
}

bool is_section(const std::set<std::string>& sections, const std::string& path) {
  return sections.count(path) != 0;
}

bool is_preset(const std::string& path) {
  return path.size() >= 7 && path.compare(path.size() - 7, 7, ".preset") == 0;
}

void apply_all(PlatformConfig& cfg, const std::vector<Assignment>& as) {
  // Presets first, so that explicit keys (from the file or --set) override them.
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& a : as)
      if (is_preset(a.path) == (pass == 0))
        with_error_context(a.where, [&] {
          if (is_section(cfg_sections(), a.path))
            throw Error(a.path + ": is a section; set one of its keys, e.g. " + a.path + ".<key>=value");
          cfg.params().set(a.path, a.value);
        });
}

void collect(const YAML::Node& node, const std::string& prefix, const std::string& file,
             std::vector<Assignment>& out) {
  auto where = [&](const YAML::Node& n) {
    return file + ":" + std::to_string(n.Mark().line + 1) + ":" + std::to_string(n.Mark().column + 1);
  };
  if (!node.IsMap()) throw Error("expected a mapping of configuration keys").with_context(where(node));
  std::set<std::string> seen;
  for (const auto& kv : node) {
    std::string key = kv.first.as<std::string>();
    std::string path = prefix.empty() ? key : prefix + "." + key;
    if (!seen.insert(key).second)
      throw Error(path + ": key given twice in the same mapping").with_context(where(kv.first));
    const YAML::Node& v = kv.second;
    if (v.IsMap()) {
      collect(v, path, file, out);
    } else if (v.IsScalar()) {
      if (is_section(cfg_sections(), path))
        throw Error(path + ": is a section; expected a mapping of its keys, got a value")
            .with_context(where(kv.first));
      out.push_back({path, v.Scalar(), where(kv.first)});
    } else if (v.IsNull()) {
      throw Error(path + ": missing value").with_context(where(kv.first));
    } else {
      throw Error(path + ": expected a scalar value, got a sequence").with_context(where(kv.first));
    }
  }
}

}  // namespace

void apply_override(PlatformConfig& cfg, const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error("--set expects key=value, got '" + assignment + "'");
  apply_all(cfg, {{assignment.substr(0, eq), assignment.substr(eq + 1), "--set"}});
}

PlatformConfig load_platform_config(const std::string& yaml_path,
                                    const std::vector<std::string>& overrides) {
  PlatformConfig cfg;
  std::vector<Assignment> all;  // file keys, then --set keys: one list, presets applied first
  if (!yaml_path.empty()) {
    std::error_code ec;
    if (std::filesystem::is_directory(yaml_path, ec))
      throw Error("is a directory, expected a YAML configuration file").with_context(yaml_path);
    std::ifstream in(yaml_path);
    if (!in) throw Error("cannot open configuration file").with_context(yaml_path);
    YAML::Node root;
    try {
      root = YAML::Load(in);
    } catch (const YAML::Exception& e) {
      throw Error("invalid YAML: " + e.msg)
          .with_context(yaml_path + ":" + std::to_string(e.mark.line + 1) + ":" +
                        std::to_string(e.mark.column + 1));
    }
    if (!root.IsNull()) collect(root, "", yaml_path, all);
  }
  for (const auto& o : overrides) {
    auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0) throw Error("--set expects key=value, got '" + o + "'");
    all.push_back({o.substr(0, eq), o.substr(eq + 1), "--set"});
  }
  apply_all(cfg, all);
  validate(cfg);
  return cfg;
}

void validate(const PlatformConfig& cfg) {
  if (cfg.noc.scratchpad_base < cfg.noc.hbm_base + cfg.hbm.capacity_bytes() &&
      cfg.noc.scratchpad_base + cfg.scratchpad.size_bytes() > cfg.noc.hbm_base)
    throw Error("noc.scratchpad_base: scratchpad window overlaps HBM (" +
                std::to_string(cfg.hbm.capacity_bytes()) + " bytes at noc.hbm_base)");
  if (cfg.cpu.ring_base >= cfg.hbm.capacity_bytes())
    throw Error("cpu.ring_base: command ring lies outside HBM capacity (" +
                std::to_string(cfg.hbm.capacity_bytes()) + " bytes)");
  if (!cfg.cosim.waveform.empty() && cfg.ntt.impl != "rtl")
    throw Error("cosim.waveform: no unit runs RTL to trace (set ntt.impl=rtl)");
  if (cfg.cosim.waveform_end_ns > 0 && cfg.cosim.waveform_end_ns <= cfg.cosim.waveform_start_ns)
    throw Error("cosim.waveform_end_ns: " + std::to_string(cfg.cosim.waveform_end_ns) +
                " must lie after cosim.waveform_start_ns (" + std::to_string(cfg.cosim.waveform_start_ns) +
                ") or be 0 (to the end of the run)");
}

}  // namespace photon
