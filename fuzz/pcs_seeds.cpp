// Writes .pcs seeds for the command-stream harness: each .pasm argument assembled and serialized
// into OUT_DIR/<name>.pcs. Usage: pcs_seeds OUT_DIR FILE.pasm...
#include <cstdio>
#include <filesystem>

#include "base/error.h"
#include "isa/assembler.h"
#include "isa/program.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: pcs_seeds OUT_DIR FILE.pasm...\n");
    return 2;
  }
  const std::filesystem::path out(argv[1]);
  int written = 0;
  for (int i = 2; i < argc; ++i) {
    try {
      const auto p = photon::pcs::assemble_file(argv[i]);
      photon::pcs::write_program(p, (out / std::filesystem::path(argv[i]).stem()).string() + ".pcs");
      ++written;
    } catch (const photon::Error& e) {
      std::fprintf(stderr, "pcs_seeds: skipped %s: %s\n", argv[i], e.what());
    }
  }
  std::printf("%d seeds in %s\n", written, out.c_str());
  return 0;
}
