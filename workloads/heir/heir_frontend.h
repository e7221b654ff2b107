// HEIR frontend: a HEIR MLIR program (scheme level: ckks/bgv/lwe; library level: openfhe,
// lattigo; Orion macro-ops) -> photon::FheProgram, one FheOp per executed scheme operation.
//
// Loops (scf.for with constant bounds) are unrolled and func.call is inlined, so the op list is
// the dynamic trace. Every function that no other function calls is an entry point and runs
// once, in module order. The RNS parameters of each op (log_n, level, max_level, alpha, dnum)
// come from the types and module attributes; values the IR leaves implicit are derived and
// listed in FheProgram::derived with their rule. Op semantics, derivation rules and sources:
// docs/heir.md.
#pragma once

#include <string>

#include "workloads/fhe/fhe_program.h"
#include "workloads/heir/mlir_parser.h"

namespace photon::heir {

/// Loads a HEIR MLIR file. Throws photon::Error ("file:line:col: ...") on syntax errors,
/// undefined aliases, undefined SSA values, unknown ops, non-constant loop bounds, a ring that
/// is not x**N + 1 with N = 2^10..2^17, no module, or no FHE operation (docs/heir.md). Non-printable
/// bytes in the message are escaped (photon::Error stores it printable()): every error is one line.
fhe::FheProgram load_heir(const std::string& path);

/// Same, from MLIR text; `name` is used as the file name in locations and messages.
fhe::FheProgram load_heir_string(const std::string& text, const std::string& name = "<string>");

/// Same, from an already parsed module.
fhe::FheProgram heir_to_fhe_program(const mlir::Module& module);

}  // namespace photon::heir
