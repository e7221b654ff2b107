// The sweep worker: runs some of a plan's runs, each isolated in its own child process.
//
// SystemC elaborates once per process, so every run gets a fresh child (fork): it elaborates
// the platform, simulates, writes DIR/reports/KEY.json and then DIR/results/KEY.json (atomic
// renames, the result last: a result file means a finished run). The worker itself compiles
// each workload once per lowering group (sweep/plan.h) before forking, so the children share the
// compiled program copy-on-write; it also keeps the HBM fast-forward's calibrations the
// children make (models/hbm/hbm_calibration.h: a pure function of the HBM configuration and the
// stream) for the children after it, so each is made once per worker. A child that exceeds the
// plan's timeout_s is killed (status timeout); one that dies is recorded as crashed with its
// signal and the last line of its stderr; a configuration or workload the worker cannot compile
// is recorded as error for every run of its group. Children die with the worker
// (PR_SET_PDEATHSIG).
//
// The same worker serves the local backend (`photon sweep worker DIR --runs 0-99 --notify`,
// started by the front end) and Slurm (`photon sweep worker DIR --slice $SLURM_ARRAY_TASK_ID`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sweep/plan.h"

namespace photon::sweep {

struct WorkerOptions {
  std::string dir;
  std::vector<uint64_t> runs;  ///< plan indices, run in this order
  int notify_fd = -1;          ///< >= 0: write "start I\n" and "done I\n" lines here
};

/// Runs `o.runs` of `plan`. Returns 0 when every run has a result file. Throws Error when a
/// result cannot be written (a full disk): nothing else stops it.
int run_worker(const SweepPlan& plan, const WorkerOptions& o);

/// Parses "0-99,120,130-131" into indices, each < `limit`. Throws Error naming the bad part.
std::vector<uint64_t> parse_index_list(const std::string& text, uint64_t limit);
/// The inverse: ascending runs of indices as "a-b,c".
std::string format_index_list(const std::vector<uint64_t>& indices);

}  // namespace photon::sweep
