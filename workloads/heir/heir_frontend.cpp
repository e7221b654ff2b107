#include "workloads/heir/heir_frontend.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include "base/error.h"
#include "workloads/heir/heir_macro_ops.h"
#include "workloads/heir/heir_op_table.h"
#include "workloads/heir/heir_params.h"
#include "workloads/heir/heir_types.h"

namespace photon {
namespace {

using heir::CtTypeInfo;
using heir::OpClass;
using heir::Sem;
using mlir::Attr;
using mlir::AttrPtr;
using mlir::Func;
using mlir::Module;
using mlir::Operation;
using mlir::Region;

struct Value {
  AttrPtr type;
  bool ct = false, pt = false;
  int level = -1;  // tracked level when the type does not state it
  int degree = 1;  // ciphertext degree (polynomials - 1)
  bool has_cst = false;
  long long cst = 0;     // integer constant value
  int encode_op = -1;    // FheOp index of the Encode that produced this plaintext
  int hoist_op = -1;     // FheOp index of the HoistedRotate this precomputation feeds
  int64_t elements = 1;  // ciphertexts in a tensor-of-ciphertexts value (elementwise ops repeat)
};
using Scope = std::unordered_map<std::string, Value>;

class Frontend {
 public:
  explicit Frontend(const Module& m) : m_(m) { prog_.source = m.file; }

  FheProgram run() {
    if (!m_.has_module)
      throw Error("no module found (expected 'module { ... }' or a top-level 'func.func')")
          .with_context(mlir::Loc{m_.file, 1, 1}.str());
    heir::check_rings(m_);
    pp_ = heir::derive_parameters(m_, &prog_);
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

 private:
  const Module& m_;
  FheProgram prog_;
  heir::ProgramParams pp_;
  bool noted_encode_ = false, noted_fresh_ = false, warned_level_ = false;
  static constexpr size_t kMaxOps = size_t{1} << 26;                ///< guard against runaway unrolling
  mutable std::unordered_map<const Attr*, CtTypeInfo> type_cache_;  // types are shared nodes

  const CtTypeInfo& type_info(const Attr& t) const {
    auto it = type_cache_.find(&t);
    if (it == type_cache_.end()) it = type_cache_.emplace(&t, heir::ct_type_info(t)).first;
    return it->second;
  }

  void collect_calls(const Region& r, std::set<std::string>& out) {
    mlir::walk_ops(r, [&](const Operation& op) {
      if ((op.name == "func.call" || op.name == "call") && !op.symbol.empty()) out.insert(op.symbol);
    });
  }

  void note(const std::string& s) { prog_.derived.push_back(s); }

  // True if some function holds an op the platform executes (not set-up, client or scaffolding).
  bool has_fhe_op() const {
    bool found = false;
    for (const auto& f : m_.funcs)
      mlir::walk_ops(f.body, [&](const Operation& op) {
        switch (heir::classify_op(op.name).sem) {
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

  // MLIR: every SSA use must be dominated by its definition; a name not in scope is an error.
  void check_defined(const Operation& op, const Scope& s) const {
    for (const auto& o : op.operands)
      if (!s.count(o)) fail(op, "use of undefined value '" + o + "' (operand of '" + op.name + "')");
  }

  // ---------------------------------------------------------------- values
  Value value_of_type(const AttrPtr& t) const {
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

  static AttrPtr operand_type(const Operation& op, size_t i) {
    if (op.single_type) return op.operand_types.empty() ? nullptr : op.operand_types[0];
    // library ops list the context/evaluator first: types align with operands
    return i < op.operand_types.size() ? op.operand_types[i] : nullptr;
  }

  Value operand(const Operation& op, size_t i, const Scope& s) const {
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

  int first_ct(const Operation& op, const Scope& s, Value* out) const {
    for (size_t i = 0; i < op.operands.size(); ++i) {
      Value v = operand(op, i, s);
      if (v.ct) {
        *out = v;
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  [[noreturn]] void fail(const Operation& op, const std::string& msg) const {
    throw Error(msg).with_context(op.loc.str());
  }

  FheOp make(const Operation& op, FheOpKind k, const Value& in) {
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

  int push(FheOp f) {
    if (prog_.ops.size() >= kMaxOps)
      throw Error("more than " + std::to_string(kMaxOps) + " FHE ops after unrolling")
          .with_context(f.location);
    prog_.ops.push_back(std::move(f));
    return static_cast<int>(prog_.ops.size()) - 1;
  }

  int64_t rotation_of(const Operation& op, const Scope& s) const {
    for (const char* k : {"static_shift", "shift", "offset", "index", "k"}) {
      long long v = 0;
      if (mlir::scalar_int(op.attr(k), &v)) return v;
    }
    for (size_t i = op.operands.size(); i-- > 0;) {
      auto it = s.find(op.operands[i]);
      if (it != s.end() && it->second.has_cst) return it->second.cst;
    }
    return 0;
  }

  // ---------------------------------------------------------------- execution
  std::vector<Value> run_func(const Func& f, const std::vector<Value>& args, int depth) {
    if (depth > 64) throw Error("call depth above 64 (recursive call?)").with_context(f.loc.str());
    Scope s;
    for (size_t i = 0; i < f.args.size() && i < args.size(); ++i) s[f.args[i].name] = args[i];
    std::vector<Value> ret;
    run_region(f.body, s, depth, &ret);
    return ret;
  }

  void run_region(const Region& r, Scope& s, int depth, std::vector<Value>* terminator) {
    for (const auto& op : r) {
      check_defined(op, s);
      if (terminator && (op.name == "func.return" || op.name == "scf.yield")) {
        terminator->clear();
        for (const auto& o : op.operands) {
          auto it = s.find(o);
          terminator->push_back(it != s.end() ? it->second : Value{});
        }
        continue;
      }
      run_op(op, s, depth);
    }
  }

  void bind_results(const Operation& op, Scope& s, const Value& in, FheOpKind k, bool emitted) {
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

  void run_op(const Operation& op, Scope& s, int depth) {
    OpClass c = heir::classify_op(op.name);
    switch (c.sem) {
      case Sem::Unknown: {
        std::string dialect = op.name.substr(0, op.name.find('.'));
        if (op.name.find('.') == std::string::npos || !heir::known_dialect(dialect))
          fail(op, "unknown dialect '" + dialect + "' (operation '" + op.name + "')");
        fail(op, "unknown operation '" + op.name + "'");
      }
      case Sem::Skip: bind_results(op, s, Value{}, FheOpKind::Add, false); return;
      case Sem::Setup:
      case Sem::Client:
        prog_.unsupported.push_back({op.name, op.loc.str(), c.reason});
        bind_results(op, s, Value{}, FheOpKind::Add, false);
        return;
      case Sem::Constant: {
        Value v;
        const auto& t = m_.tokens;
        size_t q = op.tok_begin;
        bool neg = q < op.tok_end && t[q].is('-');
        if (neg) ++q;
        const std::string& txt = t[q < op.tok_end ? q : op.tok_begin].text;
        bool hex = txt.compare(0, 2, "0x") == 0;
        if (q < op.tok_end && t[q].kind == mlir::TokKind::Number &&
            txt.find_first_not_of(hex ? "0123456789abcdefABCDEFx" : "0123456789") == std::string::npos) {
          v.has_cst = true;
          v.cst = std::strtoll(txt.c_str(), nullptr, hex ? 16 : 10) * (neg ? -1 : 1);
        } else if (q < op.tok_end && t[q].kind == mlir::TokKind::Ident &&
                   (t[q].text == "true" || t[q].text == "false")) {
          v.has_cst = true;
          v.cst = t[q].text == "true";
        }
        if (!op.result_types.empty()) v.type = op.result_types[0];
        for (const auto& r : op.results) s[r] = v;
        return;
      }
      case Sem::Arith: {
        Value v;
        std::vector<long long> in;
        for (const auto& o : op.operands) {
          auto it = s.find(o);
          if (it == s.end() || !it->second.has_cst) break;
          in.push_back(it->second.cst);
        }
        std::string o = op.name.substr(6);
        if (in.size() == op.operands.size() && !in.empty()) {
          v.has_cst = true;
          if (o == "addi")
            v.cst = in[0] + in.at(1);
          else if (o == "subi")
            v.cst = in[0] - in.at(1);
          else if (o == "muli")
            v.cst = in[0] * in.at(1);
          else if ((o == "divsi" || o == "divui" || o == "floordivsi") && in.at(1) != 0)
            v.cst = in[0] / in[1];
          else if ((o == "remsi" || o == "remui") && in.at(1) != 0)
            v.cst = in[0] % in[1];
          else if (o == "index_cast" || o == "index_castui" || o == "extsi" || o == "extui" || o == "trunci")
            v.cst = in[0];
          else
            v.has_cst = false;
        }
        for (const auto& r : op.results) s[r] = v;
        return;
      }
      case Sem::For: run_for(op, s, depth); return;
      case Sem::Call: {
        const Func* f = m_.func(op.symbol);
        if (!f) fail(op, "call to undefined function '@" + op.symbol + "'");
        if (!f->has_body) fail(op, "call to external function '@" + op.symbol + "' (no body to inline)");
        std::vector<Value> args;
        for (size_t i = 0; i < op.operands.size(); ++i) args.push_back(operand(op, i, s));
        std::vector<Value> ret = run_func(*f, args, depth + 1);
        for (size_t i = 0; i < op.results.size(); ++i) s[op.results[i]] = i < ret.size() ? ret[i] : Value{};
        return;
      }
      default: break;
    }

    Value in;
    int ct_index = first_ct(op, s, &in);
    switch (c.sem) {
      case Sem::Emit: {
        FheOpKind k = c.kind;
        bool any_pt = false;
        for (size_t i = 0; i < op.operands.size(); ++i) {
          Value v = operand(op, i, s);
          if (v.pt) {
            any_pt = true;
            if (v.encode_op >= 0 && ct_index >= 0) {  // encode at the level it is used
              prog_.ops[static_cast<size_t>(v.encode_op)].level =
                  static_cast<uint32_t>(std::max(0, in.level < 0 ? pp_.max_level : in.level));
              if (!noted_encode_) {
                note("Encode level = level of the ciphertext that consumes the plaintext");
                noted_encode_ = true;
              }
            }
          }
        }
        if (any_pt && k == FheOpKind::Add) k = FheOpKind::AddPlain;
        if (any_pt && k == FheOpKind::Sub) k = FheOpKind::SubPlain;
        if (any_pt && k == FheOpKind::Mul) k = FheOpKind::MulPlain;
        if (k == FheOpKind::Encrypt || k == FheOpKind::Encode) {
          in = Value{};
          in.level = pp_.max_level;  // fresh encryption at L; an Encode takes its consumer's level
        }
        FheOp f = make(op, k, in);
        if (k == FheOpKind::Rotate || k == FheOpKind::Conjugate) f.rotation = rotation_of(op, s);
        int idx = push(f);
        for (int64_t e = 1; e < in.elements; ++e) push(f);  // elementwise over tensor<n x !ct>
        bind_results(op, s, in, k, true);
        if (k == FheOpKind::Encode)
          for (const auto& r : op.results) {
            s[r].pt = true;
            s[r].ct = false;
            s[r].encode_op = idx;
          }
        if (k == FheOpKind::Decrypt)
          for (const auto& r : op.results) {
            s[r].ct = false;
            s[r].pt = true;
          }
        return;
      }
      case Sem::MulRelin: {
        Value d2 = in;
        d2.degree = 2;
        for (int64_t e = 0; e < in.elements; ++e) {
          push(make(op, FheOpKind::Mul, in));
          push(make(op, FheOpKind::Relinearize, d2));
        }
        bind_results(op, s, in, FheOpKind::Relinearize, true);
        return;
      }
      case Sem::HoistPrecompute: {
        FheOp f = make(op, FheOpKind::HoistedRotate, in);
        f.count = 0;
        int idx = push(f);
        bind_results(op, s, in, FheOpKind::HoistedRotate, false);
        for (const auto& r : op.results) s[r].hoist_op = idx;
        return;
      }
      case Sem::FastRotation: {
        int hoist = -1;
        for (const auto& o : op.operands) {
          auto it = s.find(o);
          if (it != s.end() && it->second.hoist_op >= 0) hoist = it->second.hoist_op;
        }
        if (hoist < 0) fail(op, "fast_rotation without a fast_rotation_precompute operand");
        FheOp& h = prog_.ops[static_cast<size_t>(hoist)];
        if (h.count == 0) h.rotation = rotation_of(op, s);
        ++h.count;
        bind_results(op, s, in, FheOpKind::Rotate, true);
        return;
      }
      case Sem::LinearTransform: expand_linear_transform(op, s, in); return;
      case Sem::Chebyshev: expand_chebyshev(op, s, in); return;
      default: fail(op, "internal: unhandled op class for '" + op.name + "'");
    }
  }

  void expand_linear_transform(const Operation& op, Scope& s, const Value& in) {
    if (!in.ct) fail(op, "orion.linear_transform without a ciphertext operand");
    std::vector<int64_t> diags;
    if (const Attr* di = op.attr("diagonal_indices")) {
      for (const auto& [k, v] : di->items) {
        (void)k;
        long long x = 0;
        // `array<i32: 0, 1, ...>`: the first item is "i32 : 0"
        const Attr* a = v.get();
        if (a->kind == Attr::Kind::Scalar && !a->items.empty()) a = a->items.back().second.get();
        if (!mlir::scalar_int(a, &x))
          fail(op, "diagonal_indices: expected an integer, got '" + v->str() + "'");
        diags.push_back(x);
      }
    }
    long long count = 0;
    if (mlir::scalar_int(op.attr("diagonal_count"), &count) && (count < 0 || count > (1 << 20)))
      fail(op, "diagonal_count = " + std::to_string(count) + " out of range [0, 2^20]");
    if (count > 0 && diags.empty())
      for (long long i = 0; i < count; ++i) diags.push_back(i);
    if (diags.empty()) fail(op, "orion.linear_transform needs diagonal_indices or diagonal_count");
    if (count > 0 && static_cast<size_t>(count) != diags.size())
      prog_.warnings.push_back(op.loc.str() + ": diagonal_count = " + std::to_string(count) +
                               " but diagonal_indices has " + std::to_string(diags.size()) + " entries");
    // Orion: bsgs_ratio (the baby:giant bound); openfhe: logBabyStepGiantStepRatio (its log2).
    double ratio = 2.0;
    long long log_ratio = 0;
    if (const Attr* r = op.attr("bsgs_ratio"))
      ratio = std::strtod(r->text.c_str(), nullptr);
    else if (mlir::scalar_int(op.attr("logBabyStepGiantStepRatio"), &log_ratio) && log_ratio >= 0 &&
             log_ratio < 30)
      ratio = static_cast<double>(1LL << log_ratio);
    long long slots = 0;
    if (!mlir::scalar_int(op.attr("slots"), &slots)) slots = 1LL << std::max(1, pp_.log_n - 1);  // CKKS: N/2
    heir::LinearTransformPlan p;
    try {
      p = heir::plan_linear_transform(diags, slots, ratio);
    } catch (Error& e) {
      e.with_context(op.loc.str());
      throw;
    }
    if (p.baby_rotations > 0) {
      FheOp h = make(op, FheOpKind::HoistedRotate, in);
      h.count = p.baby_rotations;
      h.rotation = 1;
      push(h);
    }
    for (uint32_t i = 0; i < p.mul_plain; ++i) push(make(op, FheOpKind::MulPlain, in));
    for (int64_t g : p.giant_offsets) {
      FheOp r = make(op, FheOpKind::Rotate, in);
      r.rotation = g;
      push(r);
    }
    for (uint32_t i = 0; i < p.adds; ++i) push(make(op, FheOpKind::Add, in));
    bind_results(op, s, in, FheOpKind::Add, true);
  }

  void expand_chebyshev(const Operation& op, Scope& s, const Value& in) {
    if (!in.ct) fail(op, "orion.chebyshev without a ciphertext operand");
    long long degree = -1;
    if (const Attr* co = op.attr("coefficients")) degree = static_cast<long long>(co->items.size()) - 1;
    if (degree < 0 && !mlir::scalar_int(op.attr("degree"), &degree))
      fail(op, "orion.chebyshev needs `coefficients` or `degree`");
    if (degree < 0 || degree > (1 << 16))
      fail(op, "orion.chebyshev degree " + std::to_string(degree) + " out of range [0, 65536]");
    heir::PolyEvalPlan p = heir::plan_chebyshev(static_cast<uint32_t>(degree));
    Value cur = in;
    for (uint32_t i = 0; i < p.products; ++i) {
      push(make(op, FheOpKind::Mul, cur));
      Value d2 = cur;
      d2.degree = 2;
      push(make(op, FheOpKind::Relinearize, d2));
      push(make(op, FheOpKind::Rescale, cur));
    }
    for (uint32_t i = 0; i < p.mul_scalar; ++i) push(make(op, FheOpKind::MulScalar, in));
    for (uint32_t i = 0; i < p.adds; ++i) push(make(op, FheOpKind::Add, in));
    bind_results(op, s, in, FheOpKind::Add, true);
  }

  void run_for(const Operation& op, Scope& s, int depth) {
    // scf.for %iv = %lb to %ub step %st [iter_args(%a = %init, ...)] [-> (types)] [: type] { ... }
    const auto& t = m_.tokens;
    std::string iv, bounds[3];
    std::vector<std::pair<std::string, std::string>> iter;
    size_t q = op.tok_begin;
    auto expect_tok = [&](bool ok, const std::string& what) {
      if (!ok) {
        const auto& k = t[std::min(q, t.size() - 1)];
        throw Error("expected " + what + " in scf.for, got " + mlir::describe(k))
            .with_context(mlir::Loc{op.loc.file, k.line, k.col}.str());
      }
    };
    expect_tok(q < op.tok_end && t[q].kind == mlir::TokKind::Percent, "the induction variable");
    iv = t[q++].text;
    expect_tok(q < op.tok_end && t[q].is('='), "'='");
    ++q;
    const char* kw[3] = {nullptr, "to", "step"};
    for (int i = 0; i < 3; ++i) {
      if (kw[i]) {
        expect_tok(q < op.tok_end && t[q].kind == mlir::TokKind::Ident && t[q].text == kw[i],
                   std::string("'") + kw[i] + "'");
        ++q;
      }
      expect_tok(
          q < op.tok_end && (t[q].kind == mlir::TokKind::Percent || t[q].kind == mlir::TokKind::Number),
          "a bound");
      bounds[i] = t[q++].text;
    }
    if (q < op.tok_end && t[q].kind == mlir::TokKind::Ident && t[q].text == "iter_args") {
      ++q;
      expect_tok(q < op.tok_end && t[q].is('('), "'('");
      ++q;
      while (q < op.tok_end && !t[q].is(')')) {
        expect_tok(t[q].kind == mlir::TokKind::Percent, "an iter_args name");
        std::string a = t[q++].text;
        expect_tok(q < op.tok_end && t[q].is('='), "'='");
        ++q;
        expect_tok(q < op.tok_end && t[q].kind == mlir::TokKind::Percent, "an initial value");
        iter.emplace_back(a, t[q++].text);
        if (q < op.tok_end && t[q].is(',')) ++q;
      }
    }
    long long v[3];
    const char* what[3] = {"lower bound", "upper bound", "step"};
    for (int i = 0; i < 3; ++i) {
      if (bounds[i][0] != '%') {
        v[i] = std::strtoll(bounds[i].c_str(), nullptr, 10);
        continue;
      }
      auto it = s.find(bounds[i]);
      if (it == s.end() || !it->second.has_cst)
        fail(op, "loop 'scf.for " + iv + "': " + what[i] + " " + bounds[i] +
                     " is not a constant (only loops with constant bounds can be unrolled)");
      v[i] = it->second.cst;
    }
    if (v[2] <= 0) fail(op, "loop 'scf.for " + iv + "': step " + std::to_string(v[2]) + " is not positive");
    if (op.regions.size() != 1) fail(op, "loop 'scf.for " + iv + "': expected one body region");
    long long trips = v[1] > v[0] ? (v[1] - v[0] + v[2] - 1) / v[2] : 0;
    if (trips > 10'000'000) fail(op, "loop 'scf.for " + iv + "': " + std::to_string(trips) + " iterations");
    std::vector<Value> carried;
    for (const auto& [a, init] : iter) {
      (void)a;
      auto it = s.find(init);
      carried.push_back(it != s.end() ? it->second : Value{});
    }
    for (long long i = v[0]; i < v[1]; i += v[2]) {
      Value ivv;
      ivv.has_cst = true;
      ivv.cst = i;
      s[iv] = ivv;
      for (size_t k = 0; k < iter.size(); ++k) s[iter[k].first] = carried[k];
      std::vector<Value> yielded;
      run_region(op.regions[0], s, depth, &yielded);
      for (size_t k = 0; k < carried.size() && k < yielded.size(); ++k) carried[k] = yielded[k];
    }
    for (size_t i = 0; i < op.results.size(); ++i)
      s[op.results[i]] = i < carried.size() ? carried[i] : Value{};
  }
};

}  // namespace

namespace {

/// Runs f(); an Error escaping it is rethrown with every non-printable byte of its message and
/// context escaped (mlir::escape), so whatever input text it quotes, it prints on one line.
template <typename F>
FheProgram with_printable_errors(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    Error out(mlir::escape(e.message()));
    for (auto it = e.context().rbegin(); it != e.context().rend(); ++it) out.with_context(mlir::escape(*it));
    throw out;
  }
}

}  // namespace

FheProgram heir_to_fhe_program(const mlir::Module& module) {
  return with_printable_errors([&] { return Frontend(module).run(); });
}

FheProgram load_heir_string(const std::string& text, const std::string& name) {
  return with_printable_errors([&] { return heir_to_fhe_program(mlir::parse_mlir(text, name)); });
}

FheProgram load_heir(const std::string& path) {
  return with_printable_errors([&] { return heir_to_fhe_program(mlir::parse_mlir_file(path)); });
}

}  // namespace photon
