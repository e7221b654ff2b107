// NttPinDriver<VTop>: the TLM-to-pin transactor of one verilated ntt_cosim_top (Verilator --sc
// model VTop): an sc_module with the core's sc_clock (a StoppableClock running only while a job
// is in flight), one sc_signal per pin, and a thread that plays the jobs on the pins.
//
// Pin timing (as a synchronous testbench, and as libsystemctlm-soc's bridges do it): the thread
// wakes on the same rising edge as the core; signal reads there see the values of the cycle that
// just ended (what the core's flip-flops sample), writes take effect in the next delta, i.e. for
// the cycle that begins. A job's start is driven in its start_cycle S (the core first samples it
// at the edge that ends S); done seen at the edge that begins cycle X means the job took X - S
// cycles, and a following job may drive start in cycle X.
//
// Per job the thread streams each limb's coefficients (ntt_rtl_layout.h order) on `in`, the
// limb's twiddle table and modulus on `tw`, takes `out` into the job's data, and stops with an
// error (done with error, a checker violation, or no done within params().watchdog_cycles())
// naming the simulated time and the job's label. The core's reset is asynchronous and takes no
// clock cycle (at time 0, and after an error before the next job).
#pragma once

#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <systemc>

#include "base/error.h"
#include "cosim/ntt/ntt_rtl_core.h"
#include "cosim/ntt/ntt_rtl_layout.h"
#include "cosim/ntt/stoppable_clock.h"
#include "verilated.h"
#include "verilated_fst_sc.h"

namespace photon::cosim {

template <class VTop>
class NttPinDriver : public sc_core::sc_module, public NttRtlCore {
  template <class Port>
  using value_of = typename std::remove_reference_t<Port>::data_type;
  using BeatT = value_of<decltype(std::declval<VTop&>().in_data)>;
  using WordT = value_of<decltype(std::declval<VTop&>().tw_q)>;

 public:
  SC_HAS_PROCESS(NttPinDriver);

  /// `period_ps`: the core clock period, a whole number of ps.
  NttPinDriver(sc_core::sc_module_name name, const NttRtlParams& p, uint64_t period_ps)
      : sc_module(name),
        p_(p),
        period_(sc_core::sc_time(double(period_ps), sc_core::SC_PS)),
        clk_("clk", period_),
        top_(init_top("core")) {
    bind();
    SC_THREAD(run);
    SC_THREAD(trace_thread);
  }
  ~NttPinDriver() override { close_trace(); }

  const NttRtlParams& params() const override { return p_; }
  double period_ns() const override { return period_.to_seconds() * 1e9; }
  uint64_t clocked_cycles() const override { return clocked_; }
  void submit(NttRtlJob job) override {
    jobs_.push_back(std::move(job));
    job_event_.notify(sc_core::SC_ZERO_TIME);
  }
  void on_done(DoneFn fn) override { done_fn_ = std::move(fn); }
  void set_stimulus(NttRtlStimulus s) override { stim_ = std::move(s); }
  void trace_window(const std::string& path, double start_ns, double end_ns) override {
    trace_path_ = path;
    trace_start_ns_ = start_ns;
    trace_end_ns_ = end_ns;
  }
  void close_trace() override {
    if (!tfp_) return;
    tfp_->close();
    // VerilatedFstSc derives privately from sc_trace_file; the kernel holds it as one.
    sc_core::sc_get_curr_simcontext()->remove_trace_file((sc_core::sc_trace_file*)tfp_);
    delete tfp_;
    tfp_ = nullptr;
  }

 private:
  static VTop* init_top(const char* name) {
    Verilated::traceEverOn(true);  // before the model: it then keeps its trace state
    return new VTop(name);
  }

  void bind() {
    VTop& t = *top_;
    t.clk(clk_);
    t.rst_n(rst_n_);
    t.start(start_);
    t.cfg_log_n(cfg_log_n_);
    t.cfg_inverse(cfg_inverse_);
    t.cfg_limbs(cfg_limbs_);
    t.busy(busy_);
    t.done(done_);
    t.error(error_);
    t.err_code(err_code_);
    t.in_valid(in_valid_);
    t.in_ready(in_ready_);
    t.in_data(in_data_);
    t.tw_valid(tw_valid_);
    t.tw_ready(tw_ready_);
    t.tw_data(tw_data_);
    t.tw_q(tw_q_);
    t.tw_q_inv(tw_q_inv_);
    t.out_valid(out_valid_);
    t.out_ready(out_ready_);
    t.out_data(out_data_);
    t.cycle(cycle_);
    t.chk_error(chk_error_);
    t.chk_code(chk_code_);
    t.chk_cycle(chk_cycle_);
  }

  uint64_t now_cycle() const { return sc_core::sc_time_stamp().value() / period_.value(); }
  double now_ns() const { return sc_core::sc_time_stamp().to_seconds() * 1e9; }

  void posedge() {
    wait(clk_.posedge_event());
    ++clocked_;
  }
  /// Asynchronous reset, asserted and released within the current time (delta cycles): no clock
  /// edge and no simulated time is spent. Leaves the clock stopped.
  void reset() {
    start_.write(false);
    in_valid_.write(false);
    tw_valid_.write(false);
    out_ready_.write(false);
    rst_n_.write(false);
    wait(sc_core::SC_ZERO_TIME);  // rst_n falls: the core's reset branches run
    wait(sc_core::SC_ZERO_TIME);
    rst_n_.write(true);
    wait(sc_core::SC_ZERO_TIME);
  }
  void stop_clock() {
    wait(clk_.negedge_event());
    clk_.stop();
    clk_running_ = false;
  }

  void run() {
    // An sc_clock starts with a rising edge at time 0 (the core is idle then); stop it low after
    // the first falling edge: from now on the core is clocked only while a job runs.
    stop_clock();
    reset();
    while (true) {
      while (jobs_.empty()) wait(job_event_);
      NttRtlJob& j = jobs_.front();
      const bool ok = play(j);
      NttRtlJob finished = std::move(jobs_.front());
      jobs_.pop_front();
      if (!ok) {
        if (clk_running_) stop_clock();
        reset();
      }
      if (done_fn_) done_fn_(finished);
      // Back to back: the next job drives start in this very cycle, the clock keeps running.
      if (clk_running_ && (jobs_.empty() || jobs_.front().start_cycle != now_cycle())) stop_clock();
    }
  }

  // ---- one job ------------------------------------------------------------------------------

  struct Stream {
    uint64_t limb = 0, beat = 0;  // next beat to send or take
    bool valid = false;           // valid driven for the current cycle
  };

  bool fail(NttRtlJob& j, const std::string& why) {
    j.error = "ntt core (rtl) at " + fmt_ns(now_ns()) + " ns: " + j.label + ": " + why;
    start_.write(false);
    in_valid_.write(false);
    tw_valid_.write(false);
    out_ready_.write(false);
    return false;
  }
  static std::string fmt_ns(double ns) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", ns);
    return buf;
  }

  /// Plays job j on the pins. Returns false with j.error set if it failed.
  bool play(NttRtlJob& j) {
    const uint64_t s = j.start_cycle;
    const uint64_t n = uint64_t(1) << j.log_n;
    const uint64_t t_rows = p_.rows(j.log_n);
    if (j.moduli.size() != j.limbs)
      return fail(j, "moduli table has " + std::to_string(j.moduli.size()) + " entries for " +
                         std::to_string(j.limbs) + " limbs");
    if (!j.data.empty() && j.data.size() != j.limbs * n) return fail(j, "data size does not match limbs x N");
    if (s < now_cycle())
      return fail(j, "start cycle " + std::to_string(s) + " lies in the past (cycle " +
                         std::to_string(now_cycle()) + ")");
    tables_.clear();
    for (uint64_t q : j.moduli)
      if (!tables_.count(q)) {
        try {
          tables_[q] = twiddle_table(q, j.log_n, p_.width);
        } catch (const Error& e) { return fail(j, e.message()); }
      }
    const bool inv = j.inverse;
    Stream in, tw, out;
    const uint64_t beats = uint64_t(j.limbs) * t_rows;

    // Start, driven during cycle s.
    cfg_log_n_.write(j.log_n);
    cfg_inverse_.write(inv);
    cfg_limbs_.write(j.limbs);
    start_.write(true);
    if (!clk_running_) {
      clk_.start_at(sc_core::sc_time::from_value((s + 1) * period_.value()));
      clk_running_ = true;
    } else if (s != now_cycle()) {
      return fail(j, "start cycle " + std::to_string(s) + " is not the current cycle of a running clock");
    }
    bool restarted = false, corrupted = false;
    const uint64_t limit = p_.watchdog_cycles(j.log_n, j.limbs);
    while (true) {
      posedge();
      const uint64_t k = now_cycle();  // the cycle that begins now; outputs show cycle k - 1
      if (k == s + 1) start_.write(false);
      // Handshakes of cycle k - 1.
      if (in.valid && in_ready_.read() && ++in.beat == t_rows) {
        in.beat = 0;
        ++in.limb;
      }
      if (tw.valid && tw_ready_.read() && ++tw.beat == t_rows) {
        tw.beat = 0;
        ++tw.limb;
      }
      if (out.valid && out_valid_.read()) {
        take_out_beat(j, out, inv);
        if (++out.beat == t_rows) {
          out.beat = 0;
          ++out.limb;
        }
      }
      if (chk_error_.read())
        return fail(j, std::string("protocol violation ") + ntt_checker_rule_name(chk_code_.read()) +
                           " in core cycle " + std::to_string(chk_cycle_.read()));
      if (done_.read()) {
        if (error_.read()) return fail(j, std::string("core error ") + ntt_core_error_name(err_code_.read()));
        if (out.limb * t_rows + out.beat != beats)
          return fail(j, "done after " + std::to_string(out.limb * t_rows + out.beat) + " of " +
                             std::to_string(beats) + " output beats");
        j.done_cycle = k;
        j.done_ns = now_ns();
        in_valid_.write(false);
        tw_valid_.write(false);
        out_ready_.write(false);
        return true;
      }
      if (k - s > limit)
        return fail(j, "no done within " + std::to_string(limit) + " cycles of start (cycle " +
                           std::to_string(s) + ", " + std::to_string(out.limb * t_rows + out.beat) + " of " +
                           std::to_string(beats) + " output beats)");
      if (stim_.restart_while_busy && !restarted && busy_.read()) {
        start_.write(true);
        restarted = true;
      }
      // Drive cycle k.
      drive_in(j, in, inv, k, corrupted);
      drive_tw(j, tw, inv, k);
      out.valid = !(stim_.out_stall && stim_.out_stall(k));
      out_ready_.write(out.valid);
    }
  }

  void drive_in(const NttRtlJob& j, Stream& in, bool inv, uint64_t k, bool& corrupted) {
    const uint64_t t_rows = p_.rows(j.log_n);
    const bool held = in.valid && !in_ready_.read();
    if (held) {  // AXI rule: hold valid and data
      if (stim_.corrupt_held_in_beat && !corrupted) {
        BeatT b = in_data_.read();
        flip_bit0(b);
        in_data_.write(b);
        corrupted = true;
      }
      return;
    }
    in.valid = in.limb < j.limbs && !(stim_.in_gap && stim_.in_gap(k));
    in_valid_.write(in.valid);
    if (!in.valid) return;
    const uint64_t n = uint64_t(1) << j.log_n;
    const uint32_t words = 2 * p_.lanes;
    beat_.assign(words, 0);
    if (!j.data.empty()) {
      const uint64_t* limb = j.data.data() + in.limb * n;
      for (uint32_t w = 0; w < words; ++w)
        beat_[w] = limb[beat_word_index(j.log_n, p_.lanes, in.beat, w, in_split_half(inv))];
    }
    in_data_.write(pack(beat_));
    (void)t_rows;
  }

  void drive_tw(const NttRtlJob& j, Stream& tw, bool inv, uint64_t k) {
    const bool held = tw.valid && !tw_ready_.read();
    if (held) return;
    tw.valid = tw.limb < j.limbs && !(stim_.tw_gap && stim_.tw_gap(k));
    tw_valid_.write(tw.valid);
    if (!tw.valid) return;
    const uint64_t q = j.moduli[tw.limb];
    const std::vector<uint64_t>& table = tables_.at(q);
    const uint64_t row = tw_beat_row(tw.beat, p_.rows(j.log_n), inv);
    tw_data_.write(pack(table.data() + row * p_.lanes, 2 * p_.lanes));
    tw_q_.write(WordT(q));
    const uint64_t q_inv = mont_q_inv(q, p_.width) ^ (stim_.corrupt_q_inv && tw.limb == 0 ? 2u : 0u);
    tw_q_inv_.write(WordT(q_inv));
  }

  void take_out_beat(NttRtlJob& j, const Stream& out, bool inv) {
    if (j.data.empty()) return;
    const uint64_t n = uint64_t(1) << j.log_n;
    unpack(out_data_.read(), beat_);
    uint64_t* limb = j.data.data() + out.limb * n;
    for (uint32_t w = 0; w < 2 * p_.lanes; ++w)
      limb[beat_word_index(j.log_n, p_.lanes, out.beat, w, out_split_half(inv))] = beat_[w];
  }

  // ---- beats <-> words ----------------------------------------------------------------------

  BeatT pack(const std::vector<uint64_t>& words) const { return pack(words.data(), words.size()); }
  BeatT pack(const uint64_t* words, size_t count) const {
    BeatT b;
    const uint32_t w = p_.width;
    if constexpr (std::is_integral_v<BeatT>) {
      b = 0;
      for (size_t i = 0; i < count; ++i) b |= BeatT(words[i]) << (i * w);
    } else {
      std::vector<uint32_t> d((count * w + 31) / 32, 0);
      for (size_t i = 0; i < count; ++i) put_bits(d, i * w, w, words[i]);
      for (size_t i = 0; i < d.size(); ++i) b.set_word(int(i), d[i]);
    }
    return b;
  }
  void unpack(const BeatT& b, std::vector<uint64_t>& words) const {
    const uint32_t w = p_.width;
    const size_t count = 2 * p_.lanes;
    words.assign(count, 0);
    if constexpr (std::is_integral_v<BeatT>) {
      const uint64_t mask = w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
      for (size_t i = 0; i < count; ++i) words[i] = (uint64_t(b) >> (i * w)) & mask;
    } else {
      std::vector<uint32_t> d((count * w + 31) / 32);
      for (size_t i = 0; i < d.size(); ++i) d[i] = b.get_word(int(i));
      for (size_t i = 0; i < count; ++i) words[i] = get_bits(d, i * w, w);
    }
  }
  static void put_bits(std::vector<uint32_t>& d, size_t at, uint32_t bits, uint64_t v) {
    for (uint32_t done = 0; done < bits;) {
      const size_t word = (at + done) / 32, off = (at + done) % 32;
      const uint32_t take = std::min<uint32_t>(32 - uint32_t(off), bits - done);
      const uint64_t part = (v >> done) & ((uint64_t(1) << take) - 1);
      d[word] |= uint32_t(part << off);
      done += take;
    }
  }
  static uint64_t get_bits(const std::vector<uint32_t>& d, size_t at, uint32_t bits) {
    uint64_t v = 0;
    for (uint32_t done = 0; done < bits;) {
      const size_t word = (at + done) / 32, off = (at + done) % 32;
      const uint32_t take = std::min<uint32_t>(32 - uint32_t(off), bits - done);
      v |= uint64_t((d[word] >> off) & ((uint64_t(1) << take) - 1)) << done;
      done += take;
    }
    return v;
  }
  static void flip_bit0(BeatT& b) {
    if constexpr (std::is_integral_v<BeatT>)
      b ^= 1;
    else
      b.set_word(0, b.get_word(0) ^ 1u);
  }

  // ---- waveform window ----------------------------------------------------------------------

  void trace_thread() {
    if (trace_path_.empty()) return;
    const sc_core::sc_time start(trace_start_ns_, sc_core::SC_NS);
    // The trace file may only open after elaboration: at the first delta of the window.
    wait(start > sc_core::SC_ZERO_TIME ? start : sc_core::sc_time(1, sc_core::SC_PS));
    tfp_ = new VerilatedFstSc;
    top_->trace(tfp_, 99);
    tfp_->open(trace_path_.c_str());
    if (trace_end_ns_ > trace_start_ns_) {
      wait(sc_core::sc_time(trace_end_ns_, sc_core::SC_NS) - sc_core::sc_time_stamp());
      close_trace();
    }
  }

  NttRtlParams p_;
  sc_core::sc_time period_;
  StoppableClock clk_;
  sc_core::sc_signal<bool> rst_n_{"rst_n", true};
  sc_core::sc_signal<bool> start_{"start"}, cfg_inverse_{"cfg_inverse"}, busy_{"busy"}, done_{"done"},
      error_{"error"}, in_valid_{"in_valid"}, in_ready_{"in_ready"}, tw_valid_{"tw_valid"},
      tw_ready_{"tw_ready"}, out_valid_{"out_valid"}, out_ready_{"out_ready"}, chk_error_{"chk_error"};
  sc_core::sc_signal<uint32_t> cfg_log_n_{"cfg_log_n"}, cfg_limbs_{"cfg_limbs"}, err_code_{"err_code"},
      chk_code_{"chk_code"};
  sc_core::sc_signal<BeatT> in_data_{"in_data"}, tw_data_{"tw_data"}, out_data_{"out_data"};
  sc_core::sc_signal<WordT> tw_q_{"tw_q"}, tw_q_inv_{"tw_q_inv"};
  sc_core::sc_signal<uint64_t> cycle_{"cycle"}, chk_cycle_{"chk_cycle"};
  std::unique_ptr<VTop> top_;

  std::deque<NttRtlJob> jobs_;
  sc_core::sc_event job_event_;
  DoneFn done_fn_;
  NttRtlStimulus stim_;
  bool clk_running_ = true;  // an sc_clock starts at time 0; run() stops it
  uint64_t clocked_ = 0;
  std::map<uint64_t, std::vector<uint64_t>> tables_;
  std::vector<uint64_t> beat_;

  std::string trace_path_;
  double trace_start_ns_ = 0, trace_end_ns_ = 0;
  VerilatedFstSc* tfp_ = nullptr;
};

}  // namespace photon::cosim
