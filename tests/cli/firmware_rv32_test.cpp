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

TEST(Rv32Watchdog, BoundsAFirmwareAsleepOnAFarTimer) {
  // fw_far_timer: mtimecmp 2^42 ticks ahead, wfi forever: the sleep may not jump past the
  // watchdog; the run ends at exactly cpu.watchdog_us (the default, 1 s) of simulated time.
  photon_test::CliResult r;
  const nlohmann::json rep = run_fault("far_timer", "", r);
  EXPECT_EQ(r.status, 1);
  ASSERT_TRUE(rep.is_object()) << r.err;
  EXPECT_EQ(rep["status"], "watchdog");
  const std::string error = rep["error"];
  EXPECT_NE(error.find("cpu.watchdog_us = 1000000 us of simulated time"), std::string::npos) << error;
  EXPECT_NE(error.find(" in far_timer"), std::string::npos) << error;
  EXPECT_NE(error.find("(asleep in wfi)"), std::string::npos) << error;
  EXPECT_EQ(rep["simulated_time_ns"].get<double>(), 1e9);
}

TEST(Rv32Firmware, DoneWithoutConsumingTheRingIsAFirmwareError) {
  // fw_done_early returns PHOTON_FW_STATE_DONE at once: 3 commands (fence, fence, end), none
  // dispatched; not a run with every unit idle and status ok.
  const std::string pasm = temp_path("done_early.pasm"), report = temp_path("done_early.json");
  photon_test::write_text(pasm, "fence\nfence\nend\n");
  const auto r = photon("run --config " + src("configs/default.yaml") + " --workload " + pasm +
                        " --set cpu.model=rv32 --set cpu.firmware=" + test_elf("done_early") + " --report " +
                        report + " --quiet");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(photon_test::count_lines(r.err), 1) << r.err;
  const auto rep = nlohmann::json::parse(slurp(report));
  EXPECT_EQ(rep["status"], "firmware_error");
  EXPECT_NE(rep["error"].get<std::string>().find("firmware reported done after dispatching 0 of 3 commands"),
            std::string::npos)
      << rep["error"];
}

TEST(Rv32Firmware, AUnitErrorOnTheLastCommandsFailsTheRunOnBothCpuModels) {
  // The NTT command before END names a moduli table outside the scratchpad: its queue stops on
  // a decode error. Whether the error lands before the firmware's last look at the error
  // interrupts depends on the CPU model's timing (rv32 used to report done); the run is a unit
  // error either way.
  const std::string pasm = temp_path("late_unit_error.pasm");
  photon_test::write_text(pasm,
                          "dma src=0x0 dst=0x4000000000 inner_bytes=64\n"
                          "ntt op=forward log_n=8 limbs=2 src0=0x1000 dst=0x1000 moduli=0xFFFFFFF0\n"
                          "end\n");
  for (const std::string model : {"native", "rv32"})
    for (const std::string mode : {"timing", "functional"}) {
      const std::string report = temp_path("late_unit_error_" + model + mode + ".json");
      const auto r = photon("run --config " + src("configs/default.yaml") + " --workload " + pasm +
                            " --set cpu.model=" + model + " --mode " + mode + " --report " + report + " --quiet");
      EXPECT_EQ(r.status, 1) << model << " " << mode;
      EXPECT_EQ(photon_test::count_lines(r.err), 1) << r.err;
      const auto rep = nlohmann::json::parse(slurp(report));
      EXPECT_EQ(rep["status"], "unit_error") << model << " " << mode;
      EXPECT_NE(rep["error"].get<std::string>().find("command 1: ntt: ntt moduli [4294967280, +16) outside scratchpad"),
                std::string::npos)
          << rep["error"];
    }
}

TEST(Rv32Firmware, ARingBaseThatIsNotCommandAlignedIsAConfigError) {
  const auto r = photon("run --config " + src("configs/default.yaml") + " --workload " + src("examples/gemm.pasm") +
                        " --set cpu.ring_base=4294967297 --quiet");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(photon_test::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cpu.ring_base: 4294967297 is not a multiple of 64 bytes"), std::string::npos) << r.err;
}

TEST(Rv32Firmware, UnexpectedExitCodeIsNamedWithTheExpectedOnes) {
  photon_test::CliResult r;
  const nlohmann::json rep = run_fault("exit_code", "", r);
  EXPECT_EQ(r.status, 1);
  ASSERT_TRUE(rep.is_object()) << r.err;
  EXPECT_EQ(rep["status"], "firmware_fault");
  const std::string error = rep["error"];
  // tohost = (12345 << 1) | 1 = 0x6073
  EXPECT_NE(error.find("unexpected exit: tohost = 0x6073 (exit code 12345); expected (code << 1) | 1 with code "
                       "2 (PHOTON_FW_STATE_DONE), 3 (PHOTON_FW_STATE_ERROR) or 0x7ff (RV32_EXIT_TRAP)"),
            std::string::npos)
      << error;
}

TEST(Rv32Fault, PcOutsideEveryFunctionIsNamedNoFunction) {
  photon_test::CliResult r;
  const nlohmann::json rep = run_fault("jump_unmapped", "", r);
  EXPECT_EQ(r.status, 1);
  ASSERT_TRUE(rep.is_object()) << r.err;
  const std::string error = rep["error"];
  EXPECT_NE(error.find("firmware fault: instruction access fault at pc 0x20000000 (no function)"),
            std::string::npos)
      << error;
}

TEST(Rv32Firmware, OddEntryPointIsRefused) {
  const auto r = photon("run --config " + src("configs/default.yaml") + " --workload " + src("examples/gemm.pasm") +
                        " --set cpu.model=rv32 --set cpu.firmware=" + test_elf("entry_odd"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "photon: error: cpu.firmware: " + test_elf("entry_odd") + ": entry point 0x3 is not 2-byte aligned\n");
}

TEST(Rv32Firmware, MemorySizesStopBelowTheNextRegion) {
  for (const auto& [key, limit] : {std::pair{"rom_kib", "32768"}, std::pair{"ram_kib", "786432"}}) {
    const std::string set = std::string("cpu.rv32.") + key;
    const auto over = photon("run --config " + src("configs/default.yaml") + " --workload " +
                             src("examples/gemm.pasm") + " --set cpu.model=rv32 --set " + set + "=" +
                             std::to_string(std::stoul(limit) + 1));
    EXPECT_EQ(over.status, 1);
    EXPECT_EQ(photon_test::count_lines(over.err), 1) << over.err;
    EXPECT_NE(over.err.find(set + ": value " + std::to_string(std::stoul(limit) + 1) + " out of range"),
              std::string::npos)
        << over.err;
    EXPECT_NE(over.err.find(limit), std::string::npos) << over.err;
  }
  // The firmware is linked for 64 KiB of RAM: its stack top lies outside a 32 KiB one.
  const auto small = photon("run --config " + src("configs/default.yaml") + " --workload " +
                            src("examples/gemm.pasm") + " --set cpu.model=rv32 --set cpu.rv32.ram_kib=32");
  EXPECT_EQ(small.status, 1);
  EXPECT_EQ(photon_test::count_lines(small.err), 1) << small.err;
  EXPECT_NE(small.err.find("cpu.rv32.ram_kib"), std::string::npos) << small.err;
}

TEST(Rv32Firmware, FirmwareWithTheNativeModelIsAnError) {
  const auto r = photon("run --config " + src("configs/default.yaml") + " --workload " + src("examples/gemm.pasm") +
                        " --set cpu.firmware=" + test_elf("illegal"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(photon_test::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cpu.firmware: only used with cpu.model=rv32"), std::string::npos) << r.err;
}

TEST(Rv32Firmware, FirmwareInAConfigFileIsRelativeToThatFile) {
  // build/test-firmware/rel.yaml names fw_illegal.elf beside it; photon runs from elsewhere.
  const std::string yaml = build_dir() + "/test-firmware/rel_firmware.yaml";
  photon_test::write_text(yaml, "cpu:\n  model: rv32\n  firmware: fw_illegal.elf\n");
  photon_test::CliResult r = photon("run --config " + yaml + " --workload " + src("examples/gemm.pasm") + " --quiet");
  std::remove(yaml.c_str());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("firmware fault: illegal instruction"), std::string::npos) << r.err;
}

TEST(Rv32Firmware, UnreadableFirmwareGivesTheReasonAndThePath) {
  const std::string missing = build_dir() + "/test-firmware/no_such.elf";
  auto r = photon("run --config " + src("configs/default.yaml") + " --workload " + src("examples/gemm.pasm") +
                  " --set cpu.model=rv32 --set cpu.firmware=" + missing);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "photon: error: cpu.firmware: " + missing + ": cannot open firmware ELF file " + missing +
                       ": No such file or directory\n");
  const std::string dir = build_dir() + "/test-firmware";
  r = photon("run --config " + src("configs/default.yaml") + " --workload " + src("examples/gemm.pasm") +
             " --set cpu.model=rv32 --set cpu.firmware=" + dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
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
  // outputs are bit-identical; the HBM sees the same transactions (the ring read 16 commands a
  // burst: the native HAL's reads, the rv32 aperture's 1 KiB line fills).
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
