// Backends: where a sweep's runs execute. Both run the same worker (sweep/worker.h) and both
// leave one result file per finished run in DIR/results; the front end (sweep/sweep_run.h)
// merges those into the database as they appear.
//
// local: up to `jobs` worker processes on this machine (`photon sweep worker DIR --runs ...
//   --notify`), each a batch of runs in plan order (so a lowering group stays in one worker as
//   far as the batch size allows), in its own process group (a terminal's Ctrl-C reaches only
//   the front end, which then stops them). A worker that dies (SIGKILL, out of memory) loses
//   only the run it was on: that run is retried once in a fresh worker, then recorded as
//   crashed; the rest of its batch is queued again.
// slurm: one sbatch job array (DIR/slurm/job.sh), each task a slice of the runs as
//   `photon sweep worker DIR --slice $SLURM_ARRAY_TASK_ID`; the front end polls DIR/results and
//   squeue until the job has left the queue. DIR must be on a file system the nodes share.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sweep/plan.h"

namespace photon::sweep {

/// What a backend tells the front end while it runs.
struct BackendEvents {
  std::function<void(uint64_t run)> started;   ///< a run began (local only)
  std::function<void(uint64_t run)> finished;  ///< its result file exists
  std::function<void(uint64_t running)> tick;  ///< about 4 times a second; runs in flight
  std::function<bool()> interrupted;           ///< true once the user asked to stop
};

struct LocalOptions {
  std::string dir;
  unsigned jobs = 1;
  std::string photon_exe;  ///< the executable to start workers from
};

/// Runs `todo` (plan indices) locally. Returns normally when all have result files or when
/// interrupted() turned true (workers are stopped first). Throws Error when a worker reports
/// that it cannot write results (full disk), after stopping the others.
void run_local(const SweepPlan& plan, const std::vector<uint64_t>& todo, const LocalOptions& o,
               const BackendEvents& ev);

struct SlurmOptions {
  std::string dir;
  std::string photon_exe;
  std::vector<std::string> sbatch_args;  ///< --slurm-arg values, passed to sbatch as they are
  uint64_t tasks = 0;                    ///< array tasks; 0: min(runs, 100)
  bool wait = true;                      ///< wait for the job and merge (else submit and return)
};

/// Writes DIR/slurm/job.sh and DIR/slurm/slices.json for `todo`, submits it with sbatch and
/// returns the job id. Throws Error with sbatch's message when the submission fails.
std::string submit_slurm(const SweepPlan& plan, const std::vector<uint64_t>& todo, const SlurmOptions& o);

/// Polls DIR/results and squeue for `job_id` until the job has left the queue or interrupted()
/// turns true; calls ev.finished for each new result file of `todo`.
void wait_slurm(const SweepPlan& plan, const std::vector<uint64_t>& todo, const SlurmOptions& o,
                const std::string& job_id, const BackendEvents& ev);

/// The state of a Slurm job ("RUNNING 3, PENDING 12"), or "" when it is no longer queued.
std::string slurm_job_state(const std::string& job_id);

/// The runs of array task `task` of the job in DIR (DIR/slurm/slices.json holds run keys).
/// Throws Error when the slice or one of its runs is not there.
std::vector<uint64_t> slurm_slice(const SweepPlan& plan, const std::string& dir, uint64_t task);

}  // namespace photon::sweep
