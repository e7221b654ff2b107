// HEIR op name -> what the frontend does with it (docs/heir.md, "Op semantics").
#pragma once

#include <string>

#include "workloads/fhe/fhe_program.h"

namespace photon::heir {

enum class Sem {
  Emit,             ///< one FheOp of `kind`
  MulRelin,         ///< Mul + Relinearize (openfhe.mul, openfhe.square, lattigo mul_relin)
  LinearTransform,  ///< orion/openfhe.linear_transform: BSGS expansion
  Chebyshev,        ///< orion/openfhe.chebyshev: polynomial evaluation expansion
  HoistPrecompute,  ///< openfhe.fast_rotation_precompute: HoistedRotate, count = uses
  FastRotation,     ///< openfhe.fast_rotation: one more rotation on the precomputed ModUp
  Setup,            ///< key generation / context set-up: listed in FheProgram::unsupported
  Client,           ///< client-side decode: listed in FheProgram::unsupported
  Skip,             ///< bookkeeping (tensor, returns): skipped silently
  Constant,         ///< arith.constant: integer value recorded
  Arith,            ///< other arith ops: integer results folded when operands are constant
  For,              ///< scf.for: unrolled
  Call,             ///< func.call: inlined
  Unknown           ///< an error
};

struct OpClass {
  Sem sem = Sem::Unknown;
  fhe::FheOpKind kind = fhe::FheOpKind::Add;  ///< for Sem::Emit
  const char* reason = "";                    ///< for Sem::Setup / Sem::Client
};

/// Classifies an op by name ("ckks.rotate", "openfhe.mul_plain_inplace",
/// "lattigo.ckks.rotate_new", ...). Add/Sub/Mul with a plaintext operand are turned into the
/// *Plain kinds by the caller.
OpClass classify_op(const std::string& name);

/// True for dialects the frontend knows (an unknown op in them is "unknown operation", in other
/// dialects "unknown dialect").
bool known_dialect(const std::string& dialect);

}  // namespace photon::heir
