#include "workloads/heir/heir_frontend.h"

#include <algorithm>

#include "base/error.h"
#include "workloads/heir/heir_frontend_internal.h"

namespace photon::heir {

using fhe::FheOp;
using fhe::FheOpKind;
using fhe::FheProgram;
using mlir::Attr;
using mlir::AttrPtr;
using mlir::Operation;
using mlir::Region;

FheProgram Frontend::run() {
  if (!m_.has_module)
    throw Error("no module found (expected 'module { ... }' or a top-level 'func.func')")
        .with_context(mlir::Loc{m_.file, 1, 1}.str());
  check_rings(m_);
  pp_ = derive_parameters(m_, &prog_);
  std::set<std::string> called;
  for (const auto& f : m_.funcs) collect_calls(f.body, called);
  for (const auto& f : m_.funcs) {
    if (!f.has_body || called.count(f.name)) continue;
    std::vector<Value> args;
    for (const auto& a : f.args) args.push_back(value_of_type(a.type));
    run_func(f, args, 0);
  }
  // A precomputation without fast rotations does no key switching of its own.
  for (size_t i = 0; i < prog_.ops.size(); ++i)
    if (prog_.ops[i].kind == FheOpKind::HoistedRotate && prog_.ops[i].count == 0) {
      prog_.unsupported.push_back(
          {prog_.ops[i].name, prog_.ops[i].location, "hoisting precomputation without rotations"});
      prog_.ops.erase(prog_.ops.begin() + static_cast<long>(i--));
    }
  if (prog_.ops.empty()) {
    if (!has_fhe_op()) throw Error("no FHE operations found in any function").with_context(m_.loc.str());
    throw Error(
        "no FHE operation left after unrolling loops and inlining calls (the FHE operations "
        "are only in loops with zero trips, unreached functions or unused precomputations)")
        .with_context(m_.loc.str());
  }
  if (prog_.scheme.empty()) prog_.scheme = pp_.scheme_guess;
  return std::move(prog_);
}

const CtTypeInfo& Frontend::type_info(const Attr& t) const {
  auto it = type_cache_.find(&t);
  if (it == type_cache_.end()) it = type_cache_.emplace(&t, ct_type_info(t)).first;
  return it->second;
}

void Frontend::collect_calls(const Region& r, std::set<std::string>& out) {
  mlir::walk_ops(r, [&](const Operation& op) {
    if ((op.name == "func.call" || op.name == "call") && !op.symbol.empty()) out.insert(op.symbol);
  });
}

bool Frontend::has_fhe_op() const {
  bool found = false;
  for (const auto& f : m_.funcs)
    mlir::walk_ops(f.body, [&](const Operation& op) {
      switch (classify_op(op.name).sem) {
        case Sem::Emit:
        case Sem::MulRelin:
        case Sem::HoistPrecompute:
        case Sem::FastRotation:
        case Sem::LinearTransform:
        case Sem::Chebyshev: found = true; break;
        default: break;
      }
    });
  return found;
}

void Frontend::check_defined(const Operation& op, const Scope& s) const {
  for (const auto& o : op.operands)
    if (!s.count(o)) fail(op, "use of undefined value '" + o + "' (operand of '" + op.name + "')");
}

Value Frontend::value_of_type(const AttrPtr& t) const {
  Value v;
  v.type = t;
  if (t) {
    CtTypeInfo ti = type_info(*t);
    v.ct = ti.is_ciphertext;
    v.pt = ti.is_plaintext;
    v.level = ti.level();
    v.degree = ti.size - 1;
    v.elements = ti.elements;
  }
  return v;
}

AttrPtr Frontend::operand_type(const Operation& op, size_t i) {
  if (op.single_type) return op.operand_types.empty() ? nullptr : op.operand_types[0];
  // library ops list the context/evaluator first: types align with operands
  return i < op.operand_types.size() ? op.operand_types[i] : nullptr;
}

Value Frontend::operand(const Operation& op, size_t i, const Scope& s) const {
  auto it = s.find(op.operands[i]);
  Value v = it != s.end() ? it->second : Value{};
  if (AttrPtr t = operand_type(op, i)) {
    Value tv = value_of_type(t);
    if (tv.ct || tv.pt) {
      tv.encode_op = v.encode_op;
      tv.hoist_op = v.hoist_op;
      if (tv.level < 0) tv.level = v.level;
      if (tv.ct && !v.type) tv.degree = v.ct ? v.degree : tv.degree;
      if (tv.ct && v.ct && type_info(*t).size == 2 && v.degree > 1) tv.degree = v.degree;
      return tv;
    }
  }
  return v;
}

int Frontend::first_ct(const Operation& op, const Scope& s, Value* out) const {
  for (size_t i = 0; i < op.operands.size(); ++i) {
    Value v = operand(op, i, s);
    if (v.ct) {
      *out = v;
      return static_cast<int>(i);
    }
  }
  return -1;
}

FheOp Frontend::make(const Operation& op, FheOpKind k, const Value& in) {
  FheOp f;
  f.kind = k;
  f.name = op.name;
  f.location = op.loc.str();
  f.log_n = static_cast<uint32_t>(pp_.log_n);
  if (!pp_.log_n_from_module && in.type) {
    CtTypeInfo ti = type_info(*in.type);
    if (ti.log_n >= 0) f.log_n = static_cast<uint32_t>(ti.log_n);
  }
  int lvl = in.level;
  if (lvl < 0) {
    lvl = pp_.max_level;
    if (!noted_fresh_) {
      note(
          "level = L for ciphertexts whose type has no modulus chain (library-level IR) until "
          "a mod_reduce/level_reduce lowers it (tracked per SSA value)");
      noted_fresh_ = true;
    }
  }
  if (lvl > pp_.max_level) {
    if (!warned_level_)
      prog_.warnings.push_back(f.location + ": level " + std::to_string(lvl) + " of '" + op.name +
                               "' above max_level " + std::to_string(pp_.max_level) +
                               "; clamped (further such ops not reported)");
    warned_level_ = true;
    lvl = pp_.max_level;
  }
  f.level = static_cast<uint32_t>(std::max(0, lvl));
  f.max_level = static_cast<uint32_t>(pp_.max_level);
  f.alpha = static_cast<uint32_t>(pp_.alpha);
  f.dnum = static_cast<uint32_t>(pp_.dnum);
  f.ct_degree = static_cast<uint32_t>(std::max(1, in.degree));
  return f;
}

int Frontend::push(FheOp f) {
  if (prog_.ops.size() >= kMaxOps)
    throw Error("more than " + std::to_string(kMaxOps) + " FHE ops after unrolling").with_context(f.location);
  prog_.ops.push_back(std::move(f));
  return static_cast<int>(prog_.ops.size()) - 1;
}

int64_t Frontend::rotation_of(const Operation& op, const Scope& s) const {
  for (const char* k : {"static_shift", "shift", "offset", "index", "k"}) {
    long long v = 0;
    if (mlir::scalar_int(op.attr(k), &v)) return v;
  }
  for (size_t i = op.operands.size(); i-- > 0;) {
    auto it = s.find(op.operands[i]);
    if (it != s.end() && it->second.has_cst) return it->second.cst;
  }
  // A rotation whose amount is not a compile-time integer cannot be lowered (its Galois element
  // names its key): refuse it rather than lower it as rotation 0, which would drop its work.
  fail(op, "'" + op.name + "' has no integer rotation amount (expected an integer attribute static_shift, "
               "shift, offset, index or k, or a constant operand)");
}

void Frontend::bind_results(const Operation& op, Scope& s, const Value& in, FheOpKind k, bool emitted) {
  for (size_t i = 0; i < op.results.size(); ++i) {
    AttrPtr t = i < op.result_types.size() ? op.result_types[i] : nullptr;
    Value v = value_of_type(t);
    if (emitted && (in.ct || v.ct) && !v.pt) {
      v.ct = true;
      if (v.level < 0) {
        int l = in.level < 0 ? pp_.max_level : in.level;  // untyped level: fresh (L)
        if (k == FheOpKind::Rescale && l > 0) --l;
        if (k == FheOpKind::LevelReduce) {
          long long drop = 1;
          for (const char* key : {"levelToDrop", "levels", "level"})
            if (mlir::scalar_int(op.attr(key), &drop)) break;
          l = std::max(0, l - static_cast<int>(drop));
        }
        if (k == FheOpKind::Bootstrap || k == FheOpKind::Encrypt) l = -1;
        v.level = l;
      }
      if (!t || type_info(*t).size == 2)
        v.degree = k == FheOpKind::Mul ? 2 : k == FheOpKind::Relinearize ? 1 : in.degree;
    }
    s[op.results[i]] = v;
  }
}

FheProgram heir_to_fhe_program(const mlir::Module& module) { return Frontend(module).run(); }

FheProgram load_heir_string(const std::string& text, const std::string& name) {
  return heir_to_fhe_program(mlir::parse_mlir(text, name));
}

FheProgram load_heir(const std::string& path) { return heir_to_fhe_program(mlir::parse_mlir_file(path)); }

}  // namespace photon::heir
