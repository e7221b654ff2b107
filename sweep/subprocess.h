// Running an external program (sbatch, squeue, python3) and capturing what it prints.
#pragma once

#include <string>
#include <vector>

namespace photon::sweep {

struct CommandResult {
  int status = -1;  ///< exit status; 127 when it could not be started
  std::string out;  ///< standard output
  std::string err;  ///< standard error
};

/// Runs argv[0] (searched in PATH) with `argv` and waits for it; no shell is involved.
CommandResult run_command(const std::vector<std::string>& argv);

/// True when `program` is found in PATH (or is an executable path).
bool have_program(const std::string& program);

}  // namespace photon::sweep
