// Runs the photon executable (PHOTON_BINARY) and captures its exit status, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/scratch.h"

namespace photon_test {

struct CliResult {
  int status = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A file path in this process's scratch directory (removed at exit).
inline std::string temp_path(const std::string& name) { return scratch_path(name); }

/// `args` is appended to the binary path as given (shell-quoted by the caller where needed).
inline CliResult photon(const std::string& args) {
  static int counter = 0;
  std::string out = temp_path("out" + std::to_string(counter)),
              err = temp_path("err" + std::to_string(counter));
  ++counter;
  std::string cmd = std::string(PHOTON_BINARY) + " " + args + " >" + out + " 2>" + err;
  int rc = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
  r.out = slurp(out);
  r.err = slurp(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string src(const std::string& rel) { return std::string(PHOTON_SOURCE_DIR) + "/" + rel; }
inline std::string shared(const std::string& rel) { return std::string(PHOTON_SHARED_DIR) + "/" + rel; }

inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace photon_test
