#include "models/rv32/rv32_config.h"

namespace photon {

void Rv32Config::declare(ParamSet& ps, const std::string& p) {
  auto cyc = [&](const char* key, uint32_t* v, const char* what) {
    ps.add_uint(p + "." + key, v, 1, 1000, std::string(what) + ", CPU cycles");
  };
  cyc("alu_cycles", &alu_cycles, "integer computational instruction");
  cyc("load_cycles", &load_cycles, "load from local memory");
  cyc("store_cycles", &store_cycles, "store to local memory");
  cyc("branch_cycles", &branch_cycles, "conditional branch, not taken");
  cyc("branch_taken_cycles", &branch_taken_cycles, "conditional branch, taken");
  cyc("jump_cycles", &jump_cycles, "jal or jalr");
  cyc("mul_cycles", &mul_cycles, "mul, mulh, mulhsu, mulhu");
  cyc("div_cycles", &div_cycles, "div, divu, rem, remu");
  cyc("csr_cycles", &csr_cycles, "CSR instruction");
  cyc("system_cycles", &system_cycles, "ecall, ebreak, mret or wfi");
  cyc("fence_cycles", &fence_cycles, "fence or fence.i");
  cyc("trap_cycles", &trap_cycles, "taking an exception or interrupt");
  ps.add_enum(p + ".misaligned", &misaligned, rv32_misaligned_table(),
              "misaligned load/store: split (two accesses, +1 cycle) or trap");
  ps.add_uint(p + ".rom_kib", &rom_kib, 1, 1u << 20, "boot ROM size, KiB");
  ps.add_uint(p + ".ram_kib", &ram_kib, 1, 1u << 20, "data RAM size, KiB");
  ps.add_double(p + ".mtime_mhz", &mtime_mhz, 0.001, 1e5, "machine timer rate, MHz");
}

}  // namespace photon
