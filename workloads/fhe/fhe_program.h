// FheProgram: a scheme-level FHE program as the HEIR frontend hands it to the FHE lowering.
//
// One FheOp per scheme operation executed (loops unrolled), with the RNS parameters that the
// hardware cost depends on. Levels follow HEIR/OpenFHE usage: a ciphertext at level l has l+1
// active Q limbs; max_level is L (L+1 Q limbs in the chain); alpha is the number of P (special)
// limbs; dnum = ceil((L+1)/alpha) unless given.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace photon::fhe {

enum class FheOpKind {
  Add,
  Sub,
  Negate,  // ciphertext-ciphertext (or unary) element-wise
  AddPlain,
  SubPlain,
  MulPlain,       // ciphertext-plaintext
  MulScalar,      // ciphertext times a constant (element-wise)
  Mul,            // ciphertext tensor product (degree 2 result, no relinearization)
  Relinearize,    // key switch of the degree-2 part
  Rescale,        // CKKS rescale / BGV modulus switch (drops one limb)
  LevelReduce,    // drop limbs without scaling
  Rotate,         // automorphism + key switch (rotation key)
  Conjugate,      // automorphism X -> X^{-1} + key switch
  HoistedRotate,  // `count` rotations sharing one ModUp (hoisting)
  KeySwitch,      // explicit key switch (openfhe key_switch_down etc.)
  Bootstrap,      // CKKS bootstrapping (ModRaise, CoeffToSlot, EvalMod, SlotToCoeff)
  Encode,         // plaintext encoding (forward NTT of the plaintext limbs)
  Encrypt,
  Decrypt,   // client-side; reported, not run on the accelerator
  ModRaise,  // bootstrapping step: level-0 residues raised to the whole Q chain
};

struct FheOp {
  FheOpKind kind = FheOpKind::Add;
  std::string name;        ///< source op name, e.g. "ckks.rotate"
  std::string location;    ///< "file:line:col" of the op in the source
  uint32_t log_n = 16;     ///< ring degree N = 2^log_n
  uint32_t level = 0;      ///< active Q limbs - 1 of the input ciphertext(s)
  uint32_t max_level = 0;  ///< L: Q limbs in the chain - 1
  uint32_t alpha = 1;      ///< P limbs (special primes)
  uint32_t dnum = 1;       ///< key-switching decomposition number
  int64_t rotation = 0;    ///< rotation offset (Rotate) or Galois element source
  uint32_t count = 1;      ///< HoistedRotate: rotations sharing one ModUp
  uint32_t ct_degree = 1;  ///< input ciphertext degree (2 after Mul without relinearize)
};

struct FheProgram {
  std::string source;  ///< file name
  std::string scheme;  ///< "ckks", "bgv", ...
  std::vector<FheOp> ops;
  std::vector<std::string> derived;  ///< "dnum = 3 derived from ...": values the IR left implicit
  struct Unsupported {
    std::string op, location, reason;
  };
  std::vector<Unsupported> unsupported;  ///< ops skipped (not run), with why
  std::vector<std::string> warnings;     ///< e.g. inconsistent N between types and attributes
};

}  // namespace photon::fhe
