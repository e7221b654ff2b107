// photon: the command-line entry point (see docs/cli.md and ../shared/DESIGN.md "Contracts").
// Every error reaches the user as one line on stderr and a non-zero exit status.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "platform/error.h"

#ifndef PHOTON_VERSION
#define PHOTON_VERSION "0.1.0"
#endif

int main(int argc, char** argv) {
  CLI::App app{"Photon: a SystemC/TLM-2.0 virtual platform of an optical-GEMM + NTT accelerator"};
  app.set_version_flag("--version", "photon " PHOTON_VERSION);
  app.require_subcommand(1);
  int status = 0;
  photon::cli::add_run_command(app, status);
  photon::cli::add_compile_command(app, status);
  photon::cli::add_asm_commands(app, status);
  photon::cli::add_hbm_command(app, status);
  photon::cli::add_fhe_command(app, status);
  photon::cli::add_config_command(app, status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const photon::Error& e) {
    std::fprintf(stderr, "photon: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "photon: internal error: %s\n", e.what());
    return 3;
  }
  return status;
}
