#include "workloads/heir/heir_params.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include "base/error.h"
#include "workloads/heir/heir_types.h"

namespace photon::heir {

using fhe::FheProgram;
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

/// A type written in the module, with where: the alias, function or op ("file:line:col").
struct TypeUse {
  std::string src, loc;
  AttrPtr type;
};

/// What one walk over the module finds: every type, the first gen_params / parameters literal
/// op, and the scheme of the first scheme-level op.
struct ModuleScan {
  std::vector<TypeUse> types;
  const Attr* gen_params = nullptr;
  const Operation* gen_params_op = nullptr;
  std::string scheme_guess;
};

/// The scheme an op's dialect names ("ckks", "bgv", "bfv", also under lattigo.), or "".
std::string scheme_of_op(const std::string& name) {
  const std::string dia = name.substr(0, name.find('.'));
  if (dia == "ckks" || dia == "bgv" || dia == "bfv") return dia;
  if (name.rfind("lattigo.", 0) == 0) {
    const std::string rest = name.substr(8);
    const std::string s = rest.substr(0, rest.find('.'));
    if (s == "ckks" || s == "bgv" || s == "bfv") return s;
  }
  if (name.find("ckks") != std::string::npos) return "ckks";
  return "";
}

ModuleScan scan_module(const mlir::Module& m) {
  ModuleScan s;
  for (const auto& [name, a] : m.aliases) {
    auto l = m.alias_locs.find(name);
    s.types.push_back({name, l != m.alias_locs.end() ? l->second.str() : m.file, a});
  }
  for (const auto& f : m.funcs) {
    for (const auto& a : f.args) s.types.push_back({"@" + f.name, f.loc.str(), a.type});
    mlir::walk_ops(f.body, [&](const Operation& op) {
      for (const auto& t : op.operand_types) s.types.push_back({op.loc.str(), op.loc.str(), t});
      for (const auto& t : op.result_types) s.types.push_back({op.loc.str(), op.loc.str(), t});
      if (!s.gen_params_op &&
          (op.name == "openfhe.gen_params" || op.name.find("parameters_from_literal") != std::string::npos)) {
        s.gen_params_op = &op;
        s.gen_params = op.attr("paramsLiteral");
      }
      if (s.scheme_guess.empty()) s.scheme_guess = scheme_of_op(op.name);
    });
  }
  return s;
}

/// N and L as the ciphertext and plaintext types state them (-1: no type does).
struct TypeFacts {
  int log_n = -1, max_level = -1;
  std::string log_n_src, level_src;  ///< the type each came from
};

/// Reads N and L off the types; warns about types that disagree with the module or each other.
TypeFacts type_facts(const std::vector<TypeUse>& types, const SchemeParam& sp, FheProgram* prog) {
  TypeFacts f;
  std::set<int> warned;
  for (const auto& [src, where, t] : types) {
    CtTypeInfo ti = ct_type_info(*t);
    if (!ti.is_ciphertext && !ti.is_plaintext) continue;
    std::string name = t->alias.empty() ? src : t->alias;
    if (ti.log_n >= 0) {
      if (f.log_n < 0) {
        f.log_n = ti.log_n;
        f.log_n_src = name;
      }
      if (sp.log_n >= 0 && ti.log_n != sp.log_n && warned.insert(ti.log_n).second)
        prog->warnings.push_back(where + ": N = 2^" + std::to_string(ti.log_n) + " in type " + name +
                                 " disagrees with " + sp.key + " logN = " + std::to_string(sp.log_n) +
                                 "; using logN = " + std::to_string(sp.log_n));
      else if (sp.log_n < 0 && ti.log_n != f.log_n && warned.insert(ti.log_n).second)
        prog->warnings.push_back(where + ": N = 2^" + std::to_string(ti.log_n) + " in type " + name +
                                 " disagrees with N = 2^" + std::to_string(f.log_n) + " in " + f.log_n_src +
                                 "; each op uses its own type's N");
    }
    int lv = ti.chain_len > 0 ? ti.chain_len - 1 : ti.limbs > 0 ? ti.limbs - 1 : -1;
    if (lv > f.max_level) {
      f.max_level = lv;
      f.level_src = name;
    }
    if (ti.current >= 0 && ti.limbs >= 0 && ti.current + 1 != ti.limbs)
      prog->warnings.push_back(where + ": type " + name +
                               ": modulus_chain current = " + std::to_string(ti.current) +
                               " but the ring has " + std::to_string(ti.limbs) + " RNS limbs; using current");
  }
  return f;
}

/// The parameters of openfhe.gen_params / a parameters literal (-1: not given).
struct GenParams {
  long long mult_depth = -1, ring_dim = -1, large_digits = 0;
  std::string op;  ///< the op's name
};

/// Reads the gen_params op of the scan, if any; a literal's P primes set sp.p_count. Throws
/// Error at the op for an out-of-range mulDepth, logN or ringDim.
GenParams read_gen_params(const ModuleScan& scan, SchemeParam& sp) {
  GenParams g;
  const Operation* op = scan.gen_params_op;
  if (!op) return g;
  g.op = op->name;
  const Attr* src = scan.gen_params;
  auto get = [&](const char* k) -> const Attr* { return src ? src->get(k) : op->attr(k); };
  mlir::scalar_int(get("mulDepth"), &g.mult_depth);
  mlir::scalar_int(get("ringDim"), &g.ring_dim);
  mlir::scalar_int(get("numLargeDigits"), &g.large_digits);
  if (g.mult_depth > 1000)
    throw Error("mulDepth = " + std::to_string(g.mult_depth) + " out of range [0, 1000]")
        .with_context(op->loc.str());
  if (src) {
    long long ln = -1;
    if (mlir::scalar_int(src->get("logN"), &ln)) {
      if (ln < kMinLogN || ln > kMaxLogN)
        throw Error("logN = " + std::to_string(ln) + " out of range [" + std::to_string(kMinLogN) + ", " +
                    std::to_string(kMaxLogN) + "] (supported ring degrees)")
            .with_context(op->loc.str());
      g.ring_dim = 1LL << ln;
    }
    if (const Attr* q = src->get("Q")) g.mult_depth = static_cast<long long>(q->items.size()) - 1;
    if (const Attr* p = src->get("P")) sp.p_count = static_cast<int>(p->items.size());
  }
  // ringDim = 0 lets OpenFHE choose N; any other value must be a supported power of two.
  if (g.ring_dim > 0 &&
      ((g.ring_dim & (g.ring_dim - 1)) || g.ring_dim < (1LL << kMinLogN) || g.ring_dim > (1LL << kMaxLogN)))
    throw Error("ringDim = " + std::to_string(g.ring_dim) + " is not a power of two in [2^" +
                std::to_string(kMinLogN) + ", 2^" + std::to_string(kMaxLogN) + "] (supported ring degrees)")
        .with_context(op->loc.str());
  return g;
}

/// Everything the rules read, and where the rules write.
struct Sources {
  const mlir::Module& m;
  const SchemeParam& sp;
  const TypeFacts& types;
  const GenParams& gen;
  FheProgram* prog;
  void note(const std::string& s) const { prog->derived.push_back(s); }
};

void derive_log_n(const Sources& s, ProgramParams& out) {
  if (s.sp.log_n >= 0) {
    out.log_n = s.sp.log_n;
    out.log_n_from_module = true;
    s.note("log_n = " + std::to_string(out.log_n) + " from module attribute " + s.sp.key + " logN");
  } else if (s.gen.ring_dim > 0) {
    out.log_n = static_cast<int>(std::lround(std::log2(static_cast<double>(s.gen.ring_dim))));
    out.log_n_from_module = true;
    s.note("log_n = " + std::to_string(out.log_n) + " from " + s.gen.op + " ring dimension");
  } else if (s.types.log_n >= 0) {
    out.log_n = s.types.log_n;
    s.note("log_n = " + std::to_string(out.log_n) + " from the ring `1 + x**N` of type " + s.types.log_n_src +
           " (no schemeParam); each op uses its own type's N");
  } else if (int slots = layout_slots(s.m); slots > 0) {
    int l = 0;
    while ((1LL << l) < 2LL * slots) ++l;
    out.log_n = l;
    s.note("log_n = " + std::to_string(l) + " from N = 2 * slots, slots = " + std::to_string(slots) +
           " from the #tensor_ext.layout of the arguments (CKKS packs N/2 slots); a lower bound: "
           "OpenFHE picks N from the HE-standard security table, which the IR does not fix");
  } else {
    out.log_n = 16;
    s.prog->warnings.push_back("no ring degree in the program; assuming log_n = 16");
    s.note("log_n = 16 assumed (no schemeParam, ring type or layout)");
  }
}

void derive_max_level(const Sources& s, ProgramParams& out) {
  if (s.sp.q_count > 0) {
    out.max_level = s.sp.q_count - 1;
    s.note("max_level = " + std::to_string(out.max_level) + " = |Q| - 1 from " + s.sp.key + " (" +
           std::to_string(s.sp.q_count) + " Q primes)");
  } else if (s.gen.mult_depth >= 0) {
    out.max_level = static_cast<int>(s.gen.mult_depth);
    s.note("max_level = " + std::to_string(out.max_level) + " = mulDepth of " + s.gen.op +
           " (OpenFHE: mulDepth + 1 Q towers)");
  } else if (s.types.max_level >= 0) {
    out.max_level = s.types.max_level;
    s.note("max_level = " + std::to_string(out.max_level) + " from the modulus chain of type " +
           s.types.level_src + " (no schemeParam)");
  } else {
    out.max_level = 0;
    s.note("max_level = 0 assumed (no schemeParam, gen_params or modulus chain)");
  }
}

/// alpha and dnum: from the P primes when the IR has them, else OpenFHE's digit rule.
void derive_digits(const Sources& s, ProgramParams& out) {
  const int qn = out.max_level + 1;
  if (s.sp.p_count > 0) {
    out.alpha = s.sp.p_count;
    out.dnum = (qn + out.alpha - 1) / out.alpha;
    s.note("alpha = " + std::to_string(out.alpha) + " = |P| from " +
           (s.sp.present ? s.sp.key : std::string("parameters literal")));
    s.note("dnum = " + std::to_string(out.dnum) + " = ceil((L+1)/alpha) = ceil(" + std::to_string(qn) + "/" +
           std::to_string(out.alpha) +
           ") (hybrid key switching: Q split into digits of alpha "
           "limbs; Han-Ki, CT-RSA 2020)");
    return;
  }
  const long long large_digits = s.gen.large_digits;
  out.dnum = large_digits > 0 ? static_cast<int>(std::min<long long>(large_digits, qn))
                              : openfhe_default_dnum(out.max_level);
  out.alpha = (qn + out.dnum - 1) / out.dnum;
  if (large_digits > 0)
    s.note("dnum = " + std::to_string(out.dnum) + " from numLargeDigits of " + s.gen.op);
  else
    s.note("dnum = " + std::to_string(out.dnum) +
           " from OpenFHE's default ComputeNumLargeDigits(0, "
           "multDepth = L = " +
           std::to_string(out.max_level) +
           ") (>3: 3, >0: 2, else 1; "
           "openfhe-development src/pke/include/scheme/scheme-utils.h), the target of HEIR's "
           "--lwe-to-openfhe lowering; the IR has no P primes");
  s.note("alpha = " + std::to_string(out.alpha) + " = ceil((L+1)/dnum) = ceil(" + std::to_string(qn) + "/" +
         std::to_string(out.dnum) + ") (OpenFHE HYBRID: P limbs cover one digit)");
}

}  // namespace

ProgramParams derive_parameters(const mlir::Module& m, FheProgram* prog) {
  ProgramParams out;
  SchemeParam sp = scheme_param(m);
  for (const auto& [k, v] : m.attrs) {
    (void)v;
    if (k.rfind("scheme.", 0) == 0) prog->scheme = k.substr(7);
  }
  if (prog->scheme.empty() && sp.present) prog->scheme = sp.key.substr(0, sp.key.find('.'));

  const ModuleScan scan = scan_module(m);
  out.scheme_guess = scan.scheme_guess;
  const TypeFacts types = type_facts(scan.types, sp, prog);
  const GenParams gen = read_gen_params(scan, sp);
  const Sources s{m, sp, types, gen, prog};
  derive_log_n(s, out);
  derive_max_level(s, out);
  derive_digits(s, out);
  if (types.max_level >= 0)
    s.note(
        "level of each op = modulus_chain `current` (else RNS limbs - 1) of its input "
        "ciphertext type");
  return out;
}

}  // namespace photon::heir
