#include "soc/platform_config.h"

#include "base/error.h"
#include "isa/command.h"
#include "soc/unit_table.h"

namespace photon {

void CpuConfig::declare(ParamSet& ps, const std::string& p) {
  ps.add_double(p + ".clock_ghz", &clock_ghz, 0.01, 100, "firmware CPU clock, GHz");
  ps.add_uint(p + ".mmio_latency_cycles", &mmio_latency_cycles, 0, 1000000,
              "register access latency, CPU cycles");
  ps.add_uint(p + ".dispatch_cycles", &dispatch_cycles, 0, 1000000,
              "native: firmware work per command (measured on the rv32 ISS), CPU cycles");
  ps.add_uint(p + ".irq_latency_cycles", &irq_latency_cycles, 0, 1000000,
              "native: firmware work per interrupt wake-up (measured on the rv32 ISS), CPU cycles");
  ps.add_uint(p + ".queue_depth", &queue_depth, 1, 65536, "hardware command queue entries per unit");
  ps.add_uint(p + ".semaphores", &semaphores, 1, 4096, "hardware semaphores");
  ps.add_uint(p + ".ring_base", &ring_base, 0, ~uint64_t(0) >> 1,
              "HBM address of the command ring (a multiple of 64: whole commands), bytes");
  ps.add_enum(p + ".model", &model, cpu_model_kind_table(),
              "firmware CPU: native (host-compiled firmware) or rv32 (firmware ELF on the RV32IMC ISS)");
  ps.add_file_path(p + ".firmware", &firmware,
                   "rv32: firmware ELF file (in a YAML file: relative to its directory); empty: the one built "
                   "with photon");
  ps.add_double(p + ".watchdog_us", &watchdog_us, 0.001, 1e12,
                "rv32: simulated time the firmware may run without finishing, us");
  rv32.declare(ps, p + ".rv32");
}

void SimConfig::declare(ParamSet& ps, const std::string& p) {
  ps.add_enum(p + ".mode", &mode, sim_mode_table(), "timing: no arithmetic; functional: data computed");
  ps.add_double(p + ".quantum_ns", &quantum_ns, 0.001, 1e9, "temporal-decoupling quantum, ns");
  ps.add_uint(p + ".seed", &seed, 0, ~uint64_t(0) >> 1, "global RNG seed");
  // Upper bounds: SystemC's time range at its default 1 ps resolution is 2^64 ps = 1.8e16 ns;
  // a year of wall time is 3.2e7 s.
  ps.add_double(p + ".max_time_ns", &max_time_ns, 0, 1e15,
                "watchdog: simulated-time limit, ns (status timeout; 0: no limit)");
  ps.add_double(p + ".max_wall_s", &max_wall_s, 0, 3.2e7,
                "watchdog: wall-clock limit, s (status timeout; 0: no limit)");
  ps.add_uint(p + ".helper_threads", &helper_threads, 0, 64,
              "threads computing HBM calibrations ahead of need, at most the cores less one (wall time only, never results; 0: none)");
}

UnitImplChoices::UnitImplChoices() {
  for (const UnitDesc& u : unit_table()) of[u.name] = u.impls.front().name;
}

const std::string& UnitImplChoices::at(const std::string& unit) const {
  auto it = of.find(unit);
  if (it == of.end()) throw Error("no unit '" + unit + "' in the unit table");
  return it->second;
}

void UnitImplChoices::declare(ParamSet& ps, const std::string&) {
  for (const UnitDesc& u : unit_table()) {
    std::vector<std::string> names;
    std::string doc = "implementation of the " + u.name + " unit:";
    for (const auto& i : u.impls) {
      names.push_back(i.name);
      doc += " " + i.name + " (" + i.doc + ")";
    }
    ps.add_choice(u.name + ".impl", &of[u.name], names, doc);
  }
}

void PlatformConfig::validate() const {
  if (noc.scratchpad_base < noc.hbm_base + hbm.capacity_bytes() &&
      noc.scratchpad_base + scratchpad.size_bytes() > noc.hbm_base)
    throw Error("noc.scratchpad_base: scratchpad window overlaps HBM (" +
                std::to_string(hbm.capacity_bytes()) + " bytes at noc.hbm_base)");
  if (ntt.storage_bits < ntt.prime_bits())
    throw Error("ntt.storage_bits: " + std::to_string(ntt.storage_bits) + " bits cannot hold the " +
                std::to_string(ntt.prime_bits()) +
                "-bit residues of ntt.word_bits = " + std::to_string(ntt.word_bits));
  if (!cosim.waveform.empty() && impl.at("ntt") != "rtl")
    throw Error("cosim.waveform: no unit runs RTL to trace (set ntt.impl=rtl)");
  if (!cosim.waveform.empty() && (cosim.waveform.size() < 5 || cosim.waveform.substr(cosim.waveform.size() - 4) != ".fst"))
    throw Error("cosim.waveform: " + cosim.waveform + ": the waveform is an FST file (Verilator --trace-fst): name it *.fst");
  if (cosim.waveform.empty() && (cosim.waveform_start_ns != 0 || cosim.waveform_end_ns != 0))
    throw Error("cosim.waveform_start_ns, cosim.waveform_end_ns: a waveform window without cosim.waveform (set "
                "cosim.waveform=FILE.fst)");
  if (cosim.waveform_end_ns > 0 && cosim.waveform_end_ns <= cosim.waveform_start_ns)
    throw Error("cosim.waveform_end_ns: " + std::to_string(cosim.waveform_end_ns) +
                " must lie after cosim.waveform_start_ns (" + std::to_string(cosim.waveform_start_ns) +
                ") or be 0 (to the end of the run)");
  // Each unit's chosen implementation checks what it supports (e.g. an RTL core's parameters).
  for (const UnitDesc& u : unit_table()) {
    const UnitImpl& i = u.implementation(impl.at(u.name));
    if (i.check) i.check(*this);
  }
  if (!cpu.firmware.empty() && cpu.model != CpuModelKind::Rv32)
    throw Error("cpu.firmware: only used with cpu.model=rv32 (the native model runs the firmware built into "
                "photon); add --set cpu.model=rv32 or leave cpu.firmware empty");
  if (cpu.ring_base % pcs::kCommandBytes != 0)
    throw Error("cpu.ring_base: " + std::to_string(cpu.ring_base) + " is not a multiple of " +
                std::to_string(pcs::kCommandBytes) + " bytes (the command ring holds whole 64-byte commands)");
  if (cpu.ring_base >= hbm.capacity_bytes())
    throw Error("cpu.ring_base: command ring lies outside HBM capacity (" +
                std::to_string(hbm.capacity_bytes()) + " bytes)");
}

}  // namespace photon
