// Runs a SystemC scenario in a forked child process: SystemC allows one elaboration per process,
// and each platform test needs its own. The child returns a string (e.g. JSON) through a pipe.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

#include <gtest/gtest.h>

namespace photon_test {

/// Runs fn() in a child; returns its result. A child that throws or crashes fails the test.
inline std::string run_forked(const std::function<std::string()>& fn) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    int code = 0;
    try {
      out = fn();
    } catch (const std::exception& e) {
      out = std::string("exception: ") + e.what();
      code = 1;
    }
    size_t off = 0;
    while (off < out.size()) {
      ssize_t n = write(fds[1], out.data() + off, out.size() - off);
      if (n <= 0) break;
      off += size_t(n);
    }
    close(fds[1]);
    _exit(code);
  }
  close(fds[1]);
  std::string result;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) result.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child failed: " << result;
  return result;
}

}  // namespace photon_test
