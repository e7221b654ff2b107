// photon run with cpu.model=rv32: the cross-compiled firmware on the RV32 ISS. Faults end the run
// with a status naming the fault, the pc and the function (checked against the symbol table as
// riscv64-unknown-elf-nm prints it), the report is still written, and the exit status is 1; a
// firmware that never finishes is stopped by the watchdog at the configured simulated time; the
// same workload dispatches the same commands and computes the same outputs as the native model.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "cli_util.h"

namespace {

using photon_test::photon;
using photon_test::slurp;
using photon_test::src;
using photon_test::temp_path;

std::string build_dir() {
  const std::string bin = PHOTON_BINARY;
  return bin.substr(0, bin.rfind('/'));
}
std::string test_elf(const std::string& name) { return build_dir() + "/test-firmware/fw_" + name + ".elf"; }

struct Symbol {
  uint32_t addr = 0, size = 0;
};

/// Function symbols of an ELF from the cross toolchain's nm (the oracle for pc and function).
std::map<std::string, Symbol> nm_symbols(const std::string& elf) {
  std::map<std::string, Symbol> out;
  FILE* p = ::popen(("riscv64-unknown-elf-nm -S " + elf).c_str(), "r");
  if (!p) return out;
  char line[512];
  while (std::fgets(line, sizeof line, p)) {
    unsigned addr = 0, size = 0;
    char type = 0, name[256] = {};
    if (std::sscanf(line, "%x %x %c %255s", &addr, &size, &type, name) == 4) out[name] = {addr, size};
  }
  ::pclose(p);
  return out;
}

uint32_t reported_pc(const std::string& error) {
  const auto at = error.find("at pc 0x");
  return at == std::string::npos ? 0 : uint32_t(std::stoul(error.substr(at + 8), nullptr, 16));
}

nlohmann::json run_fault(const std::string& fw, const std::string& extra, photon_test::CliResult& r) {
  const std::string report = temp_path("fault_" + fw + ".json");
  r = photon("run --config " + src("configs/default.yaml") + " --workload " + src("examples/gemm.pasm") +
             " --set cpu.model=rv32 --set cpu.firmware=" + test_elf(fw) + " " + extra + " --report " +
             report + " --quiet");
  const std::string text = slurp(report);
  std::remove(report.c_str());
  return text.empty() ? nlohmann::json() : nlohmann::json::parse(text);
}

struct FaultCase {
  const char* firmware;
  const char* function;
  const char* fault;
  const char* detail;
};

class Rv32Fault : public ::testing::TestWithParam<FaultCase> {};

TEST_P(Rv32Fault, EndsTheRunNamingFaultPcAndFunction) {
  const FaultCase& c = GetParam();
  photon_test::CliResult r;
  const nlohmann::json rep = run_fault(c.firmware, "", r);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(photon_test::count_lines(r.err), 1) << r.err;
  ASSERT_TRUE(rep.is_object()) << "no report written: " << r.err;
  EXPECT_EQ(rep["status"], "firmware_fault");
  const std::string error = rep["error"];
  EXPECT_NE(error.find(std::string("firmware fault: ") + c.fault + " at pc 0x"), std::string::npos) << error;
  EXPECT_NE(error.find(std::string(" in ") + c.function), std::string::npos) << error;
  EXPECT_NE(error.find(c.detail), std::string::npos) << error;
  EXPECT_NE(r.err.find(error), std::string::npos);
  const auto syms = nm_symbols(test_elf(c.firmware));
  ASSERT_TRUE(syms.count(c.function)) << c.function;
  const Symbol fn = syms.at(c.function);
  const uint32_t pc = reported_pc(error);
  EXPECT_GE(pc, fn.addr);
  EXPECT_LT(pc, fn.addr + fn.size) << error;
  EXPECT_GT(rep["simulated_time_ns"].get<double>(), 0);
  EXPECT_EQ(rep["firmware"]["model"], "rv32");
}

INSTANTIATE_TEST_SUITE_P(
    Faults, Rv32Fault,
    ::testing::Values(FaultCase{"illegal", "illegal_instruction", "illegal instruction",
                                "(instruction 0xffffffff)"},
                      FaultCase{"rom_store", "store_to_rom", "store access fault", "(address 0x100)"},
                      FaultCase{"unmapped", "load_unmapped", "load access fault", "(address 0x20000000)"},
                      FaultCase{"unmapped_register", "load_unmapped_register", "load access fault",
                                "control-bus address 0x9000: TLM_ADDRESS_ERROR_RESPONSE"}),
    [](const ::testing::TestParamInfo<FaultCase>& i) { return std::string(i.param.firmware); });

TEST(Rv32Watchdog, StopsAFirmwareThatNeverFinishesAtTheConfiguredTime) {
  photon_test::CliResult r;
  const nlohmann::json rep = run_fault("spin", "--set cpu.watchdog_us=40", r);
  EXPECT_EQ(r.status, 1);
  ASSERT_TRUE(rep.is_object()) << r.err;
  EXPECT_EQ(rep["status"], "watchdog");
  const std::string error = rep["error"];
  EXPECT_NE(error.find("cpu.watchdog_us = 40 us"), std::string::npos) << error;
  EXPECT_NE(error.find(" in spin_forever"), std::string::npos) << error;
  // Stopped at the bound, to within one instruction (a jump: cpu.rv32.jump_cycles = 2 ns).
  EXPECT_GE(rep["simulated_time_ns"].get<double>(), 40000.0);
  EXPECT_LE(rep["simulated_time_ns"].get<double>(), 40002.0);
}

TEST(Rv32Timer, InterruptFiresAtTheDeadline) {
  // fw_timer: mtimecmp = mtime + 5000 ticks at 1000 MHz; the handler runs, the firmware ends.
  photon_test::CliResult r;
  const nlohmann::json rep = run_fault("timer", "", r);
  EXPECT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(rep.is_object());
  EXPECT_EQ(rep["status"], "ok");
  EXPECT_EQ(rep["firmware"]["traps"], 1);  // the one timer interrupt
  EXPECT_EQ(rep["firmware"]["wakeups"], 1);
  // 5 us after the start (boot code before reading mtime and the handler after it: < 300 ns).
  EXPECT_GE(rep["simulated_time_ns"].get<double>(), 5000.0);
  EXPECT_LE(rep["simulated_time_ns"].get<double>(), 5300.0);
}

TEST(Rv32Firmware, SleepingForeverIsADeadlockNamingWhereTheFirmwareSleeps) {
  // A Wait nobody signals: the firmware sleeps in wfi and no event is left (not a watchdog).
  const std::string pasm = temp_path("deadlock.pasm"), report = temp_path("deadlock.json");
  photon_test::write_text(pasm, "wait queue=dma sem=3\nend\n");
  const auto r = photon("run --config " + src("configs/default.yaml") + " --workload " + pasm +
                        " --set cpu.model=rv32 --report " + report + " --quiet");
  EXPECT_EQ(r.status, 1);
  const auto rep = nlohmann::json::parse(slurp(report));
  EXPECT_EQ(rep["status"], "deadlock");
  const std::string error = rep["error"];
  EXPECT_NE(error.find("wait on semaphore 3 in queue dma) is never signalled (firmware at pc 0x"), std::string::npos)
      << error;
  EXPECT_NE(error.find("(asleep in wfi))"), std::string::npos) << error;
}

TEST(Rv32Firmware, BadFirmwareFileIsOneErrorLine) {
  const auto r =
      photon("run --config " + src("configs/default.yaml") + " --workload " + src("examples/gemm.pasm") +
             " --set cpu.model=rv32 --set cpu.firmware=" + src("configs/default.yaml"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "photon: error: cpu.firmware: " + src("configs/default.yaml") + ": not an ELF file\n");
}

TEST(Rv32Firmware, GdbNeedsTheRv32Model) {
  const auto r = photon("run --config " + src("configs/default.yaml") + " --workload " +
                        src("examples/gemm.pasm") + " --gdb 0");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--gdb needs the rv32 firmware CPU"), std::string::npos) << r.err;
}

TEST(Rv32Firmware, DispatchesWhatTheNativeFirmwareDispatches) {
  // Same firmware source, two CPUs: every unit executes the same commands and the functional
  // outputs are bit-identical.
  std::map<std::string, std::string> outputs;
  std::map<std::string, nlohmann::json> units;
  for (const std::string model : {"native", "rv32"}) {
    const std::string dir = temp_path("out_" + model), report = temp_path("rep_" + model + ".json");
    const auto r =
        photon("run --config " + src("configs/default.yaml") + " --workload " +
               photon_test::shared("inputs/onnx/lenet5_weights.onnx") + " --mode functional --input input=" +
               photon_test::shared("inputs/onnx/lenet5_weights_input_0.pb") + " --dump-outputs " + dir +
               " --set cpu.model=" + model + " --report " + report + " --quiet");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto rep = nlohmann::json::parse(slurp(report));
    for (const auto& o : rep["outputs"]) outputs[model] += slurp(o["file"].get<std::string>());
    for (const auto& [name, u] : rep["units"].items())
      if (u.contains("commands")) units[model][name] = u["commands"];
    EXPECT_EQ(rep["firmware"]["model"], model);
  }
  EXPECT_FALSE(outputs["native"].empty());
  EXPECT_EQ(outputs["native"], outputs["rv32"]);
  EXPECT_EQ(units["native"], units["rv32"]);
}

}  // namespace
