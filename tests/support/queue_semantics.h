// The queue semantics of docs/command-stream.md as a test oracle, shared by every test that needs
// one (the examples' deadlock check, the lowering's reference interpreter, the FHE lowering).
//
// Commands are dispatched in stream order to their queue (pcs::Command::queue()); each queue runs
// its commands in order; a Wait at the head of a queue blocks it while its semaphore is 0 and
// takes one when it runs; a Signal adds one; a Fence or an End waits until every queue is empty.
// Unit commands take no time. `pick` chooses which of the ready queues runs its head next (the
// first, or a random one to try interleavings); `exec` runs a unit command (not Signal/Wait).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <vector>

#include "isa/program.h"

namespace photon_test {

struct QueueRunResult {
  int blocked_at = -1;               ///< first Fence/End that can never pass (stream index), -1 if none
  std::map<uint32_t, int64_t> sems;  ///< semaphore counts at the end
};

inline QueueRunResult run_queue_semantics(
    const photon::pcs::Program& p, const std::function<void(size_t index)>& exec = {},
    const std::function<size_t(const std::vector<int>& ready)>& pick = {}) {
  using photon::pcs::Opcode;
  QueueRunResult r;
  std::deque<size_t> q[photon::pcs::kQueueCount];
  // Runs ready queue heads until every queue is empty (true) or all are blocked (false).
  auto drain = [&] {
    for (;;) {
      std::vector<int> ready;
      bool left = false;
      for (int k = 0; k < photon::pcs::kQueueCount; ++k) {
        if (q[k].empty()) continue;
        left = true;
        const auto& c = p.commands[q[k].front()];
        if (c.opcode == Opcode::Wait && r.sems[std::get<photon::pcs::Sync>(c.body).sem] <= 0) continue;
        ready.push_back(k);
      }
      if (!left) return true;
      if (ready.empty()) return false;
      const int k = ready[pick ? pick(ready) % ready.size() : 0];
      const size_t i = q[k].front();
      q[k].pop_front();
      const auto& c = p.commands[i];
      if (c.opcode == Opcode::Wait)
        --r.sems[std::get<photon::pcs::Sync>(c.body).sem];
      else if (c.opcode == Opcode::Signal)
        ++r.sems[std::get<photon::pcs::Sync>(c.body).sem];
      else if (exec)
        exec(i);
    }
  };
  for (size_t i = 0; i < p.commands.size(); ++i) {
    const auto& c = p.commands[i];
    if (c.queue() >= 0) {
      q[c.queue()].push_back(i);
    } else if (!drain()) {
      r.blocked_at = int(i);
      return r;
    }
  }
  if (!drain()) r.blocked_at = int(p.commands.size());
  return r;
}

}  // namespace photon_test
