// Parser and frontend on small hand-written programs: loop unrolling, func.call inlining,
// library-level level tracking, hoisted rotations, lattigo ops, Orion Chebyshev, and the
// error cases (each a photon::Error naming file:line:col and the problem).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "base/error.h"
#include "workloads/heir/heir_frontend.h"
#include "workloads/heir/heir_macro_ops.h"
#include "workloads/heir/mlir_parser.h"

namespace photon::heir {
namespace {

using fhe::FheOp;
using fhe::FheOpKind;
using fhe::FheProgram;

// A CKKS prelude: N = 2^12, chain of 4 primes, ciphertexts at level 3 (!ct3) and 2 (!ct2).
const char* kPrelude = R"(// RUN: heir-opt %s
!Z1 = !mod_arith.int<17 : i64>
#ring = #polynomial.ring<coefficientType = !rns.rns<!Z1, !Z1, !Z1, !Z1>, polynomialModulus = <1 + x**4096>>
#ring2 = #polynomial.ring<coefficientType = !rns.rns<!Z1, !Z1, !Z1>, polynomialModulus = <1 + x**4096>>
#chain3 = #lwe.modulus_chain<elements = <17 : i64, 97 : i64, 113 : i64, 193 : i64>, current = 3>
#chain2 = #lwe.modulus_chain<elements = <17 : i64, 97 : i64, 113 : i64, 193 : i64>, current = 2>
!pt = !lwe.lwe_plaintext<plaintext_space = <ring = #ring, encoding = #lwe.inverse_canonical_encoding<scaling_factor = 45>>>
!ct3 = !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = #ring, encryption_type = mix>, modulus_chain = #chain3>
!ct3d = !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = #ring, encryption_type = mix, size = 3>, modulus_chain = #chain3>
!ct2 = !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = #ring2, encryption_type = mix>, modulus_chain = #chain2>
)";

std::map<FheOpKind, int> kinds(const FheProgram& p) {
  std::map<FheOpKind, int> n;
  for (const auto& op : p.ops) ++n[op.kind];
  return n;
}

std::string error_of(const std::string& text, const std::string& name = "t.mlir") {
  try {
    load_heir_string(text, name);
  } catch (const Error& e) { return e.what(); }
  return "";
}

TEST(HeirSyntax, ParserResolvesAliasesAndKeepsStructure) {
  mlir::Module m = mlir::parse_mlir(std::string(kPrelude) + R"(
module attributes {scheme.ckks} {
  func.func @f(%x: !ct3 {foo.bar = "baz"}) -> (!ct3) {
    %r = ckks.relinearize %x  {
      from_basis = array<i32: 0, 1, 2>, to_basis = array<i32: 0, 1>
    }: (!ct3) -> !ct3
    "ckks.negate"(%r) : (!ct3) -> !ct3
    return %r : !ct3
  }
})",
                                    "p.mlir");
  ASSERT_EQ(m.funcs.size(), 1u);
  const mlir::Func& f = m.funcs[0];
  EXPECT_EQ(f.name, "f");
  ASSERT_EQ(f.args.size(), 1u);
  EXPECT_EQ(f.args[0].type->alias, "!ct3");
  EXPECT_EQ(f.args[0].attrs.at(0).first, "foo.bar");
  // The alias chain !ct3 -> #lwe.ciphertext_space -> #ring -> !rns.rns<!Z1 x 4> is resolved.
  const mlir::Attr* coeff = f.args[0].type->find("coefficientType");
  ASSERT_NE(coeff, nullptr);
  EXPECT_EQ(coeff->text, "!rns.rns");
  EXPECT_EQ(coeff->items.size(), 4u);
  ASSERT_EQ(f.body.size(), 3u);
  const mlir::Operation& relin = f.body[0];
  EXPECT_EQ(relin.name, "ckks.relinearize");
  EXPECT_EQ(relin.loc.line, 14u);  // the prelude fills lines 1-10; `module` is on 12
  EXPECT_EQ(relin.loc.col, 10u);
  EXPECT_EQ(relin.operands, (std::vector<std::string>{"%x"}));
  ASSERT_NE(relin.attr("to_basis"), nullptr);
  EXPECT_EQ(relin.attr("from_basis")->items.size(), 3u);
  ASSERT_EQ(relin.operand_types.size(), 1u);
  EXPECT_EQ(relin.operand_types[0]->alias, "!ct3");
  EXPECT_EQ(f.body[1].name, "ckks.negate");  // generic form
  EXPECT_EQ(f.body[1].operands, (std::vector<std::string>{"%r"}));
  EXPECT_EQ(f.body[2].name, "func.return");
  EXPECT_NE(m.attr("scheme.ckks"), nullptr);
}

TEST(HeirSyntax, LoopsUnrollWithIterArgs) {
  // Trip count by hand: lb 2, ub 11, step 3 -> i = 2, 5, 8 -> 3 iterations; inner loop
  // 0..4 step 1 (ub = 2 * 2 via arith.muli) -> 4 iterations.
  FheProgram p = load_heir_string(std::string(kPrelude) + R"(
func.func @f(%x: !ct3) -> !ct3 {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c11 = arith.constant 11 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.muli %c2, %c2 : index
  %r = scf.for %i = %c2 to %c11 step %c3 iter_args(%acc = %x) -> (!ct3) {
    %s = ckks.rotate %acc, %i : index : !ct3
    %a = ckks.add %s, %acc : (!ct3, !ct3) -> !ct3
    %q = scf.for %j = %c0 to %c4 step %c1 iter_args(%b = %a) -> (!ct3) {
      %n = ckks.negate %b : !ct3
      scf.yield %n : !ct3
    }
    scf.yield %q : !ct3
  }
  return %r : !ct3
})");
  auto k = kinds(p);
  EXPECT_EQ(k[FheOpKind::Rotate], 3);
  EXPECT_EQ(k[FheOpKind::Add], 3);
  EXPECT_EQ(k[FheOpKind::Negate], 12);
  EXPECT_EQ(p.ops.size(), 18u);
  std::vector<int64_t> rot;
  for (const auto& op : p.ops)
    if (op.kind == FheOpKind::Rotate) rot.push_back(op.rotation);
  EXPECT_EQ(rot, (std::vector<int64_t>{2, 5, 8}));  // the induction variable's values
}

TEST(HeirSyntax, CallsAreInlined) {
  FheProgram p = load_heir_string(std::string(kPrelude) + R"(
module {
  func.func private @square(%a: !ct3) -> !ct2 {
    %m = ckks.mul %a, %a : (!ct3, !ct3) -> !ct3d
    %r = ckks.relinearize %m {from_basis = array<i32: 0, 1, 2>, to_basis = array<i32: 0, 1>} : (!ct3d) -> !ct3
    %s = ckks.rescale %r {to_ring = #ring2} : !ct3 -> !ct2
    return %s : !ct2
  }
  func.func @main(%x: !ct3, %y: !ct3) -> !ct2 {
    %0 = func.call @square(%x) : (!ct3) -> !ct2
    %1 = call @square(%y) : (!ct3) -> !ct2
    %2 = ckks.add %0, %1 : (!ct2, !ct2) -> !ct2
    return %2 : !ct2
  }
})");
  auto k = kinds(p);  // @square is called twice and is not an entry point itself
  EXPECT_EQ(k[FheOpKind::Mul], 2);
  EXPECT_EQ(k[FheOpKind::Relinearize], 2);
  EXPECT_EQ(k[FheOpKind::Rescale], 2);
  EXPECT_EQ(k[FheOpKind::Add], 1);
  EXPECT_EQ(p.ops.back().level, 2u);  // add on !ct2
  EXPECT_EQ(p.ops[1].ct_degree, 2u);  // relinearize of !ct3d
  EXPECT_EQ(p.ops[0].log_n, 12u);     // no schemeParam: N from the type ring (x**4096)
  EXPECT_EQ(p.ops[0].max_level, 3u);  // 4 chain elements
}

TEST(HeirSyntax, OpenfheLevelTrackingAndHoisting) {
  // mulDepth = 5 -> L = 5; numLargeDigits = 2 -> dnum 2, alpha = ceil(6/2) = 3.
  FheProgram p = load_heir_string(R"(
!cc = !openfhe.crypto_context
!ct = !openfhe.ciphertext
!pt = !openfhe.plaintext
module attributes {scheme.ckks} {
  func.func @setup() -> !cc {
    %params = openfhe.gen_params {mulDepth = 5 : i64, plainMod = 0 : i64, ringDim = 16384 : i64, numLargeDigits = 2 : i64} : () -> !openfhe.cc_params
    %cc = openfhe.gen_context %params {supportFHE = false} : (!openfhe.cc_params) -> !cc
    return %cc : !cc
  }
  func.func @f(%cc: !cc, %x: !ct, %p: !pt) -> !ct {
    %0 = openfhe.mul %cc, %x, %x : (!cc, !ct, !ct) -> !ct
    %1 = openfhe.mod_reduce %cc, %0 : (!cc, !ct) -> !ct
    %2 = openfhe.mul_plain %cc, %1, %p : (!cc, !ct, !pt) -> !ct
    %3 = openfhe.level_reduce_inplace %cc, %2 {levelToDrop = 2 : i64} : (!cc, !ct) -> !ct
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %h = openfhe.fast_rotation_precompute %cc, %3 : (!cc, !ct) -> !openfhe.digit_decomp
    %4 = openfhe.fast_rotation %cc, %3, %c3, %h {cyclotomicOrder = 32768 : index} : (!cc, !ct, index, !openfhe.digit_decomp) -> !ct
    %5 = openfhe.fast_rotation %cc, %3, %c5, %h {cyclotomicOrder = 32768 : index} : (!cc, !ct, index, !openfhe.digit_decomp) -> !ct
    %6 = openfhe.add %cc, %4, %5 : (!cc, !ct, !ct) -> !ct
    return %6 : !ct
  }
})");
  ASSERT_EQ(p.ops.size(), 7u);
  std::vector<FheOpKind> want = {FheOpKind::Mul,      FheOpKind::Relinearize, FheOpKind::Rescale,
                                 FheOpKind::MulPlain, FheOpKind::LevelReduce, FheOpKind::HoistedRotate,
                                 FheOpKind::Add};
  std::vector<uint32_t> levels = {5, 5, 5, 4, 4, 2, 2};  // fresh L = 5, mod_reduce -1, level_reduce -2
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(p.ops[i].kind, want[i]) << i;
    EXPECT_EQ(p.ops[i].level, levels[i]) << i;
    EXPECT_EQ(p.ops[i].log_n, 14u);
    EXPECT_EQ(p.ops[i].dnum, 2u);
    EXPECT_EQ(p.ops[i].alpha, 3u);
  }
  EXPECT_EQ(p.ops[1].ct_degree, 2u);
  EXPECT_EQ(p.ops[5].count, 2u);
  EXPECT_EQ(p.ops[5].rotation, 3);
  EXPECT_EQ(p.unsupported.size(), 2u);  // gen_params, gen_context
}

TEST(HeirSyntax, LattigoOps) {
  FheProgram p = load_heir_string(R"(
!ev = !lattigo.ckks.evaluator
!ct = !lattigo.rlwe.ciphertext
!pt = !lattigo.rlwe.plaintext
module attributes {scheme.ckks} {
  func.func @f(%ev: !ev, %x: !ct, %p: !pt) -> !ct {
    %0 = lattigo.ckks.mul_new %ev, %x, %x : (!ev, !ct, !ct) -> !ct
    %1 = lattigo.ckks.relinearize_new %ev, %0 : (!ev, !ct) -> !ct
    %2 = lattigo.ckks.rescale_new %ev, %1 : (!ev, !ct) -> !ct
    %3 = lattigo.ckks.mul_new %ev, %2, %p : (!ev, !ct, !pt) -> !ct
    %4 = lattigo.ckks.rotate_new %ev, %3 {offset = 7 : i64} : (!ev, !ct) -> !ct
    %5 = lattigo.ckks.add_new %ev, %4, %x : (!ev, !ct, !ct) -> !ct
    return %5 : !ct
  }
})");
  std::vector<FheOpKind> want = {FheOpKind::Mul,      FheOpKind::Relinearize, FheOpKind::Rescale,
                                 FheOpKind::MulPlain, FheOpKind::Rotate,      FheOpKind::Add};
  ASSERT_EQ(p.ops.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(p.ops[i].kind, want[i]) << i;
  EXPECT_EQ(p.ops[4].rotation, 7);
  EXPECT_EQ(p.scheme, "ckks");
}

TEST(HeirSyntax, OrionChebyshevClosedForm) {
  // Degree 7 (8 coefficients): m = ceil(log2 8) = 3, l = 1: baby 2^1 - 1 = 1, giant
  // m - l - 1 = 1, recombination ceil(8 / 2) - 1 = 3 -> 5 products; 8 MulScalar, 7 Add.
  PolyEvalPlan plan = plan_chebyshev(7);
  EXPECT_EQ(plan.products, 5u);
  FheProgram p = load_heir_string(std::string(kPrelude) + R"(
func.func @f(%x: !ct3) -> !ct3 {
  %y = orion.chebyshev %x {coefficients = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], domain_start = -1.0 : f64, domain_end = 1.0 : f64} : (!ct3) -> !ct3
  return %y : !ct3
})");
  auto k = kinds(p);
  EXPECT_EQ(k[FheOpKind::Mul], 5);
  EXPECT_EQ(k[FheOpKind::Relinearize], 5);
  EXPECT_EQ(k[FheOpKind::Rescale], 5);
  EXPECT_EQ(k[FheOpKind::MulScalar], 8);
  EXPECT_EQ(k[FheOpKind::Add], 7);
}

TEST(HeirSyntax, LinearTransformPlan) {
  // 8 diagonals 0..7, slots 64, ratio 1: n1 = 2 -> 1 baby / 3 giant; n1 = 4 -> 3 / 1 = 3 > 1
  // -> n1 = 2: baby {1}, giant {2, 4, 6}.
  LinearTransformPlan p = plan_linear_transform({0, 1, 2, 3, 4, 5, 6, 7}, 64, 1.0);
  EXPECT_EQ(p.n1, 2u);
  EXPECT_EQ(p.baby_rotations, 1u);
  EXPECT_EQ(p.giant_offsets, (std::vector<int64_t>{2, 4, 6}));
  EXPECT_EQ(p.mul_plain, 8u);
  EXPECT_EQ(p.adds, 7u);
  // Ratio 3 is met exactly at n1 = 4 (3 baby / 1 giant).
  EXPECT_EQ(plan_linear_transform({0, 1, 2, 3, 4, 5, 6, 7}, 64, 3.0).n1, 4u);
  // Negative offsets wrap mod slots: -1 == 63 -> giant 60 (n1 = 4 for ratio 3), baby 3.
  LinearTransformPlan w = plan_linear_transform({0, 1, 2, 3, 4, 5, 6, 7, -1}, 64, 3.0);
  EXPECT_EQ(w.giant_offsets.back(), 60);
  EXPECT_THROW(plan_linear_transform({}, 64, 1.0), Error);
  EXPECT_THROW(plan_linear_transform({1}, 48, 1.0), Error);
}

TEST(HeirSyntax, ElementwiseOpsOnTensorsOfCiphertextsRepeat) {
  // ckks ops are ElementwiseMappable: an add of two tensor<2x3x!ct3> is 6 ciphertext adds.
  FheProgram p = load_heir_string(std::string(kPrelude) + R"(
func.func @f(%x: tensor<2x3x!ct3>, %y: tensor<2x3x!ct3>) -> tensor<2x3x!ct3> {
  %z = ckks.add %x, %y : (tensor<2x3x!ct3>, tensor<2x3x!ct3>) -> tensor<2x3x!ct3>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %z[%c0, %c0] : tensor<2x3x!ct3>
  %n = ckks.negate %e : !ct3
  return %z : tensor<2x3x!ct3>
})");
  auto k = kinds(p);
  EXPECT_EQ(k[FheOpKind::Add], 6);
  EXPECT_EQ(k[FheOpKind::Negate], 1);
  EXPECT_EQ(p.ops[0].level, 3u);
}

TEST(HeirSyntax, DebugLocationsAreSkipped) {
  FheProgram p = load_heir_string(std::string(kPrelude) + R"(
func.func @f(%x: !ct3 loc(#loc1)) -> (!ct3 loc(#loc2)) {
  %y = ckks.negate %x : !ct3 loc(#loc1)
  return %y : !ct3 loc(#loc2)
} loc(#loc)
#loc = loc("a.mlir":1:1)
#loc1 = loc("a.mlir":2:3)
#loc2 = loc(fused[#loc, #loc1])
)");
  ASSERT_EQ(p.ops.size(), 1u);
  EXPECT_EQ(p.ops[0].kind, FheOpKind::Negate);
}

// ------------------------------------------------------------------------------ errors

TEST(HeirErrors, UnknownOpNamesOpAndLocation) {
  std::string e = error_of(std::string(kPrelude) + R"(
func.func @f(%x: !ct3) -> !ct3 {
  %y = ckks.frobnicate %x : !ct3
  return %y : !ct3
})");
  EXPECT_NE(e.find("t.mlir:13:8: unknown operation 'ckks.frobnicate'"), std::string::npos) << e;
  std::string e2 = error_of(std::string(kPrelude) + R"(
func.func @f(%x: !ct3) -> !ct3 {
  %y = mystery.op %x : !ct3
  return %y : !ct3
})");
  EXPECT_NE(e2.find("t.mlir:13:8: unknown dialect 'mystery' (operation 'mystery.op')"), std::string::npos)
      << e2;
}

TEST(HeirErrors, MissingAliasIsNamed) {
  std::string e = error_of(R"(
!ct = !lwe.lwe_ciphertext<ciphertext_space = #missing_space, key = #lwe.key<>>
func.func @f(%x: !ct) -> !ct {
  return %x : !ct
})");
  EXPECT_NE(e.find("t.mlir:2:46: undefined alias '#missing_space'"), std::string::npos) << e;
  std::string e2 = error_of("func.func @f(%x: !nope) {\n}\n");
  EXPECT_NE(e2.find("t.mlir:1:18: undefined alias '!nope'"), std::string::npos) << e2;
}

TEST(HeirErrors, NonConstantLoopBoundNamesTheLoop) {
  std::string e = error_of(std::string(kPrelude) + R"(
func.func @f(%x: !ct3, %n: index) -> !ct3 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %iv = %c0 to %n step %c1 iter_args(%a = %x) -> (!ct3) {
    %b = ckks.negate %a : !ct3
    scf.yield %b : !ct3
  }
  return %r : !ct3
})");
  EXPECT_NE(e.find("t.mlir:15:8: loop 'scf.for %iv': upper bound %n is not a constant"), std::string::npos)
      << e;
}

TEST(HeirErrors, TruncatedFile) {
  std::string e = error_of(std::string(kPrelude) + R"(
func.func @f(%x: !ct3) -> !ct3 {
  %y = ckks.negate %x : !ct3
)");
  EXPECT_NE(e.find("expected '}' closing the region of func.func @f opened at 12:32, got end of file"),
            std::string::npos)
      << e;
  std::string e2 = error_of("#r = #polynomial.ring<coefficientType = !rns.rns<");
  EXPECT_NE(e2.find("t.mlir:1:50: expected a value, got end of file"), std::string::npos) << e2;
  std::string e3 = error_of(std::string(kPrelude) +
                            "func.func @f(%x: !ct3) -> !ct3 {\n  %y = ckks.rotate %x {static_shift = 4");
  EXPECT_NE(e3.find("expected '}' to close '{' at 12:23, got end of file"), std::string::npos) << e3;
}

TEST(HeirErrors, GarbageInput) {
  struct Case {
    const char* text;
    const char* msg;
  };
  for (const Case& c :
       {Case{"hello world", "t.mlir:1:1: expected an alias definition, 'module' or 'func.func', got 'hello'"},
        Case{"module { func.func @f() { %x = } }", "t.mlir:1:32: expected an operation name, got '}'"},
        Case{"\x01\x02", "t.mlir:1:1: unexpected character"},
        Case{"module { func.func @f() { %x = foo.bar ) } }", "t.mlir:1:40: unbalanced ')'"},
        Case{"!a = !b.c<(]>", "t.mlir:1:12: expected a value, got ']'"},
        Case{"!a = !x.y<\"open", "t.mlir:1:11: unterminated string literal"},
        Case{"", "t.mlir:1:1: no module found"}}) {
    std::string e = error_of(c.text);
    EXPECT_NE(e.find(c.msg), std::string::npos) << "input: " << c.text << "\nerror: " << e;
  }
  // Deep nesting is an error, not a stack overflow.
  std::string deep = "!a = !x.y" + std::string(100000, '<');
  EXPECT_NE(error_of(deep).find("nesting deeper than"), std::string::npos);
}

TEST(HeirErrors, MutatedRealFilesNeverCrash) {
  // Every prefix cut (truncation) and random byte mutations of a real file either load or
  // throw photon::Error; any other exception or a crash fails the test.
  std::ifstream in(std::string(PHOTON_SHARED_DIR) + "/inputs/heir/orion_mlp_ckks.mlir");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  ASSERT_GT(text.size(), 1000u);
  std::mt19937 rng(12345);
  int errors = 0, loaded = 0;
  auto attempt = [&](const std::string& t) {
    try {
      load_heir_string(t, "m.mlir");
      ++loaded;
    } catch (const Error& e) {
      ++errors;
      const std::string m = e.what();
      for (unsigned char c : m) ASSERT_TRUE(c >= 0x20 && c < 0x7f) << "non-printable byte in: " << m;
    }
  };
  for (size_t cut = 0; cut < text.size(); cut += 97) attempt(text.substr(0, cut));
  const std::string alphabet = "<>{}()[],:=%!#@\"x0 \n";
  for (int i = 0; i < 300; ++i) {
    std::string t = text;
    for (int k = 0; k < 3; ++k) t[rng() % t.size()] = alphabet[rng() % alphabet.size()];
    attempt(t);
  }
  EXPECT_GT(errors, 50);  // most truncations are errors
  EXPECT_GT(loaded, 0);   // harmless mutations (e.g. in a prime's digits) load
  // Arbitrary bytes (control characters, NUL, bytes >= 0x80): every message stays one printable line.
  const int before = errors;
  for (int i = 0; i < 100; ++i) {
    std::string t = text;
    t[rng() % t.size()] = char(rng() % 256);
    attempt(t);
  }
  EXPECT_GT(errors, before);
}

}  // namespace
}  // namespace photon::heir
