// Disassembler for the Photon command stream: Program -> .pasm text (assembler.h syntax).
#pragma once

#include <string>

#include "isa/program.h"

namespace photon::pcs {

/// Renders `p` as .pasm text: op table, segments (as hex:), then one command per line, fields
/// in payload order, each field printed unless it holds its default (addresses and sizes are
/// always printed). assemble(disassemble(p), ...) == p for every program serialize() accepts.
/// Throws Error ("command N: ...") for a command that validate() rejects.
std::string disassemble(const Program& p);

}  // namespace photon::pcs
