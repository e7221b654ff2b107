#include "workloads/heir/heir_params.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include "base/error.h"
#include "workloads/heir/heir_types.h"

namespace photon::heir {

using mlir::Attr;
using mlir::AttrPtr;
using mlir::Operation;

namespace {

// Slots from a `#tensor_ext.layout<"{ ... 0 <= slot <= 1023 }">` alias; -1 if none.
int layout_slots(const mlir::Module& m) {
  static const std::regex re(R"(slot\s*<=\s*(\d{1,9}))");
  for (const auto& [name, a] : m.aliases) {
    (void)name;
    if (a->text != "#tensor_ext.layout") continue;
    for (const auto& item : a->items) {
      std::smatch mt;
      if (std::regex_search(item.second->text, mt, re)) return std::stoi(mt[1].str()) + 1;
    }
  }
  return -1;
}

}  // namespace

ProgramParams derive_parameters(const mlir::Module& m, FheProgram* prog) {
  ProgramParams out;
  auto note = [&](const std::string& s) { prog->derived.push_back(s); };
  SchemeParam sp = scheme_param(m);
  for (const auto& [k, v] : m.attrs) {
    (void)v;
    if (k.rfind("scheme.", 0) == 0) prog->scheme = k.substr(7);
  }
  if (prog->scheme.empty() && sp.present) prog->scheme = sp.key.substr(0, sp.key.find('.'));

  // Every type in the module: aliases, function signatures, op signatures; with where it is
  // written ("file:line:col" of the alias definition, the function or the op).
  struct TypeUse {
    std::string src, loc;
    AttrPtr type;
  };
  std::vector<TypeUse> types;
  for (const auto& [name, a] : m.aliases) {
    auto l = m.alias_locs.find(name);
    types.push_back({name, l != m.alias_locs.end() ? l->second.str() : m.file, a});
  }
  const Attr* gen_params = nullptr;
  const Operation* gen_params_op = nullptr;
  for (const auto& f : m.funcs) {
    for (const auto& a : f.args) types.push_back({"@" + f.name, f.loc.str(), a.type});
    mlir::walk_ops(f.body, [&](const Operation& op) {
      for (const auto& t : op.operand_types) types.push_back({op.loc.str(), op.loc.str(), t});
      for (const auto& t : op.result_types) types.push_back({op.loc.str(), op.loc.str(), t});
      if (!gen_params_op &&
          (op.name == "openfhe.gen_params" || op.name.find("parameters_from_literal") != std::string::npos)) {
        gen_params_op = &op;
        gen_params = op.attr("paramsLiteral");
      }
      auto d = op.name.find('.');
      std::string dia = op.name.substr(0, d);
      if (out.scheme_guess.empty() && (dia == "ckks" || dia == "bgv" || dia == "bfv")) out.scheme_guess = dia;
      if (out.scheme_guess.empty() && op.name.rfind("lattigo.", 0) == 0) {
        std::string rest = op.name.substr(8);
        std::string s = rest.substr(0, rest.find('.'));
        if (s == "ckks" || s == "bgv" || s == "bfv") out.scheme_guess = s;
      }
      if (out.scheme_guess.empty() && op.name.find("ckks") != std::string::npos) out.scheme_guess = "ckks";
    });
  }
  int type_log_n = -1, type_max_level = -1;
  std::string type_log_n_src, type_level_src;
  std::set<int> warned;
  for (const auto& [src, where, t] : types) {
    CtTypeInfo ti = ct_type_info(*t);
    if (!ti.is_ciphertext && !ti.is_plaintext) continue;
    std::string name = t->alias.empty() ? src : t->alias;
    if (ti.log_n >= 0) {
      if (type_log_n < 0) {
        type_log_n = ti.log_n;
        type_log_n_src = name;
      }
      if (sp.log_n >= 0 && ti.log_n != sp.log_n && warned.insert(ti.log_n).second)
        prog->warnings.push_back(where + ": N = 2^" + std::to_string(ti.log_n) + " in type " + name +
                                 " disagrees with " + sp.key + " logN = " + std::to_string(sp.log_n) +
                                 "; using logN = " + std::to_string(sp.log_n));
      else if (sp.log_n < 0 && ti.log_n != type_log_n && warned.insert(ti.log_n).second)
        prog->warnings.push_back(where + ": N = 2^" + std::to_string(ti.log_n) + " in type " + name +
                                 " disagrees with N = 2^" + std::to_string(type_log_n) + " in " +
                                 type_log_n_src + "; each op uses its own type's N");
    }
    int lv = ti.chain_len > 0 ? ti.chain_len - 1 : ti.limbs > 0 ? ti.limbs - 1 : -1;
    if (lv > type_max_level) {
      type_max_level = lv;
      type_level_src = name;
    }
    if (ti.current >= 0 && ti.limbs >= 0 && ti.current + 1 != ti.limbs)
      prog->warnings.push_back(where + ": type " + name +
                               ": modulus_chain current = " + std::to_string(ti.current) +
                               " but the ring has " + std::to_string(ti.limbs) + " RNS limbs; using current");
  }

  long long mult_depth = -1, ring_dim = -1, large_digits = 0;
  if (gen_params_op) {
    const Attr* src = gen_params ? gen_params : nullptr;
    auto get = [&](const char* k) -> const Attr* { return src ? src->get(k) : gen_params_op->attr(k); };
    mlir::scalar_int(get("mulDepth"), &mult_depth);
    mlir::scalar_int(get("ringDim"), &ring_dim);
    mlir::scalar_int(get("numLargeDigits"), &large_digits);
    if (mult_depth > 1000)
      throw Error("mulDepth = " + std::to_string(mult_depth) + " out of range [0, 1000]")
          .with_context(gen_params_op->loc.str());
    if (src) {
      long long ln = -1;
      if (mlir::scalar_int(src->get("logN"), &ln)) {
        if (ln < kMinLogN || ln > kMaxLogN)
          throw Error("logN = " + std::to_string(ln) + " out of range [" + std::to_string(kMinLogN) + ", " +
                      std::to_string(kMaxLogN) + "] (supported ring degrees)")
              .with_context(gen_params_op->loc.str());
        ring_dim = 1LL << ln;
      }
      if (const Attr* q = src->get("Q")) mult_depth = static_cast<long long>(q->items.size()) - 1;
      if (const Attr* p = src->get("P")) sp.p_count = static_cast<int>(p->items.size());
    }
  }

  // ringDim = 0 lets OpenFHE choose N; any other value must be a supported power of two.
  if (ring_dim > 0 &&
      ((ring_dim & (ring_dim - 1)) || ring_dim < (1LL << kMinLogN) || ring_dim > (1LL << kMaxLogN)))
    throw Error("ringDim = " + std::to_string(ring_dim) + " is not a power of two in [2^" +
                std::to_string(kMinLogN) + ", 2^" + std::to_string(kMaxLogN) + "] (supported ring degrees)")
        .with_context(gen_params_op->loc.str());
  // log_n
  if (sp.log_n >= 0) {
    out.log_n = sp.log_n;
    out.log_n_from_module = true;
    note("log_n = " + std::to_string(out.log_n) + " from module attribute " + sp.key + " logN");
  } else if (ring_dim > 0) {
    out.log_n = static_cast<int>(std::lround(std::log2(static_cast<double>(ring_dim))));
    out.log_n_from_module = true;
    note("log_n = " + std::to_string(out.log_n) + " from " + gen_params_op->name + " ring dimension");
  } else if (type_log_n >= 0) {
    out.log_n = type_log_n;
    note("log_n = " + std::to_string(out.log_n) + " from the ring `1 + x**N` of type " + type_log_n_src +
         " (no schemeParam); each op uses its own type's N");
  } else {
    int slots = layout_slots(m);
    if (slots > 0) {
      int l = 0;
      while ((1LL << l) < 2LL * slots) ++l;
      out.log_n = l;
      note("log_n = " + std::to_string(l) + " from N = 2 * slots, slots = " + std::to_string(slots) +
           " from the #tensor_ext.layout of the arguments (CKKS packs N/2 slots); a lower bound: "
           "OpenFHE picks N from the HE-standard security table, which the IR does not fix");
    } else {
      out.log_n = 16;
      prog->warnings.push_back("no ring degree in the program; assuming log_n = 16");
      note("log_n = 16 assumed (no schemeParam, ring type or layout)");
    }
  }
  // max_level
  if (sp.q_count > 0) {
    out.max_level = sp.q_count - 1;
    note("max_level = " + std::to_string(out.max_level) + " = |Q| - 1 from " + sp.key + " (" +
         std::to_string(sp.q_count) + " Q primes)");
  } else if (mult_depth >= 0) {
    out.max_level = static_cast<int>(mult_depth);
    note("max_level = " + std::to_string(out.max_level) + " = mulDepth of " + gen_params_op->name +
         " (OpenFHE: mulDepth + 1 Q towers)");
  } else if (type_max_level >= 0) {
    out.max_level = type_max_level;
    note("max_level = " + std::to_string(out.max_level) + " from the modulus chain of type " +
         type_level_src + " (no schemeParam)");
  } else {
    out.max_level = 0;
    note("max_level = 0 assumed (no schemeParam, gen_params or modulus chain)");
  }
  // alpha, dnum
  int qn = out.max_level + 1;
  if (sp.p_count > 0) {
    out.alpha = sp.p_count;
    out.dnum = (qn + out.alpha - 1) / out.alpha;
    note("alpha = " + std::to_string(out.alpha) + " = |P| from " +
         (sp.present ? sp.key : std::string("parameters literal")));
    note("dnum = " + std::to_string(out.dnum) + " = ceil((L+1)/alpha) = ceil(" + std::to_string(qn) + "/" +
         std::to_string(out.alpha) +
         ") (hybrid key switching: Q split into digits of alpha "
         "limbs; Han-Ki, CT-RSA 2020)");
  } else {
    out.dnum = large_digits > 0 ? static_cast<int>(std::min<long long>(large_digits, qn))
                                : openfhe_default_dnum(out.max_level);
    out.alpha = (qn + out.dnum - 1) / out.dnum;
    if (large_digits > 0)
      note("dnum = " + std::to_string(out.dnum) + " from numLargeDigits of " + gen_params_op->name);
    else
      note("dnum = " + std::to_string(out.dnum) +
           " from OpenFHE's default ComputeNumLargeDigits(0, "
           "multDepth = L = " +
           std::to_string(out.max_level) +
           ") (>3: 3, >0: 2, else 1; "
           "openfhe-development src/pke/include/scheme/scheme-utils.h), the target of HEIR's "
           "--lwe-to-openfhe lowering; the IR has no P primes");
    note("alpha = " + std::to_string(out.alpha) + " = ceil((L+1)/dnum) = ceil(" + std::to_string(qn) + "/" +
         std::to_string(out.dnum) + ") (OpenFHE HYBRID: P limbs cover one digit)");
  }
  if (type_max_level >= 0)
    note(
        "level of each op = modulus_chain `current` (else RNS limbs - 1) of its input "
        "ciphertext type");
  return out;
}

}  // namespace photon::heir
