#include "workloads/heir/heir_op_table.h"

#include <map>
#include <set>

namespace photon::heir {

using fhe::FheOpKind;

namespace {

const std::map<std::string, FheOpKind>& scheme_ops() {
  static const std::map<std::string, FheOpKind> m = {{"add", FheOpKind::Add},
                                                     {"sub", FheOpKind::Sub},
                                                     {"negate", FheOpKind::Negate},
                                                     {"mul", FheOpKind::Mul},
                                                     {"mul_plain", FheOpKind::MulPlain},
                                                     {"add_plain", FheOpKind::AddPlain},
                                                     {"sub_plain", FheOpKind::SubPlain},
                                                     {"relinearize", FheOpKind::Relinearize},
                                                     {"rescale", FheOpKind::Rescale},
                                                     {"modulus_switch", FheOpKind::Rescale},
                                                     {"level_reduce", FheOpKind::LevelReduce},
                                                     {"rotate", FheOpKind::Rotate},
                                                     {"rotate_cols", FheOpKind::Rotate},
                                                     {"rotate_rows", FheOpKind::Conjugate},
                                                     {"bootstrap", FheOpKind::Bootstrap},
                                                     {"key_switch", FheOpKind::KeySwitch},
                                                     {"encode", FheOpKind::Encode},
                                                     {"encrypt", FheOpKind::Encrypt},
                                                     {"decrypt", FheOpKind::Decrypt}};
  return m;
}

}  // namespace

OpClass classify_op(const std::string& name) {
  OpClass c;
  auto dot = name.find('.');
  std::string dialect = dot == std::string::npos ? "" : name.substr(0, dot);
  std::string op = dot == std::string::npos ? name : name.substr(dot + 1);
  auto emit = [&](FheOpKind k) {
    c.sem = Sem::Emit;
    c.kind = k;
    return c;
  };
  auto sem = [&](Sem s, const char* why = "") {
    c.sem = s;
    c.reason = why;
    return c;
  };

  if (dialect == "ckks" || dialect == "bgv" || dialect == "bfv") {
    auto it = scheme_ops().find(op);
    if (it != scheme_ops().end()) return emit(it->second);
    return c;
  }
  if (dialect == "lwe") {
    if (op == "rlwe_encode" || op == "encode") return emit(FheOpKind::Encode);
    if (op == "rlwe_encrypt" || op == "encrypt") return emit(FheOpKind::Encrypt);
    if (op == "rlwe_decrypt" || op == "decrypt") return emit(FheOpKind::Decrypt);
    if (op == "radd") return emit(FheOpKind::Add);
    if (op == "rsub") return emit(FheOpKind::Sub);
    if (op == "rnegate") return emit(FheOpKind::Negate);
    if (op == "rmul") return emit(FheOpKind::Mul);
    if (op == "rlwe_decode" || op == "decode") return sem(Sem::Client, "client-side decoding");
    if (op.rfind("reinterpret_", 0) == 0) return sem(Sem::Skip);
    return c;
  }
  if (dialect == "openfhe") {
    if (op.size() > 8 && op.compare(op.size() - 8, 8, "_inplace") == 0)
      return classify_op(name.substr(0, name.size() - 8));  // in-place variants cost the same
    if (op == "linear_transform") return sem(Sem::LinearTransform);
    if (op == "chebyshev") return sem(Sem::Chebyshev);
    static const std::map<std::string, FheOpKind> m = {{"add", FheOpKind::Add},
                                                       {"sub", FheOpKind::Sub},
                                                       {"negate", FheOpKind::Negate},
                                                       {"add_plain", FheOpKind::AddPlain},
                                                       {"sub_plain", FheOpKind::SubPlain},
                                                       {"mul_plain", FheOpKind::MulPlain},
                                                       {"mul_no_relin", FheOpKind::Mul},
                                                       {"mul_const", FheOpKind::MulScalar},
                                                       {"relin", FheOpKind::Relinearize},
                                                       {"mod_reduce", FheOpKind::Rescale},
                                                       {"level_reduce", FheOpKind::LevelReduce},
                                                       {"rot", FheOpKind::Rotate},
                                                       {"automorph", FheOpKind::Rotate},
                                                       {"key_switch", FheOpKind::KeySwitch},
                                                       {"key_switch_down", FheOpKind::KeySwitch},
                                                       {"bootstrap", FheOpKind::Bootstrap},
                                                       {"encrypt", FheOpKind::Encrypt},
                                                       {"decrypt", FheOpKind::Decrypt},
                                                       {"make_packed_plaintext", FheOpKind::Encode},
                                                       {"make_ckks_packed_plaintext", FheOpKind::Encode}};
    auto it = m.find(op);
    if (it != m.end()) return emit(it->second);
    if (op == "mul" || op == "square") return sem(Sem::MulRelin);
    if (op == "fast_rotation_precompute") return sem(Sem::HoistPrecompute);
    if (op == "fast_rotation" || op == "fast_rotation_ext") return sem(Sem::FastRotation);
    if (op == "decode" || op == "decode_ckks") return sem(Sem::Client, "client-side decoding");
    if (op == "gen_params" || op == "gen_context")
      return sem(Sem::Setup, "crypto-context set-up (host, once)");
    if (op.rfind("gen_", 0) == 0 || op == "setup_bootstrap")
      return sem(Sem::Setup, "key generation at set-up (host, once)");
    return c;
  }
  if (dialect == "lattigo") {
    // lattigo.<scheme>.<op>[_new], e.g. lattigo.ckks.rotate_new, lattigo.rlwe.encrypt
    auto d2 = op.find('.');
    std::string o = d2 == std::string::npos ? op : op.substr(d2 + 1);
    if (o.size() > 4 && o.compare(o.size() - 4, 4, "_new") == 0) o.resize(o.size() - 4);
    if (o.rfind("new_", 0) == 0 || o.rfind("gen_", 0) == 0)
      return sem(Sem::Setup, "parameter/key/evaluator set-up (host, once)");
    if (o == "decode") return sem(Sem::Client, "client-side decoding");
    if (o == "rotate_columns") return emit(FheOpKind::Rotate);
    if (o == "drop_level") return emit(FheOpKind::LevelReduce);
    if (o == "mul_relin") return sem(Sem::MulRelin);
    auto it = scheme_ops().find(o);
    if (it != scheme_ops().end()) return emit(it->second);
    return c;
  }
  if (dialect == "orion") {
    if (op == "linear_transform") return sem(Sem::LinearTransform);
    if (op == "chebyshev") return sem(Sem::Chebyshev);
    return c;
  }

  if (name == "arith.constant") return sem(Sem::Constant);
  if (dialect == "arith") return sem(Sem::Arith);
  if (dialect == "tensor" || name == "scf.yield" || name == "func.return") return sem(Sem::Skip);
  if (name == "scf.for") return sem(Sem::For);
  if (name == "func.call" || name == "call") return sem(Sem::Call);
  return c;
}

bool known_dialect(const std::string& dialect) {
  static const std::set<std::string> known = {"ckks",  "bgv",   "bfv",    "lwe", "openfhe", "lattigo",
                                              "orion", "arith", "tensor", "scf", "func"};
  return known.count(dialect) > 0;
}

}  // namespace photon::heir
