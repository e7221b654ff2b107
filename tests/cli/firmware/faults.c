/* Test firmware for the rv32 fault reports: photon_fw_main commits the fault that FAULT selects,
 * in a function of its own so that the report can name it. Built by firmware_faults.cmake. */
#include <stdint.h>

#include "firmware/rv32/rv32_memory_map.h"

#define REG32(addr) (*(volatile uint32_t*)(uintptr_t)(addr))

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

/* FAULT 6, no fault: a machine-timer interrupt 5000 mtime ticks (cpu.rv32.mtime_mhz = 1000:
 * 5 us) after the first read of mtime, taken by a real handler; then the firmware reports done. */
static volatile uint32_t timer_fired;
/* mtvec holds the handler address in bits 31:2 (the low two bits are the mode): 4-byte aligned. */
__attribute__((interrupt("machine"), aligned(4))) void timer_handler(void) {
  REG32(RV32_CLINT_BASE + RV32_CLINT_MTIMECMP) = 0xffffffffu; /* deassert MTIP */
  REG32(RV32_CLINT_BASE + RV32_CLINT_MTIMECMP + 4) = 0xffffffffu;
  timer_fired = 1;
}
__attribute__((noinline)) void timer_interrupt(void) {
  __asm__ volatile("csrw mtvec, %0" ::"r"(&timer_handler));
  const uint32_t now = REG32(RV32_CLINT_BASE + RV32_CLINT_MTIME);
  REG32(RV32_CLINT_BASE + RV32_CLINT_MTIMECMP) = now + 5000;
  REG32(RV32_CLINT_BASE + RV32_CLINT_MTIMECMP + 4) = 0;
  __asm__ volatile("csrs mie, %0" ::"r"(1u << 7)); /* MTIE */
  __asm__ volatile("csrsi mstatus, 8");            /* MIE */
  while (!timer_fired) __asm__ volatile("wfi");
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
#elif FAULT == 6
  timer_interrupt();
#endif
  return 2;
}
