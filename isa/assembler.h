// Text assembler for the Photon command stream: .pasm text -> Program.
//
// One command or directive per line; '#' or ';' starts a comment (outside quoted strings).
//   .op INDEX NAME KIND [DETAIL]        op-table entry; INDEX must be the next free index
//   .segment ADDRESS DATA               HBM bytes; DATA is hex:..., file:PATH, f32:a,b,...,
//                                       u64:a,b,...
//   MNEMONIC field=value ...            end fence signal wait dma gemm ntt vec
// Omitted fields take the struct defaults of command.h; `tag` defaults to none (kNoTag).
// A missing `end` is not an error here: the firmware reports a ring without End at run time.
// docs/command-stream.md has the full syntax.
#pragma once

#include <string>

#include "isa/program.h"

namespace photon::pcs {

/// Assembles `text`. `name` is the source name used in errors ("name:line:col: unknown mnemonic
/// 'foo'") and, when it contains a '/', its directory is the base of relative `file:` paths.
/// Throws Error on the first problem.
Program assemble(const std::string& text, const std::string& name);

/// Reads `path` and assembles it (errors carry `path` as the source name).
Program assemble_file(const std::string& path);

}  // namespace photon::pcs
