// RegisterBlock: one instance of a register block from platform/regs/registers.yaml.
//
// Built from the generated table (build/generated/regs_table.inc), so the models and the
// firmware's photon_regs.h come from the same description. Each register is 32 bits; an array
// register (count > 1) occupies count consecutive words. Access rules: ro (writes rejected),
// wo (reads rejected), rw, w1c (write 1s to clear the bits of the register named by the
// callback). A rejected access or an offset with no register returns false and is counted;
// the bus turns it into a TLM error response.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "regs_view.h"

namespace photon {

enum class RegAccess { ReadOnly, ReadWrite, WriteOnly, WriteOneToClear };

/// One row of the generated register table.
struct RegSpec {
  uint16_t block_id;  ///< regs::<BLOCK>::kBlock
  const char* block;
  const char* instance;
  uint32_t base;
  const char* name;
  uint32_t offset;
  uint32_t count;
  RegAccess access;
  uint32_t reset;
};

/// The whole generated table.
const std::vector<RegSpec>& register_table();

class RegisterBlock {
 public:
  using ReadHook = std::function<uint32_t(uint32_t index)>;  // index in an array
  using WriteHook = std::function<void(uint32_t index, uint32_t value)>;

  /// Builds the block `instance` (e.g. "SYS", "DMA"). Throws Error if the table has no such instance.
  explicit RegisterBlock(const std::string& instance);

  const std::string& instance() const { return instance_; }
  uint32_t base() const { return base_; }
  uint32_t size_bytes() const { return size_; }

  /// Replaces the stored value on read (e.g. a live status register). `reg` is a register of
  /// this block's kind (regs_view.h, e.g. regs::QUEUE::STATUS); another block's throws Error.
  void on_read(const regs::RegRef& reg, ReadHook hook);
  /// Called after a permitted write (w1c: with the written mask).
  void on_write(const regs::RegRef& reg, WriteHook hook);

  /// Bus access at byte `offset` inside the block. Returns false (and counts the error) for an
  /// unmapped offset, a misaligned access or an access the register's rule forbids.
  bool read(uint32_t offset, uint32_t& value);
  bool write(uint32_t offset, uint32_t value);
  /// `count` consecutive words from `offset`, in order, as `count` single writes (stops at the
  /// first refused one, whose error is kept).
  bool write(uint32_t offset, const uint32_t* values, uint32_t count);

  /// Model-side access (no access rules, no hooks). Throws Error for another block's register
  /// or an index outside the register's array.
  uint32_t get(const regs::RegRef& reg, uint32_t index = 0) const;
  void set(const regs::RegRef& reg, uint32_t value, uint32_t index = 0);
  /// Every element of `reg` (an array register's `count` words, in index order). Throws as get().
  const std::vector<uint32_t>& values(const regs::RegRef& reg) const;

  uint64_t access_errors() const { return access_errors_; }
  /// Last rejected access, for the report ("write to read-only SYS.ID at 0x0").
  const std::string& last_error() const { return last_error_; }

 private:
  struct Reg {
    std::string name;
    uint32_t offset, count;
    RegAccess access;
    std::vector<uint32_t> values;
    ReadHook read_hook;
    WriteHook write_hook;
  };
  Reg* find(uint32_t offset, uint32_t& index);
  Reg& at(const regs::RegRef& r, uint32_t index);
  const Reg& at(const regs::RegRef& r, uint32_t index) const;
  bool reject(const std::string& why);

  std::string instance_;
  uint16_t block_id_ = 0;
  uint32_t base_ = 0, size_ = 0;
  std::vector<Reg> regs_;
  std::vector<uint16_t> reg_of_word_;  ///< per 32-bit word of the block: 1 + its register's index, 0: none
  uint64_t access_errors_ = 0;
  std::string last_error_;
};

}  // namespace photon
