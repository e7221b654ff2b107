#include "models/dma/dma.h"

#include <algorithm>
#include <cstdio>
#include <deque>

namespace photon {

using sc_core::sc_time;
using sc_core::SC_NS;

DmaUnit::DmaUnit(sc_core::sc_module_name name, const DmaConfig& cfg, bool functional, const Wiring& w)
    : QueueUnit(name, "DMA", "dma", w), data("data"), cfg_(cfg), functional_(functional),
      channel_free_(cfg.channels, sc_core::SC_ZERO_TIME), buffer_(cfg.burst_bytes) {}

void DmaUnit::probe(uint64_t lo, uint64_t hi, const char* what) {
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(lo);
  gp.set_data_ptr(nullptr);
  gp.set_data_length(unsigned(std::min<uint64_t>(hi - lo, 0xFFFFFFFFu)));
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  data->transport_dbg(gp);
  if (gp.get_response_status() != tlm::TLM_OK_RESPONSE || hi - lo > 0xFFFFFFFFu) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s range [0x%llx, 0x%llx) is not inside one memory", what,
                  (unsigned long long)lo, (unsigned long long)hi);
    throw UnitFault(UnitErrorCode::Address, buf);
  }
}

sc_time DmaUnit::transfer(bool write, uint64_t addr, uint8_t* buf, uint32_t len, sc_time at) {
  tlm::tlm_generic_payload gp;
  gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(buf);
  gp.set_data_length(len);
  gp.set_streaming_width(len);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time delay = at - sc_core::sc_time_stamp();
  data->b_transport(gp, delay);
  if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
    char msg[128];
    std::snprintf(msg, sizeof msg, "%s of %u bytes at 0x%llx failed: %s", write ? "write" : "read",
                  len, (unsigned long long)addr, gp.get_response_string().c_str());
    throw UnitFault(UnitErrorCode::Bus, msg);
  }
  return sc_core::sc_time_stamp() + delay;
}

QueueUnit::Timing DmaUnit::execute(const pcs::Command& c, uint32_t) {
  const auto* d = std::get_if<pcs::DmaCopy>(&c.body);
  if (!d) throw UnitFault(UnitErrorCode::Decode, "not a DMA command");
  if (d->channel >= channel_free_.size())
    throw UnitFault(UnitErrorCode::Decode, "channel " + std::to_string(d->channel) + " out of range (dma.channels = " +
                                               std::to_string(channel_free_.size()) + ")");
  if (d->inner_bytes == 0 || d->n1 == 0 || d->n2 == 0)
    throw UnitFault(UnitErrorCode::Decode, "zero-sized copy (inner_bytes, n1 and n2 must be > 0)");
  auto extent = [&](uint64_t base, uint64_t s1, uint64_t s2) {
    return base + uint64_t(d->n2 - 1) * s2 + uint64_t(d->n1 - 1) * s1 + d->inner_bytes;
  };
  probe(d->src, extent(d->src, d->src_stride1, d->src_stride2), "source");
  probe(d->dst, extent(d->dst, d->dst_stride1, d->dst_stride2), "destination");

  const sc_time now = sc_core::sc_time_stamp();
  const sc_time cycle(1.0 / cfg_.clock_ghz, SC_NS);
  sc_time& chan = channel_free_[d->channel];
  const sc_time start = std::max(now, chan) + cfg_.setup_cycles * cycle;
  std::deque<sc_time> inflight;  // completion times of the last `outstanding` bursts
  sc_time issue = start, done = start;
  for (uint32_t i2 = 0; i2 < d->n2; ++i2) {
    for (uint32_t i1 = 0; i1 < d->n1; ++i1) {
      uint64_t src = d->src + uint64_t(i2) * d->src_stride2 + uint64_t(i1) * d->src_stride1;
      uint64_t dst = d->dst + uint64_t(i2) * d->dst_stride2 + uint64_t(i1) * d->dst_stride1;
      for (uint64_t off = 0; off < d->inner_bytes; off += cfg_.burst_bytes) {
        uint32_t len = uint32_t(std::min<uint64_t>(cfg_.burst_bytes, d->inner_bytes - off));
        if (inflight.size() >= cfg_.outstanding) {
          issue = std::max(issue, inflight.front());
          inflight.pop_front();
        }
        sc_time read_done = transfer(false, src + off, buffer_.data(), len, issue);
        sc_time write_done = transfer(true, dst + off, buffer_.data(), len, read_done);
        inflight.push_back(write_done);
        done = std::max(done, write_done);
        issue += cycle;  // one request per engine cycle
        bytes_ += len;
      }
    }
  }
  (void)functional_;
  chan = done;
  stats_.energy_pj += double(uint64_t(d->inner_bytes) * d->n1 * d->n2) * cfg_.energy_pj_per_byte;
  stats_.counters["bytes"] += double(uint64_t(d->inner_bytes) * d->n1 * d->n2);
  // The queue accepts the next command once this copy's last burst is issued.
  return Timing{std::max(now, issue), done};
}

}  // namespace photon
