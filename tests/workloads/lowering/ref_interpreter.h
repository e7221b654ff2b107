// Naive reference interpreter of a command stream, for the lowering tests: a flat HBM byte array and
// a scratchpad byte array; every command is executed with plain loops following isa/command.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "isa/program.h"
#include "soc/platform_config.h"
#include "workloads/lowering/ai_lowering.h"

namespace photon::testing {

class RefMachine {
 public:
  /// HBM of `hbm_bytes` at cfg.noc.hbm_base, scratchpad of cfg.scratchpad.size_bytes() at
  /// cfg.noc.scratchpad_base.
  RefMachine(const PlatformConfig& cfg, uint64_t hbm_bytes);

  /// Places segments and splat fills.
  void load(const lowering::LoweringResult& r);
  void write_f32(uint64_t addr, const std::vector<float>& v);
  std::vector<float> read_f32(uint64_t addr, size_t n);

  /// Executes in program order. Throws std::runtime_error if a Wait finds its semaphore at 0 (the
  /// program order is not a legal sequential schedule) or a semaphore id is out of range.
  void run_in_order(const pcs::Program& p);
  /// Executes the four queues concurrently in a random legal interleaving (commands are atomic;
  /// a queue's head Wait blocks while its semaphore is 0; Fence/End wait for every earlier command).
  /// Throws on deadlock. Semaphores must all be 0 at the end.
  void run_interleaved(const pcs::Program& p, uint64_t seed);

  uint64_t gemm_commands = 0, reused_weights = 0;

 private:
  uint8_t* at(uint64_t addr, uint64_t bytes);
  float* spm_f(uint32_t off, uint64_t n);
  void exec(const pcs::Command& c);
  void dma(const pcs::DmaCopy& d);
  void gemm(const pcs::Gemm& g);
  void vector(const pcs::Vector& v);

  const PlatformConfig& cfg_;
  std::vector<uint8_t> hbm_, spm_;
  std::vector<int64_t> sem_;
  std::vector<float> programmed_;  ///< weight tile in the array, k x n
  uint32_t prog_k_ = 0, prog_n_ = 0;
  bool programmed_valid_ = false;
};

}  // namespace photon::testing
