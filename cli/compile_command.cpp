// photon compile / asm / disasm / config.
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "base/error.h"
#include "base/text.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "isa/assembler.h"
#include "isa/disassembler.h"
#include "isa/program.h"
#include "workloads/driver/workload.h"

namespace photon::cli {

namespace {
/// The value at dotted `path` of a nested config JSON.
nlohmann::json c_value(const nlohmann::json& j, const std::string& path) {
  const nlohmann::json* n = &j;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    n = &(*n)[path.substr(start, dot == std::string::npos ? std::string::npos : dot - start)];
    if (dot == std::string::npos) return *n;
    start = dot + 1;
  }
}
}  // namespace

void add_compile_command(CLI::App& app, int& status) {
  struct Opts {
    ConfigOptions config;
    std::string model, out;
    std::vector<std::string> shapes;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub =
      app.add_subcommand("compile", "compile a model (.onnx, .ptrace or .mlir) to a command stream (.pcs)");
  o->config.add_to(*sub);
  sub->add_option("model", o->model, "model file (.onnx, .ptrace or .mlir)")->required();
  sub->add_option("-o,--output", o->out, "output .pcs file")->required();
  sub->add_option("--shape", o->shapes, "NAME=1x3x224x224: static shape of a symbolic input");
  sub->callback([o, &status] {
    RunConfig cfg = o->config.load();
    check_output_path(o->out);
    CompileOptions copts;
    for (const auto& s : o->shapes)
      if (auto kv = parse_shape_arg(s); !copts.shapes.insert(kv).second)
        throw Error("--shape " + s + ": input '" + kv.first + "' is given more than once");
    CompiledWorkload w = compile_workload(o->model, cfg, copts);
    // A functional-mode program hands nodes to the host process (SIGNAL dma, host_request; WAIT
    // dma, host_done); a .pcs file cannot carry that computation, so run on its own it would wait
    // forever. Refuse before writing anything.
    if (w.host_calls && !w.host_calls->nodes.empty()) {
      const Node& n = w.host_calls->graph.nodes[w.host_calls->nodes.front()];
      throw Error(
          fmt::format("{}: node '{}' ({}) is computed by the host in functional mode, which a .pcs file "
                      "cannot carry ({} such node(s)); compile with sim.mode=timing, or run the model itself "
                      "with photon run --mode functional",
                      o->model, n.name, n.op_type, w.host_calls->nodes.size()));
    }
    pcs::write_program(w.program, o->out);
    std::printf("%s: %zu commands, %zu ops, %zu unsupported -> %s\n", o->model.c_str(),
                w.program.commands.size(), w.program.ops.size(), w.unsupported.size(), o->out.c_str());
    status = 0;
  });
}

void add_asm_commands(CLI::App& app, int& status) {
  struct Opts {
    ConfigOptions config;
    std::string in, out;
  };
  auto a = std::make_shared<Opts>();
  CLI::App* as = app.add_subcommand("asm", "assemble command-stream text (.pasm) into a .pcs file");
  a->config.add_to(*as);
  as->add_option("file", a->in, "assembly text")->required();
  as->add_option("-o,--output", a->out, "output .pcs file")->required();
  as->callback([a, &status] {
    a->config.load();  // validates --config/--set like every subcommand
    check_output_path(a->out);
    pcs::Program p = pcs::assemble_file(a->in);
    pcs::write_program(p, a->out);
    status = 0;
  });

  auto d = std::make_shared<Opts>();
  CLI::App* ds = app.add_subcommand("disasm", "print a .pcs file as assembly text");
  d->config.add_to(*ds);
  ds->add_option("file", d->in, ".pcs file")->required();
  ds->add_option("-o,--output", d->out, "write the text here instead of stdout");
  ds->callback([d, &status] {
    d->config.load();
    if (!d->out.empty()) check_output_path(d->out);
    std::string text = pcs::disassemble(pcs::read_program(d->in));
    if (d->out.empty())
      std::fwrite(text.data(), 1, text.size(), stdout);
    else
      write_file_atomic(d->out, text);
    status = 0;
  });
}

void add_config_command(CLI::App& app, int& status) {
  struct Opts {
    ConfigOptions config;
    bool list = false, yaml = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand("config", "print the resolved configuration (or --list every key)");
  o->config.add_to(*sub);
  sub->add_flag("--list", o->list, "list every key with its current value and documentation");
  sub->add_flag("--yaml", o->yaml, "print the resolved configuration as commented YAML");
  sub->callback([o, &status] {
    RunConfig cfg = o->config.load();
    const ParamSet ps = bind_params(cfg);
    if (o->yaml) {
      // Keys that a preset sets are written commented out, so that changing the preset in the
      // file changes them (explicit keys override a preset).
      std::set<std::string> governed;
      for (const auto& [path, p] : ps.params()) {
        if (path.size() < 7 || path.compare(path.size() - 7, 7, ".preset") != 0) continue;
        const std::string sec = path.substr(0, path.size() - 6);
        std::vector<nlohmann::json> variants;
        for (const auto& choice : p.choices) {
          RunConfig c = cfg;
          bind_params(c).set(path, choice);
          variants.push_back(config_json(c));
        }
        // The values the current preset alone gives: a governed key that differs was set
        // explicitly and is written as an active line.
        RunConfig preset_only = cfg;
        bind_params(preset_only).set(path, ps.value(path).get<std::string>());
        const nlohmann::json preset_values = config_json(preset_only);
        const nlohmann::json current = config_json(cfg);
        for (const auto& [k, kp] : ps.params()) {
          if (k.rfind(sec, 0) != 0 || k == path) continue;
          bool varies = false;
          for (const auto& v : variants) varies = varies || c_value(v, k) != c_value(variants.front(), k);
          if (varies && c_value(current, k) == c_value(preset_values, k)) governed.insert(k);
        }
      }
      std::printf(
          "# Photon platform configuration: every key with its value, unit and meaning.\n"
          "# Keys commented out are set by a preset (explicit keys override the preset).\n"
          "# Generated by: photon config --yaml > FILE\n\n");
      std::string section;
      for (const auto& [path, p] : ps.params()) {
        auto dot = path.find('.');
        std::string sec = path.substr(0, dot), key = path.substr(dot + 1);
        if (sec != section) {
          std::printf("%s%s:\n", section.empty() ? "" : "\n", sec.c_str());
          section = sec;
        }
        std::string v = dump_json(ps.value(path));
        if (v.size() > 2 && v.front() == '"') v = v.substr(1, v.size() - 2);  // "" stays quoted (not null)
        std::printf("  %s%s: %s  # %s%s\n", governed.count(path) ? "# " : "", key.c_str(), v.c_str(),
                    p.doc.c_str(), governed.count(path) ? " (set by the preset)" : "");
      }
    } else if (o->list) {
      for (const auto& [path, p] : ps.params())
        std::printf("%-40s %-22s %s\n", path.c_str(), dump_json(ps.value(path)).c_str(), p.doc.c_str());
    } else {
      std::printf("%s\n", dump_json(config_json(cfg), 2).c_str());
    }
    status = 0;
  });
}

}  // namespace photon::cli
