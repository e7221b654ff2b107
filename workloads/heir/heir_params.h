// Program-wide RNS parameters of a HEIR module (docs/heir.md, "Derivation rules").
//
// log_n, max_level (L), alpha (P limbs) and dnum from, in order of preference: the module's
// schemeParam, openfhe.gen_params / a Lattigo parameters literal, the ciphertext types, a
// #tensor_ext.layout; dnum/alpha by OpenFHE's default digit rule when the IR has no P primes.
#pragma once

#include <string>

#include "workloads/fhe/fhe_program.h"
#include "workloads/heir/mlir_parser.h"

namespace photon::heir {

struct ProgramParams {
  int log_n = 16;                  ///< log2 of the ring degree N
  bool log_n_from_module = false;  ///< true: every op uses log_n; false: each op its type's N
  int max_level = 0;               ///< L (|Q| - 1)
  int alpha = 1;                   ///< P limbs
  int dnum = 1;                    ///< key-switching digits
  std::string scheme_guess;        ///< scheme from the first scheme-level op's dialect
};

/// Derives the parameters; appends each rule used to prog->derived, inconsistencies to
/// prog->warnings, and sets prog->scheme from `scheme.X` / `X.schemeParam` when present.
ProgramParams derive_parameters(const mlir::Module& m, fhe::FheProgram* prog);

}  // namespace photon::heir
