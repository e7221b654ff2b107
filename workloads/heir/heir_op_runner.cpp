// The HEIR frontend's op runner: dispatch on the op's class (heir_op_table.h), control flow
// (constants, integer arithmetic, calls, scf.for), and the ops that append FheOps.
#include <algorithm>
#include <cstdlib>
#include <limits>

#include "base/error.h"
#include "workloads/heir/heir_frontend_internal.h"

namespace photon::heir {

using fhe::FheOp;
using fhe::FheOpKind;
using mlir::Attr;
using mlir::AttrPtr;
using mlir::Func;
using mlir::Operation;
using mlir::Region;

std::vector<Value> Frontend::run_func(const Func& f, const std::vector<Value>& args, int depth) {
  if (depth > 64) throw Error("call depth above 64 (recursive call?)").with_context(f.loc.str());
  Scope s;
  for (size_t i = 0; i < f.args.size() && i < args.size(); ++i) s[f.args[i].name] = args[i];
  std::vector<Value> ret;
  run_region(f.body, s, depth, &ret);
  return ret;
}

void Frontend::run_region(const Region& r, Scope& s, int depth, std::vector<Value>* terminator) {
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

void Frontend::count_step(const Operation& op) {
  if (++steps_ > kMaxSteps)
    fail(op, "more than " + std::to_string(kMaxSteps) +
                 " operations and loop trips executed while unrolling loops and inlining calls");
}

void Frontend::run_op(const Operation& op, Scope& s, int depth) {
  count_step(op);
  const OpClass c = classify_op(op.name);
  switch (c.sem) {
    case Sem::Unknown: fail_unknown(op);
    case Sem::Skip: bind_results(op, s, Value{}, FheOpKind::Add, false); return;
    case Sem::Setup:
    case Sem::Client:
      prog_.unsupported.push_back({op.name, op.loc.str(), c.reason});
      bind_results(op, s, Value{}, FheOpKind::Add, false);
      return;
    case Sem::Constant: run_constant(op, s); return;
    case Sem::Arith: run_arith(op, s); return;
    case Sem::For: run_for(op, s, depth); return;
    case Sem::Call: run_call(op, s, depth); return;
    default: break;
  }
  Value in;
  const int ct_index = first_ct(op, s, &in);
  switch (c.sem) {
    case Sem::Emit: run_emit(op, s, c.kind, in, ct_index); return;
    case Sem::MulRelin: run_mul_relin(op, s, in); return;
    case Sem::HoistPrecompute: run_hoist_precompute(op, s, in); return;
    case Sem::FastRotation: run_fast_rotation(op, s, in); return;
    case Sem::LinearTransform: expand_linear_transform(op, s, in); return;
    case Sem::Chebyshev: expand_chebyshev(op, s, in); return;
    default: fail(op, "internal: unhandled op class for '" + op.name + "'");
  }
}

void Frontend::fail_unknown(const Operation& op) const {
  std::string dialect = op.name.substr(0, op.name.find('.'));
  if (op.name.find('.') == std::string::npos || !known_dialect(dialect))
    fail(op, "unknown dialect '" + dialect + "' (operation '" + op.name + "')");
  fail(op, "unknown operation '" + op.name + "'");
}

// ---------------------------------------------------------------- control flow

void Frontend::run_constant(const Operation& op, Scope& s) {
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
  } else if (q < op.tok_end && t[q].kind == mlir::TokKind::Ident && t[q].text == "dense_resource") {
    resource_constant(q, &v);
  }
  if (!op.result_types.empty()) v.type = op.result_types[0];
  for (const auto& r : op.results) s[r] = v;
}

void Frontend::resource_constant(size_t tok, Value* v) const {
  for (const auto& use : m_.dense_resources) {
    if (use.tok != tok) continue;
    std::vector<int64_t> dims;
    std::string element;
    if (!mlir::static_tensor_type(use.type.get(), &dims, &element)) return;
    for (int64_t d : dims)
      if (d != 1) return;
    if (element.find('i') == std::string::npos || element == "index") return;
    auto b = m_.resources.find("builtin");
    if (b == m_.resources.end()) return;
    auto r = b->second.find(use.key);
    if (r == b->second.end()) return;
    const std::vector<uint8_t>& data = r->second.data;
    const uint32_t bytes = mlir::resource_element_bytes(element);
    if (data.size() != bytes) return;
    uint64_t raw = 0;
    for (uint32_t k = 0; k < bytes; ++k) raw |= uint64_t(data[k]) << (8 * k);
    const int bits = std::stoi(element.substr(element.find('i') + 1));
    if (bits < 64) {
      raw &= (uint64_t(1) << bits) - 1;
      const bool is_signed = element[0] != 'u' && bits > 1;  // i1 is a boolean: 0 or 1
      if (is_signed && ((raw >> (bits - 1)) & 1)) raw |= ~uint64_t(0) << bits;
    }
    v->has_cst = true;
    v->cst = static_cast<long long>(raw);
    return;
  }
}

void Frontend::run_arith(const Operation& op, Scope& s) {
  Value v;
  std::vector<long long> in;
  for (const auto& o : op.operands) {
    auto it = s.find(o);
    if (it == s.end() || !it->second.has_cst) break;
    in.push_back(it->second.cst);
  }
  std::string o = op.name.substr(6);
  const bool binary = o == "addi" || o == "subi" || o == "muli" || o == "divsi" || o == "divui" ||
                      o == "floordivsi" || o == "remsi" || o == "remui";
  if (binary && op.operands.size() != 2)
    fail(op, op.name + " takes 2 operands, got " + std::to_string(op.operands.size()));
  if (in.size() == op.operands.size() && !in.empty()) {
    // addi, subi and muli wrap around in two's complement (MLIR arith dialect); signed division
    // of the most negative value by -1 overflows, which the dialect leaves undefined.
    using U = unsigned long long;
    v.has_cst = true;
    if (o == "addi")
      v.cst = static_cast<long long>(U(in[0]) + U(in[1]));
    else if (o == "subi")
      v.cst = static_cast<long long>(U(in[0]) - U(in[1]));
    else if (o == "muli")
      v.cst = static_cast<long long>(U(in[0]) * U(in[1]));
    else if ((o == "divsi" || o == "divui" || o == "floordivsi") && in[1] == -1 &&
             in[0] == std::numeric_limits<long long>::min())
      fail(op, op.name + ": " + std::to_string(in[0]) + " / -1 overflows");
    else if ((o == "divsi" || o == "divui" || o == "floordivsi") && in[1] != 0)
      v.cst = in[0] / in[1];
    else if ((o == "remsi" || o == "remui") && in[1] != 0)
      v.cst = in[1] == -1 ? 0 : in[0] % in[1];  // x % -1 is 0 (INT_MIN % -1 overflows in C++)
    else if (o == "index_cast" || o == "index_castui" || o == "extsi" || o == "extui" || o == "trunci")
      v.cst = in[0];
    else
      v.has_cst = false;
  }
  for (const auto& r : op.results) s[r] = v;
}

void Frontend::run_call(const Operation& op, Scope& s, int depth) {
  const Func* f = m_.func(op.symbol);
  if (!f) fail(op, "call to undefined function '@" + op.symbol + "'");
  if (!f->has_body) fail(op, "call to external function '@" + op.symbol + "' (no body to inline)");
  std::vector<Value> args;
  for (size_t i = 0; i < op.operands.size(); ++i) args.push_back(operand(op, i, s));
  std::vector<Value> ret = run_func(*f, args, depth + 1);
  for (size_t i = 0; i < op.results.size(); ++i) s[op.results[i]] = i < ret.size() ? ret[i] : Value{};
}

void Frontend::run_for(const Operation& op, Scope& s, int depth) {
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
    expect_tok(q < op.tok_end && (t[q].kind == mlir::TokKind::Percent || t[q].kind == mlir::TokKind::Number),
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
  // Trip count and induction values in unsigned arithmetic: ub - lb of any two 64-bit bounds
  // fits, where the signed difference (and lb + k * step near the top) would overflow.
  using U = unsigned long long;
  const U span = v[1] > v[0] ? U(v[1]) - U(v[0]) : 0;
  const U trips = span / U(v[2]) + (span % U(v[2]) != 0);
  if (trips > kMaxLoopTrips)
    fail(op, "loop 'scf.for " + iv + "': " + std::to_string(trips) + " iterations (at most " +
                 std::to_string(kMaxLoopTrips) + " are unrolled)");
  std::vector<Value> carried;
  for (const auto& [a, init] : iter) {
    (void)a;
    auto it = s.find(init);
    carried.push_back(it != s.end() ? it->second : Value{});
  }
  for (U k = 0; k < trips; ++k) {
    count_step(op);
    Value ivv;
    ivv.has_cst = true;
    ivv.cst = static_cast<long long>(U(v[0]) + k * U(v[2]));  // in [lb, ub): representable
    s[iv] = ivv;
    for (size_t k = 0; k < iter.size(); ++k) s[iter[k].first] = carried[k];
    std::vector<Value> yielded;
    run_region(op.regions[0], s, depth, &yielded);
    for (size_t k = 0; k < carried.size() && k < yielded.size(); ++k) carried[k] = yielded[k];
  }
  for (size_t i = 0; i < op.results.size(); ++i) s[op.results[i]] = i < carried.size() ? carried[i] : Value{};
}

// ---------------------------------------------------------------- ops that append FheOps

void Frontend::run_emit(const Operation& op, Scope& s, FheOpKind k, Value in, int ct_index) {
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
  if (k == FheOpKind::Rotate) f.rotation = rotation_of(op, s);
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
}

void Frontend::run_mul_relin(const Operation& op, Scope& s, const Value& in) {
  Value d2 = in;
  d2.degree = 2;
  for (int64_t e = 0; e < in.elements; ++e) {
    push(make(op, FheOpKind::Mul, in));
    push(make(op, FheOpKind::Relinearize, d2));
  }
  bind_results(op, s, in, FheOpKind::Relinearize, true);
}

void Frontend::run_hoist_precompute(const Operation& op, Scope& s, const Value& in) {
  FheOp f = make(op, FheOpKind::HoistedRotate, in);
  f.count = 0;
  int idx = push(f);
  bind_results(op, s, in, FheOpKind::HoistedRotate, false);
  for (const auto& r : op.results) s[r].hoist_op = idx;
}

void Frontend::run_fast_rotation(const Operation& op, Scope& s, const Value& in) {
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
}

}  // namespace photon::heir
