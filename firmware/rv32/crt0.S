/* Start-up code of the rv32 firmware build: reset entry, trap entry and the exit protocol.
 * Reset: set gp and sp, point mtvec at trap_entry, copy .data from ROM to RAM, zero .bss,
 * enable the external interrupt in mie (mstatus.MIE stays 0: the HAL sleeps with wfi, which
 * wakes on a pending enabled interrupt without taking it, RISC-V Privileged ISA 3.3.3), call
 * photon_fw_main and report its return value through tohost.
 * Traps: photon_fw_main expects none; any trap reports RV32_EXIT_TRAP and the platform names
 * the fault from mcause, mepc and mtval. Memory map: firmware/rv32/rv32_memory_map.h. */
#include "firmware/rv32/rv32_memory_map.h"

  .section .text.init, "ax", @progbits
  .globl _start
  .type _start, @function
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, __stack_top
  la t0, trap_entry
  csrw mtvec, t0
  la a0, __data_load
  la a1, __data_start
  la a2, __data_end
1:
  bgeu a1, a2, 2f
  lw t0, 0(a0)
  sw t0, 0(a1)
  addi a0, a0, 4
  addi a1, a1, 4
  j 1b
2:
  la a1, __bss_start
  la a2, __bss_end
3:
  bgeu a1, a2, 4f
  sw zero, 0(a1)
  addi a1, a1, 4
  j 3b
4:
  li t0, 1 << 11          /* mie.MEIE: the interrupt controller's line wakes wfi */
  csrs mie, t0
  call photon_fw_main
  tail _exit
  .size _start, . - _start

/* void _exit(int code): (code << 1) | 1 to tohost; the platform stops the core on that store. */
  .globl _exit
  .type _exit, @function
_exit:
  slli a0, a0, 1
  ori a0, a0, 1
  la t0, tohost
  sw a0, 0(t0)
1:
  j 1b
  .size _exit, . - _exit

  .align 2
  .globl trap_entry
  .type trap_entry, @function
trap_entry:
  li a0, RV32_EXIT_TRAP
  j _exit
  .size trap_entry, . - trap_entry

  .section .bss.tohost, "aw", @nobits
  .align 3
  .globl tohost
  .type tohost, @object
tohost:
  .zero 8
  .size tohost, 8
