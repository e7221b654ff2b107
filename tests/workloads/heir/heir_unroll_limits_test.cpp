// The HEIR frontend's integer constants, loop bounds and unrolling at the limits of int64 and of
// the unroll budget: every case either runs with the value MLIR's arith/scf semantics give or ends
// in one photon::Error naming the op (no overflow, no hang, no other exception).
// tests/fuzz_regressions/heir/ holds the same inputs for the fuzz harness's replay.
#include <gtest/gtest.h>

#include <string>

#include "base/error.h"
#include "workloads/heir/heir_frontend.h"

namespace photon::heir {
namespace {

using fhe::FheOpKind;
using fhe::FheProgram;

const char* kPrelude = R"(!Z = !mod_arith.int<17 : i64>
#ring = #polynomial.ring<coefficientType = !rns.rns<!Z, !Z>, polynomialModulus = <1 + x**4096>>
#chain = #lwe.modulus_chain<elements = <17 : i64, 97 : i64>, current = 1>
!ct = !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = #ring, encryption_type = mix>, modulus_chain = #chain>
)";

std::string error_of(const std::string& body) {
  try {
    load_heir_string(std::string(kPrelude) + body, "t.mlir");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

int negates(const FheProgram& p) {
  int n = 0;
  for (const auto& op : p.ops) n += op.kind == FheOpKind::Negate;
  return n;
}

TEST(HeirUnrollLimits, LoopOverTheWholeInt64RangeIsRefusedByItsTripCount) {
  // ub - lb = 2^64 - 2: its signed difference overflowed; the unsigned one gives the trip count.
  const std::string e = error_of(R"(
func.func @f(%x: !ct) -> !ct {
  %lo = arith.constant -9223372036854775807 : i64
  %hi = arith.constant 9223372036854775807 : i64
  %c1 = arith.constant 1 : i64
  scf.for %i = %lo to %hi step %c1 {
  }
  %y = ckks.negate %x : !ct
  return %y : !ct
})");
  EXPECT_NE(e.find("t.mlir:10:3: loop 'scf.for %i': 18446744073709551614 iterations (at most 4194304 are "
                   "unrolled)"),
            std::string::npos)
      << e;
}

TEST(HeirUnrollLimits, LoopEndingAtInt64MaxRunsItsTrips) {
  // lb = 2^63 - 4, ub = 2^63 - 1, step 2: trips at 2^63 - 4 and 2^63 - 2 (ceil(3 / 2) = 2); the
  // induction variable's next value would pass 2^63 - 1.
  const FheProgram p = load_heir_string(std::string(kPrelude) + R"(
func.func @f(%x: !ct) -> !ct {
  %lo = arith.constant 9223372036854775804 : i64
  %hi = arith.constant 9223372036854775807 : i64
  %c2 = arith.constant 2 : i64
  %r = scf.for %i = %lo to %hi step %c2 iter_args(%a = %x) -> (!ct) {
    %b = ckks.negate %a : !ct
    scf.yield %b : !ct
  }
  return %r : !ct
})",
                                        "t.mlir");
  EXPECT_EQ(negates(p), 2);
}

TEST(HeirUnrollLimits, NestedLoopsWithinTheirTripLimitEndAtTheStepBudget) {
  // 4 * 10^6 x 4 * 10^6 trips of an empty body: each loop is within its own limit (2^22 trips),
  // the nest is not: the second outer trip passes the 2^22-step budget inside the inner loop.
  const std::string e = error_of(R"(
func.func @f(%x: !ct) -> !ct {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4000000 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
    }
  }
  %y = ckks.negate %x : !ct
  return %y : !ct
})");
  EXPECT_NE(e.find("t.mlir:11:5: more than 4194304 operations and loop trips executed while unrolling loops "
                   "and inlining calls"),
            std::string::npos)
      << e;
}

TEST(HeirUnrollLimits, IntegerArithmeticWrapsAsTheArithDialectSays) {
  // (2^63 - 1) + 1 wraps to -2^63; as a loop's lower bound to -2^63 + 2 that is 2 trips.
  const FheProgram p = load_heir_string(std::string(kPrelude) + R"(
func.func @f(%x: !ct) -> !ct {
  %max = arith.constant 9223372036854775807 : i64
  %c1 = arith.constant 1 : i64
  %lo = arith.addi %max, %c1 : i64
  %c2 = arith.constant 2 : i64
  %hi = arith.addi %lo, %c2 : i64
  %r = scf.for %i = %lo to %hi step %c1 iter_args(%a = %x) -> (!ct) {
    %b = ckks.negate %a : !ct
    scf.yield %b : !ct
  }
  return %r : !ct
})",
                                        "t.mlir");
  EXPECT_EQ(negates(p), 2);
}

TEST(HeirUnrollLimits, SignedDivisionOverflowIsAnError) {
  const std::string e = error_of(R"(
func.func @f(%x: !ct) -> !ct {
  %max = arith.constant 9223372036854775807 : i64
  %c1 = arith.constant 1 : i64
  %min = arith.addi %max, %c1 : i64
  %m1 = arith.constant -1 : i64
  %q = arith.divsi %min, %m1 : i64
  %y = ckks.negate %x : !ct
  return %y : !ct
})");
  EXPECT_NE(e.find("t.mlir:11:8: arith.divsi: -9223372036854775808 / -1 overflows"), std::string::npos) << e;
}

TEST(HeirUnrollLimits, BinaryArithWithOneOperandIsAnError) {
  const std::string e = error_of(R"(
func.func @f(%x: !ct) -> !ct {
  %c1 = arith.constant 1 : i64
  %s = arith.addi %c1 : i64
  %y = ckks.negate %x : !ct
  return %y : !ct
})");
  EXPECT_NE(e.find("t.mlir:8:8: arith.addi takes 2 operands, got 1"), std::string::npos) << e;
}

}  // namespace
}  // namespace photon::heir
