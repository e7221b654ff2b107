// The identity of the running program's code: its GNU build ID (the linker's --build-id note,
// a hash of the linked executable), so data derived from the code can be kept per build.
#pragma once

#include <string>

namespace photon {

/// The running executable's NT_GNU_BUILD_ID note (ELF "GNU" note type 3) as lower-case hex,
/// read from its loaded program headers (dl_iterate_phdr); empty if it has none.
std::string executable_build_id();

}  // namespace photon
