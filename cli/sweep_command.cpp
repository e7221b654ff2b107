// photon sweep: design-space sweeps (sweep/, docs/sweep.md). This file only maps options.
#include <cstdio>

#include "base/error.h"
#include "cli/commands.h"
#include "sweep/plot.h"
#include "sweep/sweep_run.h"

namespace photon::cli {

void add_sweep_command(CLI::App& app, int& status) {
  auto o = std::make_shared<sweep::SweepOptions>();
  CLI::App* sub = app.add_subcommand("sweep", "run a design-space sweep (SPEC.yaml); see docs/sweep.md");
  sub->add_option("spec", o->spec, "sweep spec (YAML)");
  sub->add_option("-j,--jobs", o->jobs, "local worker processes (default: the number of cores)")
      ->check(CLI::Range(1u, 4096u));
  sub->add_option("--out", o->out, "results directory (default: ./<spec name>.sweep)");
  sub->add_option("--backend", o->backend, "local (default) or slurm")
      ->check(CLI::IsMember({"local", "slurm"}));
  sub->add_flag("--resume", o->resume, "continue the sweep in --out: run only what has no result");
  sub->add_flag("--force", o->force, "replace the results of another sweep in --out");
  sub->add_flag("--retry-failed", o->retry_failed, "with --resume: run failed runs again too");
  sub->add_option("--slurm-arg", o->slurm_args,
                  "an sbatch option, e.g. --slurm-arg=--partition=debug (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--slurm-tasks", o->slurm_tasks, "Slurm array tasks (default: min(runs, 100))")
      ->check(CLI::Range(uint64_t(1), uint64_t(1000000)));
  sub->add_flag("--no-wait", o->no_wait, "slurm: submit and return; photon sweep status DIR merges later");
  sub->add_flag("--quiet,-q", o->quiet, "no progress and no summary");
  sub->callback([o, sub, &status] {
    if (!sub->get_subcommands().empty()) return;
    if (o->spec.empty())
      throw Error("sweep: give a SPEC.yaml, or one of: status, export, plot (see photon sweep --help)");
    status = sweep::run_sweep(*o);
  });

  auto dir = std::make_shared<std::string>();
  CLI::App* st =
      sub->add_subcommand("status", "counts, Slurm state and Pareto points of a sweep; merges new results");
  st->add_option("dir", *dir, "sweep directory")->required();
  st->callback([dir, &status] { status = sweep::sweep_status(*dir); });

  auto csv = std::make_shared<std::string>(), json = std::make_shared<std::string>();
  CLI::App* ex = sub->add_subcommand("export", "write a sweep's results as CSV and/or JSON");
  ex->add_option("dir", *dir, "sweep directory")->required();
  ex->add_option("--csv", *csv, "CSV file (RFC 4180)");
  ex->add_option("--json", *json, "JSON file (an array of rows)");
  ex->callback([dir, csv, json, &status] {
    sweep::sweep_export(*dir, *csv, *json);
    status = 0;
  });

  auto plot_out = std::make_shared<std::string>();
  CLI::App* pl =
      sub->add_subcommand("plot", "Pareto fronts, sensitivity and utilisation plots (PNG and SVG)");
  pl->add_option("dir", *dir, "sweep directory")->required();
  pl->add_option("--out", *plot_out, "output folder (default: DIR/plots)");
  pl->callback([dir, plot_out, &status] { status = sweep::plot_sweep(*dir, *plot_out); });

  auto runs = std::make_shared<std::string>();
  auto slice = std::make_shared<int64_t>(-1);
  auto notify = std::make_shared<bool>(false);
  CLI::App* wk = sub->add_subcommand("worker", "run some of a sweep's runs (started by the backends)");
  wk->group("");  // internal: not listed in --help
  wk->add_option("dir", *dir, "sweep directory")->required();
  wk->add_option("--runs", *runs, "plan indices, e.g. 0-99,120");
  wk->add_option("--slice", *slice, "Slurm array task: its slice of DIR/slurm/slices.json");
  wk->add_flag("--notify", *notify, "report start/done lines on stdout");
  wk->callback([dir, runs, slice, notify, &status] {
    try {
      if (runs->empty() == (*slice < 0)) throw Error("sweep worker: give exactly one of --runs and --slice");
      status = sweep::sweep_worker(*dir, *runs, *slice, *notify);
    } catch (const Error& e) {
      // The front end stops the sweep with this line; it comes on the notify pipe too, since the
      // log (stderr) may be on the disk that is full.
      std::fprintf(stderr, "%s\n", e.what());
      if (*notify) std::printf("fatal %s\n", e.what());
      std::fflush(stdout);
      status = 2;
    }
  });
}

void add_plot_command(CLI::App& app, int& status) {
  CLI::App* sub = app.add_subcommand("plot", "plots of one run's report");
  sub->require_subcommand(1);
  auto report = std::make_shared<std::string>(), out = std::make_shared<std::string>();
  CLI::App* rl =
      sub->add_subcommand("roofline", "ops by operational intensity vs achieved throughput (PNG and SVG)");
  rl->add_option("report", *report, "report JSON of photon run")->required();
  rl->add_option("-o,--out", *out,
                 "output file prefix (default: the report's name without .json, + _roofline)");
  rl->callback([report, out, &status] { status = sweep::plot_roofline(*report, *out); });
}

}  // namespace photon::cli
