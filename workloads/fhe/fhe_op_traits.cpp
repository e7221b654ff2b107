#include "workloads/fhe/fhe_op_traits.h"

#include <algorithm>
#include <array>

#include "workloads/fhe/fhe_bootstrap.h"
#include "workloads/fhe/fhe_lowering_internal.h"
#include "workloads/fhe/fhe_stream_internal.h"

namespace photon::fhe {

namespace {

constexpr size_t kKinds = size_t(FheOpKind::ModRaise) + 1;

// One row per FheOpKind, in enum order (checked below).
// clang-format off
constexpr std::array<FheOpTraits, kKinds> kTable = {{
  // kind                       name             table kind      keys                  rot    degree hoist  client chain            expand              lower                     stream
  {FheOpKind::Add,           "Add",           "hadd",         KeyUse::None,         false, false, false, false, nullptr,         nullptr,            lower_add, stream_add},
  {FheOpKind::Sub,           "Sub",           "hsub",         KeyUse::None,         false, false, false, false, nullptr,         nullptr,            lower_sub, stream_sub},
  {FheOpKind::Negate,        "Negate",        "hneg",         KeyUse::None,         false, false, false, false, nullptr,         nullptr,            lower_negate, stream_negate},
  {FheOpKind::AddPlain,      "AddPlain",      "padd",         KeyUse::None,         false, false, false, false, nullptr,         nullptr,            lower_add_plain, stream_add_plain},
  {FheOpKind::SubPlain,      "SubPlain",      "psub",         KeyUse::None,         false, false, false, false, nullptr,         nullptr,            lower_sub_plain, stream_sub_plain},
  {FheOpKind::MulPlain,      "MulPlain",      "pmult",        KeyUse::None,         false, false, false, false, nullptr,         nullptr,            lower_mul_plain, stream_mul_plain},
  {FheOpKind::MulScalar,     "MulScalar",     "cmult",        KeyUse::None,         false, false, false, false, nullptr,         nullptr,            lower_mul_scalar, stream_mul_scalar},
  {FheOpKind::Mul,           "Mul",           "hmult",        KeyUse::None,         false, true,  false, false, nullptr,         nullptr,            lower_mul, stream_mul},
  {FheOpKind::Relinearize,   "Relinearize",   "relin",        KeyUse::Relinearize,  false, true,  false, false, nullptr,         nullptr,            lower_relinearize, stream_relinearize},
  {FheOpKind::Rescale,       "Rescale",       "rescale",      KeyUse::None,         false, false, false, false, nullptr,         nullptr,            lower_rescale, stream_rescale},
  {FheOpKind::LevelReduce,   "LevelReduce",   "level_reduce", KeyUse::None,         false, false, false, false, nullptr,         nullptr,            nullptr, nullptr},
  {FheOpKind::Rotate,        "Rotate",        "hrot",         KeyUse::Rotation,     true,  false, false, false, nullptr,         nullptr,            lower_rotate, stream_rotate},
  {FheOpKind::Conjugate,     "Conjugate",     "conj",         KeyUse::Conjugation,  false, false, false, false, nullptr,         nullptr,            lower_rotate, stream_rotate},
  {FheOpKind::HoistedRotate, "HoistedRotate", "hrot_hoisted", KeyUse::Hoisted,      true,  false, true,  false, nullptr,         nullptr,            lower_hoisted_rotate, stream_hoisted_rotate},
  {FheOpKind::KeySwitch,     "KeySwitch",     "keyswitch",    KeyUse::Switch,       false, false, false, false, nullptr,         nullptr,            lower_key_switch, stream_key_switch},
  {FheOpKind::Bootstrap,     "Bootstrap",     "bootstrap",    KeyUse::SubOps,       false, false, false, false, bootstrap_chain, bootstrap_sequence, nullptr, nullptr},
  {FheOpKind::Encode,        "Encode",        "encode",       KeyUse::None,         false, false, false, false, nullptr,         nullptr,            lower_encode, stream_encode},
  {FheOpKind::Encrypt,       "Encrypt",       "encrypt",      KeyUse::None,         false, false, false, true,  nullptr,         nullptr,            nullptr, nullptr},
  {FheOpKind::Decrypt,       "Decrypt",       "decrypt",      KeyUse::None,         false, false, false, true,  nullptr,         nullptr,            nullptr, nullptr},
  {FheOpKind::ModRaise,      "ModRaise",      "mod_raise",    KeyUse::None,         false, false, false, false, nullptr,         nullptr,            lower_mod_raise, stream_mod_raise},
}};
// clang-format on

constexpr bool in_enum_order() {
  for (size_t i = 0; i < kKinds; ++i)
    if (size_t(kTable[i].kind) != i) return false;
  return true;
}
static_assert(in_enum_order(), "kTable: one row per FheOpKind, in enum order");

}  // namespace

const FheOpTraits& fhe_op_traits(FheOpKind k) { return kTable[size_t(k)]; }

const char* fhe_op_kind_name(FheOpKind k) { return size_t(k) < kKinds ? kTable[size_t(k)].name : "?"; }

std::vector<KeyId> fhe_op_keys(const FheOp& op, const FheConfig& fc) {
  std::vector<KeyId> keys;
  switch (fhe_op_traits(op.kind).keys) {
    case KeyUse::None: break;
    case KeyUse::Relinearize:  // Galois field 4k - 8 (even: not a Galois element): s^2 -> 0
      for (uint32_t d = 2; d <= std::max<uint32_t>(op.ct_degree, 2); ++d)
        keys.push_back(fhe_key_id(op, 4 * d - 8));
      break;
    case KeyUse::Switch: keys.push_back(fhe_key_id(op, 2)); break;
    case KeyUse::Rotation:
      if (!fhe_rotation_is_identity(op))
        keys.push_back(fhe_key_id(op, rotation_galois(op.rotation, op.log_n)));
      break;
    case KeyUse::Conjugation: keys.push_back(fhe_key_id(op, conjugation_galois(op.log_n))); break;
    case KeyUse::Hoisted:
      for (uint32_t i = 0; i < op.count; ++i)
        keys.push_back(fhe_key_id(op, rotation_galois(op.rotation + int64_t(i), op.log_n)));
      break;
    case KeyUse::SubOps:
      for (const FheOp& s : fhe_op_traits(op.kind).expand(op, fc)) {
        const std::vector<KeyId> k = fhe_op_keys(s, fc);
        keys.insert(keys.end(), k.begin(), k.end());
      }
      break;
  }
  return keys;
}

bool fhe_op_needs_key(const FheOp& op) {
  return fhe_op_traits(op.kind).keys != KeyUse::None && !fhe_rotation_is_identity(op);
}

}  // namespace photon::fhe
