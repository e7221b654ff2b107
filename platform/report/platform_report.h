// PlatformReport: the platform's part of a run report, as typed rows built once by the platform
// (soc/platform.cpp) and serialised once, at the edge, by to_json(). Everything derived from a
// run (the FHE summary, the trace's op track, `photon fhe`'s breakdown) reads these rows, never
// the JSON. docs/report.md gives every key.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "isa/program.h"
#include "platform/report/op_work.h"
#include "platform/report/trace.h"
#include "platform/stats/area.h"

namespace photon {

/// One unit's statistics: a queue unit, a memory (scratchpad, HBM).
struct UnitRow {
  std::string name;
  double busy_ns = 0;                      ///< union of the unit's busy intervals, ns
  double utilization = 0;                  ///< busy_ns / simulated time, clipped to 1
  uint64_t commands = 0;                   ///< commands (or transactions) completed
  std::map<std::string, double> counters;  ///< unit-specific; names carry units
  double energy_pj = 0;                    ///< dynamic energy, pJ
  std::string impl;                        ///< the implementation that ran (`<unit>.impl`); "" for memories
};

/// One queue's occupancy.
struct QueueRow {
  std::string unit;
  double mean_occupancy = 0;              ///< time-weighted entries
  uint32_t max_occupancy = 0, depth = 0;  ///< entries
};

/// The firmware CPU and the control path.
struct FirmwareRow {
  double busy_ns = 0, utilization = 0;
  uint64_t mmio_accesses = 0;
  uint64_t commands = 0;  ///< commands in the stream
  uint64_t control_bus_errors = 0, noc_decode_errors = 0;
  std::vector<std::string> errors;  ///< one line each
  /// The CPU implementation's own fields (CpuModel::report(): `model`, and for rv32 the ISS
  /// counters and the cost per command kind), merged into the report's "firmware" object.
  nlohmann::json cpu = nlohmann::json::object();
};

/// One op-table entry (ONNX node, ATen op or FHE op): when it ran and what it asked of the units.
struct OpRow {
  std::string name, kind, detail;
  double start_ns = 0, end_ns = 0, latency_ns = 0;  ///< first command start to last end; 0 if none ran
  std::map<std::string, double> unit_ns;            ///< per unit queue: union of its commands' intervals, ns
  OpWork work;
  /// The lowering's memory plan of the op (pcs::OpInfo::memory: FHE bytes by class and peak
  /// scratchpad bytes), reported as `memory` when not empty.
  std::vector<std::pair<std::string, uint64_t>> memory;
  /// The value of memory figure `name`, 0 when absent.
  uint64_t memory_figure(const std::string& name) const;
  /// `memory` as a JSON object {figure: bytes}.
  nlohmann::json memory_json() const;
};

struct PlatformReport {
  std::vector<UnitRow> units;  ///< queue units in queue order, then scratchpad, hbm
  FirmwareRow firmware;
  std::vector<QueueRow> queues;
  nlohmann::json hbm;  ///< the HBM controller's section (models/hbm: bytes, bandwidth, row hits, ...)
  std::vector<OpRow> ops;
  OpWork work_total;
  /// Silicon area per unit from the configuration (soc/unit_area.h), mm2: `area_mm2` (per unit
  /// and total), `area_parts_mm2`, and each unit's `area_mm2`.
  std::vector<std::pair<std::string, UnitArea>> area;

  /// The row of unit `name`. Throws Error if there is none.
  const UnitRow& unit(const std::string& name) const;
  double energy_total_pj() const;
  /// `units`, `hbm`, `energy_pj`, `queues`, `firmware`, `ops`, `work_total`, `area_mm2`,
  /// `area_parts_mm2`.
  nlohmann::json to_json() const;
};

/// Per-op rows of `program` from the trace's unit events (semaphore stalls left out) and the
/// per-op work counts.
std::vector<OpRow> op_rows(const pcs::Program& program, const std::vector<TraceEvent>& events,
                           const std::vector<OpWork>& work);

/// Adds the trace's op track ("ops"): one event per op that ran, first command to last.
void add_op_track(TraceRecorder& trace, const std::vector<OpRow>& ops);

}  // namespace photon
