/* Photon firmware hardware-abstraction layer: the only way the firmware touches the platform.
 * Portable C: the virtual platform implements these as TLM transactions from the firmware CPU
 * model (soc/firmware_cpu.cpp); a real core implements them as volatile MMIO and a WFI loop. */
#ifndef PHOTON_HAL_H
#define PHOTON_HAL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 32-bit register read/write at a control-bus address (PHOTON_<BLOCK>_BASE + offset). */
uint32_t hal_read32(uint32_t addr);
void hal_write32(uint32_t addr, uint32_t value);
/* Reads `bytes` bytes of memory at data-NoC address `addr` (the command ring in HBM). */
void hal_read_mem(uint64_t addr, void* dst, uint32_t bytes);
/* Sleeps until an enabled interrupt is pending (returns at once if one already is). */
void hal_wait_irq(void);
/* Accounts firmware computation between register accesses. */
enum hal_work { HAL_WORK_DISPATCH = 0, HAL_WORK_IRQ = 1 };
void hal_work(enum hal_work kind);

#ifdef __cplusplus
}
#endif

#endif /* PHOTON_HAL_H */
