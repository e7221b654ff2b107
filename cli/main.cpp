// photon: the command-line entry point (see docs/cli.md and ../shared/DESIGN.md "Contracts").
// Every error reaches the user as one line on stderr and a non-zero exit status.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "base/error.h"
#include "base/text.h"
#include "cli/commands.h"

#ifndef PHOTON_VERSION
#define PHOTON_VERSION "0.1.0"
#endif

int main(int argc, char** argv) {
  CLI::App app{"Photon: a SystemC/TLM-2.0 virtual platform of an optical-GEMM + NTT accelerator"};
  app.set_version_flag("--version", "photon " PHOTON_VERSION);
  app.require_subcommand(1);
  // Usage errors are one line, like every other error.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "photon: error: " + photon::printable(e.what()) + " (see photon --help)\n";
  });
  int status = 0;
  photon::cli::add_run_command(app, status);
  photon::cli::add_compile_command(app, status);
  photon::cli::add_asm_commands(app, status);
  photon::cli::add_hbm_command(app, status);
  photon::cli::add_fhe_command(app, status);
  photon::cli::add_config_command(app, status);
  photon::cli::add_sweep_command(app, status);
  photon::cli::add_plot_command(app, status);
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) known = known || sub->get_name() == argv[1];
    if (!known) {
      std::fprintf(stderr, "photon: error: unknown subcommand '%s' (see photon --help)\n",
                   photon::printable(argv[1]).c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const std::filesystem::filesystem_error& e) {
    std::fprintf(stderr, "photon: error: %s\n", photon::printable(e.what()).c_str());
    return 1;
  } catch (const photon::Error& e) {
    std::fprintf(stderr, "photon: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "photon: internal error: %s\n", photon::printable(e.what()).c_str());
    return 3;
  }
  return status;
}
