#include "sweep/run_result.h"

#include <unistd.h>

#include <ctime>

#include "base/error.h"

namespace photon::sweep {

nlohmann::json RunResult::to_json() const {
  nlohmann::json m = nlohmann::json::object();
  for (const auto& [name, v] : metrics) m[name] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  return {{"key", key},       {"run", run},
          {"status", status}, {"error", error},
          {"wall_s", wall_s}, {"compile_s", compile_s},
          {"metrics", m},     {"has_report", has_report},
          {"host", host},     {"finished_at", finished_at}};
}

RunResult RunResult::from_json(const nlohmann::json& j) {
  RunResult r;
  try {
    r.key = j.at("key");
    r.run = j.at("run");
    r.status = j.at("status");
    r.error = j.at("error");
    r.wall_s = j.at("wall_s");
    r.compile_s = j.at("compile_s");
    for (const auto& [name, v] : j.at("metrics").items())
      r.metrics[name] = v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt;
    r.has_report = j.at("has_report");
    r.host = j.value("host", "");
    r.finished_at = j.value("finished_at", "");
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("malformed result record: ") + e.what());
  }
  return r;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

}  // namespace photon::sweep
