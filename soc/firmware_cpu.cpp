#include "soc/firmware_cpu.h"

#include <cstdio>
#include <algorithm>
#include <cstring>

#include "firmware/firmware.h"
#include "firmware/hal.h"
#include "platform/control_bus.h"

namespace photon {

namespace {
// SystemC threads are coroutines on one OS thread; one firmware CPU per simulation.
FirmwareCpu* current_cpu = nullptr;
}  // namespace

FirmwareCpu::FirmwareCpu(sc_core::sc_module_name name, const CpuConfig& cfg, double quantum_ns,
                         IrqController& irq, TraceRecorder* trace)
    : sc_module(name),
      ctrl("ctrl"),
      data("data"),
      cfg_(cfg),
      irq_(irq),
      trace_(trace),
      cycle_(1.0 / cfg.clock_ghz, sc_core::SC_NS) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_core::sc_time(quantum_ns, sc_core::SC_NS));
  qk_.reset();
  SC_THREAD(run);
}

void FirmwareCpu::run() {
  current_cpu = this;
  final_state_ = photon_fw_main();
  qk_.sync();
  finished_ = true;
  finish_time_ = sc_core::sc_time_stamp();
  current_cpu = nullptr;
}

void FirmwareCpu::mmio(bool write, uint32_t addr, uint32_t* words, uint32_t count) {
  tlm::tlm_generic_payload& gp = mmio_gp_;
  gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(reinterpret_cast<unsigned char*>(words));
  gp.set_data_length(4 * count);
  gp.set_streaming_width(4 * count);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  const sc_core::sc_time before = qk_.get_local_time();
  sc_core::sc_time delay = before;
  ctrl->b_transport(gp, delay);
  busy_ += delay - before;
  mmio_ += count;
  if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
    ++bus_errors_;
    if (bus_error_log_.size() < 16) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "firmware %s at control-bus address 0x%x: %s", write ? "write" : "read",
                    addr, gp.get_response_string().c_str());
      bus_error_log_.push_back(buf);
    }
    if (!write) std::fill(words, words + count, 0xFFFFFFFFu);
  }
  // The words of a burst reach the quantum keeper one by one, as `count` single accesses would:
  // a synchronisation falls after the same word either way.
  if (count == 1 || sc_core::sc_time_stamp() + delay < qk_.next_sync_point()) {  // no word reaches it
    qk_.set(delay);
    if (qk_.need_sync()) qk_.sync();
    return;
  }
  const sc_core::sc_time per_word = (delay - before) / double(count);
  sc_core::sc_time local = before;
  for (uint32_t i = 0; i < count; ++i) {
    local += per_word;
    qk_.set(local);
    if (qk_.need_sync()) {
      qk_.sync();
      local = sc_core::SC_ZERO_TIME;
    }
  }
}

uint32_t FirmwareCpu::read32(uint32_t addr) {
  uint32_t v = 0;
  mmio(false, addr, &v, 1);
  return v;
}

void FirmwareCpu::write32(uint32_t addr, uint32_t value) { mmio(true, addr, &value, 1); }

void FirmwareCpu::write_block32(uint32_t addr, const uint32_t* words, uint32_t count) {
  uint32_t buf[ControlBus::kMaxBurstBytes / 4];
  for (uint32_t done = 0; done < count;) {  // longer blocks: one burst per 16 words
    const uint32_t n = std::min<uint32_t>(count - done, ControlBus::kMaxBurstBytes / 4);
    std::copy(words + done, words + done + n, buf);
    mmio(true, addr + 4 * done, buf, n);
    done += n;
  }
}

void FirmwareCpu::read_mem(uint64_t addr, void* dst, uint32_t bytes) {
  tlm::tlm_generic_payload& gp = mem_gp_;
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(static_cast<unsigned char*>(dst));
  gp.set_data_length(bytes);
  gp.set_streaming_width(bytes);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = qk_.get_local_time();
  data->b_transport(gp, delay);
  qk_.set(delay);
  if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
    ++bus_errors_;
    std::memset(dst, 0xFF, bytes);
  }
  if (qk_.need_sync()) qk_.sync();
}

void FirmwareCpu::wait_irq() {
  qk_.sync();
  while (!irq_.asserted()) irq_.wait_line();
}

void FirmwareCpu::work(int kind) {
  uint32_t cycles = kind == HAL_WORK_IRQ ? cfg_.irq_latency_cycles : cfg_.dispatch_cycles;
  qk_.inc(cycles * cycle_);
  busy_ += cycles * cycle_;
  if (qk_.need_sync()) qk_.sync();
}

}  // namespace photon

extern "C" {
uint32_t hal_read32(uint32_t addr) { return photon::current_cpu->read32(addr); }
void hal_write32(uint32_t addr, uint32_t value) { photon::current_cpu->write32(addr, value); }
void hal_write_block32(uint32_t addr, const uint32_t* words, uint32_t count) {
  photon::current_cpu->write_block32(addr, words, count);
}
const void* hal_fetch_mem(uint64_t addr, void* buf, uint32_t bytes) {
  photon::current_cpu->read_mem(addr, buf, bytes);
  return buf;
}
void hal_wait_irq(void) { photon::current_cpu->wait_irq(); }
void hal_work(enum hal_work kind) { photon::current_cpu->work(kind); }
}
