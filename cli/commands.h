// The photon subcommands. Each registers its options on a CLI11 subcommand and returns the
// callback's exit status through `status`.
#pragma once

#include <CLI/CLI.hpp>

namespace photon::cli {

void add_run_command(CLI::App& app, int& status);
void add_compile_command(CLI::App& app, int& status);
void add_asm_commands(CLI::App& app, int& status);
void add_hbm_command(CLI::App& app, int& status);
void add_fhe_command(CLI::App& app, int& status);
void add_config_command(CLI::App& app, int& status);
void add_sweep_command(CLI::App& app, int& status);
void add_plot_command(CLI::App& app, int& status);

}  // namespace photon::cli
