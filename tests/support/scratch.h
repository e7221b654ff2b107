// A per-process scratch directory for the files a test writes, removed with everything in it when
// the test process exits, so repeated test runs leave nothing behind in the temp directory.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

#include <gtest/gtest.h>

namespace photon_test {

/// ::testing::TempDir()/photon_<pid>/ (with its trailing slash): created on first use, removed at
/// normal process exit. Forked children leave with _exit() (tests/support/forked.h), so they do
/// not remove it.
inline const std::string& scratch_dir() {
  struct Dir {
    std::string path;
    Dir() : path(::testing::TempDir() + "photon_" + std::to_string(::getpid()) + "/") {
      std::filesystem::create_directories(path);
    }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Dir dir;
  return dir.path;
}

/// scratch_dir() + name: a file path private to this process.
inline std::string scratch_path(const std::string& name) { return scratch_dir() + name; }

/// A fresh, empty directory scratch_dir()/tag (tests of one binary may run in parallel, each in
/// its own process).
inline std::string fresh_dir(const std::string& tag) {
  const std::filesystem::path d = std::filesystem::path(scratch_dir()) / tag;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

}  // namespace photon_test
