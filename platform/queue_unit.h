// QueueUnit: the SystemC shell shared by every command-executing unit (DMA, optical GEMM, NTT,
// vector). It owns the unit's QUEUE register block (registers.yaml): the firmware stages a
// 64-byte command in CMD[0..15] and writes its stream index to PUSH; the unit decodes it and
// appends it to a hardware FIFO of cpu.queue_depth entries. A thread executes the FIFO in order:
//   Signal(sem): sem += 1 once every earlier command of this queue has completed; the queue
//                goes on issuing later commands meanwhile (docs/command-stream.md).
//   Wait(sem):   blocks the queue until sem > 0, then sem -= 1.
//   other:       execute() (subclass) — returns when the unit can accept the next command and
//                the time at which this command's results are complete.
// IRQ: <unit>_DONE when a command retires and when the queue becomes idle; <unit>_ERR when a
// command fails (decode, address, bus): the queue stops, ERROR_CODE/ERROR_CMD say why, later
// commands are not executed and nothing more is written.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include <systemc>
#include <tlm>

#include "isa/command.h"
#include "platform/engine.h"
#include "platform/load_image.h"
#include "platform/irq_controller.h"
#include "platform/regs/register_block.h"
#include "platform/report/trace.h"
#include "platform/semaphores.h"
#include "platform/stats/stats.h"

namespace photon {

class QueueUnit : public sc_core::sc_module {
 public:
  /// What the platform connects a unit to, and the names it gives it (soc/unit_table.cpp).
  struct Wiring {
    std::string regs_instance;  ///< QUEUE block instance in registers.yaml ("DMA", "GEMM", ...)
    std::string unit;           ///< report and trace name ("dma", "optical_gemm", ...)
    IrqController* irq = nullptr;
    Semaphores* sems = nullptr;
    TraceRecorder* trace = nullptr;
    uint32_t depth = 16;    ///< FIFO entries
    unsigned done_bit = 0;  ///< IRQ.PENDING bit for DONE
    unsigned err_bit = 1;   ///< IRQ.PENDING bit for ERR
  };

  SC_HAS_PROCESS(QueueUnit);
  /// The register block is the QUEUE instance `w.regs_instance`; `w.unit` names the unit in the
  /// report and the trace.
  QueueUnit(sc_core::sc_module_name name, const Wiring& w);

  RegisterBlock& regs() { return regs_; }
  const std::string& unit_name() const { return unit_; }
  const UnitStats& stats() const { return stats_; }
  bool failed() const { return error_code_ != 0; }
  /// Why the queue stopped ("command 7: A [0, +4096) outside scratchpad ..."), "" if it did not.
  const std::string& error_message() const { return error_message_; }
  /// Description of the command the queue is blocked on (deadlock reports), "" if none.
  std::string blocked_on() const;
  /// Time-weighted mean FIFO occupancy (entries) up to `end_ns`.
  double mean_occupancy(double end_ns) const;
  uint32_t max_occupancy() const { return max_occupancy_; }

  /// Backdoor for tests and the host: enqueue without going through the registers.
  void push(const pcs::Command& c, uint32_t index);
  /// Rejects, before the run, a command of this queue that the unit's implementation can never
  /// execute (e.g. an N above an RTL core's memory, a modulus in `image` wider than the unit's
  /// word): throws Error naming command `index`. `image`: the memories as the stream leaves them
  /// when the command issues (platform/load_image.h).
  virtual void check_command(const pcs::Command& c, uint32_t index, const LoadImage& image) const {
    (void)c;
    (void)index;
    (void)image;
  }

  /// A bulk stream that a command issues on the data NoC (bulk_streams()): `rows` rows of
  /// `row_bytes` bytes, `stride` bytes apart, from data-NoC address `addr`.
  struct BulkStream {
    bool is_write = false;
    uint64_t addr = 0, row_bytes = 0, rows = 1, stride = 0;
  };
  /// Appends to `out`, in issue order, the bulk streams (StreamExtension transactions) that
  /// command `c` will issue when it executes. A hint the platform plans work with before the run
  /// (HBM calibrations computed ahead); it never changes a result. Default: none.
  virtual void bulk_streams(const pcs::Command& c, std::vector<BulkStream>& out) const {
    (void)c;
    (void)out;
  }

  /// The unit's initiator socket onto the data NoC, if it has one (the DMA); the platform binds it.
  virtual tlm::tlm_initiator_socket<>* data_initiator() { return nullptr; }
  /// Unit-specific counters merged into the report's `counters` (e.g. an engine's).
  virtual std::map<std::string, double> extra_counters() const { return {}; }

 protected:
  struct Timing {
    sc_core::sc_time accept;  ///< absolute time the unit can take the next command
    sc_core::sc_time done;    ///< absolute time this command completes
    /// The completion is not known yet (e.g. an RTL core has to answer first): the unit reports
    /// it later with complete_deferred(), in command order, or stops with fail_deferred().
    /// Signal and the idle state wait for it; `done` is ignored.
    bool deferred = false;
  };
  /// Executes one unit command issued at sc_time_stamp(). May call wait(). Throws UnitFault.
  virtual Timing execute(const pcs::Command& c, uint32_t index) = 0;
  /// Trace event name of a command.
  virtual std::string event_name(const pcs::Command& c) const;
  /// The oldest deferred command (command `index`) completed at `done` (may lie in the past):
  /// books its busy interval from its issue, its trace event and the queue's last completion.
  void complete_deferred(uint32_t index, const sc_core::sc_time& done);
  /// A deferred command failed: the queue stops as for a fault in execute().
  void fail_deferred(uint32_t code, uint32_t index, const std::string& why);
  UnitStats stats_;

 private:
  struct Entry {
    pcs::Command cmd;
    uint32_t index;
  };
  struct Deferred {
    pcs::Command cmd;
    uint32_t index;
    sc_core::sc_time issued;
  };
  void run();
  /// Raises the posted Signals at their times (one thread per queue, oldest first).
  void post_signals();
  void on_push(uint32_t index);
  void fail(uint32_t code, uint32_t index, const std::string& why);
  void note_occupancy();

  RegisterBlock regs_;
  std::string unit_;
  Wiring w_;
  std::deque<Entry> fifo_;
  bool executing_ = false;
  bool waiting_ = false;
  bool idle_reported_ = true;  ///< the idle DONE interrupt for the current last_done_ was raised
  uint32_t error_code_ = 0;
  std::string error_message_;
  sc_core::sc_time last_done_;
  sc_core::sc_event pushed_;
  std::deque<Deferred> deferred_;  ///< issued, completion not known yet (oldest first)
  sc_core::sc_event deferred_done_;
  /// run() waits on pushed_ (and deferred_done_), post_signals() on posted_changed_: only then is
  /// the event notified (a notification nobody waits for changes nothing but costs a delta cycle).
  bool run_listens_ = false, post_listens_ = false;
  uint64_t deferred_issued_ = 0, deferred_completed_ = 0;  ///< deferred commands so far
  /// A Signal waiting for the earlier commands to complete: at `at`, once `after` deferred
  /// commands have completed (the completion time of those is known only then).
  struct Posted {
    sc_core::sc_time at;
    uint64_t after;
    uint32_t sem;
  };
  std::deque<Posted> posted_;
  sc_core::sc_event posted_changed_;
  bool stopped_ = false;  ///< fail_deferred(): the thread ends
  uint32_t blocked_index_ = 0, blocked_sem_ = 0;  ///< the Wait the queue is blocked on (waiting_)
  // Occupancy integral.
  double occ_area_ = 0, occ_last_ns_ = 0;
  uint32_t max_occupancy_ = 0;
};

}  // namespace photon
