#include "sweep/progress.h"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace photon::sweep {

namespace {
double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
}  // namespace

std::string format_duration(double s) {
  if (s < 0) s = 0;
  const long t = long(std::llround(s));
  char buf[32];
  if (t < 60)
    std::snprintf(buf, sizeof buf, "%ld s", t);
  else if (t < 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  return buf;
}

SweepProgress::SweepProgress(bool tty, bool quiet) : tty_(tty), quiet_(quiet), start_s_(now_s()) {}

SweepProgress::~SweepProgress() { clear(); }

std::string SweepProgress::line(const ProgressCounts& c, double elapsed_s, int bar_width) {
  std::string s;
  if (bar_width > 0) {
    const int fill = c.total ? int(double(bar_width) * double(c.done) / double(c.total)) : bar_width;
    s = "[" + std::string(size_t(fill), '#') + std::string(size_t(bar_width - fill), '.') + "] ";
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "%llu/%llu done, %llu failed, %llu running, ", (unsigned long long)c.done,
                (unsigned long long)c.total, (unsigned long long)c.failed, (unsigned long long)c.running);
  s += buf;
  if (c.done == 0 || c.done >= c.total) {
    s += format_duration(elapsed_s) + " elapsed";
  } else {
    s += format_duration(elapsed_s / double(c.done) * double(c.total - c.done)) + " left";
  }
  return s;
}

void SweepProgress::update(const ProgressCounts& c) {
  if (quiet_) return;
  const double t = now_s();
  if (tty_) {
    if (t - last_s_ < 0.1 && c.done < c.total) return;
    std::fprintf(stderr, "\r\033[K%s", line(c, t - start_s_, 30).c_str());
    std::fflush(stderr);
    shown_ = true;
  } else {
    if (t - last_s_ < 60.0) return;
    std::fprintf(stderr, "photon sweep: %s\n", line(c, t - start_s_, 0).c_str());
  }
  last_s_ = t;
}

void SweepProgress::clear() {
  if (shown_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
    last_s_ = -1e9;
  }
}

}  // namespace photon::sweep
