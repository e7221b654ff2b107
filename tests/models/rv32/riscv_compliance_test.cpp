// The RISC-V compliance tests (../shared/riscv-tests, `p` environment) on the RV32 core.
// Oracle: each test's own checks; it writes (TESTNUM << 1) | 1 to `tohost`, 1 meaning pass
// (NOTICE.md there). A failing test reports its test number.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "models/rv32/elf_image.h"
#include "models/rv32/rv32_core.h"

namespace {

using namespace photon::rv32;

struct RiscvTest {
  const char* suite;
  const char* name;
};
const RiscvTest kTests[] = {
#include "riscv_tests_list.inc"
};

/// No MMIO: every access outside the RAM is an access fault; mtime counts cycles.
class NoBus : public Rv32Bus {
 public:
  bool load(uint32_t, unsigned, uint32_t&) override { return false; }
  bool store(uint32_t, unsigned, uint32_t) override { return false; }
  uint64_t mtime() override { return core ? core->cycles() : 0; }
  const Rv32Core* core = nullptr;
};

struct Outcome {
  bool finished = false;
  uint32_t tohost = 0;
  std::string detail;
};

/// Runs one test ELF on a core with 1 MiB of RAM at the `p` environment's 0x80000000.
Outcome run_elf(const std::string& path, bool misaligned_split) {
  const ElfImage elf = ElfImage::load(path);
  std::vector<uint8_t> ram(1 << 20);
  const uint32_t base = 0x80000000u;
  for (const auto& s : elf.segments()) {
    EXPECT_GE(s.addr, base);
    EXPECT_LE(s.addr - base + s.mem_bytes, ram.size());
    std::memcpy(ram.data() + (s.addr - base), s.bytes.data(), s.bytes.size());
  }
  Timing t;
  t.misaligned_split = misaligned_split;
  NoBus bus;
  Rv32Core core(t, bus);
  bus.core = &core;
  core.add_region({"ram", base, uint32_t(ram.size()), ram.data(), true, true});
  core.reset(elf.entry());
  const auto tohost = elf.symbol("tohost");
  EXPECT_TRUE(tohost.has_value()) << "no tohost symbol";
  if (tohost) core.watch_tohost(*tohost);
  Outcome out;
  const Stop s = core.run(50'000'000);
  out.finished = s == Stop::Halt;
  out.tohost = core.tohost_value();
  const TrapRecord& tr = core.last_trap();
  out.detail = "stop " + std::to_string(int(s)) + ", pc " + elf.function_at(core.pc()) +
               ", last trap: " + cause_name(tr.cause) + " at " + elf.function_at(tr.epc);
  return out;
}

struct Case {
  RiscvTest test;
  bool split;
};

class RiscvCompliance : public ::testing::TestWithParam<Case> {};

TEST_P(RiscvCompliance, Passes) {
  const Case& c = GetParam();
  const std::string path = std::string(PHOTON_RISCV_TESTS_DIR) + "/" + c.test.suite + "-p-" + c.test.name;
  const Outcome o = run_elf(path, c.split);
  ASSERT_TRUE(o.finished) << path << " did not write tohost (" << o.detail << ")";
  // An unexpected trap writes TESTNUM | 1337 instead (env/p/riscv_test.h, other_exception).
  const bool trap = (o.tohost & 1337u) == 1337u;
  EXPECT_EQ(o.tohost, 1u) << path << (trap ? " took an unexpected trap (tohost " : " failed test number ")
                          << (trap ? o.tohost : o.tohost >> 1) << (trap ? ")" : "") << " (" << o.detail
                          << ")";
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const auto& t : kTests) {
    out.push_back({t, true});
    // The machine-mode misaligned-access tests accept a trap as well: run them both ways.
    const std::string n = t.name;
    if (std::string(t.suite) == "rv32mi" && (n == "ma_addr" || n.find("misaligned") != std::string::npos))
      out.push_back({t, false});
  }
  return out;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string n =
      std::string(info.param.test.suite) + "_" + info.param.test.name + (info.param.split ? "" : "_trap");
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(RiscvTests, RiscvCompliance, ::testing::ValuesIn(cases()), case_name);

}  // namespace
