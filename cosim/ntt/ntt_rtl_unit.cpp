#include "cosim/ntt/ntt_rtl_unit.h"

#include <unistd.h>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "base/error.h"
#include "cosim/ntt/ntt_rtl_variants.h"
#include "models/ntt/ntt_core.h"

namespace photon {

namespace {

/// The core clock period in ps; throws unless 1000 / clock_ghz is a whole number of ps.
uint64_t period_ps_of(double ghz) {
  const double ps = 1000.0 / ghz;
  const double whole = std::round(ps);
  if (whole < 1 || std::fabs(ps - whole) > 1e-6)
    throw Error("ntt.clock_ghz: " + std::to_string(ghz) + " with ntt.impl=rtl: the core's sc_clock period " +
                std::to_string(ps) + " ps must be a whole number of ps (e.g. 1, 1.25, 2 GHz)");
  return uint64_t(whole);
}

void check_writable(const std::string& path, const char* key) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || ::access(dir.c_str(), W_OK) != 0)
    throw Error(std::string(key) + ": " + path + ": directory " + dir.string() +
                " does not exist or is not writable");
  if (fs::exists(p, ec) && !fs::is_regular_file(p, ec))
    throw Error(std::string(key) + ": " + path + " exists and is not a regular file");
}

}  // namespace

const cosim::NttRtlParams& NttRtlUnit::check_config(const NttConfig& c, const CosimConfig& cosim) {
  const cosim::NttRtlParams* p =
      cosim::find_ntt_rtl_variant(c.lanes, c.word_bits, c.pipeline_depth, c.limb_interleave);
  if (!p)
    throw Error("ntt.impl=rtl: no verilated NTT core with ntt.lanes=" + std::to_string(c.lanes) +
                " ntt.word_bits=" + std::to_string(c.word_bits) +
                " ntt.pipeline_depth=" + std::to_string(c.pipeline_depth) +
                " ntt.limb_interleave=" + std::to_string(c.limb_interleave) +
                " (built: " + cosim::describe_ntt_rtl_variants() + "; cosim/CMakeLists.txt lists them)");
  if (c.transpose_cycles != 0)
    throw Error(
        "ntt.transpose_cycles: " + std::to_string(c.transpose_cycles) +
        " with ntt.impl=rtl: the RTL core is an iterative radix-2 NTT without 4-step transposes (set 0)");
  if (c.spm_words_per_cycle != 0 && c.spm_words_per_cycle < 4ull * c.lanes)
    throw Error("ntt.spm_words_per_cycle: " + std::to_string(c.spm_words_per_cycle) +
                " with ntt.impl=rtl: the RTL core's streams move up to 4 x ntt.lanes = " +
                std::to_string(4ull * c.lanes) +
                " words per cycle and are not throttled (set 0 or at least that)");
  period_ps_of(c.clock_ghz);
  if (!cosim.waveform.empty()) check_writable(cosim.waveform, "cosim.waveform");
  return *p;
}

NttRtlUnit::NttRtlUnit(sc_core::sc_module_name name, const NttConfig& ntt, const CosimConfig& cosim,
                       const MemView& spm, const Wiring& w)
    : ComputeUnit(name, std::make_unique<NttEngine>(ntt), spm, w),
      cfg_(ntt),
      params_(check_config(ntt, cosim)),
      spm_(spm),
      eng_(static_cast<NttEngine*>(&engine())) {
  core_ = cosim::make_ntt_rtl_core(params_, "core", period_ps_of(ntt.clock_ghz));
  core_->on_done([this](cosim::NttRtlJob& j) { on_core_done(j); });
  if (!cosim.waveform.empty())
    core_->trace_window(cosim.waveform, cosim.waveform_start_ns, cosim.waveform_end_ns);
}

NttRtlUnit::~NttRtlUnit() = default;

bool NttRtlUnit::on_core(const pcs::Command& c) {
  const auto* n = std::get_if<pcs::Ntt>(&c.body);
  return c.opcode == pcs::Opcode::Ntt && n && (n->op == pcs::Ntt::kForward || n->op == pcs::Ntt::kInverse);
}

void NttRtlUnit::check_command(const pcs::Command& c, uint32_t index) const {
  if (!on_core(c)) return;
  const pcs::Ntt& n = std::get<pcs::Ntt>(c.body);
  if (n.log_n < params_.log_n_min() || n.log_n > params_.log_n_max)
    throw Error("ntt.impl=rtl: command " + std::to_string(index) + " (ntt " + pcs::ntt_op_name(n.op) +
                ", log_n " + std::to_string(n.log_n) + "): the RTL core (" + params_.describe() +
                ") transforms N = 2^" + std::to_string(params_.log_n_min()) + " .. 2^" +
                std::to_string(params_.log_n_max) +
                (n.log_n > params_.log_n_max ? ", its memories hold no more" : ""));
}

uint64_t NttRtlUnit::cycle_now() const {
  const double now_ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
  return uint64_t(std::ceil(now_ns * cfg_.clock_ghz - 1e-9));
}

sc_core::sc_time NttRtlUnit::time_of(uint64_t cycle) const {
  return sc_core::sc_time(double(cycle) / cfg_.clock_ghz, sc_core::SC_NS);
}

void NttRtlUnit::book(const IssueResult& r) {
  stats_.energy_pj += r.energy_pj;
  stats_.counters["spm_bytes_read"] += double(r.spm_bytes_read);
  stats_.counters["spm_bytes_written"] += double(r.spm_bytes_written);
}

void NttRtlUnit::check_for_core(const pcs::Ntt& n, const std::vector<uint64_t>& q, uint32_t) const {
  if (params_.width >= 64) return;
  for (uint32_t i = 0; i < q.size() && i < n.limbs; ++i)
    if (q[i] >> params_.width)
      throw UnitFault(UnitErrorCode::DECODE, "ntt: modulus " + std::to_string(i) + " = " +
                                                 std::to_string(q[i]) + " is wider than the RTL core's " +
                                                 std::to_string(params_.width) +
                                                 "-bit datapath (ntt.impl=rtl)");
}

QueueUnit::Timing NttRtlUnit::execute(const pcs::Command& c, uint32_t index) {
  const uint64_t now = cycle_now();
  if (!busy_core_ && held_.empty() && !on_core(c)) return ComputeUnit::execute(c, index);  // as with tlm
  const pcs::Ntt& n = NttEngine::decode(c);
  std::vector<uint64_t> q = eng_->check(n, spm_);  // the model's faults, at issue as with tlm
  if (on_core(c)) check_for_core(n, q, index);
  if (!busy_core_ && held_.empty())
    launch(c, index, now, q);
  else
    held_.push_back({c, index, now, std::move(q)});
  Timing t;
  t.accept = std::max(time_of(now + 1), sc_core::sc_time_stamp());
  t.done = t.accept;
  t.deferred = true;
  return t;
}

const std::vector<uint64_t>& NttRtlUnit::timing_moduli(uint32_t log_n, uint32_t limbs) {
  std::vector<uint64_t>& m = timing_moduli_[log_n];
  if (m.empty()) m.push_back(ntt::generate_ntt_primes(std::min<uint32_t>(params_.width, 62), log_n, 1)[0]);
  if (m.size() < limbs) m.resize(limbs, m[0]);
  return m;
}

void NttRtlUnit::launch(const pcs::Command& c, uint32_t index, uint64_t issue_cycle,
                        const std::vector<uint64_t>& q) {
  const pcs::Ntt& n = std::get<pcs::Ntt>(c.body);
  cosim::NttRtlJob j;
  j.log_n = n.log_n;
  j.inverse = n.op == pcs::Ntt::kInverse;
  j.limbs = n.limbs;
  const uint64_t words = uint64_t(n.limbs) << n.log_n;
  if (spm_.data) {
    j.moduli.assign(q.begin(), q.begin() + n.limbs);
    j.data.resize(words);
    std::memcpy(j.data.data(), spm_.data + n.src0, words * 8);
  } else {
    const std::vector<uint64_t>& m = timing_moduli(n.log_n, n.limbs);
    j.moduli.assign(m.begin(), m.begin() + n.limbs);
  }
  j.start_cycle = eng_->earliest_start(n, issue_cycle);
  j.label = "command " + std::to_string(index) + " (ntt " + pcs::ntt_op_name(n.op) + ", log_n " +
            std::to_string(n.log_n) + ", " + std::to_string(n.limbs) + " limbs)";
  j.id = index;
  in_flight_ = {c, index, issue_cycle, j.start_cycle};
  busy_core_ = true;
  core_->submit(std::move(j));
}

void NttRtlUnit::on_core_done(cosim::NttRtlJob& job) {
  busy_core_ = false;
  stats_.counters["rtl_clocked_cycles"] = double(core_->clocked_cycles());
  if (!job.error.empty()) {
    held_.clear();
    fail_deferred(uint32_t(UnitErrorCode::BUS), in_flight_.index, job.error);
    return;
  }
  const pcs::Ntt& n = std::get<pcs::Ntt>(in_flight_.cmd.body);
  if (spm_.data) std::memcpy(spm_.data + n.dst, job.data.data(), job.data.size() * 8);
  const IssueResult r =
      eng_->commit(n, in_flight_.issue_cycle, in_flight_.start, job.done_cycle - in_flight_.start);
  book(r);
  complete_deferred(in_flight_.index, time_of(r.done_cycle));
  drain();
}

void NttRtlUnit::drain() {
  while (!held_.empty() && !busy_core_) {
    Held h = std::move(held_.front());
    held_.pop_front();
    if (on_core(h.cmd)) {
      launch(h.cmd, h.index, h.issue_cycle, h.moduli);
      continue;
    }
    const pcs::Ntt& n = std::get<pcs::Ntt>(h.cmd.body);
    if (spm_.data) eng_->execute(n, spm_, h.moduli);
    const IssueResult r = eng_->commit(n, h.issue_cycle, eng_->earliest_start(n, h.issue_cycle),
                                       NttEngine::busy_cycles(n, cfg_));
    book(r);
    complete_deferred(h.index, time_of(r.done_cycle));
  }
}

}  // namespace photon
