#include "workloads/fhe/fhe_program.h"

namespace photon {

const char* fhe_op_kind_name(FheOpKind k) {
  switch (k) {
    case FheOpKind::Add: return "Add";
    case FheOpKind::Sub: return "Sub";
    case FheOpKind::Negate: return "Negate";
    case FheOpKind::AddPlain: return "AddPlain";
    case FheOpKind::SubPlain: return "SubPlain";
    case FheOpKind::MulPlain: return "MulPlain";
    case FheOpKind::MulScalar: return "MulScalar";
    case FheOpKind::Mul: return "Mul";
    case FheOpKind::Relinearize: return "Relinearize";
    case FheOpKind::Rescale: return "Rescale";
    case FheOpKind::LevelReduce: return "LevelReduce";
    case FheOpKind::Rotate: return "Rotate";
    case FheOpKind::Conjugate: return "Conjugate";
    case FheOpKind::HoistedRotate: return "HoistedRotate";
    case FheOpKind::KeySwitch: return "KeySwitch";
    case FheOpKind::Bootstrap: return "Bootstrap";
    case FheOpKind::Encode: return "Encode";
    case FheOpKind::Encrypt: return "Encrypt";
    case FheOpKind::Decrypt: return "Decrypt";
    case FheOpKind::ModRaise: return "ModRaise";
  }
  return "?";
}

}  // namespace photon
