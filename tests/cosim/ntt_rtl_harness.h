// Harness for the verilated NTT cores: runs a list of jobs on one variant (one SystemC elaboration,
// in a forked child), each checked against models/ntt NttTables and, at full stream rates,
// against the TLM model's cycle count NttEngine::busy_cycles().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>

#include "cosim/ntt/ntt_rtl_variants.h"
#include "models/ntt/ntt_core.h"
#include "models/ntt/ntt_engine.h"
#include "tests/support/forked.h"

namespace photon_cosim_test {

using photon::cosim::NttRtlJob;
using photon::cosim::NttRtlParams;
using photon::cosim::NttRtlStimulus;

/// One transform job of the harness.
struct Case {
  uint32_t log_n = 4;
  bool inverse = false;
  uint32_t limbs = 1;
  uint32_t bits = 50;        ///< modulus width (primes = 1 mod 2N below 2^bits)
  double in_gap = 0;         ///< probability of no in beat in a cycle
  double tw_gap = 0;         ///< probability of no tw beat in a cycle
  double out_stall = 0;      ///< probability of out_ready low in a cycle
  uint64_t idle_before = 0;  ///< cycles between the previous done and this start (0: back to back)
  bool roundtrip = false;    ///< also run the inverse of the result and expect the input back
};

/// The variant with these lanes and width (the harness's tests name the ones CMake builds).
inline NttRtlParams variant(uint32_t lanes, uint32_t width) {
  for (const NttRtlParams& p : photon::cosim::ntt_rtl_variants())
    if (p.lanes == lanes && p.width == width) return p;
  ADD_FAILURE() << "no variant lanes=" << lanes << " width=" << width << " built";
  return {};
}

/// The TLM model's configuration of a variant.
inline photon::NttConfig tlm_config(const NttRtlParams& p) {
  photon::NttConfig c;
  c.lanes = p.lanes;
  c.word_bits = p.width;
  c.pipeline_depth = p.pipeline_depth;
  c.limb_interleave = p.group;
  c.transpose_cycles = 0;
  c.spm_words_per_cycle = 0;
  return c;
}

inline uint64_t tlm_cycles(const NttRtlParams& p, uint32_t log_n, uint32_t limbs, bool inverse) {
  photon::pcs::Ntt n;
  n.op = inverse ? photon::pcs::Ntt::kInverse : photon::pcs::Ntt::kForward;
  n.log_n = uint8_t(log_n);
  n.limbs = limbs;
  return photon::NttEngine::busy_cycles(n, tlm_config(p));
}

/// Runs `cases` in order on variant `p` in a child process; returns "" when every result matched
/// NttTables and every full-rate cycle count matched the TLM model, else one line per mismatch.
/// `stim_extra` may add a deliberate violation (then the cases are expected to fail; the errors
/// are returned as "error: ..." lines).
inline std::string run_cases(const NttRtlParams& p, const std::vector<Case>& cases, uint64_t seed,
                             const NttRtlStimulus& stim_extra = {}) {
  return photon_test::run_forked([&]() -> std::string {
    auto core = photon::cosim::make_ntt_rtl_core(p, "ntt_rtl", 1000);
    auto rng = std::make_shared<std::mt19937_64>(seed);
    std::ostringstream report;
    size_t next = 0;
    std::vector<uint64_t> original;
    const Case* cur = nullptr;
    bool in_roundtrip = false;
    auto draw = [rng](double prob) {
      return std::function<bool(uint64_t)>([rng, prob](uint64_t) {
        return prob > 0 && std::uniform_real_distribution<double>(0, 1)(*rng) < prob;
      });
    };
    auto make_job = [&](const Case& c, uint64_t start, bool inverse, std::vector<uint64_t> data,
                        const std::vector<uint64_t>& moduli) {
      NttRtlJob j;
      j.log_n = c.log_n;
      j.inverse = inverse;
      j.limbs = c.limbs;
      j.moduli = moduli;
      j.data = std::move(data);
      j.start_cycle = start;
      j.label = "case " + std::to_string(next) + " (log_n " + std::to_string(c.log_n) + ", " +
                std::to_string(c.limbs) + " limbs, " + (inverse ? "inverse" : "forward") + ")";
      return j;
    };
    std::vector<uint64_t> moduli;
    std::function<void(uint64_t)> launch = [&](uint64_t now) {
      if (next >= cases.size()) return;
      const Case& c = cases[next];
      cur = &c;
      moduli = photon::ntt::generate_ntt_primes(c.bits, c.log_n, c.limbs);
      const uint64_t n = uint64_t(1) << c.log_n;
      std::vector<uint64_t> data(c.limbs * n);
      for (uint32_t l = 0; l < c.limbs; ++l)
        for (uint64_t i = 0; i < n; ++i) data[l * n + i] = (*rng)() % moduli[l];
      original = data;
      NttRtlStimulus s = stim_extra;
      s.in_gap = draw(c.in_gap);
      s.tw_gap = draw(c.tw_gap);
      s.out_stall = draw(c.out_stall);
      core->set_stimulus(s);
      in_roundtrip = false;
      core->submit(make_job(c, now + c.idle_before, c.inverse, data, moduli));
    };
    core->on_done([&](NttRtlJob& j) {
      const Case& c = *cur;
      if (!j.error.empty()) {
        report << "error: " << j.error << "\n";
      } else if (in_roundtrip) {
        if (j.data != original) report << j.label << ": inverse(forward(x)) != x\n";
      } else {
        const uint64_t n = uint64_t(1) << c.log_n;
        std::vector<uint64_t> ref = original;
        for (uint32_t l = 0; l < c.limbs; ++l) {
          photon::ntt::NttTables t(moduli[l], c.log_n);
          if (c.inverse)
            t.inverse(ref.data() + l * n);
          else
            t.forward(ref.data() + l * n);
        }
        size_t bad = 0;
        for (size_t i = 0; i < ref.size(); ++i) bad += ref[i] != j.data[i];
        if (bad) report << j.label << ": " << bad << " of " << ref.size() << " words differ from NttTables\n";
        const uint64_t cycles = j.done_cycle - j.start_cycle;
        const bool full_rate = c.in_gap == 0 && c.tw_gap == 0 && c.out_stall == 0;
        const uint64_t want = tlm_cycles(p, c.log_n, c.limbs, c.inverse);
        if (full_rate && cycles != want)
          report << j.label << ": " << cycles << " cycles, TLM model " << want << "\n";
        if (!full_rate && cycles < want)
          report << j.label << ": " << cycles << " cycles with stalls, below the full-rate " << want << "\n";
        if (c.roundtrip) {
          in_roundtrip = true;
          NttRtlStimulus s = stim_extra;
          core->set_stimulus(s);
          core->submit(make_job(c, j.done_cycle, !c.inverse, j.data, moduli));
          return;
        }
      }
      ++next;
      // After an error the transactor has reset the core: start from the current cycle.
      const uint64_t now = sc_core::sc_time_stamp().value() / sc_core::sc_time(1, sc_core::SC_NS).value();
      launch(j.error.empty() ? j.done_cycle : now + 1);
    });
    launch(10);
    sc_core::sc_start();
    if (next < cases.size() && report.str().empty())
      report << "stopped after " << next << " of " << cases.size() << " cases\n";
    return report.str();
  });
}

}  // namespace photon_cosim_test
