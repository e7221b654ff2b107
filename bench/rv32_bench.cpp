// Speed of the RV32 instruction-set simulator core alone (no SystemC): runs the CRC-32 benchmark
// firmware (bench/firmware/crc_bench.c) on Rv32Core with its boot ROM and RAM as DMI regions and
// prints retired instructions, simulated cycles, wall and CPU seconds and MIPS (per CPU second:
// robust on a shared machine). Checks the CRC against a
// host computation of the same loop. Usage: build/bench/rv32_bench [FIRMWARE.elf]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include "firmware/rv32/rv32_memory_map.h"
#include "models/rv32/elf_image.h"
#include "models/rv32/rv32_core.h"

namespace {

class NoBus : public photon::rv32::Rv32Bus {
 public:
  bool load(uint32_t, unsigned, uint32_t&) override { return false; }
  bool store(uint32_t, unsigned, uint32_t) override { return false; }
};

uint32_t host_crc() {
  static uint8_t buf[16384];
  for (uint32_t i = 0; i < sizeof buf; ++i) buf[i] = uint8_t(i * 7 + 3);
  uint32_t crc = 0;
  for (int p = 0; p < 64; ++p) {
    crc = ~crc;
    for (uint8_t b : buf) {
      crc ^= b;
      for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    crc = ~crc;
  }
  return crc;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace photon::rv32;
  const ElfImage elf = ElfImage::load(argc > 1 ? argv[1] : PHOTON_BENCH_ELF);
  std::vector<uint8_t> rom(RV32_ROM_DEFAULT_BYTES), ram(RV32_RAM_DEFAULT_BYTES);
  for (const auto& s : elf.segments()) {
    auto& mem = s.addr >= RV32_RAM_BASE ? ram : rom;
    std::memcpy(mem.data() + (s.addr - (s.addr >= RV32_RAM_BASE ? RV32_RAM_BASE : RV32_ROM_BASE)),
                s.bytes.data(), s.bytes.size());
  }
  NoBus bus;
  Rv32Core core(Timing{}, bus);
  core.add_region({"rom", RV32_ROM_BASE, uint32_t(rom.size()), rom.data(), false, true});
  core.add_region({"ram", RV32_RAM_BASE, uint32_t(ram.size()), ram.data(), true, true});
  core.reset(elf.entry());
  core.watch_tohost(*elf.symbol("tohost"));
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  Stop s = Stop::Limit;
  while (s == Stop::Limit) s = core.run(core.cycles() + 100000);  // slices, like the shell's quanta
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  uint32_t crc = 0;
  std::memcpy(&crc, ram.data() + (*elf.symbol("crc_result") - RV32_RAM_BASE), 4);
  std::printf(
      "rv32 core: %llu instructions, %llu cycles in %.3f s wall, %.3f s CPU: %.0f MIPS per CPU "
      "second (crc %08x, %s)\n",
      (unsigned long long)core.instret(), (unsigned long long)core.cycles(), wall, cpu,
      double(core.instret()) / cpu / 1e6, crc, crc == host_crc() ? "matches the host" : "WRONG");
  return s == Stop::Halt && crc == host_crc() ? 0 : 1;
}
