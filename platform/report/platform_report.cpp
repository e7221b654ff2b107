#include "platform/report/platform_report.h"

#include <algorithm>

#include "base/error.h"

namespace photon {

const UnitRow& PlatformReport::unit(const std::string& name) const {
  for (const auto& u : units)
    if (u.name == name) return u;
  throw Error("report has no unit '" + name + "'");
}

double PlatformReport::energy_total_pj() const {
  double total = 0;
  for (const auto& u : units) total += u.energy_pj;
  return total;
}

nlohmann::json PlatformReport::to_json() const {
  using nlohmann::json;
  json j_units = json::object(), energy = json::object(), j_queues = json::object();
  for (const auto& u : units) {
    j_units[u.name] = {{"busy_ns", u.busy_ns},
                       {"utilization", u.utilization},
                       {"commands", u.commands},
                       {"counters", u.counters}};
    if (!u.impl.empty()) j_units[u.name]["impl"] = u.impl;
    energy[u.name] = u.energy_pj;
  }
  j_units["firmware_cpu"] = {{"busy_ns", firmware.busy_ns},
                             {"utilization", firmware.utilization},
                             {"mmio_accesses", firmware.mmio_accesses}};
  energy["total"] = energy_total_pj();
  for (const auto& q : queues)
    j_queues[q.unit] = {
        {"mean_occupancy", q.mean_occupancy}, {"max_occupancy", q.max_occupancy}, {"depth", q.depth}};
  json j_firmware = {{"mmio_accesses", firmware.mmio_accesses},
                     {"commands", firmware.commands},
                     {"control_bus_errors", firmware.control_bus_errors},
                     {"noc_decode_errors", firmware.noc_decode_errors},
                     {"errors", firmware.errors}};
  if (firmware.cpu.is_object()) j_firmware.update(firmware.cpu);
  json j_ops = json::array();
  for (const auto& op : ops) {
    json row = {{"name", op.name},
                {"kind", op.kind},
                {"start_ns", op.start_ns},
                {"end_ns", op.end_ns},
                {"latency_ns", op.latency_ns},
                {"unit_ns", op.unit_ns},
                {"work", op.work.to_json()}};
    if (!op.detail.empty()) row["detail"] = op.detail;
    if (!op.memory.empty()) row["memory"] = op.memory_json();
    j_ops.push_back(row);
  }
  json area_mm2 = json::object(), area_parts = json::object();
  double area_total = 0;
  for (const auto& [unit, a] : area) {
    area_mm2[unit] = a.total_mm2();
    area_total += a.total_mm2();
    for (const auto& [part, mm2] : a.parts) area_parts[unit][part] = mm2;
    if (j_units.contains(unit)) j_units[unit]["area_mm2"] = a.total_mm2();
  }
  area_mm2["total"] = area_total;
  return json{{"units", j_units},
              {"area_mm2", area_mm2},
              {"area_parts_mm2", area_parts},
              {"hbm", hbm},
              {"energy_pj", energy},
              {"queues", j_queues},
              {"firmware", j_firmware},
              {"ops", j_ops},
              {"work_total", work_total.to_json()}};
}

namespace {

/// Length of the union of intervals [a, b).
double union_length(std::vector<std::pair<double, double>> iv) {
  std::sort(iv.begin(), iv.end());
  double total = 0, cur_s = 0, cur_e = -1;
  for (const auto& [a, b] : iv) {
    if (a > cur_e) {
      if (cur_e > cur_s) total += cur_e - cur_s;
      cur_s = a;
      cur_e = b;
    } else {
      cur_e = std::max(cur_e, b);
    }
  }
  if (cur_e > cur_s) total += cur_e - cur_s;
  return total;
}

}  // namespace

uint64_t OpRow::memory_figure(const std::string& key) const {
  for (const auto& [name, value] : memory)
    if (name == key) return value;
  return 0;
}

nlohmann::json OpRow::memory_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : memory) j[name] = value;
  return j;
}

std::vector<OpRow> op_rows(const pcs::Program& program, const std::vector<TraceEvent>& events,
                           const std::vector<OpWork>& work) {
  // First start, last end, and per unit the union of the op's command intervals (commands of
  // one unit may overlap, e.g. the NTT unit's engines).
  struct Span {
    double start = 1e300, end = 0;
    std::map<std::string, std::vector<std::pair<double, double>>> intervals;
  };
  std::vector<Span> spans(program.ops.size());
  for (const auto& e : events) {
    if (e.tag >= spans.size() || e.sync) continue;
    Span& s = spans[e.tag];
    s.start = std::min(s.start, e.start_ns);
    s.end = std::max(s.end, e.end_ns);
    s.intervals[e.track.substr(e.track.find('.') + 1)].push_back({e.start_ns, e.end_ns});
  }
  std::vector<OpRow> rows(program.ops.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const Span& s = spans[i];
    OpRow& r = rows[i];
    r.name = program.ops[i].name;
    r.kind = program.ops[i].kind;
    r.detail = program.ops[i].detail;
    r.memory = program.ops[i].memory;
    r.start_ns = s.end > 0 ? s.start : 0.0;
    r.end_ns = s.end;
    r.latency_ns = s.end > 0 ? s.end - s.start : 0.0;
    for (const auto& [unit, iv] : s.intervals) r.unit_ns[unit] = union_length(iv);
    if (i < work.size()) r.work = work[i];
  }
  return rows;
}

void add_op_track(TraceRecorder& trace, const std::vector<OpRow>& ops) {
  for (uint32_t tag = 0; tag < ops.size(); ++tag)
    if (ops[tag].end_ns > 0) trace.add({"ops", ops[tag].name, ops[tag].start_ns, ops[tag].end_ns, tag, 0});
}

}  // namespace photon
