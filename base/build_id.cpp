#include "base/build_id.h"

#include <elf.h>
#include <link.h>

#include <cstring>

namespace photon {

namespace {

/// Scans the PT_NOTE segments of the first object dl_iterate_phdr lists (the executable).
int find_build_id(struct dl_phdr_info* info, size_t, void* data) {
  std::string& out = *static_cast<std::string*>(data);
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) nh;
      std::memcpy(&nh, p, sizeof nh);
      const char* name = p + sizeof nh;
      const char* desc = name + ((nh.n_namesz + 3) & ~3u);
      const char* next = desc + ((nh.n_descsz + 3) & ~3u);
      if (next > end) break;
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        static const char* hex = "0123456789abcdef";
        for (ElfW(Word) k = 0; k < nh.n_descsz; ++k) {
          const unsigned char b = static_cast<unsigned char>(desc[k]);
          out += hex[b >> 4];
          out += hex[b & 15];
        }
        return 1;
      }
      p = next;
    }
  }
  return 1;  // only the executable
}

}  // namespace

std::string executable_build_id() {
  std::string id;
  dl_iterate_phdr(find_build_id, &id);
  return id;
}

}  // namespace photon
