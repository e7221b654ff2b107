#include "models/hbm/hbm_prefetch.h"

#include <system_error>
#include <utility>

namespace photon {

HbmCalibrationPrefetch::HbmCalibrationPrefetch(std::vector<HbmCalibrationJob> jobs, Compute compute,
                                               unsigned threads)
    : compute_(std::move(compute)) {
  slots_.reserve(jobs.size());
  for (const HbmCalibrationJob& j : jobs) {
    if (!index_.emplace(key(j), slots_.size()).second) continue;
    slots_.emplace_back();
    slots_.back().job = j;
  }
  if (slots_.empty()) return;
  threads_.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) {
    try {
      threads_.emplace_back([this] { helper(); });
    } catch (const std::system_error&) {  // no more threads: the ones running (or the caller) do the rest
      break;
    }
  }
}

HbmCalibrationPrefetch::~HbmCalibrationPrefetch() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  cancel_.store(true, std::memory_order_relaxed);
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void HbmCalibrationPrefetch::run(size_t i, std::unique_lock<std::mutex>& lock) {
  const HbmCalibrationJob job = slots_[i].job;
  lock.unlock();
  std::vector<HbmRateProbe> probes;
  std::exception_ptr error;
  try {
    probes = compute_(job, cancel_);
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  slots_[i].probes = std::move(probes);
  slots_[i].error = error;
  slots_[i].state = State::kDone;
  cv_.notify_all();
}

bool HbmCalibrationPrefetch::claim_next(size_t& i) {
  while (next_ < slots_.size() && slots_[next_].state != State::kTodo) ++next_;
  if (next_ == slots_.size()) return false;
  i = next_++;
  slots_[i].state = State::kRunning;
  return true;
}

void HbmCalibrationPrefetch::helper() {
  std::unique_lock<std::mutex> lock(m_);
  size_t i = 0;
  while (!stop_ && claim_next(i)) {
    slots_[i].by_helper = true;
    run(i, lock);
  }
}

bool HbmCalibrationPrefetch::take(const HbmCalibrationJob& job, std::vector<HbmRateProbe>& out) {
  std::unique_lock<std::mutex> lock(m_);
  const auto it = index_.find(key(job));
  if (it == index_.end()) return false;
  Slot& s = slots_[it->second];
  if (s.state == State::kTaken) return false;
  if (s.state == State::kTodo) {  // no helper has started it: compute it here
    s.state = State::kRunning;
    run(it->second, lock);
  }
  // While a helper computes it, compute the next planned one that nobody has started.
  size_t i = 0;
  while (s.state != State::kDone && claim_next(i)) run(i, lock);
  cv_.wait(lock, [&] { return s.state == State::kDone; });
  s.state = State::kTaken;
  ++taken_;
  if (s.by_helper) ++from_helpers_;
  if (s.error) std::rethrow_exception(s.error);
  out = std::move(s.probes);
  return true;
}

}  // namespace photon
