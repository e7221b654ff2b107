// Sweep progress on stderr: a bar redrawn in place on a terminal (done, failed, running, ETA),
// otherwise one line a minute (logs of batch jobs stay short).
#pragma once

#include <cstdint>
#include <string>

namespace photon::sweep {

struct ProgressCounts {
  uint64_t total = 0;    ///< runs this invocation has to do
  uint64_t done = 0;     ///< finished, any status
  uint64_t failed = 0;   ///< finished with a status other than ok
  uint64_t running = 0;  ///< started and not finished
};

class SweepProgress {
 public:
  /// `tty`: stderr is a terminal; `quiet`: no progress at all.
  SweepProgress(bool tty, bool quiet);
  ~SweepProgress();
  /// Redraws (terminal: at most 10 times a second) or logs (otherwise: once a minute).
  void update(const ProgressCounts& c);
  /// Clears the bar before other output.
  void clear();
  /// "[#####.....] 412/1000 done, 3 failed, 2 running, 0:37 left": the text of one update,
  /// `elapsed_s` since the start; ETA from the mean rate so far (none before the first run ends).
  static std::string line(const ProgressCounts& c, double elapsed_s, int bar_width);

 private:
  bool tty_, quiet_, shown_ = false;
  double start_s_, last_s_ = -1e9;
};

/// "1:02:03", "4:05" or "7 s".
std::string format_duration(double s);

}  // namespace photon::sweep
