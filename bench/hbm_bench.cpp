// HBM bulk-path throughput: column accesses simulated per second (wall clock and process CPU
// time) through HbmController::access() (the DMA path), hbm2 preset: streaming and random 4 KiB
// bursts offered at 256 GB/s (the hbm2 peak; always the exact path, 4 KiB < the fast-forward
// size), then 64 MiB bursts with the exact path (hbm.fast_forward_bytes = 0) and with the
// fast-forward (default threshold).
// Usage: hbm_bench [total_bytes]   (default 2^28 bytes per pattern)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>

#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_controller.h"

namespace {

void run(const char* name, uint64_t total, bool random, bool is_write, uint64_t burst = 4096,
         bool fast = false) {
  photon::HbmConfig cfg;
  cfg.apply_preset("hbm2");
  if (!fast) cfg.fast_forward_bytes = 0;
  photon::HbmController hbm(cfg);
  std::mt19937_64 rng(1);
  const uint64_t cap_bursts = cfg.capacity_bytes() / burst;
  uint64_t cycle = 0, done = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  for (uint64_t off = 0; off < total; off += burst) {
    const uint64_t addr = random ? (rng() % cap_bursts) * burst : off;
    done = hbm.access(addr, burst, is_write, cycle);
    cycle += burst / 256;  // offered at 256 B per ns (the hbm2 peak)
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  const auto c = hbm.counters();
  const double accesses = double(c.reads + c.writes);
  std::printf(
      "%-13s %8.0f accesses  wall %.3f s = %.2f M/s  cpu %.3f s = %.2f M/s  "
      "simulated %.1f GB/s  row hits %.3f\n",
      name, accesses, wall, accesses / wall / 1e6, cpu, accesses / cpu / 1e6,
      double(total) / (double(done) * cfg.tck_ns), double(c.row_hits) / accesses);
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t total = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : (uint64_t(1) << 28);
  run("stream read", total, false, false);
  run("stream write", total, false, true);
  run("random read", total, true, false);
  const uint64_t big = uint64_t(64) << 20;
  run("64M rd exact", total, false, false, big, false);
  run("64M rd fast", total, false, false, big, true);
  run("64M wr exact", total, false, true, big, false);
  run("64M wr fast", total, false, true, big, true);
  return 0;
}
