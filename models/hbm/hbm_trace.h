// DRAMsim3-format trace player for the HBM model.
//
// Trace: one request per line, `0xADDR READ|WRITE CYCLE` (address in hex, 0x optional; CYCLE a
// decimal tCK count, nondecreasing). Blank lines and lines starting with '#' are skipped. Each
// request is one column access (access_bytes(), 64 B for the HBM2 presets). CYCLE is the
// earliest issue cycle; the player issues at most one request per cycle, in trace order, and
// stalls while the target channel's queue is full (DRAMsim3 src/cpu.cc TraceBasedCPU).
//
// Report (JSON): requests, reads, writes, first_issue_cycle, completion_cycle (latest data
// return or posted-write acceptance + 1), bandwidth_gbps = requests * access_bytes /
// ((completion_cycle - first_issue_cycle) * tck_ns), avg_read_latency_ns (issue to last data
// beat, reads only), row_hit_rate = row hits / requests, activates, precharges, refreshes
// (issued up to completion_cycle), read_cmds, write_cmds, energy_pj.
#pragma once

#include <istream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/hbm/hbm_config.h"

namespace photon {

/// Plays the trace file at `trace_path`. Errors (photon::Error) name `file:line` and the problem.
nlohmann::json run_hbm_trace(const HbmConfig& cfg, const std::string& trace_path);
/// Same, reading from a stream; `name` is used in error messages and the report.
nlohmann::json run_hbm_trace(const HbmConfig& cfg, std::istream& in, const std::string& name);

}  // namespace photon
