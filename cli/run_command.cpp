// photon run: compile (if needed), load, simulate, report.
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>

#include "base/error.h"
#include "base/text.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "soc/calibration_cache.h"
#include "soc/platform.h"
#include "workloads/driver/ideal_reference.h"
#include "workloads/driver/run_report.h"
#include "workloads/driver/tensor_files.h"
#include "workloads/driver/workload.h"
#include "workloads/fallback/host_calls.h"

namespace photon::cli {

namespace {

struct RunOptions {
  ConfigOptions config;
  std::string workload, report, trace, mode, dump_dir;
  std::vector<std::string> inputs, shapes, dump_memory;
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

/// One --dump-memory REGION:ADDR:BYTES=FILE: raw bytes of HBM or the scratchpad after the run.
struct MemoryDump {
  std::string arg, file;
  uint64_t address = 0;  ///< data-NoC address
  uint64_t bytes = 0;
};

/// Parses and checks every --dump-memory before the simulation: REGION is hbm or spm, ADDR a
/// byte offset inside it and BYTES a count (decimal or 0x hex), the range inside the memory.
std::vector<MemoryDump> parse_memory_dumps(const RunOptions& o, const RunConfig& cfg) {
  std::vector<MemoryDump> dumps;
  for (const std::string& arg : o.dump_memory) {
    const std::string usage = "--dump-memory " + arg + ": expected hbm:ADDR:BYTES=FILE or spm:ADDR:BYTES=FILE";
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || eq + 1 == arg.size()) throw Error(usage);
    const std::string spec = arg.substr(0, eq);
    const size_t c1 = spec.find(':'), c2 = spec.find(':', c1 == std::string::npos ? c1 : c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos) throw Error(usage);
    const std::string region = spec.substr(0, c1);
    uint64_t base = 0, size = 0;
    if (region == "hbm") {
      base = cfg.noc.hbm_base;
      size = cfg.hbm.capacity_bytes();
    } else if (region == "spm") {
      base = cfg.noc.scratchpad_base;
      size = cfg.scratchpad.size_bytes();
    } else {
      throw Error(usage + " (region '" + region + "')");
    }
    auto number = [&](const std::string& t) {
      size_t used = 0;
      uint64_t v = 0;
      try {
        v = std::stoull(t, &used, 0);
      } catch (const std::exception&) { used = 0; }
      if (t.empty() || used != t.size() || t[0] == '-') throw Error(usage + " ('" + t + "' is not a number)");
      return v;
    };
    const uint64_t addr = number(spec.substr(c1 + 1, c2 - c1 - 1)), bytes = number(spec.substr(c2 + 1));
    if (bytes == 0 || addr >= size || bytes > size - addr)
      throw Error("--dump-memory " + arg + ": [" + std::to_string(addr) + ", +" + std::to_string(bytes) +
                  ") is empty or outside " + region + " (" + std::to_string(size) + " bytes)");
    dumps.push_back({arg, arg.substr(eq + 1), base + addr, bytes});
  }
  return dumps;
}

/// Host fallbacks without a host reference are costed, not computed: a functional run would
/// report wrong outputs. The ones the host computes (w.host_calls) are fine.
void check_functional(const CompiledWorkload& w) {
  std::string nodes;
  for (const auto& u : w.unsupported) {  // graph frontends name the node, HEIR the op's location
    if (w.host_computed(u.name.value_or(""))) continue;
    const std::string what = u.name && !u.name->empty() ? "node '" + *u.name + "' (" + u.op + ", " + u.reason + ")"
                             : u.location ? u.op + " at " + *u.location + " (" + u.reason + ")"
                                          : u.op + " (" + u.reason + ")";
    nodes += (nodes.empty() ? "" : "; ") + what;
  }
  if (nodes.empty()) return;
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
RunOutcome simulate(Platform& platform, const RunOptions& o) {
  if (o.gdb_port >= 0) {
    const int port = platform.serve_gdb(o.gdb_port);
    std::fprintf(stderr, "photon: waiting for GDB on 127.0.0.1:%d (target remote :%d)\n", port, port);
    std::fflush(stderr);
  }
  Progress progress(o.quiet || o.gdb_port >= 0);
  const double n_cmds = double(platform.program().commands.size());
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

/// The trace first: if it fails, no report claims a complete run; if the report fails, the
/// caller's OutputFiles removes the trace.
void write_outputs(const RunOptions& o, const Platform& platform,
                   const RunReport& report) {
  if (!o.trace.empty()) {
    std::vector<std::string> names;
    for (const auto& op : platform.program().ops) names.push_back(op.name);
    TraceRecorder trace = platform.trace();
    add_op_track(trace, report.platform.ops);
    std::vector<std::string> tracks = platform.trace_tracks();
    tracks.push_back("ops");
    write_json_atomic(o.trace, trace.to_chrome_json(names, tracks));
  }
  if (!o.report.empty()) write_json_atomic(o.report, report.to_json());
}

/// A waveform window in which the RTL core never ran leaves no FST (the dump opens at the core's
/// first clock edge inside the window): said on stderr, with the run's end time. A file left at
/// the path by an earlier run is removed, so it cannot pass for this run's.
void note_missing_waveform(const CosimConfig& c, double end_ns, OutputFiles& outputs) {
  if (c.waveform.empty() || outputs.changed("cosim.waveform")) return;
  outputs.remove("cosim.waveform");
  char buf[512];
  if (c.waveform_start_ns > end_ns)
    std::snprintf(buf, sizeof buf,
                  "cosim.waveform_start_ns = %.3f lies after the end of the run at %.3f ns: no waveform written to %s",
                  c.waveform_start_ns, end_ns, c.waveform.c_str());
  else
    std::snprintf(buf, sizeof buf,
                  "the RTL core was not clocked inside the waveform window (cosim.waveform_start_ns = %.3f, "
                  "cosim.waveform_end_ns = %.3f; the run ends at %.3f ns): no waveform written to %s",
                  c.waveform_start_ns, c.waveform_end_ns, end_ns, c.waveform.c_str());
  std::fprintf(stderr, "photon: warning: %s\n", buf);
}

void print_summary(const RunOptions& o, const CompiledWorkload& w, const RunReport& r) {
  std::printf("%s: %s mode, %zu commands, simulated %.3f us in %.3f s wall\n", o.workload.c_str(),
              r.mode.c_str(), size_t(w.info.commands), r.simulated_time_ns / 1e3, r.wall_time_s);
  struct Row {
    double busy_ns, utilization;
    std::string impl;
  };
  std::map<std::string, Row> units;  // by name, as the report's object orders them
  for (const auto& u : r.platform.units) units[u.name] = {u.busy_ns, u.utilization, u.impl};
  units["firmware_cpu"] = {r.platform.firmware.busy_ns, r.platform.firmware.utilization, ""};
  for (const auto& [name, u] : units)  // an implementation other than the TLM model is named
    std::printf("  %-14s busy %12.1f ns  utilization %5.1f %%%s\n", name.c_str(), u.busy_ns, 100.0 * u.utilization,
                u.impl.empty() || u.impl == "tlm" ? "" : (" (" + u.impl + ")").c_str());
  if (const auto& g = w.info.graph)
    std::printf("  op coverage: %d %s: %d on the device, %d free views, %d folded, %d host fallback\n",
                g->nodes, g->unit.c_str(), g->lowered, g->free, g->folded, g->fallback);
  std::printf("  energy %.3f uJ; unsupported ops: %zu\n", r.platform.energy_total_pj() / 1e6,
              w.unsupported.size());
}

int run(const RunOptions& o) {
  const double t0 = wall_seconds();
  std::vector<std::string> sets = o.config.sets;
  if (!o.mode.empty()) sets.push_back("sim.mode=" + o.mode);
  RunConfig cfg = load_run_config(o.config.file, sets);
  // Every output is checked before any simulation (a bad path costs nothing) and removed if the
  // command fails.
  OutputFiles outputs;
  outputs.add("--report", o.report);
  outputs.add("--trace", o.trace);
  outputs.add("cosim.waveform", cfg.cosim.waveform);
  const std::vector<MemoryDump> memory_dumps = parse_memory_dumps(o, cfg);
  for (const MemoryDump& d : memory_dumps) outputs.add("--dump-memory " + d.arg, d.file);
  outputs.check();
  if (!o.dump_dir.empty()) check_dump_dir(o.dump_dir);
  const bool functional = cfg.sim.mode == SimMode::Functional;
  if (!functional && (!o.inputs.empty() || !o.dump_dir.empty() || !o.dump_memory.empty()))
    throw Error("--input, --dump-outputs and --dump-memory need --mode functional");

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

  use_calibration_cache();  // wall time only: results are those without it
  Platform platform(cfg);
  platform.load(std::move(w.program), w.fills);  // platform.program() from here on
  if (w.host_calls) fallback::serve_host_calls(platform, *w.host_calls);
  for (const auto& in : w.inputs) {
    auto it = input_data.find(in.name);
    if (it != input_data.end()) platform.write(in.address, it->second.data(), it->second.size() * 4);
  }
  const RunOutcome out = simulate(platform, o);

  RunReport report = make_run_report(platform, out, w, cfg, o.workload, wall_seconds() - t0);
  for (const auto& note : input_notes) report.info.functional_notes.push_back(note);
  if (out.status == RunOutcome::Status::Done && !o.dump_dir.empty())
    dump_outputs(o, w, platform, files, report);
  if (functional) report.memory = platform.memory_digest();
  for (const MemoryDump& d : memory_dumps) {
    std::string bytes(d.bytes, '\0');
    platform.read(d.address, bytes.data(), d.bytes);
    write_file_atomic(d.file, bytes);
  }
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
  write_outputs(o, platform, report);
  note_missing_waveform(cfg.cosim, out.simulated_time_ns, outputs);
  // A run that stopped with a unit or firmware error keeps its report (status, error), trace and
  // waveform: they show the failure (docs/report.md).
  outputs.keep();
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
  sub->add_option("--dump-memory", opts->dump_memory,
                  "hbm:ADDR:BYTES=FILE or spm:ADDR:BYTES=FILE: raw bytes after the run (functional mode)");
  sub->add_option("--shape", opts->shapes, "NAME=1x3x224x224: static shape of a symbolic input");
  sub->add_flag("--quiet,-q", opts->quiet, "no progress line and no summary");
  sub->add_option("--gdb", opts->gdb_port,
                  "PORT: the rv32 firmware CPU serves GDB's remote protocol on 127.0.0.1:PORT (0: any "
                  "free port) and stops before the first instruction")
      ->check(CLI::Range(0, 65535));
  sub->callback([opts, &status] { status = run(*opts); });
}

}  // namespace photon::cli
