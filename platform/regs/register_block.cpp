#include "platform/regs/register_block.h"

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
    base_ = s.base;
    regs_.push_back(
        Reg{s.name, s.offset, s.count, s.access, std::vector<uint32_t>(s.count, s.reset), {}, {}});
    size_ = std::max(size_, s.offset + 4 * s.count);
  }
  if (!found) throw Error("no register block instance '" + instance + "' in registers.yaml");
}

RegisterBlock::Reg* RegisterBlock::find(uint32_t offset, uint32_t& index) {
  for (auto& r : regs_)
    if (offset >= r.offset && offset < r.offset + 4 * r.count) {
      index = (offset - r.offset) / 4;
      return &r;
    }
  return nullptr;
}

RegisterBlock::Reg& RegisterBlock::by_name(const std::string& name) {
  for (auto& r : regs_)
    if (r.name == name) return r;
  throw Error("register block " + instance_ + " has no register " + name);
}

const RegisterBlock::Reg& RegisterBlock::by_name(const std::string& name) const {
  return const_cast<RegisterBlock*>(this)->by_name(name);
}

bool RegisterBlock::reject(const std::string& why) {
  ++access_errors_;
  last_error_ = why;
  return false;
}

void RegisterBlock::on_read(const std::string& reg, ReadHook hook) {
  by_name(reg).read_hook = std::move(hook);
}
void RegisterBlock::on_write(const std::string& reg, WriteHook hook) {
  by_name(reg).write_hook = std::move(hook);
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

bool RegisterBlock::write(uint32_t offset, uint32_t value) {
  uint32_t index = 0;
  if (offset % 4) return reject("misaligned write of " + instance_ + " at " + hex(offset));
  Reg* r = find(offset, index);
  if (!r) return reject("write of unmapped " + instance_ + " offset " + hex(offset));
  if (r->access == RegAccess::ReadOnly) return reject("write to read-only " + instance_ + "." + r->name);
  if (r->access != RegAccess::WriteOneToClear) r->values[index] = value;
  if (r->write_hook) r->write_hook(index, value);
  return true;
}

uint32_t RegisterBlock::get(const std::string& reg, uint32_t index) const {
  const Reg& r = by_name(reg);
  if (index >= r.count) throw Error(instance_ + "." + reg + ": index out of range");
  return r.values[index];
}

void RegisterBlock::set(const std::string& reg, uint32_t value, uint32_t index) {
  Reg& r = by_name(reg);
  if (index >= r.count) throw Error(instance_ + "." + reg + ": index out of range");
  r.values[index] = value;
}

}  // namespace photon
