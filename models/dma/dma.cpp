#include "models/dma/dma.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "platform/noc/stream_extension.h"

namespace photon {

using sc_core::SC_NS;
using sc_core::sc_time;

DmaUnit::DmaUnit(sc_core::sc_module_name name, const DmaConfig& cfg, bool functional, const Wiring& w)
    : QueueUnit(name, w),
      data("data"),
      cfg_(cfg),
      functional_(functional),
      channel_free_(cfg.channels, sc_core::SC_ZERO_TIME),
      buffer_(cfg.burst_bytes) {}

bool DmaUnit::debug(bool write, uint64_t addr, uint8_t* buf, uint32_t len) {
  tlm::tlm_generic_payload& gp = gp_;
  gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(buf);
  gp.set_data_length(len);
  gp.set_streaming_width(0);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_byte_enable_length(0);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  data->transport_dbg(gp);
  return gp.get_response_status() == tlm::TLM_OK_RESPONSE;
}

void DmaUnit::probe(uint64_t lo, uint64_t hi, const char* what) {
  if (hi - lo > 0xFFFFFFFFu || !debug(false, lo, nullptr, unsigned(hi - lo))) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s range [0x%llx, 0x%llx) is not inside one memory", what,
                  (unsigned long long)lo, (unsigned long long)hi);
    throw UnitFault(UnitErrorCode::ADDRESS, buf);
  }
}

sc_time DmaUnit::transfer(bool write, uint64_t addr, uint8_t* buf, uint32_t len, sc_time at,
                          StreamExtension* ext) {
  tlm::tlm_generic_payload& gp = gp_;
  gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(buf);
  gp.set_data_length(len);
  gp.set_streaming_width(len);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  // The extension lives on the caller's stack: it leaves the reused payload even if a target
  // throws (a payload frees the extensions it still holds when destroyed).
  struct Detach {
    tlm::tlm_generic_payload& gp;
    StreamExtension* ext;
    ~Detach() {
      if (ext) gp.clear_extension(ext);
    }
  } detach{gp, ext};
  if (ext) gp.set_extension(ext);
  sc_time delay = at - sc_core::sc_time_stamp();
  data->b_transport(gp, delay);
  if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
    char msg[160];
    std::snprintf(msg, sizeof msg, "%s of %u bytes%s at 0x%llx failed: %s", write ? "write" : "read", len,
                  ext ? (" (stream of " + std::to_string(len / ext->row_bytes) + " rows)").c_str() : "",
                  (unsigned long long)addr, gp.get_response_string().c_str());
    throw UnitFault(UnitErrorCode::BUS, msg);
  }
  return sc_core::sc_time_stamp() + delay;
}

sc_time DmaUnit::stream(bool write, const Stream& s, sc_time at) {
  StreamExtension ext;
  ext.row_bytes = s.row_bytes;
  ext.stride = s.stride;
  // Timing only (null data); the data moves by debug transport (copy_data).
  return transfer(write, s.addr, nullptr, uint32_t(s.row_bytes * s.rows), at, &ext);
}

void DmaUnit::copy_data(const Stream& src, const Stream& dst) {
  for (uint64_t r = 0; r < src.rows; ++r) {
    for (uint64_t off = 0; off < src.row_bytes; off += buffer_.size()) {
      const uint32_t len = uint32_t(std::min<uint64_t>(buffer_.size(), src.row_bytes - off));
      const uint64_t from = src.addr + r * src.stride + off, to = dst.addr + r * dst.stride + off;
      if (!debug(false, from, buffer_.data(), len) || !debug(true, to, buffer_.data(), len)) {
        char msg[96];
        std::snprintf(msg, sizeof msg, "debug copy of %u bytes from 0x%llx to 0x%llx failed", len,
                      (unsigned long long)from, (unsigned long long)to);
        throw UnitFault(UnitErrorCode::BUS, msg);
      }
    }
  }
}

QueueUnit::Timing DmaUnit::execute(const pcs::Command& c, uint32_t) {
  const auto* d = std::get_if<pcs::DmaCopy>(&c.body);
  if (!d) throw UnitFault(UnitErrorCode::DECODE, "not a DMA command");
  check(*d);
  const auto extent = [&](uint64_t base, uint64_t s1, uint64_t s2) { return *side_extent(*d, base, s1, s2); };
  probe(d->src, extent(d->src, d->src_stride1, d->src_stride2), "source");
  probe(d->dst, extent(d->dst, d->dst_stride1, d->dst_stride2), "destination");

  const uint64_t total = d->inner_bytes * d->n1 * d->n2;  // below kMaxCopyBytes (check)
  auto known = trips_.find(pair_of(*d));
  const Plan pl = plan(*d, known != trips_.end() && settled(known->second.stale));
  const uint64_t per_row = pl.per_row, bursts = pl.bursts, exact = pl.exact;

  const sc_time now = sc_core::sc_time_stamp();
  const sc_time cycle(1.0 / cfg_.clock_ghz, SC_NS);
  sc_time& chan = channel_free_[d->channel];
  const sc_time start = std::max(now, chan) + cfg_.setup_cycles * cycle;
  std::deque<sc_time> inflight;  // completion times of the last `outstanding` bursts
  sc_time issue = start, done = start, read_lat, write_lat;
  for (uint64_t b = 0; b < exact; ++b) {  // burst b: plane i2, row i1, offset off
    const uint64_t i2 = b / (per_row * d->n1), i1 = b / per_row % d->n1;
    const uint64_t off = b % per_row * cfg_.burst_bytes;
    const uint64_t src = d->src + i2 * d->src_stride2 + i1 * d->src_stride1 + off;
    const uint64_t dst = d->dst + i2 * d->dst_stride2 + i1 * d->dst_stride1 + off;
    const uint32_t len = uint32_t(std::min<uint64_t>(cfg_.burst_bytes, d->inner_bytes - off));
    if (inflight.size() >= cfg_.outstanding) {
      issue = std::max(issue, inflight.front());
      inflight.pop_front();
    }
    sc_time read_done = transfer(false, src, buffer_.data(), len, issue);
    sc_time write_done = transfer(true, dst, buffer_.data(), len, read_done);
    if (b == 0 || write_done - issue < read_lat + write_lat) {
      read_lat = read_done - issue;
      write_lat = write_done - read_done;
    }
    inflight.push_back(write_done);
    done = std::max(done, write_done);
    issue += cycle;  // one request per engine cycle
  }
  if (exact < bursts) {
    // The unloaded round trip between these two memories: the fastest seen so far (bursts that
    // queue behind earlier traffic measure more; that queueing is in the memories' streams).
    // Once dma.trip_patience measuring copies in a row have not lowered it, it is taken as
    // settled and later copies measure nothing.
    if (known == trips_.end()) {
      known = trips_.emplace(pair_of(*d), Trip{read_lat, write_lat, 0}).first;
    } else if (exact > 0) {
      Trip& t = known->second;
      if (read_lat + write_lat < t.read + t.write)
        t = Trip{read_lat, write_lat, 0};
      else
        ++t.stale;
    }
    read_lat = known->second.read;
    write_lat = known->second.write;
    done = std::max(done, stream_rest(*d, exact, issue, read_lat, write_lat));
  }
  bytes_ += total;
  chan = done;
  stats_.energy_pj += double(total) * cfg_.energy_pj_per_byte;
  stats_.counters["bytes"] += double(total);
  // The queue accepts the next command once this copy's last burst is issued.
  const sc_time last_issue =
      exact < bursts ? std::max(issue + double(bursts - exact - 1) * cycle, done - read_lat - write_lat)
                     : issue;
  return Timing{std::max(now, last_issue), done};
}

void DmaUnit::check(const pcs::DmaCopy& d) const {
  if (d.channel >= channel_free_.size())
    throw UnitFault(UnitErrorCode::DECODE,
                    "channel " + std::to_string(d.channel) +
                        " out of range (dma.channels = " + std::to_string(channel_free_.size()) + ")");
  if (d.inner_bytes == 0 || d.n1 == 0 || d.n2 == 0)
    throw UnitFault(UnitErrorCode::DECODE, "zero-sized copy (inner_bytes, n1 and n2 must be > 0)");
  const unsigned __int128 total128 = (unsigned __int128)d.inner_bytes * d.n1 * d.n2;
  if (total128 > kMaxCopyBytes)
    throw UnitFault(UnitErrorCode::DECODE,
                    "copy of inner_bytes x n1 x n2 = " + std::to_string(d.inner_bytes) + " x " +
                        std::to_string(d.n1) + " x " + std::to_string(d.n2) +
                        " bytes exceeds the 1 TiB limit of one descriptor");
  if (!side_extent(d, d.src, d.src_stride1, d.src_stride2))
    throw UnitFault(UnitErrorCode::ADDRESS, "source extent overflows 64-bit addresses");
  if (!side_extent(d, d.dst, d.dst_stride1, d.dst_stride2))
    throw UnitFault(UnitErrorCode::ADDRESS, "destination extent overflows 64-bit addresses");
}

std::optional<uint64_t> DmaUnit::side_extent(const pcs::DmaCopy& d, uint64_t base, uint64_t s1, uint64_t s2) {
  const unsigned __int128 e = (unsigned __int128)base + (unsigned __int128)(d.n2 - 1) * s2 +
                              (unsigned __int128)(d.n1 - 1) * s1 + d.inner_bytes;
  if (e > UINT64_MAX) return std::nullopt;
  return uint64_t(e);
}

DmaUnit::Plan DmaUnit::plan(const pcs::DmaCopy& d, bool measured) const {
  Plan p;
  p.per_row = (d.inner_bytes + cfg_.burst_bytes - 1) / cfg_.burst_bytes;
  p.bursts = p.per_row * d.n1 * d.n2;
  const uint64_t total = d.inner_bytes * d.n1 * d.n2;
  p.bulk = cfg_.bulk_bytes > 0 && total >= cfg_.bulk_bytes && p.bursts > 2;
  // Bulk: the first bursts run exactly and give the engine's unloaded round trip: the fastest of
  // them (the others queue behind each other or wait for a memory whose clock is ahead under
  // temporal decoupling).
  p.exact = !p.bulk ? p.bursts : measured ? 0 : std::min<uint64_t>(p.bursts - 1, kMeasuredBursts);
  return p;
}

void DmaUnit::bulk_streams(const pcs::Command& c, std::vector<BulkStream>& out) const {
  const auto* d = std::get_if<pcs::DmaCopy>(&c.body);
  if (!d) return;
  try {
    check(*d);
  } catch (const UnitFault&) {
    return;  // execute() refuses it: it issues nothing
  }
  // As execute() decides, taking each measurement as no improvement: a pair's first bulk copy
  // and the trip_patience after it measure (the fewest execute() can let measure).
  uint64_t& seen = planned_[pair_of(*d)];
  const Plan p = plan(*d, seen > 0 && settled(seen - 1));
  if (!p.bulk) return;
  ++seen;
  for (const auto& [src, dst] : split_rest(*d, p.exact)) {
    out.push_back(BulkStream{false, src.addr, src.row_bytes, src.rows, src.stride});
    out.push_back(BulkStream{true, dst.addr, dst.row_bytes, dst.rows, dst.stride});
  }
}

std::vector<std::pair<DmaUnit::Stream, DmaUnit::Stream>> DmaUnit::split_rest(const pcs::DmaCopy& d,
                                                                              uint64_t first) const {
  // Split bursts [first, end) into 2-D streams per side: the rest of the current row, the rest
  // of the current plane, then the remaining planes (one stream if planes are evenly spaced).
  const uint64_t per_row = (d.inner_bytes + cfg_.burst_bytes - 1) / cfg_.burst_bytes;
  const uint64_t i2 = first / (per_row * d.n1), i1 = first / per_row % d.n1;
  const uint64_t off = first % per_row * cfg_.burst_bytes;
  std::vector<std::pair<Stream, Stream>> parts;  // (source, destination)
  // One part: `rows` rows of `bytes` from (plane, row, skip), rows `along` 1 (stride1) or 2.
  auto add = [&](uint64_t plane, uint64_t row, uint64_t skip, uint64_t bytes, uint64_t rows, int along) {
    const uint64_t s = d.src + plane * d.src_stride2 + row * d.src_stride1 + skip;
    const uint64_t t = d.dst + plane * d.dst_stride2 + row * d.dst_stride1 + skip;
    const uint64_t ss = along == 1 ? d.src_stride1 : d.src_stride2;
    const uint64_t ts = along == 1 ? d.dst_stride1 : d.dst_stride2;
    parts.push_back({Stream{s, bytes, rows, ss}, Stream{t, bytes, rows, ts}});
  };
  uint64_t row = i1, plane = i2;
  if (off > 0) add(plane, row++, off, d.inner_bytes - off, 1, 1);
  if (row == d.n1) row = 0, ++plane;
  if (row > 0 && plane < d.n2) add(plane++, row, 0, d.inner_bytes, d.n1 - row, 1);
  const bool even = d.src_stride2 == d.n1 * d.src_stride1 && d.dst_stride2 == d.n1 * d.dst_stride1;
  const uint64_t planes = plane < d.n2 ? d.n2 - plane : 0;  // whole planes left
  if (planes > 0 && d.n1 == 1) {                            // one row per plane: the planes are the rows
    add(plane, 0, 0, d.inner_bytes, planes, 2);
  } else if (planes > 0 && even) {  // evenly spaced planes: one stream of all remaining rows
    add(plane, 0, 0, d.inner_bytes, planes * d.n1, 1);
  } else if (d.n1 < planes) {  // few rows, many planes: stream over the planes per row index
    for (uint64_t r = 0; r < d.n1; ++r) add(plane, r, 0, d.inner_bytes, planes, 2);
  } else {
    for (uint64_t p = 0; p < planes; ++p) add(plane + p, 0, 0, d.inner_bytes, d.n1, 1);
  }
  // A TLM transaction carries at most 4 GiB - 1: longer streams go as several.
  const uint64_t max_rows = std::max<uint64_t>(1, (uint64_t(1) << 31) / d.inner_bytes);
  for (size_t i = 0; i < parts.size(); ++i) {
    auto& [src, dst] = parts[i];
    if (src.rows <= max_rows) continue;
    const uint64_t rest = src.rows - max_rows;
    src.rows = dst.rows = max_rows;
    const std::pair<Stream, Stream> tail{
        Stream{src.addr + max_rows * src.stride, src.row_bytes, rest, src.stride},
        Stream{dst.addr + max_rows * dst.stride, dst.row_bytes, rest, dst.stride}};
    parts.insert(parts.begin() + long(i) + 1, tail);
  }
  return parts;
}

sc_time DmaUnit::stream_rest(const pcs::DmaCopy& d, uint64_t first, sc_time at, sc_time read_lat,
                             sc_time write_lat) {
  const std::vector<std::pair<Stream, Stream>> parts = split_rest(d, first);
  sc_time reads = at, writes = at;
  uint64_t n = 0;  // bursts the engine issues for these parts: whole rows split at burst_bytes
  for (const auto& [src, dst] : parts) {
    reads = std::max(reads, stream(false, src, at));
    writes = std::max(writes, stream(true, dst, at));
    if (functional_) copy_data(src, dst);
    n += src.rows * ((src.row_bytes + cfg_.burst_bytes - 1) / cfg_.burst_bytes);
  }
  // The last write follows the last read; the first read precedes the first write. The engine
  // issues one burst per cycle and keeps at most `outstanding` in flight (Little's law with the
  // unloaded round trip).
  const sc_time cycle(1.0 / cfg_.clock_ghz, SC_NS);
  const sc_time trip = read_lat + write_lat;
  sc_time done = std::max(reads + write_lat, writes + read_lat);
  done = std::max(done, at + double(n - 1) * cycle + trip);
  done = std::max(done, at + double((n + cfg_.outstanding - 1) / cfg_.outstanding) * trip);
  return done;
}

}  // namespace photon
