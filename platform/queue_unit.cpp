#include "platform/queue_unit.h"

#include <algorithm>
#include <cstring>

#include "base/error.h"

namespace photon {

namespace {
double ns(const sc_core::sc_time& t) { return t.to_seconds() * 1e9; }
constexpr uint32_t kErrDecode = uint32_t(UnitErrorCode::DECODE);
constexpr uint32_t kErrSemaphore = uint32_t(UnitErrorCode::SEMAPHORE);
}  // namespace

QueueUnit::QueueUnit(sc_core::sc_module_name name, const Wiring& w)
    : sc_module(name), regs_(w.regs_instance), unit_(w.unit), w_(w) {
  regs_.on_write(regs::QUEUE::PUSH, [this](uint32_t, uint32_t index) { on_push(index); });
  regs_.on_read(regs::QUEUE::STATUS, [this](uint32_t) {
    using namespace regs::QUEUE;
    uint32_t count = uint32_t(fifo_.size()) + (executing_ ? 1 : 0);
    bool busy = count > 0 || !deferred_.empty() || last_done_ > sc_core::sc_time_stamp();
    uint32_t free = w_.depth > count ? w_.depth - count : 0;
    const uint32_t saturated = STATUS_COUNT.mask() >> STATUS_COUNT.lsb;
    return STATUS_BUSY.put(busy) | STATUS_ERROR.put(error_code_ != 0) | STATUS_WAITING.put(waiting_) |
           STATUS_COUNT.put(std::min(count, saturated)) | STATUS_FREE.put(std::min(free, saturated));
  });
  SC_THREAD(run);
  SC_THREAD(post_signals);
}

void QueueUnit::post_signals() {
  using sc_core::sc_time_stamp;
  while (true) {
    if (posted_.empty() || posted_.front().after > deferred_completed_) {
      post_listens_ = true;
      wait(posted_changed_);
      post_listens_ = false;
      continue;
    }
    const Posted p = posted_.front();
    if (p.at > sc_time_stamp()) {
      wait(p.at - sc_time_stamp());
      continue;
    }
    posted_.pop_front();
    w_.sems->signal(p.sem);
  }
}

std::string QueueUnit::event_name(const pcs::Command& c) const { return pcs::opcode_name(c.opcode); }

void QueueUnit::on_push(uint32_t index) {
  if (error_code_) return;  // a stopped queue accepts nothing
  uint8_t bytes[pcs::kCommandBytes];
  const std::vector<uint32_t>& words = regs_.values(regs::QUEUE::CMD);
  static_assert(pcs::kCommandBytes == 64, "QUEUE.CMD holds one 64-byte command");
  if (words.size() * 4 != pcs::kCommandBytes) throw Error(unit_ + ": QUEUE.CMD is not 16 words");
  std::memcpy(bytes, words.data(), pcs::kCommandBytes);
  pcs::Command c;
  try {
    c = pcs::decode(bytes);
  } catch (const Error& e) {
    fail(kErrDecode, index, e.what());
    return;
  }
  if (fifo_.size() + (executing_ ? 1 : 0) >= w_.depth) {
    fail(kErrDecode, index, "push to a full queue (depth " + std::to_string(w_.depth) + ")");
    return;
  }
  push(c, index);
}

void QueueUnit::push(const pcs::Command& c, uint32_t index) {
  note_occupancy();
  fifo_.push_back(Entry{c, index});
  max_occupancy_ = std::max<uint32_t>(max_occupancy_, uint32_t(fifo_.size()));
  if (run_listens_) pushed_.notify(sc_core::SC_ZERO_TIME);
}

void QueueUnit::note_occupancy() {
  double now = ns(sc_core::sc_time_stamp());
  occ_area_ += double(fifo_.size()) * (now - occ_last_ns_);
  occ_last_ns_ = now;
}

double QueueUnit::mean_occupancy(double end_ns) const {
  double area = occ_area_ + double(fifo_.size()) * (end_ns - occ_last_ns_);
  return end_ns > 0 ? area / end_ns : 0;
}

void QueueUnit::fail(uint32_t code, uint32_t index, const std::string& why) {
  error_code_ = code;
  error_message_ = "command " + std::to_string(index) + ": " + unit_ + ": " + why;
  regs_.set(regs::QUEUE::ERROR_CODE, code);
  regs_.set(regs::QUEUE::ERROR_CMD, index);
  if (w_.irq) w_.irq->raise(w_.err_bit);
}

std::string QueueUnit::blocked_on() const {
  if (!waiting_) return "";
  return "command " + std::to_string(blocked_index_) + " (wait on semaphore " + std::to_string(blocked_sem_) +
         " in queue " + unit_ + ")";
}

void QueueUnit::complete_deferred(uint32_t index, const sc_core::sc_time& done) {
  if (deferred_.empty() || deferred_.front().index != index)
    throw Error(unit_ + ": completion of command " + std::to_string(index) + " out of order");
  const Deferred d = deferred_.front();
  deferred_.pop_front();
  const double s = ns(d.issued), e = ns(done);
  stats_.add_busy(s, e);
  stats_.commands++;
  if (w_.trace) w_.trace->add({"queue." + unit_, event_name(d.cmd), s, e, d.cmd.tag, d.index});
  if (done > last_done_) last_done_ = done;
  ++deferred_completed_;
  // Signals waiting for exactly these completions are raised no earlier than this one.
  for (Posted& p : posted_)
    if (p.after == deferred_completed_ && p.at < last_done_) p.at = last_done_;
  if (run_listens_) deferred_done_.notify(sc_core::SC_ZERO_TIME);
  if (post_listens_) posted_changed_.notify(sc_core::SC_ZERO_TIME);
}

void QueueUnit::fail_deferred(uint32_t code, uint32_t index, const std::string& why) {
  fail(code, index, why);
  stopped_ = true;
  deferred_.clear();
  deferred_done_.notify(sc_core::SC_ZERO_TIME);
  pushed_.notify(sc_core::SC_ZERO_TIME);
}

void QueueUnit::run() {
  using sc_core::sc_time;
  using sc_core::sc_time_stamp;
  while (true) {
    if (stopped_) return;
    if (fifo_.empty() && !deferred_.empty()) {
      // Completions still to come: idle (and its interrupt) only after the last of them.
      run_listens_ = true;
      wait(pushed_ | deferred_done_);
      run_listens_ = false;
      if (!stopped_ && fifo_.empty() && deferred_.empty() && !idle_reported_ &&
          sc_time_stamp() >= last_done_) {
        idle_reported_ = true;
        if (w_.irq) w_.irq->raise(w_.done_bit);  // queue idle
      }
      continue;
    }
    if (fifo_.empty()) {
      // Idle until a command arrives; if work is still in flight, also wake when it completes
      // to raise the idle interrupt (the next command must not wait for that completion).
      if (last_done_ > sc_time_stamp() && !idle_reported_) {
        run_listens_ = true;
        wait(last_done_ - sc_time_stamp(), pushed_);
        run_listens_ = false;
        if (fifo_.empty() && sc_time_stamp() >= last_done_) {
          idle_reported_ = true;
          if (w_.irq) w_.irq->raise(w_.done_bit);  // queue idle
        }
      } else {
        run_listens_ = true;
        wait(pushed_);
        run_listens_ = false;
      }
      continue;
    }
    idle_reported_ = false;
    note_occupancy();
    Entry e = fifo_.front();
    fifo_.pop_front();
    executing_ = true;
    const pcs::Command& c = e.cmd;
    sc_time start = sc_time_stamp();
    if (c.opcode == pcs::Opcode::Signal || c.opcode == pcs::Opcode::Wait) {
      uint32_t sem = std::get<pcs::Sync>(c.body).sem;
      if (!w_.sems || sem >= w_.sems->count()) {
        fail(kErrSemaphore, e.index, "semaphore " + std::to_string(sem) + " out of range");
        executing_ = false;
        return;
      }
      if (c.opcode == pcs::Opcode::Signal) {
        // Posted: raised when every earlier command has completed (last_done_, and the deferred
        // ones issued so far once they report); later commands issue meanwhile.
        if (posted_.empty() && deferred_completed_ >= deferred_issued_ && last_done_ <= sc_time_stamp()) {
          w_.sems->signal(sem);
        } else {
          posted_.push_back({last_done_, deferred_issued_, sem});
          if (post_listens_) posted_changed_.notify(sc_core::SC_ZERO_TIME);
        }
      } else {
        waiting_ = true;
        blocked_index_ = e.index;
        blocked_sem_ = sem;
        while (!w_.sems->try_take(sem)) wait(w_.sems->changed);
        waiting_ = false;
      }
      if (w_.trace && sc_time_stamp() > start)
        w_.trace->add({"queue." + unit_, c.opcode == pcs::Opcode::Wait ? "wait" : "signal", ns(start),
                       ns(sc_time_stamp()), c.tag, e.index, true});
    } else {
      Timing t;
      try {
        t = execute(c, e.index);
      } catch (const UnitFault& f) {
        fail(uint32_t(f.code()), e.index, f.what());
        executing_ = false;
        return;
      } catch (const Error& f) {
        fail(kErrDecode, e.index, f.what());
        executing_ = false;
        return;
      }
      if (t.deferred) {
        deferred_.push_back({c, e.index, start});
        ++deferred_issued_;
      } else {
        double s = ns(start), d = ns(t.done);
        stats_.add_busy(s, d);
        stats_.commands++;
        if (w_.trace) w_.trace->add({"queue." + unit_, event_name(c), s, d, c.tag, e.index});
        if (t.done > last_done_) last_done_ = t.done;
      }
      if (t.accept > sc_time_stamp()) wait(t.accept - sc_time_stamp());
      if (stopped_) return;
    }
    executing_ = false;
    regs_.set(regs::QUEUE::DONE_COUNT, regs_.get(regs::QUEUE::DONE_COUNT) + 1);
    if (w_.irq) w_.irq->raise(w_.done_bit);
  }
}

}  // namespace photon
