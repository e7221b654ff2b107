// photon run: compile (if needed), load, simulate, report.
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>

#include "base/error.h"
#include "base/text.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "soc/platform.h"
#include "workloads/driver/ideal_reference.h"
#include "workloads/driver/run_report.h"
#include "workloads/driver/tensor_files.h"
#include "workloads/driver/workload.h"

namespace photon::cli {

namespace {

struct RunOptions {
  ConfigOptions config;
  std::string workload, report, trace, mode, dump_dir;
  std::vector<std::string> inputs, shapes;
  bool quiet = false;
  int gdb_port = -1;  ///< --gdb: serve GDB's remote protocol on this port (0: any free port)
};

/// Checks, before any simulation, that `dir` is a directory or can be created as one: it and each
/// existing ancestor must be a directory. Throws Error naming --dump-outputs and the offending path.
void check_dump_dir(const std::string& dir) {
  std::error_code ec;
  for (std::filesystem::path p = dir; !p.empty(); p = p.parent_path()) {
    const auto st = std::filesystem::status(p, ec);
    if (st.type() == std::filesystem::file_type::not_found || ec) {
      if (p == p.parent_path()) break;
      continue;
    }
    if (st.type() != std::filesystem::file_type::directory)
      throw Error("--dump-outputs " + dir + ": '" + p.string() + "' exists and is not a directory");
    return;
  }
}

/// Every output path is checked before any simulation: a bad path costs nothing.
void check_output_paths(const RunOptions& o) {
  if (!o.report.empty()) check_output_path(o.report);
  if (!o.trace.empty()) check_output_path(o.trace);
  if (!o.report.empty() && !o.trace.empty() &&
      std::filesystem::weakly_canonical(o.report) == std::filesystem::weakly_canonical(o.trace))
    throw Error("--report and --trace name the same file: " + o.report);
  if (!o.dump_dir.empty()) check_dump_dir(o.dump_dir);
}

/// Host fallbacks are costed, not computed: a functional run would report wrong outputs.
void check_functional(const CompiledWorkload& w) {
  if (w.unsupported.empty()) return;
  std::string nodes;
  for (const auto& u : w.unsupported)
    nodes +=
        (nodes.empty() ? "" : "; ") + ("node '" + u.name.value_or("") + "' (" + u.op + ", " + u.reason + ")");
  throw Error("functional mode cannot compute " + nodes + ": host fallback is timing-only")
      .with_context(w.path);
}

/// Reads and checks every --input before the simulation starts: a bad file costs no simulation.
TensorValues read_inputs(const RunOptions& o, const CompiledWorkload& w) {
  TensorValues input_data;
  for (const auto& arg : o.inputs) {
    auto eq = arg.find('=');
    if (eq == std::string::npos || eq == 0) throw Error("--input expects NAME=FILE.pb, got '" + arg + "'");
    std::string name = arg.substr(0, eq);
    const TensorBinding* b = nullptr;
    for (const auto& in : w.inputs)
      if (in.name == name) b = &in;
    if (!b) throw Error("--input " + name + ": the workload has no input of that name");
    if (input_data.count(name))
      throw Error("--input " + arg + ": input '" + name + "' is given more than once");
    input_data[name] = read_input_tensor(arg.substr(eq + 1), *b);
  }
  return input_data;
}

/// The file each output is dumped to. Two outputs whose names sanitize to the same file would
/// overwrite each other: an error before the simulation.
std::vector<DumpedOutput> dump_files(const RunOptions& o, const CompiledWorkload& w) {
  std::vector<DumpedOutput> files;
  if (o.dump_dir.empty()) return files;
  if (w.outputs.empty()) throw Error("--dump-outputs: this workload has no named output tensors");
  std::map<std::string, std::string> file_of;
  for (const auto& t : w.outputs) {
    const std::string file = sanitize_file_name(t.name) + ".pb";
    auto [it, fresh] = file_of.emplace(file, t.name);
    if (!fresh)
      throw Error("--dump-outputs: outputs '" + it->second + "' and '" + t.name +
                  "' would both be written to " + (std::filesystem::path(o.dump_dir) / file).string());
    files.push_back({t.name, (std::filesystem::path(o.dump_dir) / file).string()});
  }
  return files;
}

/// Simulates with a progress line on a terminal.
RunOutcome simulate(Platform& platform, const RunOptions& o, const CompiledWorkload& w) {
  if (o.gdb_port >= 0) {
    const int port = platform.serve_gdb(o.gdb_port);
    std::fprintf(stderr, "photon: waiting for GDB on 127.0.0.1:%d (target remote :%d)\n", port, port);
    std::fflush(stderr);
  }
  Progress progress(o.quiet || o.gdb_port >= 0);
  const double n_cmds = double(w.program.commands.size());
  std::function<void(double)> on_progress;
  if (progress.enabled())
    on_progress = [&](double sim_ns) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "simulated %.3f ms of %s (%.0f commands)", sim_ns / 1e6,
                    o.workload.c_str(), n_cmds);
      progress.update(buf);
    };
  return platform.run(on_progress);
}

/// Writes the output tensors of a finished functional run into the report's `outputs`.
void dump_outputs(const RunOptions& o, const CompiledWorkload& w, const Platform& platform,
                  const std::vector<DumpedOutput>& files, RunReport& report) {
  std::error_code ec;
  std::filesystem::create_directories(o.dump_dir, ec);
  if (ec)
    throw Error("--dump-outputs: cannot create the directory: " + ec.message()).with_context(o.dump_dir);
  for (size_t i = 0; i < w.outputs.size(); ++i) write_output_tensor(platform, w.outputs[i], files[i].file);
  report.outputs = files;
  if (!w.functional_exact)
    report.outputs_note = "some tensors have no data in the model: outputs are not exact";
}

/// The trace first: if it fails, no report claims a complete run; a failed report removes it.
void write_outputs(const RunOptions& o, const CompiledWorkload& w, const Platform& platform,
                   const RunReport& report) {
  if (!o.trace.empty()) {
    std::vector<std::string> names;
    for (const auto& op : w.program.ops) names.push_back(op.name);
    TraceRecorder trace = platform.trace();
    add_op_track(trace, report.platform.ops);
    std::vector<std::string> tracks = platform.trace_tracks();
    tracks.push_back("ops");
    write_json_atomic(o.trace, trace.to_chrome_json(names, tracks));
  }
  if (!o.report.empty()) {
    try {
      write_json_atomic(o.report, report.to_json());
    } catch (...) {  // whatever stopped the report, no trace claims a complete run
      if (!o.trace.empty()) std::remove(o.trace.c_str());
      throw;
    }
  }
}

void print_summary(const RunOptions& o, const CompiledWorkload& w, const RunReport& r) {
  std::printf("%s: %s mode, %zu commands, simulated %.3f us in %.3f s wall\n", o.workload.c_str(),
              r.mode.c_str(), w.program.commands.size(), r.simulated_time_ns / 1e3, r.wall_time_s);
  std::map<std::string, std::pair<double, double>> units;  // by name, as the report's object orders them
  for (const auto& u : r.platform.units) units[u.name] = {u.busy_ns, u.utilization};
  units["firmware_cpu"] = {r.platform.firmware.busy_ns, r.platform.firmware.utilization};
  for (const auto& [name, u] : units)
    std::printf("  %-14s busy %12.1f ns  utilization %5.1f %%\n", name.c_str(), u.first, 100.0 * u.second);
  if (const auto& g = w.info.graph)
    std::printf("  op coverage: %d %s: %d on the device, %d free views, %d folded, %d host fallback\n",
                g->nodes, g->unit.c_str(), g->lowered, g->free, g->folded, g->fallback);
  std::printf("  energy %.3f uJ; unsupported ops: %zu\n", r.platform.energy_total_pj() / 1e6,
              w.unsupported.size());
}

int run(const RunOptions& o) {
  const double t0 = wall_seconds();
  check_output_paths(o);
  std::vector<std::string> sets = o.config.sets;
  if (!o.mode.empty()) sets.push_back("sim.mode=" + o.mode);
  RunConfig cfg = load_run_config(o.config.file, sets);
  const bool functional = cfg.sim.mode == SimMode::Functional;
  if (!functional && (!o.inputs.empty() || !o.dump_dir.empty()))
    throw Error("--input and --dump-outputs need --mode functional");

  CompileOptions copts;
  for (const auto& s : o.shapes)
    if (auto kv = parse_shape_arg(s); !copts.shapes.insert(kv).second)
      throw Error("--shape " + s + ": input '" + kv.first + "' is given more than once");
  CompiledWorkload w = compile_workload(o.workload, cfg, copts);
  if (functional) check_functional(w);
  const TensorValues input_data = read_inputs(o, w);
  // Inputs without --input keep the all-zero HBM contents: said once per input, and in the report.
  std::vector<std::string> input_notes;
  if (functional)
    for (const auto& in : w.inputs)
      if (!input_data.count(in.name)) input_notes.push_back("input '" + in.name + "' not given: all zeros");
  const std::vector<DumpedOutput> files = dump_files(o, w);
  for (const auto& note : input_notes) std::fprintf(stderr, "note: %s\n", note.c_str());

  // Physical optical numerics: the outputs are compared with an ideal-numerics run of the same
  // workload (forked before this process elaborates its own platform).
  const bool compare_ideal =
      functional && cfg.optical_gemm.numerics == Numerics::Physical && !w.outputs.empty();
  TensorValues ideal_outputs;
  if (compare_ideal) ideal_outputs = run_ideal_outputs(w, cfg, input_data);

  Platform platform(cfg);
  platform.load(w.program, w.fills);
  for (const auto& in : w.inputs) {
    auto it = input_data.find(in.name);
    if (it != input_data.end()) platform.write(in.address, it->second.data(), it->second.size() * 4);
  }
  const RunOutcome out = simulate(platform, o, w);

  RunReport report = make_run_report(platform, out, w, cfg, o.workload, wall_seconds() - t0);
  for (const auto& note : input_notes) report.info.functional_notes.push_back(note);
  if (out.status == RunOutcome::Status::Done && !o.dump_dir.empty())
    dump_outputs(o, w, platform, files, report);
  if (compare_ideal && out.status == RunOutcome::Status::Done) {
    TensorValues physical;
    for (const auto& t : w.outputs) {
      std::vector<float> v(ideal_outputs[t.name].size());
      platform.read(t.address, v.data(), v.size() * 4);
      physical[t.name] = std::move(v);
    }
    report.numerics_error = output_error(physical, ideal_outputs);
    report.numerics_error_note =
        "physical optical numerics against the same run with optical_gemm.numerics=ideal";
  }
  write_outputs(o, w, platform, report);
  if (functional && !w.functional_exact && !o.quiet)
    std::fprintf(stderr,
                 "photon: warning: some tensors have no data in the model; functional outputs "
                 "are not exact (see the report's workload_info.functional_notes)\n");
  if (out.status != RunOutcome::Status::Done) {
    std::fprintf(stderr, "photon: error: %s\n", printable(out.message).c_str());
    return 1;
  }
  if (!o.quiet) print_summary(o, w, report);
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, int& status) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand("run", "simulate a workload (.onnx, .ptrace, .mlir or .pcs) and report");
  opts->config.add_to(*sub);
  sub->add_option("--workload", opts->workload, "workload file: .onnx, .ptrace, .mlir or .pcs")->required();
  sub->add_option("--report", opts->report, "write the report JSON here");
  sub->add_option("--trace", opts->trace, "write a Chrome trace-event JSON (Perfetto) here");
  sub->add_option("--mode", opts->mode, "timing (no arithmetic) or functional")
      ->check(CLI::IsMember({"timing", "functional"}));
  sub->add_option("--input", opts->inputs, "NAME=FILE.pb: an input tensor (functional mode)");
  sub->add_option("--dump-outputs", opts->dump_dir, "write each output tensor as DIR/NAME.pb");
  sub->add_option("--shape", opts->shapes, "NAME=1x3x224x224: static shape of a symbolic input");
  sub->add_flag("--quiet,-q", opts->quiet, "no progress line and no summary");
  sub->add_option("--gdb", opts->gdb_port,
                  "PORT: the rv32 firmware CPU serves GDB's remote protocol on 127.0.0.1:PORT (0: any "
                  "free port) and stops before the first instruction")
      ->check(CLI::Range(0, 65535));
  sub->callback([opts, &status] { status = run(*opts); });
}

}  // namespace photon::cli
