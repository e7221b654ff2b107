/* Photon command-processor firmware.
 *
 * Boot: enable interrupts, sleep until the host rings the doorbell, then walk the command ring
 * (SYS.RING_BASE/SIZE/HEAD/TAIL) in HBM. Each 64-byte command is routed to its unit's hardware
 * queue (QUEUE_<unit>.CMD[0..15] then PUSH with the command's ring index), so DMA overlaps
 * compute; Signal/Wait entries go to the queue they name and are executed there in order.
 * FENCE waits until every queue is idle; END drains every queue and reports done.
 * Errors: a unit that stops on an error raises its ERR interrupt; the firmware stops dispatching,
 * copies the failing command index to SYS.ERROR_CMD and reports FW_ERR_UNIT in SYS.STATUS. An
 * unknown opcode reports FW_ERR_OPCODE; a ring that ends without END reports FW_ERR_RING.
 *
 * Free-slot counts of each queue are cached and refreshed from QUEUE.STATUS only when they run
 * out, as real command processors do to keep MMIO reads off the fast path. Commands are fetched
 * from the ring RING_FETCH at a time (native: one 1 KiB burst read instead of sixteen 64-byte
 * ones, as command processors fetch their ring in bursts; rv32: its aperture's 1 KiB line
 * buffer); a fetch ends at a multiple of RING_FETCH ring entries (a 1 KiB boundary when the ring
 * is 1 KiB aligned, as cpu.ring_base is by default), at the tail (the host has not written what
 * lies beyond it) and at the ring's wrap. */
#include "firmware/firmware.h"

#include "firmware/hal.h"
#include "photon_regs.h"

/* The units, their queues, opcodes and interrupt bits come from registers.yaml `units`. */
#define QUEUES ((int)PHOTON_QUEUE_COUNT)
static const uint32_t queue_base[QUEUES] = PHOTON_UNIT_QUEUE_BASES;
static const uint32_t queue_opcode[QUEUES] = PHOTON_UNIT_OPCODES;
static const uint32_t err_bits = PHOTON_UNIT_ERR_BITS;
static const uint32_t done_bits = PHOTON_UNIT_DONE_BITS;

static uint32_t free_slots[QUEUES];

/* Commands fetched per ring read, and the buffer a fetch may fill (hal_fetch_mem). */
#define RING_FETCH 16u
static uint32_t fetch_buf[RING_FETCH * PHOTON_QUEUE_CMD_COUNT];

static void set_status(uint32_t state, uint32_t code) {
  hal_write32(PHOTON_SYS_BASE + PHOTON_SYS_STATUS,
              (state << PHOTON_SYS_STATUS_STATE_SHIFT) | (code << PHOTON_SYS_STATUS_CODE_SHIFT));
}

static unsigned fail(uint32_t code, uint32_t index) {
  hal_write32(PHOTON_SYS_BASE + PHOTON_SYS_ERROR_CMD, index);
  set_status(PHOTON_FW_STATE_ERROR, code);
  return PHOTON_FW_STATE_ERROR;
}

/* Returns 1 and reports the failing command if any unit stopped on an error. */
static int check_unit_errors(void) {
  uint32_t pending = hal_read32(PHOTON_IRQ_BASE + PHOTON_IRQ_PENDING);
  if (!(pending & err_bits)) return 0;
  for (int q = 0; q < QUEUES; ++q) {
    uint32_t st = hal_read32(queue_base[q] + PHOTON_QUEUE_STATUS);
    if (st & PHOTON_QUEUE_STATUS_ERROR_MASK) {
      fail(PHOTON_FW_ERR_UNIT, hal_read32(queue_base[q] + PHOTON_QUEUE_ERROR_CMD));
      return 1;
    }
  }
  return 0;
}

/* Sleeps until some unit reports progress; acknowledges completion interrupts. */
static void wait_progress(void) {
  hal_wait_irq();
  hal_work(HAL_WORK_IRQ);
  hal_write32(PHOTON_IRQ_BASE + PHOTON_IRQ_ACK, done_bits);
}

static int refresh_free(int q) {
  uint32_t st = hal_read32(queue_base[q] + PHOTON_QUEUE_STATUS);
  free_slots[q] = (st & PHOTON_QUEUE_STATUS_FREE_MASK) >> PHOTON_QUEUE_STATUS_FREE_SHIFT;
  return (st & PHOTON_QUEUE_STATUS_ERROR_MASK) != 0;
}

/* Pushes one command into queue q; returns 0, or 1 if a unit failed meanwhile. */
static int push(int q, const uint32_t* words, uint32_t index) {
  while (free_slots[q] == 0) {
    if (refresh_free(q) || check_unit_errors()) return 1;
    if (free_slots[q] == 0) wait_progress();
  }
  hal_write_block32(queue_base[q] + PHOTON_QUEUE_CMD(0), words, PHOTON_QUEUE_CMD_COUNT);
  hal_write32(queue_base[q] + PHOTON_QUEUE_PUSH, index);
  free_slots[q]--;
  return 0;
}

/* Waits until every queue is idle; returns 1 if a unit failed. The error interrupts are looked
 * at after the queues' STATUS: a queue that fails stops (idle) with its error interrupt pending,
 * so a failure up to the last STATUS read is seen before the queues are taken for idle. */
static int drain(void) {
  for (;;) {
    int busy = 0;
    for (int q = 0; q < QUEUES; ++q) {
      uint32_t st = hal_read32(queue_base[q] + PHOTON_QUEUE_STATUS);
      if (st & PHOTON_QUEUE_STATUS_BUSY_MASK) busy = 1;
    }
    if (check_unit_errors()) return 1;
    if (!busy) return 0;
    wait_progress();
  }
}

unsigned photon_fw_main(void) {
  hal_write32(PHOTON_IRQ_BASE + PHOTON_IRQ_ENABLE,
              err_bits | done_bits | (1u << PHOTON_IRQ_PENDING_DOORBELL_SHIFT));
  while (!(hal_read32(PHOTON_IRQ_BASE + PHOTON_IRQ_PENDING) & (1u << PHOTON_IRQ_PENDING_DOORBELL_SHIFT)))
    hal_wait_irq();
  hal_write32(PHOTON_IRQ_BASE + PHOTON_IRQ_ACK, 1u << PHOTON_IRQ_PENDING_DOORBELL_SHIFT);
  set_status(PHOTON_FW_STATE_RUNNING, PHOTON_FW_ERR_NONE);

  uint64_t base = ((uint64_t)hal_read32(PHOTON_SYS_BASE + PHOTON_SYS_RING_BASE_HI) << 32) |
                  hal_read32(PHOTON_SYS_BASE + PHOTON_SYS_RING_BASE_LO);
  uint32_t size = hal_read32(PHOTON_SYS_BASE + PHOTON_SYS_RING_SIZE);
  uint32_t head = hal_read32(PHOTON_SYS_BASE + PHOTON_SYS_RING_HEAD);
  uint32_t tail = hal_read32(PHOTON_SYS_BASE + PHOTON_SYS_RING_TAIL);
  const uint32_t slots = size ? size : 1;
  /* Commands [fetch_first, fetch_first + fetch_count) of the ring are readable at `fetched`. */
  uint32_t dispatched = 0, fetch_first = head, fetch_count = 0;
  const uint32_t* fetched = fetch_buf;
  for (int q = 0; q < QUEUES; ++q) refresh_free(q);

  for (;;) {
    const uint32_t* words;
    uint32_t opcode;
    int q;
    if (head == tail) {
      tail = hal_read32(PHOTON_SYS_BASE + PHOTON_SYS_RING_TAIL);
      if (head == tail) {
        if (drain()) return PHOTON_FW_STATE_ERROR;
        return fail(PHOTON_FW_ERR_RING, head);
      }
    }
    if (head - fetch_first >= fetch_count) {
      const uint32_t slot = head % slots;
      uint32_t n = RING_FETCH - slot % RING_FETCH; /* up to the next multiple of RING_FETCH */
      if (n > tail - head) n = tail - head;
      if (n > slots - slot) n = slots - slot;
      fetched = (const uint32_t*)hal_fetch_mem(base + (uint64_t)slot * PHOTON_CMD_BYTES, fetch_buf,
                                               n * PHOTON_CMD_BYTES);
      fetch_first = head;
      fetch_count = n;
    }
    words = fetched + (head - fetch_first) * PHOTON_QUEUE_CMD_COUNT;
    hal_work(HAL_WORK_DISPATCH);
    opcode = words[0] & 0xFFu;
    switch (opcode) {
      case PHOTON_OP_END:
        if (drain()) return PHOTON_FW_STATE_ERROR;
        hal_write32(PHOTON_SYS_BASE + PHOTON_SYS_RING_HEAD, head + 1);
        hal_write32(PHOTON_SYS_BASE + PHOTON_SYS_DISPATCHED, dispatched);
        set_status(PHOTON_FW_STATE_DONE, PHOTON_FW_ERR_NONE);
        return PHOTON_FW_STATE_DONE;
      case PHOTON_OP_FENCE:
        if (drain()) return PHOTON_FW_STATE_ERROR;
        q = -1;
        break;
      case PHOTON_OP_SIGNAL:
      case PHOTON_OP_WAIT:
        q = (int)((words[0] >> 16) & 0xFFu);
        if (q >= QUEUES) return fail(PHOTON_FW_ERR_OPCODE, head);
        break;
      default:
        for (q = 0; q < QUEUES && queue_opcode[q] != opcode; ++q) {}
        if (q == QUEUES) {
          drain();
          return fail(PHOTON_FW_ERR_OPCODE, head);
        }
        break;
    }
    if (q >= 0) {
      if (push(q, words, head)) return PHOTON_FW_STATE_ERROR;
      dispatched++;
    }
    head++;
    /* Publishing RING_HEAD on every command would cost one MMIO write each; publish every 16. */
    if ((head & 15u) == 0) {
      hal_write32(PHOTON_SYS_BASE + PHOTON_SYS_RING_HEAD, head);
      if (check_unit_errors()) return PHOTON_FW_STATE_ERROR;
    }
  }
}
