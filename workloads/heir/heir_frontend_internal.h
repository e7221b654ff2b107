// The HEIR frontend's interpreter: values, scopes and the runner that walks a module's entry
// functions, unrolling loops and inlining calls, and appends one FheOp per executed scheme op.
// Split by concern: set-up, values and the op-to-FheOp step (heir_frontend.cpp), the op runner
// and control flow (heir_op_runner.cpp), macro-op expansion (heir_macro_expansion.cpp).
// Not part of the library's interface.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.h"
#include "workloads/fhe/fhe_program.h"
#include "workloads/heir/heir_op_table.h"
#include "workloads/heir/heir_params.h"
#include "workloads/heir/heir_types.h"
#include "workloads/heir/mlir_parser.h"

namespace photon::heir {

/// What the runner knows of an SSA value.
struct Value {
  mlir::AttrPtr type;
  bool ct = false, pt = false;
  int level = -1;  ///< tracked level when the type does not state it
  int degree = 1;  ///< ciphertext degree (polynomials - 1)
  bool has_cst = false;
  long long cst = 0;     ///< integer constant value
  int encode_op = -1;    ///< FheOp index of the Encode that produced this plaintext
  int hoist_op = -1;     ///< FheOp index of the HoistedRotate this precomputation feeds
  int64_t elements = 1;  ///< ciphertexts in a tensor-of-ciphertexts value (elementwise ops repeat)
};
using Scope = std::unordered_map<std::string, Value>;

class Frontend {
 public:
  explicit Frontend(const mlir::Module& m) : m_(m) { prog_.source = m.file; }
  /// Runs every entry function once, in module order. Throws Error (docs/heir.md).
  fhe::FheProgram run();

 private:
  static constexpr size_t kMaxOps = size_t{1} << 26;  ///< guard against runaway unrolling
  /// Steps of the whole run: every op executed (a loop body's ops once per trip, a callee's once
  /// per call) and every loop trip. More is an error, so nested loops or a fan-out of calls end
  /// within seconds, whether or not they hold FHE ops. 2^22: about 1000 times the largest program
  /// in ../shared/inputs/heir (a 1024-trip loop); macro-ops (Orion) emit many FHE ops per step.
  static constexpr unsigned long long kMaxSteps = 1ull << 22;
  /// Trips of one scf.for that are unrolled (refused before the loop runs, naming it).
  static constexpr unsigned long long kMaxLoopTrips = kMaxSteps;

  // Set-up and values (heir_frontend.cpp).
  const CtTypeInfo& type_info(const mlir::Attr& t) const;
  void collect_calls(const mlir::Region& r, std::set<std::string>& out);
  void note(const std::string& s) { prog_.derived.push_back(s); }
  /// True if some function holds an op the platform executes (not set-up, client or scaffolding).
  bool has_fhe_op() const;
  /// MLIR: every SSA use must be dominated by its definition; a name not in scope is an error.
  void check_defined(const mlir::Operation& op, const Scope& s) const;
  Value value_of_type(const mlir::AttrPtr& t) const;
  static mlir::AttrPtr operand_type(const mlir::Operation& op, size_t i);
  Value operand(const mlir::Operation& op, size_t i, const Scope& s) const;
  int first_ct(const mlir::Operation& op, const Scope& s, Value* out) const;
  [[noreturn]] void fail(const mlir::Operation& op, const std::string& msg) const {
    throw Error(msg).with_context(op.loc.str());
  }
  /// The FheOp of `op` of kind `k` on input `in`, with the program's parameters and its level.
  fhe::FheOp make(const mlir::Operation& op, fhe::FheOpKind k, const Value& in);
  int push(fhe::FheOp f);
  /// The rotation amount (slots) of a rotate op: an integer attribute or a constant operand.
  /// Throws Error naming the op and its location when there is none.
  int64_t rotation_of(const mlir::Operation& op, const Scope& s) const;
  void bind_results(const mlir::Operation& op, Scope& s, const Value& in, fhe::FheOpKind k, bool emitted);

  // Execution (heir_op_runner.cpp).
  std::vector<Value> run_func(const mlir::Func& f, const std::vector<Value>& args, int depth);
  void run_region(const mlir::Region& r, Scope& s, int depth, std::vector<Value>* terminator);
  void run_op(const mlir::Operation& op, Scope& s, int depth);
  /// Counts one step (an op executed or a loop trip) of `op`; above kMaxSteps an Error at `op`.
  void count_step(const mlir::Operation& op);
  [[noreturn]] void fail_unknown(const mlir::Operation& op) const;
  void run_constant(const mlir::Operation& op, Scope& s);
  /// `arith.constant dense_resource<key> : tensor<1xiN>` (token `tok`): an integer constant read
  /// from the builtin resource blob (little-endian; iN/siN sign-extended, uiN zero-extended) when
  /// the blob exists and the tensor has one integer element; otherwise `v` stays non-constant.
  void resource_constant(size_t tok, Value* v) const;
  void run_arith(const mlir::Operation& op, Scope& s);
  void run_call(const mlir::Operation& op, Scope& s, int depth);
  void run_for(const mlir::Operation& op, Scope& s, int depth);
  void run_emit(const mlir::Operation& op, Scope& s, fhe::FheOpKind k, Value in, int ct_index);
  void run_mul_relin(const mlir::Operation& op, Scope& s, const Value& in);
  void run_hoist_precompute(const mlir::Operation& op, Scope& s, const Value& in);
  void run_fast_rotation(const mlir::Operation& op, Scope& s, const Value& in);

  // Macro-ops (heir_macro_expansion.cpp).
  void expand_linear_transform(const mlir::Operation& op, Scope& s, const Value& in);
  void expand_chebyshev(const mlir::Operation& op, Scope& s, const Value& in);

  const mlir::Module& m_;
  fhe::FheProgram prog_;
  ProgramParams pp_;
  bool noted_encode_ = false, noted_fresh_ = false, warned_level_ = false;
  unsigned long long steps_ = 0;  ///< steps so far (count_step), against kMaxSteps
  mutable std::unordered_map<const mlir::Attr*, CtTypeInfo> type_cache_;  // types are shared nodes
};

}  // namespace photon::heir
