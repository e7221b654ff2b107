// Fuzz harness: the .pcs command-stream reader (isa/program.h deserialize). A program it accepts
// must also survive the documented round trips: serialize -> deserialize gives it back, and
// disassemble -> assemble gives it back (isa/disassembler.h).
//
// The header's total length and CRC-32 (docs/command-stream.md) are patched to match the input
// before it is read, so mutations reach the command, op-table and segment decoders instead of
// stopping at the CRC check (tests/isa covers the length and CRC checks themselves).
#include <boost/crc.hpp>

#include "fuzz/fuzz_support.h"
#include "isa/assembler.h"
#include "isa/disassembler.h"
#include "isa/program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace photon;
  std::vector<uint8_t> bytes(data, data + size);
  if (bytes.size() >= pcs::kHeaderBytes) {
    const uint64_t total = bytes.size();
    for (int i = 0; i < 8; ++i) bytes[20 + i] = static_cast<uint8_t>(total >> (8 * i));
    boost::crc_32_type crc;
    crc.process_bytes(bytes.data() + pcs::kHeaderBytes, bytes.size() - pcs::kHeaderBytes);
    for (int i = 0; i < 4; ++i) bytes[28 + i] = static_cast<uint8_t>(crc.checksum() >> (8 * i));
  }
  bool accepted = false;
  pcs::Program p;
  fuzz::run_reader([&] {
    p = pcs::deserialize(bytes);
    accepted = true;
  });
  if (!accepted) return 0;
  try {
    if (pcs::deserialize(pcs::serialize(p)) != p) fuzz::finding("serialize/deserialize round trip differs");
    if (pcs::assemble(pcs::disassemble(p), "disassembly") != p)
      fuzz::finding("disassemble/assemble round trip differs");
  } catch (const std::exception& e) {
    fuzz::finding(std::string("an accepted program fails its round trip: ") + e.what());
  }
  return 0;
}
