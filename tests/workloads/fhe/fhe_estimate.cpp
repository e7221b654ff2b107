#include "tests/workloads/fhe/fhe_estimate.h"

#include <algorithm>
#include <cmath>
#include <deque>

#include "base/error.h"
#include "models/ntt/ntt_engine.h"

namespace photon {

FheEstimate estimate_cycles(const pcs::Program& program, const RunConfig& cfg) {
  NttEngine eng(cfg.ntt);
  const double ghz = cfg.ntt.clock_ghz;
  const double bytes_per_cycle = std::min(cfg.hbm.peak_bandwidth_gbps(), cfg.noc.port_bandwidth_gbps) / ghz;
  const uint64_t dma_setup = uint64_t(std::ceil(cfg.dma.setup_cycles / cfg.dma.clock_ghz * ghz));
  FheEstimate est;
  est.op_cycles.assign(program.ops.size(), {0, 0});
  std::vector<bool> seen(program.ops.size(), false);
  auto mark = [&](uint32_t tag, uint64_t start, uint64_t end) {
    if (tag >= est.op_cycles.size()) return;
    auto& oc = est.op_cycles[tag];
    if (!seen[tag]) {
      oc = {start, end};
      seen[tag] = true;
      return;
    }
    oc.first = std::min(oc.first, start);
    oc.second = std::max(oc.second, end);
  };
  uint64_t t_dma = 0, t_ntt = 0, hbm_busy = 0;
  std::map<uint32_t, std::deque<uint64_t>> sems;
  const MemView timing_only{nullptr, 0};
  for (size_t i = 0; i < program.commands.size(); ++i) {
    const pcs::Command& c = program.commands[i];
    if (c.opcode == pcs::Opcode::End) break;
    with_error_context("command " + std::to_string(i), [&] {
      switch (c.opcode) {
        case pcs::Opcode::Ntt: {
          IssueResult r = eng.issue(c, t_ntt, timing_only);
          mark(c.tag, r.done_cycle - NttEngine::busy_cycles(std::get<pcs::Ntt>(c.body), cfg.ntt),
               r.done_cycle);
          t_ntt = r.accept_cycle;
          est.energy_pj += r.energy_pj;
          break;
        }
        case pcs::Opcode::DmaCopy: {
          const auto& d = std::get<pcs::DmaCopy>(c.body);
          const uint64_t bytes = uint64_t(d.inner_bytes) * d.n1 * d.n2;
          const uint64_t cycles = uint64_t(std::ceil(bytes / bytes_per_cycle));
          mark(c.tag, t_dma, t_dma + dma_setup + cycles);
          t_dma += dma_setup + cycles;
          hbm_busy += cycles;
          est.hbm_bytes += bytes;
          break;
        }
        case pcs::Opcode::Signal: {
          const auto& s = std::get<pcs::Sync>(c.body);
          sems[s.sem].push_back(s.queue == pcs::Queue::Dma ? t_dma : std::max(t_ntt, eng.last_done()));
          break;
        }
        case pcs::Opcode::Wait: {
          const auto& s = std::get<pcs::Sync>(c.body);
          auto& q = sems[s.sem];
          if (q.empty())
            throw Error("wait on semaphore " + std::to_string(s.sem) + " with no earlier signal");
          const uint64_t t = q.front();
          q.pop_front();
          if (s.queue == pcs::Queue::Dma)
            t_dma = std::max(t_dma, t);
          else
            t_ntt = std::max(t_ntt, t);
          break;
        }
        case pcs::Opcode::Fence: {
          const uint64_t t = std::max({t_dma, t_ntt, eng.last_done()});
          t_dma = t_ntt = t;
          break;
        }
        default:
          throw Error(std::string("estimate_cycles: unexpected command opcode ") +
                      std::to_string(int(c.opcode)));
      }
    });
  }
  est.total_cycles = std::max(t_dma, eng.last_done());
  est.counters = eng.counters();
  for (int u = 0; u < NttEngine::kUnits; ++u)
    est.busy_cycles[NttEngine::unit_name(NttEngine::Unit(u))] =
        eng.counters()[std::string("busy_cycles.") + NttEngine::unit_name(NttEngine::Unit(u))];
  est.busy_cycles["hbm"] = hbm_busy;
  return est;
}

}  // namespace photon
