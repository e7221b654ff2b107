#include "platform/regs/register_block.h"

#include <algorithm>
#include <cstdio>

#include "base/error.h"

namespace photon {

const std::vector<RegSpec>& register_table() {
  static const std::vector<RegSpec> table = {
#include "regs_table.inc"
  };
  return table;
}

namespace {
std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}
}  // namespace

RegisterBlock::RegisterBlock(const std::string& instance) : instance_(instance) {
  bool found = false;
  for (const auto& s : register_table()) {
    if (instance != s.instance) continue;
    found = true;
    block_id_ = s.block_id;
    base_ = s.base;
    regs_.push_back(
        Reg{s.name, s.offset, s.count, s.access, std::vector<uint32_t>(s.count, s.reset), {}, {}});
    size_ = std::max(size_, s.offset + 4 * s.count);
  }
  if (!found) throw Error("no register block instance '" + instance + "' in registers.yaml");
  reg_of_word_.assign(size_ / 4, 0);
  for (size_t i = 0; i < regs_.size(); ++i)
    for (uint32_t w = 0; w < regs_[i].count; ++w) reg_of_word_[regs_[i].offset / 4 + w] = uint16_t(i + 1);
}

RegisterBlock::Reg* RegisterBlock::find(uint32_t offset, uint32_t& index) {
  const uint32_t word = offset / 4;
  if (word >= reg_of_word_.size() || reg_of_word_[word] == 0) return nullptr;
  Reg& r = regs_[reg_of_word_[word] - 1];
  index = (offset - r.offset) / 4;
  return &r;
}

RegisterBlock::Reg& RegisterBlock::at(const regs::RegRef& r, uint32_t index) {
  if (r.block != block_id_ || r.index >= regs_.size())
    throw Error("register block " + instance_ + " has no register at offset " + hex(r.offset) +
                " of block id " + std::to_string(r.block));
  Reg& reg = regs_[r.index];
  if (index >= reg.count) throw Error(instance_ + "." + reg.name + ": index out of range");
  return reg;
}

const RegisterBlock::Reg& RegisterBlock::at(const regs::RegRef& r, uint32_t index) const {
  return const_cast<RegisterBlock*>(this)->at(r, index);
}

bool RegisterBlock::reject(const std::string& why) {
  ++access_errors_;
  last_error_ = why;
  return false;
}

void RegisterBlock::on_read(const regs::RegRef& reg, ReadHook hook) {
  at(reg, 0).read_hook = std::move(hook);
}
void RegisterBlock::on_write(const regs::RegRef& reg, WriteHook hook) {
  at(reg, 0).write_hook = std::move(hook);
}

bool RegisterBlock::read(uint32_t offset, uint32_t& value) {
  uint32_t index = 0;
  if (offset % 4) return reject("misaligned read of " + instance_ + " at " + hex(offset));
  Reg* r = find(offset, index);
  if (!r) return reject("read of unmapped " + instance_ + " offset " + hex(offset));
  if (r->access == RegAccess::WriteOnly || r->access == RegAccess::WriteOneToClear)
    return reject("read of write-only " + instance_ + "." + r->name);
  value = r->read_hook ? r->read_hook(index) : r->values[index];
  return true;
}

bool RegisterBlock::write(uint32_t offset, uint32_t value) { return write(offset, &value, 1); }

bool RegisterBlock::write(uint32_t offset, const uint32_t* values, uint32_t count) {
  if (offset % 4) return reject("misaligned write of " + instance_ + " at " + hex(offset));
  while (count > 0) {
    uint32_t index = 0;
    Reg* r = find(offset, index);
    if (!r) return reject("write of unmapped " + instance_ + " offset " + hex(offset));
    if (r->access == RegAccess::ReadOnly) return reject("write to read-only " + instance_ + "." + r->name);
    const uint32_t n = std::min(count, r->count - index);  // the words of this register's array
    for (uint32_t i = 0; i < n; ++i) {
      if (r->access != RegAccess::WriteOneToClear) r->values[index + i] = values[i];
      if (r->write_hook) r->write_hook(index + i, values[i]);
    }
    offset += 4 * n;
    values += n;
    count -= n;
  }
  return true;
}

uint32_t RegisterBlock::get(const regs::RegRef& reg, uint32_t index) const {
  return at(reg, index).values[index];
}

const std::vector<uint32_t>& RegisterBlock::values(const regs::RegRef& reg) const {
  return at(reg, 0).values;
}

void RegisterBlock::set(const regs::RegRef& reg, uint32_t value, uint32_t index) {
  at(reg, index).values[index] = value;
}

}  // namespace photon
