/* Photon firmware hardware-abstraction layer: the only way the firmware touches the platform.
 * Portable C: the native firmware CPU model implements these as TLM transactions
 * (soc/firmware_cpu.cpp); the rv32 build implements them as volatile MMIO and a wfi loop
 * (firmware/rv32/hal_rv32.h). */
#ifndef PHOTON_HAL_H
#define PHOTON_HAL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Accounts firmware computation between register accesses. */
enum hal_work { HAL_WORK_DISPATCH = 0, HAL_WORK_IRQ = 1 };

#ifdef PHOTON_HAL_IMPL
/* A target whose HAL is inline code defines the functions below in the header this names
 * (the rv32 build: firmware/rv32/hal_rv32.h). */
#include PHOTON_HAL_IMPL
#else
/* 32-bit register read/write at a control-bus address (PHOTON_<BLOCK>_BASE + offset). */
uint32_t hal_read32(uint32_t addr);
void hal_write32(uint32_t addr, uint32_t value);
/* Writes `count` consecutive 32-bit registers from `addr` (a queue's CMD[0..15]), in order. */
void hal_write_block32(uint32_t addr, const uint32_t* words, uint32_t count);
/* Makes `bytes` bytes of memory at data-NoC address `addr` (the command ring in HBM) readable
 * and returns where: `buf` filled with them by one burst read (native), or a view of the memory
 * itself where the CPU loads from it directly (rv32: the data aperture, whose 1 KiB line buffer
 * is refilled by one burst read on a miss). What it returns is valid until the next call. */
const void* hal_fetch_mem(uint64_t addr, void* buf, uint32_t bytes);
/* Sleeps until an enabled interrupt is pending (returns at once if one already is). */
void hal_wait_irq(void);
void hal_work(enum hal_work kind);
#endif

#ifdef __cplusplus
}
#endif

#endif /* PHOTON_HAL_H */
