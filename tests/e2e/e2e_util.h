// End-to-end test helpers: run the photon executable (PHOTON_BINARY) as a user would, capture
// its exit status, stdout, stderr and wall time, and read the files it writes.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/scratch.h"

namespace photon_e2e {

struct CliResult {
  int status = -1;       ///< exit status (128 if killed by a signal)
  std::string out, err;  ///< captured stdout and stderr
  double wall_s = 0;     ///< wall-clock time of the command, s
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// Source tree, shared/ and the real-input folders.
inline std::string src(const std::string& rel) { return std::string(PHOTON_SOURCE_DIR) + "/" + rel; }
inline std::string shared(const std::string& rel) { return std::string(PHOTON_SHARED_DIR) + "/" + rel; }
inline std::string onnx_input(const std::string& file) { return shared("inputs/onnx/" + file); }
inline std::string heir_input(const std::string& file) { return shared("inputs/heir/" + file); }

using photon_test::fresh_dir;

/// Runs `PHOTON_BINARY args` through the shell (`args` is shell-quoted by the caller where
/// needed). stdout and stderr go to files in a private directory and are read back.
inline CliResult photon(const std::string& args) {
  static int counter = 0;
  const std::string dir = fresh_dir("cli" + std::to_string(counter++));
  const std::string out = dir + "/stdout", err = dir + "/stderr";
  const std::string cmd = std::string(PHOTON_BINARY) + " " + args + " >" + out + " 2>" + err;
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = std::system(cmd.c_str());
  CliResult r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove_all(dir);
  return r;
}

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path;
    return nlohmann::json::object();
  }
  return nlohmann::json::parse(in);
}

inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// Records a measured wall time in the test's XML properties and prints it.
inline void record_wall(const std::string& what, double s) {
  ::testing::Test::RecordProperty(what + "_wall_s", std::to_string(s));
  std::printf("[ wall     ] %s: %.2f s\n", what.c_str(), s);
}

}  // namespace photon_e2e

/// The CLI contract for errors: non-zero exit status, exactly one line on stderr, the line
/// contains `needle`.
#define EXPECT_ONE_LINE_ERROR(r, needle)                                           \
  do {                                                                             \
    EXPECT_NE((r).status, 0);                                                      \
    EXPECT_EQ(photon_e2e::count_lines((r).err), 1) << (r).err.substr(0, 2000);     \
    EXPECT_NE((r).err.find(needle), std::string::npos) << (r).err.substr(0, 2000); \
  } while (0)
