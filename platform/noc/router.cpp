#include "platform/noc/router.h"

#include <algorithm>
#include <cstdio>

#include "platform/noc/stream_extension.h"

namespace photon {

DataRouter::DataRouter(sc_core::sc_module_name name, const NocConfig& cfg)
    : sc_module(name), in("in"), out("out"), cfg_(cfg) {
  in.register_b_transport(this, &DataRouter::b_transport);
  in.register_transport_dbg(this, &DataRouter::transport_dbg);
}

void DataRouter::map_target(const std::string& name, uint64_t base, uint64_t size) {
  windows_.push_back(Window{name, base, size, PortCalendar{}});
}

int DataRouter::decode(uint64_t addr, uint64_t len) const {
  for (size_t i = 0; i < windows_.size(); ++i) {
    const auto& w = windows_[i];
    if (addr >= w.base && addr - w.base < w.size && len <= w.size - (addr - w.base)) return int(i);
  }
  return -1;
}

void DataRouter::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  uint64_t addr = gp.get_address();
  uint64_t len = gp.get_data_length();
  const StreamShape shape = stream_shape(gp);
  if (!shape.ok) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  int t = decode(addr, shape.extent());
  if (t < 0) {
    ++decode_errors_;
    char buf[96];
    std::snprintf(buf, sizeof buf, "data access to unmapped address 0x%llx (+%llu bytes)",
                  (unsigned long long)addr, (unsigned long long)len);
    last_error_ = buf;
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  Window& w = windows_[t];
  double now_ns = (sc_core::sc_time_stamp() + delay).to_seconds() * 1e9;
  const double dur = double(len) / cfg_.port_bandwidth_gbps;
  const double start = w.port.reserve(now_ns, dur, sc_core::sc_time_stamp().to_seconds() * 1e9);
  delay += sc_core::sc_time(start - now_ns + cfg_.hop_latency_ns, sc_core::SC_NS);
  gp.set_address(addr - w.base);
  out[t]->b_transport(gp, delay);
  gp.set_address(addr);
  if (gp.get_extension<StreamExtension>()) {  // a stream cannot end before the port moved it
    const double end_ns = start + dur + cfg_.hop_latency_ns;
    const double at_ns = (sc_core::sc_time_stamp() + delay).to_seconds() * 1e9;
    if (end_ns > at_ns) delay += sc_core::sc_time(end_ns - at_ns, sc_core::SC_NS);
  }
  bytes_ += len;
}

unsigned DataRouter::transport_dbg(int, tlm::tlm_generic_payload& gp) {
  uint64_t addr = gp.get_address();
  int t = decode(addr, gp.get_data_length());
  if (t < 0) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return 0;
  }
  if (!gp.get_data_ptr()) {  // probe: is the whole range mapped to one target?
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return unsigned(gp.get_data_length());
  }
  gp.set_address(addr - windows_[t].base);
  unsigned n = out[t]->transport_dbg(gp);
  gp.set_address(addr);
  return n;
}

}  // namespace photon
