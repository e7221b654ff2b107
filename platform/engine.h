// Engine: the pure-C++ core of a compute unit (optical GEMM, NTT, vector), free of SystemC.
//
// The unit's SystemC shell (platform/queue_unit.h) pops commands from its hardware queue and calls
// issue() with the current time in the unit's own clock cycles. The engine returns when it can
// accept the next command and when this one completes, so an engine with independent internal
// pipelines (e.g. the NTT unit's NTT, base-conversion and element-wise engines) may overlap
// commands; a simple engine returns accept_cycle == done_cycle. In functional mode `spm` is the
// scratchpad's backing store and the engine computes real data; in timing-only mode spm.data is
// nullptr and no arithmetic is done.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "base/error.h"
#include "isa/command.h"
#include "platform/load_image.h"
#include "regs_view.h"

namespace photon {

/// Error codes a unit reports in its QUEUE ERROR_CODE register (enum UnitError of
/// platform/regs/registers.yaml; the firmware sees the same values as PHOTON_UNIT_ERR_*).
using UnitErrorCode = regs::UnitError;

/// Thrown by an engine for a command it cannot execute; the shell turns it into an error status
/// and the error interrupt. Nothing is written to memory before the checks that throw this.
class UnitFault : public Error {
 public:
  UnitFault(UnitErrorCode code, std::string message) : Error(std::move(message)), code_(code) {}
  UnitErrorCode code() const { return code_; }

 private:
  UnitErrorCode code_;
};

/// A view of a memory's bytes (the scratchpad). data == nullptr in timing-only mode.
struct MemView {
  uint8_t* data = nullptr;
  uint64_t size = 0;  ///< bytes
  /// Throws UnitFault(Address) unless [offset, offset+bytes) lies inside the memory.
  void check(uint64_t offset, uint64_t bytes, const char* what) const {
    if (offset + bytes > size || offset + bytes < offset)
      throw UnitFault(UnitErrorCode::ADDRESS, std::string(what) + " [" + std::to_string(offset) + ", +" +
                                                  std::to_string(bytes) + ") outside scratchpad of " +
                                                  std::to_string(size) + " bytes");
  }
  template <typename T>
  T* at(uint64_t offset) const {
    return reinterpret_cast<T*>(data + offset);
  }
};

/// What one command cost.
struct IssueResult {
  uint64_t accept_cycle = 0;    ///< cycle at which the engine can take the next command
  uint64_t done_cycle = 0;      ///< cycle at which this command's results are in memory
  double energy_pj = 0;         ///< dynamic energy of this command, pJ
  uint64_t spm_bytes_read = 0;  ///< scratchpad traffic, bytes
  uint64_t spm_bytes_written = 0;
};

class Engine {
 public:
  virtual ~Engine() = default;
  /// Unit name used in reports ("optical_gemm", "ntt", "vector").
  virtual const char* name() const = 0;
  /// Clock of the unit, GHz (cycles -> ns conversion at the shell).
  virtual double clock_ghz() const = 0;
  /// Issues `cmd` at `now_cycle`. Throws UnitFault for a command it cannot execute.
  virtual IssueResult issue(const pcs::Command& cmd, uint64_t now_cycle, const MemView& spm) = 0;
  /// Rejects, before the run, a command whose operands in memory (as `image` knows them when the
  /// command issues) the engine can never accept. Throws Error; the shell adds the command index.
  virtual void check_command(const pcs::Command& cmd, const LoadImage& image) const {
    (void)cmd;
    (void)image;
  }
  /// Per-engine counters for the report (e.g. "ntt_transforms", "macs", "busy_cycles.bconv").
  virtual std::map<std::string, double> counters() const { return {}; }
};

}  // namespace photon
