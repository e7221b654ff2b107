// DRAMsim3-format trace player for the HBM model.
//
// Trace: one request per line, `0xADDR READ|WRITE CYCLE` (address in hex, 0x optional, below the
// configured capacity; CYCLE a decimal tCK count, nondecreasing, at most 2^62). Blank lines and
// lines starting with '#' are skipped. Idle time between requests costs no simulation time (the
// channels skip refresh-only cycles in constant time). Each
// request is one column access (access_bytes(), 64 B for the HBM2 presets). CYCLE is the
// earliest issue cycle; the player issues at most one request per cycle, in trace order, and
// stalls while the target channel's queue is full (DRAMsim3 src/cpu.cc TraceBasedCPU).
//
// At the end of the trace every posted write still in a write buffer is drained (issued as a WR
// command), so write_cmds counts every distinct write.
//
// Report (JSON): requests, reads, writes, first_issue_cycle, completion_cycle (latest data
// return or posted-write acceptance + 1), drain_cycle (every write issued before it; counters
// and refreshes are counted up to it), bandwidth_gbps = requests * access_bytes /
// ((completion_cycle - first_issue_cycle) * tck_ns), avg_read_latency_ns (issue to last data
// beat, reads only), row_hit_rate = row hits / requests, activates, precharges, refreshes
// (issued up to drain_cycle), read_cmds, write_cmds, energy_pj.
#pragma once

#include <istream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/hbm/hbm_config.h"

namespace photon {

/// Plays the trace file at `trace_path`. Errors (photon::Error) name `file:line` and the problem:
/// a malformed line, a cycle below the previous one or above 2^62, an address at or beyond
/// cfg.capacity_bytes() (DRAMsim3 would wrap it silently), a path that is not a regular file.
nlohmann::json run_hbm_trace(const HbmConfig& cfg, const std::string& trace_path);
/// Same, reading from a stream; `name` is used in error messages and the report.
nlohmann::json run_hbm_trace(const HbmConfig& cfg, std::istream& in, const std::string& name);

}  // namespace photon
