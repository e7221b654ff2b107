// ElfImage: a 32-bit RISC-V executable read with elfutils' libelf (gelf API): its loadable
// segments, entry point and symbol table (kept so that faults and the debugger can name
// functions).
//
// Errors (photon::Error, with the file as context): the file cannot be opened, is not an ELF
// file, is not 32-bit little-endian RISC-V (EM_RISCV, ELFCLASS32), is not an executable, or has
// no loadable segment.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace photon::rv32 {

/// A PT_LOAD segment. A loader writes `bytes` at `addr` (the load address, as GDB's `load` and
/// flash tools do); the program's start-up code is what copies .data to its run address and
/// clears .bss, whose run range is [vaddr, vaddr + mem_bytes).
struct ElfSegment {
  uint32_t addr = 0;           ///< load (physical) address p_paddr, bytes
  uint32_t vaddr = 0;          ///< run (virtual) address p_vaddr, bytes
  std::vector<uint8_t> bytes;  ///< file contents (p_filesz bytes)
  uint32_t mem_bytes = 0;      ///< p_memsz, bytes
  bool executable = false, writable = false;
};

struct ElfSymbol {
  std::string name;
  uint32_t addr = 0, size = 0;  ///< bytes
  bool function = false;
};

class ElfImage {
 public:
  /// Reads `path`. Throws Error as above.
  static ElfImage load(const std::string& path);

  const std::string& path() const { return path_; }
  uint32_t entry() const { return entry_; }
  const std::vector<ElfSegment>& segments() const { return segments_; }
  const std::vector<ElfSymbol>& symbols() const { return symbols_; }
  /// Address of a symbol by name.
  std::optional<uint32_t> symbol(const std::string& name) const;
  /// The function containing `pc` as "name" or "name+0x1c"; empty if no symbol covers it.
  std::string function_at(uint32_t pc) const;

 private:
  std::string path_;
  uint32_t entry_ = 0;
  std::vector<ElfSegment> segments_;
  std::vector<ElfSymbol> symbols_;  ///< sorted by address
};

}  // namespace photon::rv32
