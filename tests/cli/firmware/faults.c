/* Test firmware for the rv32 fault reports: photon_fw_main commits the fault that FAULT selects,
 * in a function of its own so that the report can name it. Built by firmware_faults.cmake. */
#include <stdint.h>

#include "firmware/rv32/rv32_memory_map.h"
#include "photon_regs.h"

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
  /* Done means the ring was consumed: skip every command (the platform checks RING_HEAD). */
  REG32(RV32_MMIO_BASE + PHOTON_SYS_BASE + PHOTON_SYS_RING_HEAD) =
      REG32(RV32_MMIO_BASE + PHOTON_SYS_BASE + PHOTON_SYS_RING_TAIL);
}

/* FAULT 7: the timer armed 2^42 ticks (about 73 min) ahead and wfi forever: the watchdog, not
 * the timer, ends the run. */
__attribute__((noinline)) void far_timer(void) {
  REG32(RV32_CLINT_BASE + RV32_CLINT_MTIMECMP) = 0;
  REG32(RV32_CLINT_BASE + RV32_CLINT_MTIMECMP + 4) = 1024;
  __asm__ volatile("csrw mie, %0" ::"r"(1u << 7)); /* MTIE only */
  for (;;) __asm__ volatile("wfi");
}
/* FAULT 10: a jump to 0x20000000, nothing mapped and no function there (just above the data
 * RAM's __stack_top, the last symbol below it). */
static volatile uint32_t jump_target = 0x20000000u;
__attribute__((noinline)) void jump_unmapped(void) { ((void (*)(void))(uintptr_t)jump_target)(); }

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
#elif FAULT == 7
  far_timer();
#elif FAULT == 8
  return 2; /* PHOTON_FW_STATE_DONE without reading the command ring */
#elif FAULT == 9
  return 12345; /* no state of the exit protocol */
#elif FAULT == 10
  jump_unmapped();
#endif
  return 2;
}
