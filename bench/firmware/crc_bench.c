/* ISS benchmark firmware: bitwise CRC-32 (IEEE 802.3 polynomial, reflected 0xEDB88320) over a
 * 16 KiB RAM buffer, PASSES times; a load/shift/branch-heavy integer loop like firmware parsing
 * descriptors. Runs on the bare core (no MMIO): rv32_bench loads it and counts instructions.
 * The CRC result is kept in `crc_result` so that the loop cannot be optimised away. */
#include <stdint.h>

#define BYTES 16384
#define PASSES 64

static uint8_t buf[BYTES];
volatile uint32_t crc_result;

unsigned photon_fw_main(void) {
  for (uint32_t i = 0; i < BYTES; ++i) buf[i] = (uint8_t)(i * 7 + 3);
  uint32_t crc = 0;
  for (int p = 0; p < PASSES; ++p) {
    crc = ~crc;
    for (uint32_t i = 0; i < BYTES; ++i) {
      crc ^= buf[i];
      for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    crc = ~crc;
  }
  crc_result = crc;
  return 2;
}
