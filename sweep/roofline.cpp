#include "sweep/roofline.h"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>

#include "base/error.h"
#include "workloads/config/run_config.h"

namespace photon::sweep {

namespace {

/// The configuration a report was made with (its "config" section), presets first.
RunConfig config_of(const nlohmann::json& cfg) {
  RunConfig c;
  ParamSet ps = bind_params(c);
  std::vector<std::pair<std::string, std::string>> leaves;
  std::function<void(const nlohmann::json&, const std::string&)> walk = [&](const nlohmann::json& j,
                                                                            const std::string& p) {
    for (const auto& [k, v] : j.items()) {
      const std::string path = p.empty() ? k : p + "." + k;
      if (v.is_object())
        walk(v, path);
      else
        leaves.emplace_back(path, v.is_string() ? v.get<std::string>() : v.dump());
    }
  };
  walk(cfg, "");
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& [k, v] : leaves) {
      const bool preset = k.size() > 7 && k.compare(k.size() - 7, 7, ".preset") == 0;
      if (preset == (pass == 0) && ps.has(k)) ps.set(k, v);
    }
  return c;
}

double num(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

}  // namespace

nlohmann::json roofline_data(const nlohmann::json& report) {
  if (!report.contains("config") || !report.contains("ops"))
    throw Error("not a photon run report (no config or ops)");
  const RunConfig c = config_of(report["config"]);
  const bool fhe = report.value("workload_info", nlohmann::json::object()).value("frontend", "") == "heir";
  const auto& og = c.optical_gemm;
  const auto& nt = c.ntt;
  std::map<std::string, double> peak = {
      {"optical_gemm", 2.0 * og.rows * og.cols * og.wavelengths * og.modulation_ghz},
      {"vector", double(c.vector.lanes) * c.vector.clock_ghz},
      {"ntt", double(nt.lanes + nt.modmul_lanes + nt.bconv_macs + nt.automorph_lanes) * nt.clock_ghz}};
  const double bw = c.hbm.peak_bandwidth_gbps();
  nlohmann::json out = {
      {"workload", report.value("workload", "")},
      {"hbm_gbps", bw},
      {"ops_label", fhe ? "modular operations" : "operations (2 per MAC, 1 per vector element)"}};
  out["ceilings"] = nlohmann::json::array();
  if (fhe) {
    out["ceilings"].push_back(
        {{"unit", "ntt"},
         {"gops", peak["ntt"]},
         {"formula", "NTT unit (lanes + modmul_lanes + bconv_macs + automorph_lanes) x clock"}});
  } else {
    out["ceilings"].push_back({{"unit", "optical_gemm"},
                               {"gops", peak["optical_gemm"]},
                               {"formula", "optical GEMM 2 x rows x cols x wavelengths x modulation rate"}});
    out["ceilings"].push_back(
        {{"unit", "vector"}, {"gops", peak["vector"]}, {"formula", "vector lanes x clock"}});
  }
  out["ops"] = nlohmann::json::array();
  for (const auto& row : report["ops"]) {
    const nlohmann::json w = row.value("work", nlohmann::json::object());
    double ops = 0;
    if (fhe) {
      double butterflies = 0;
      const std::string detail = row.value("detail", "");
      const size_t at = detail.find("N=2^");
      if (at != std::string::npos) {
        const int log_n = std::atoi(detail.c_str() + at + 4);
        butterflies = num(w, "ntt_limb_transforms") * std::ldexp(1.0, log_n) / 2 * log_n;
      }
      ops = butterflies + num(w, "modmul_words") + num(w, "modadd_words") + num(w, "bconv_macs") +
            num(w, "automorph_words");
    } else {
      ops = 2 * num(w, "gemm_macs") + num(w, "vector_elements");
    }
    const double latency = num(row, "latency_ns");
    if (ops <= 0 || latency <= 0) continue;
    // The op's ceiling is that of the unit doing most of its counted work.
    const std::string unit =
        fhe ? "ntt" : (2 * num(w, "gemm_macs") >= num(w, "vector_elements") ? "optical_gemm" : "vector");
    const double bytes = num(w, "hbm_read_bytes") + num(w, "hbm_write_bytes");
    const double intensity = bytes > 0 ? ops / bytes : std::nan("");
    const bool memory = bytes > 0 && intensity < peak[unit] / bw;
    out["ops"].push_back({{"name", row.value("name", "")},
                          {"kind", row.value("kind", "")},
                          {"unit", unit},
                          {"ops", ops},
                          {"hbm_bytes", bytes},
                          {"latency_ns", latency},
                          {"intensity", bytes > 0 ? nlohmann::json(intensity) : nlohmann::json(nullptr)},
                          {"gops", ops / latency},
                          {"bound", memory ? "memory" : "compute"}});
  }
  return out;
}

}  // namespace photon::sweep
