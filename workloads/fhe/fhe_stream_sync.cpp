#include "workloads/fhe/fhe_stream_sync.h"

#include <algorithm>

namespace photon::fhe {

template <class F>
void FheStreamSync::touch(uint64_t lo, uint64_t hi, F&& f) {
  for (const Range& r : ranges_)
    if (r.lo < hi && lo < r.hi) f(r);
}

void FheStreamSync::end_dma_group() {
  if (!dma_open_) return;
  w_.sync(pcs::Opcode::Signal, pcs::Queue::Dma, kSemDmaDone);
  ++dma_signals_;
  dma_open_ = false;
}

void FheStreamSync::end_ntt_group() {
  if (!ntt_open_) return;
  w_.sync(pcs::Opcode::Signal, pcs::Queue::Ntt, kSemNttDone);
  ++ntt_signals_;
  ntt_open_ = false;
}

void FheStreamSync::ntt_wait(uint64_t group) {
  if (group == dma_signals_) end_dma_group();
  for (; ntt_waited_ <= group; ++ntt_waited_) w_.sync(pcs::Opcode::Wait, pcs::Queue::Ntt, kSemDmaDone);
}

void FheStreamSync::dma_wait(uint64_t group) {
  if (group == ntt_signals_) end_ntt_group();
  for (; dma_waited_ <= group; ++dma_waited_) w_.sync(pcs::Opcode::Wait, pcs::Queue::Dma, kSemNttDone);
}

void FheStreamSync::supersede(const Span* spans, size_t n) {
  ranges_.erase(std::remove_if(ranges_.begin(), ranges_.end(),
                               [&](const Range& r) {
                                 const bool stale = (r.dma == kNone || r.dma < ntt_waited_) &&
                                                    (r.ntt == kNone || r.ntt < dma_waited_);
                                 if (stale) return true;
                                 for (size_t i = 0; i < n; ++i)
                                   if (r.lo >= spans[i].lo && r.hi <= spans[i].hi) return true;  // inside
                                 return false;
                               }),
                ranges_.end());
}

// One range after the other, the table updated once: an earlier range's new entry has no DMA
// group (it adds no Wait for a later range), an entry it would supersede is one its Wait ordered
// already, and a stale entry adds no Wait either; so each range's Waits, in order, are those of
// separate calls. The table may keep a range inside a later one: same groups, no other effect.
void FheStreamSync::ntt_access(const Span* spans, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    uint64_t need = kNone;
    touch(spans[i].lo, spans[i].hi, [&](const Range& r) {
      if (r.dma != kNone && r.dma >= ntt_waited_) need = need == kNone ? r.dma : std::max(need, r.dma);
    });
    if (need != kNone) ntt_wait(need);
  }
  // Entries inside the ranges are superseded: their DMA hazard is now ordered for the NTT queue
  // and their NTT group is no later than the open one.
  supersede(spans, n);
  for (size_t i = 0; i < n; ++i) ranges_.push_back({spans[i].lo, spans[i].hi, kNone, ntt_signals_});
  ntt_open_ = true;
}

void FheStreamSync::dma_access(uint64_t lo, uint64_t hi) {
  uint64_t need = kNone;
  touch(lo, hi, [&](const Range& r) {
    if (r.ntt != kNone && r.ntt >= dma_waited_) need = need == kNone ? r.ntt : std::max(need, r.ntt);
  });
  if (need != kNone) dma_wait(need);
  const Span s{lo, hi};
  supersede(&s, 1);
  ranges_.push_back({lo, hi, dma_signals_, kNone});
  dma_open_ = true;
}

void FheStreamSync::drain() {
  for (; ntt_waited_ < dma_signals_; ++ntt_waited_) w_.sync(pcs::Opcode::Wait, pcs::Queue::Ntt, kSemDmaDone);
  for (; dma_waited_ < ntt_signals_; ++dma_waited_) w_.sync(pcs::Opcode::Wait, pcs::Queue::Dma, kSemNttDone);
}

}  // namespace photon::fhe
