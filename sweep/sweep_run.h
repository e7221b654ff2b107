// The sweep front end: `photon sweep SPEC`, and `photon sweep status|export|worker DIR`.
//
// run_sweep: parse and check the spec, probe the base platform, resolve every point (one error
// before anything runs), prepare DIR (refusing a directory that holds another sweep unless
// --force), write the plan, merge any result files already there, run what is missing on the
// chosen backend while merging results into DIR/results.sqlite as they appear, then the Pareto
// tables and a summary. Ctrl-C stops the workers and keeps every finished run; `--resume`
// continues. The front end is the only writer of the database.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace photon::sweep {

struct SweepOptions {
  std::string spec;
  std::string out;                      ///< DIR; default: ./<spec name>.sweep
  unsigned jobs = 0;                    ///< local workers; 0: the number of cores
  std::string backend = "local";        ///< local | slurm
  bool resume = false;                  ///< continue the sweep in DIR
  bool force = false;                   ///< replace another sweep's results in DIR
  bool retry_failed = false;            ///< with --resume: run failed runs again
  bool quiet = false;                   ///< no progress and no summary
  std::vector<std::string> slurm_args;  ///< passed to sbatch
  uint64_t slurm_tasks = 0;             ///< array tasks; 0: min(runs, 100)
  bool no_wait = false;                 ///< slurm: submit and return
};

/// Returns the exit status: 0 when every run has a result (failed runs are results), 1 when
/// some have none (a Slurm task died), 130 when interrupted. Throws Error for bad input.
int run_sweep(const SweepOptions& o);

/// `photon sweep status DIR`: merges result files (unless a front end is running) and prints
/// counts, the Slurm job's state and the Pareto points. Returns 0.
int sweep_status(const std::string& dir);

/// `photon sweep export DIR --csv FILE | --json FILE`: every row with pareto_latency_energy and
/// pareto_latency_area flags (0/1). Throws Error naming a file that cannot be written.
void sweep_export(const std::string& dir, const std::string& csv, const std::string& json);

/// `photon sweep worker DIR (--runs LIST | --slice N) [--notify]`: the process the backends start.
int sweep_worker(const std::string& dir, const std::string& runs, int64_t slice, bool notify);

/// The default number of local workers: the cores this process may run on.
unsigned default_jobs();

/// The path of the running photon executable.
std::string self_exe();

}  // namespace photon::sweep
