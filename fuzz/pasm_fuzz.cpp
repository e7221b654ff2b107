// Fuzz harness: the command-stream assembler (isa/assembler.h) on arbitrary text. A program it
// accepts must round-trip through the .pcs codec and the disassembler unchanged.
#include "fuzz/fuzz_support.h"
#include "isa/assembler.h"
#include "isa/disassembler.h"
#include "isa/program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace photon;
  const std::string text = fuzz::as_text(data, size);
  bool accepted = false;
  pcs::Program p;
  fuzz::run_reader([&] {
    p = pcs::assemble(text, "fuzz.pasm");
    accepted = true;
  });
  if (!accepted) return 0;
  // serialize() and disassemble() may refuse a command the assembler took (validate()); that is an
  // Error, not a finding. What they produce must read back as the same program.
  fuzz::run_reader([&] {
    const std::vector<uint8_t> bytes = pcs::serialize(p);
    if (pcs::deserialize(bytes) != p) fuzz::finding("serialize/deserialize round trip differs");
    if (pcs::assemble(pcs::disassemble(p), "disassembly") != p)
      fuzz::finding("disassemble/assemble round trip differs");
  });
  return 0;
}
