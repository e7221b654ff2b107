#include "models/rv32/elf_image.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "base/error.h"

namespace photon::rv32 {

namespace {

struct ElfHandle {
  int fd = -1;
  Elf* elf = nullptr;
  ~ElfHandle() {
    if (elf) elf_end(elf);
    if (fd >= 0) ::close(fd);
  }
};

std::string elf_msg() {
  const char* m = elf_errmsg(-1);
  return m ? m : "unknown libelf error";
}

}  // namespace

ElfImage ElfImage::load(const std::string& path) {
  return with_error_context(path, [&] {
    if (elf_version(EV_CURRENT) == EV_NONE) throw Error("libelf initialisation failed: " + elf_msg());
    ElfHandle h;
    h.fd = ::open(path.c_str(), O_RDONLY);
    if (h.fd < 0) throw Error("cannot open firmware ELF file");
    h.elf = elf_begin(h.fd, ELF_C_READ, nullptr);
    if (!h.elf || elf_kind(h.elf) != ELF_K_ELF) throw Error("not an ELF file");
    if (gelf_getclass(h.elf) != ELFCLASS32) throw Error("not a 32-bit ELF file (expected RV32)");
    GElf_Ehdr eh;
    if (!gelf_getehdr(h.elf, &eh)) throw Error("unreadable ELF header: " + elf_msg());
    if (eh.e_ident[EI_DATA] != ELFDATA2LSB) throw Error("not a little-endian ELF file");
    if (eh.e_machine != EM_RISCV)
      throw Error("not a RISC-V ELF file (e_machine " + std::to_string(eh.e_machine) + ")");
    if (eh.e_type != ET_EXEC)
      throw Error("not an executable ELF file (a relocatable object or shared library?)");

    ElfImage img;
    img.path_ = path;
    img.entry_ = uint32_t(eh.e_entry);
    size_t nph = 0;
    if (elf_getphdrnum(h.elf, &nph) != 0) throw Error("unreadable program headers: " + elf_msg());
    size_t file_size = 0;
    const char* raw = elf_rawfile(h.elf, &file_size);
    for (size_t i = 0; i < nph; ++i) {
      GElf_Phdr ph;
      if (!gelf_getphdr(h.elf, int(i), &ph)) throw Error("unreadable program header: " + elf_msg());
      if (ph.p_type != PT_LOAD || ph.p_memsz == 0) continue;
      if (ph.p_offset + ph.p_filesz > file_size || ph.p_filesz > ph.p_memsz)
        throw Error("segment " + std::to_string(i) + " lies outside the file");
      ElfSegment s;
      s.addr = uint32_t(ph.p_paddr);
      s.vaddr = uint32_t(ph.p_vaddr);
      s.mem_bytes = uint32_t(ph.p_memsz);
      s.bytes.assign(raw + ph.p_offset, raw + ph.p_offset + ph.p_filesz);
      s.executable = (ph.p_flags & PF_X) != 0;
      s.writable = (ph.p_flags & PF_W) != 0;
      img.segments_.push_back(std::move(s));
    }
    if (img.segments_.empty()) throw Error("no loadable segment");

    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(h.elf, scn)) != nullptr) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (!data || sh.sh_entsize == 0) continue;
      const size_t n = sh.sh_size / sh.sh_entsize;
      for (size_t k = 0; k < n; ++k) {
        GElf_Sym sym;
        if (!gelf_getsym(data, int(k), &sym)) continue;
        const int type = GELF_ST_TYPE(sym.st_info);
        if (sym.st_shndx == SHN_UNDEF || (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE))
          continue;
        const char* name = elf_strptr(h.elf, sh.sh_link, sym.st_name);
        if (!name || !*name || name[0] == '$' || (name[0] == '.' && name[1] == 'L')) continue;
        img.symbols_.push_back({name, uint32_t(sym.st_value), uint32_t(sym.st_size), type == STT_FUNC});
      }
    }
    std::stable_sort(img.symbols_.begin(), img.symbols_.end(),
                     [](const ElfSymbol& a, const ElfSymbol& b) { return a.addr < b.addr; });
    return img;
  });
}

std::optional<uint32_t> ElfImage::symbol(const std::string& name) const {
  for (const auto& s : symbols_)
    if (s.name == name) return s.addr;
  return std::nullopt;
}

std::string ElfImage::function_at(uint32_t pc) const {
  // Prefer a function whose [addr, addr + size) holds pc; else the nearest label below pc.
  const ElfSymbol* best = nullptr;
  for (const auto& s : symbols_) {
    if (s.addr > pc) break;
    if (s.function && pc < s.addr + std::max<uint32_t>(s.size, 1)) best = &s;
  }
  if (!best)
    for (const auto& s : symbols_) {
      if (s.addr > pc) break;
      if (s.function || s.size == 0) best = &s;  // nearest code label below pc
    }
  if (!best) return "";
  if (pc == best->addr) return best->name;
  char off[16];
  std::snprintf(off, sizeof off, "+0x%x", pc - best->addr);
  return best->name + off;
}

}  // namespace photon::rv32
