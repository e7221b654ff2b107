/* The firmware HAL (firmware/hal.h) on the rv32 firmware CPU, as inline functions (included by
 * hal.h when PHOTON_HAL_IMPL names this file): volatile MMIO through the control-bus window,
 * command reads through the data aperture, wfi. Memory map: firmware/rv32/rv32_memory_map.h. */
#ifndef PHOTON_HAL_RV32_H
#define PHOTON_HAL_RV32_H

#include <stdint.h>

#include "firmware/rv32/rv32_memory_map.h"

#define REG32(addr) (*(volatile uint32_t*)(uintptr_t)(addr))

static inline uint32_t hal_read32(uint32_t addr) { return REG32(RV32_MMIO_BASE + addr); }

static inline void hal_write32(uint32_t addr, uint32_t value) { REG32(RV32_MMIO_BASE + addr) = value; }

/* One store per register: the core has no wider store. */
static inline void hal_write_block32(uint32_t addr, const uint32_t* words, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) REG32(RV32_MMIO_BASE + addr + 4 * i) = words[i];
}

/* The aperture shows DATA_WINDOW + [0, RV32_DATA_BYTES); the window is moved (aligned to the
 * aperture size) only when `addr` lies outside it. */
static uint64_t hal_window = 0;

static inline const void* hal_fetch_mem(uint64_t addr, void* buf, uint32_t bytes) {
  const uint64_t base = addr & ~(uint64_t)(RV32_DATA_BYTES - 1);
  if (base != hal_window) {
    REG32(RV32_CPUCTL_BASE + RV32_CPUCTL_DATA_WINDOW_LO) = (uint32_t)base;
    REG32(RV32_CPUCTL_BASE + RV32_CPUCTL_DATA_WINDOW_HI) = (uint32_t)(base >> 32);
    hal_window = base;
  }
  /* fence: the line buffer may hold data older than the memory (or of the old window). */
  __asm__ volatile("fence" ::: "memory");
  const volatile uint32_t* src =
      (const volatile uint32_t*)(uintptr_t)(RV32_DATA_BASE + (uint32_t)(addr - base));
  if (addr + bytes <= base + RV32_DATA_BYTES) return (const void*)src;  /* a view: no copy */
  /* The range leaves the window: copy it, moving the window once. */
  uint32_t* out = (uint32_t*)buf;
  const uint32_t first = (uint32_t)(base + RV32_DATA_BYTES - addr);
  for (uint32_t i = 0; i < first / 4; ++i) out[i] = src[i];
  const uint64_t next = base + RV32_DATA_BYTES;
  REG32(RV32_CPUCTL_BASE + RV32_CPUCTL_DATA_WINDOW_LO) = (uint32_t)next;
  REG32(RV32_CPUCTL_BASE + RV32_CPUCTL_DATA_WINDOW_HI) = (uint32_t)(next >> 32);
  hal_window = next;
  __asm__ volatile("fence" ::: "memory");
  const volatile uint32_t* rest = (const volatile uint32_t*)(uintptr_t)RV32_DATA_BASE;
  for (uint32_t i = 0; i < (bytes - first) / 4; ++i) out[first / 4 + i] = rest[i];
  return buf;
}

/* mstatus.MIE is 0 and mie.MEIE 1 (crt0.S): wfi returns once the interrupt controller's line
 * (mip.MEIP) is up, without trapping. */
static inline void hal_wait_irq(void) {
  uint32_t mip;
  for (;;) {
    __asm__ volatile("csrr %0, mip" : "=r"(mip));
    if (mip & (1u << 11)) return;
    __asm__ volatile("wfi");
  }
}

/* On a real core the work is the instructions themselves: nothing to account. */
static inline void hal_work(enum hal_work kind) { (void)kind; }

#endif /* PHOTON_HAL_RV32_H */
