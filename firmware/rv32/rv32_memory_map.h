/* The firmware CPU's (cpu.model=rv32) 32-bit address map: the one description shared by the core
 * model (models/rv32/rv32_cpu.cpp), the firmware's HAL, start-up code and linker script
 * (firmware/rv32/). Plain C preprocessor definitions so that C, C++, assembly and the linker
 * script (preprocessed) read the same numbers. Addresses in bytes.
 *
 *   0x0000_0000  boot ROM: code and read-only data; the reset pc is the ELF entry.
 *                Size cpu.rv32.rom_kib (the linker script assumes the default). Stores fault.
 *   0x0200_0000  machine timer, SiFive CLINT layout: msip +0x0, mtimecmp +0x4000 (64-bit),
 *                mtime +0xBFF8 (64-bit, read-only here, cpu.rv32.mtime_mhz).
 *   0x0300_0000  CPU control: DATA_WINDOW_LO/HI +0x0/+0x4 (data-NoC address of the data
 *                aperture's first byte).
 *   0x1000_0000  data RAM (tightly coupled): data, bss, stack, `tohost`. Size cpu.rv32.ram_kib.
 *   0x4000_0000  control-bus window, 16 MiB: CPU address 0x4000_0000 + A is control-bus address
 *                A (the PHOTON_*_BASE + offset of photon_regs.h). 32-bit accesses only.
 *   0x8000_0000  data aperture, 256 MiB: CPU address 0x8000_0000 + A is data-NoC address
 *                DATA_WINDOW + A (HBM, scratchpad). Loads are served by a 1 KiB line buffer
 *                (16 commands of the ring) refilled with one data-NoC burst read; `fence`
 *                empties it; stores write through.
 * Anything else is an access fault. */
#ifndef PHOTON_RV32_MEMORY_MAP_H
#define PHOTON_RV32_MEMORY_MAP_H

#define RV32_ROM_BASE 0x00000000
#define RV32_ROM_DEFAULT_BYTES 0x00010000
#define RV32_CLINT_BASE 0x02000000
#define RV32_CLINT_MSIP 0x0000
#define RV32_CLINT_MTIMECMP 0x4000
#define RV32_CLINT_MTIME 0xBFF8
#define RV32_CLINT_BYTES 0x00010000
#define RV32_CPUCTL_BASE 0x03000000
#define RV32_CPUCTL_DATA_WINDOW_LO 0x0
#define RV32_CPUCTL_DATA_WINDOW_HI 0x4
#define RV32_CPUCTL_BYTES 0x1000
#define RV32_RAM_BASE 0x10000000
#define RV32_RAM_DEFAULT_BYTES 0x00010000
#define RV32_MMIO_BASE 0x40000000
#define RV32_MMIO_BYTES 0x01000000
#define RV32_DATA_BASE 0x80000000
#define RV32_DATA_BYTES 0x10000000
#define RV32_DATA_LINE_BYTES 1024

/* Exit protocol (as riscv-tests and Spike's HTIF): the firmware stores (code << 1) | 1 to the
 * word at its `tohost` symbol. code is photon_fw_main's return value (PHOTON_FW_STATE_DONE or
 * _ERROR), or RV32_EXIT_TRAP from the trap handler for an unexpected exception or interrupt
 * (the core's mcause, mepc and mtval then say which). */
#define RV32_EXIT_TRAP 0x7FF

#endif /* PHOTON_RV32_MEMORY_MAP_H */
