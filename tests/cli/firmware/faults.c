/* Test firmware for the rv32 fault reports: photon_fw_main commits the fault that FAULT selects,
 * in a function of its own so that the report can name it. Built by firmware_faults.cmake. */
#include <stdint.h>

#include "models/rv32/rv32_memory_map.h"

#define REG32(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

__attribute__((noinline)) void illegal_instruction(void) { __asm__ volatile(".word 0xffffffff"); }
/* Through a volatile: GCC would treat a constant address near 0 as a null pointer. */
static volatile uint32_t rom_word = RV32_ROM_BASE + 0x100;
__attribute__((noinline)) void store_to_rom(void) { REG32(rom_word) = 1; }
__attribute__((noinline)) uint32_t load_unmapped(void) { return REG32(0x20000000); }
/* 0x9000 is no register block of the control bus: the bus answers with an address error. */
__attribute__((noinline)) uint32_t load_unmapped_register(void) { return REG32(RV32_MMIO_BASE + 0x9000); }
__attribute__((noinline)) void spin_forever(void) {
  for (;;) __asm__ volatile("");
}

unsigned photon_fw_main(void) {
#if FAULT == 1
  illegal_instruction();
#elif FAULT == 2
  store_to_rom();
#elif FAULT == 3
  load_unmapped();
#elif FAULT == 4
  load_unmapped_register();
#elif FAULT == 5
  spin_forever();
#endif
  return 2;
}
