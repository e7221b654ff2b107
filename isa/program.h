// Program: a whole command stream as held in memory and in a .pcs file.
//
// .pcs file layout (docs/command-stream.md): a 32-byte header (magic "PCS1", version, counts, CRC-32
// of everything after the header), then `commands` (64 bytes each), the op table (the layers or FHE
// ops that command tags point to) and data segments (bytes to place in HBM before the run, e.g.
// weights and inputs in functional mode).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "isa/command.h"

namespace photon::pcs {

constexpr uint32_t kMagic = 0x31534350;  ///< "PCS1" read as little-endian uint32
/// Version written when no op carries `memory` figures (byte-identical to earlier files).
constexpr uint16_t kVersion = 1;
/// Version written when some op carries `memory` figures (each op entry gains a figure list).
constexpr uint16_t kVersionWithMemory = 2;

/// One entry of the op table: what a group of commands implements, for the report.
struct OpInfo {
  std::string name;    ///< layer or FHE op name, e.g. "conv1" or "ckks.rotate#3"
  std::string kind;    ///< e.g. "Conv", "Gemm", "hrot", "bootstrap"
  std::string detail;  ///< free text: chosen tiling, derived FHE parameters, ...
  /// The lowering's memory plan for the op, as named byte counts (FHE: "ct_in_bytes",
  /// "key_bytes", "peak_scratchpad_bytes", ...; docs/report.md); reported in the op's row.
  std::vector<std::pair<std::string, uint64_t>> memory;
};

/// Bytes to place at an HBM address before the run.
struct Segment {
  uint64_t address = 0;  ///< data-NoC address
  std::vector<uint8_t> bytes;
};

struct Program {
  std::vector<Command> commands;
  std::vector<OpInfo> ops;
  std::vector<Segment> segments;

  /// Appends an op-table entry and returns its tag.
  uint32_t add_op(OpInfo op) {
    ops.push_back(std::move(op));
    return static_cast<uint32_t>(ops.size() - 1);
  }
};

inline bool operator==(const OpInfo& a, const OpInfo& b) {
  return a.name == b.name && a.kind == b.kind && a.detail == b.detail && a.memory == b.memory;
}
inline bool operator==(const Segment& a, const Segment& b) {
  return a.address == b.address && a.bytes == b.bytes;
}
inline bool operator==(const Program& a, const Program& b) {
  return a.commands == b.commands && a.ops == b.ops && a.segments == b.segments;
}
inline bool operator!=(const Program& a, const Program& b) { return !(a == b); }

/// .pcs header size in bytes (version 1).
constexpr uint32_t kHeaderBytes = 32;

/// Serialises to the .pcs byte format. Throws Error ("command N: ...") for a command that
/// validate() rejects.
std::vector<uint8_t> serialize(const Program& p);
/// Parses .pcs bytes. Throws Error naming the problem ("truncated: header says 12 commands (768
/// bytes), 448 bytes follow the header", "not a .pcs file (bad magic ...)", "unsupported version
/// 3", "CRC mismatch", "command 5: unknown opcode 0x7f", "trailing garbage"); the full list is in
/// docs/command-stream.md.
Program deserialize(const std::vector<uint8_t>& bytes);
/// File helpers; write_program writes to a temporary file and renames it (nothing half-written).
Program read_program(const std::string& path);
void write_program(const Program& p, const std::string& path);

}  // namespace photon::pcs
