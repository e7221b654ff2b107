// Parameter derivation (N, level, max_level, alpha, dnum, ciphertext degree) on the six HEIR
// files, against values read off each file by hand (the comment above each check says where).
#include <gtest/gtest.h>

#include "base/error.h"
#include "workloads/heir/heir_frontend.h"

namespace photon::heir {
namespace {

using fhe::FheOp;
using fhe::FheOpKind;
using fhe::FheProgram;

std::string path_of(const std::string& name) {
  return std::string(PHOTON_SHARED_DIR) + "/inputs/heir/" + name;
}

const FheOp& first(const FheProgram& p, FheOpKind k, size_t nth = 0) {
  for (const auto& op : p.ops)
    if (op.kind == k && nth-- == 0) return op;
  throw std::runtime_error("op kind not found");
}

void expect_all(const FheProgram& p, uint32_t log_n, uint32_t max_level, uint32_t alpha, uint32_t dnum) {
  for (const auto& op : p.ops) {
    EXPECT_EQ(op.log_n, log_n) << op.name << " " << op.location;
    EXPECT_EQ(op.max_level, max_level) << op.location;
    EXPECT_EQ(op.alpha, alpha) << op.location;
    EXPECT_EQ(op.dnum, dnum) << op.location;
    EXPECT_LE(op.level, op.max_level) << op.location;
  }
}

bool mentions(const std::vector<std::string>& v, const std::string& s) {
  for (const auto& x : v)
    if (x.find(s) != std::string::npos) return true;
  return false;
}

TEST(HeirParams, Dacapo) {
  FheProgram p = load_heir(path_of("dacapo_mlp_ckks.mlir"));
  EXPECT_EQ(p.scheme, "ckks");  // `scheme.ckks` module attribute
  // ckks.schemeParam<logN = 17, Q = [14 primes], P = [1 prime]> -> L = 13, alpha = 1,
  // dnum = ceil(14 / 1) = 14.
  expect_all(p, 17, 13, 1, 14);
  // line 56: ckks.level_reduce %ct : !ct_L13 (modulus_chain_L13_C13, current = 13)
  EXPECT_EQ(first(p, FheOpKind::LevelReduce).level, 13u);
  // line 57: ckks.rotate on !ct_L3 (modulus_chain_L13_C3, current = 3)
  EXPECT_EQ(first(p, FheOpKind::Rotate).level, 3u);
  EXPECT_EQ(first(p, FheOpKind::Rotate, 1).rotation, 1);  // line 61: static_shift = 1
  // line 566: ckks.bootstrap %ct_507 : !ct_L2 (current = 2)
  EXPECT_EQ(first(p, FheOpKind::Bootstrap).level, 2u);
  // line 572: relinearize of !ct_L3_D3 (ciphertext_space size = 3 -> degree 2), level 3
  EXPECT_EQ(first(p, FheOpKind::Relinearize).ct_degree, 2u);
  EXPECT_EQ(first(p, FheOpKind::Relinearize).level, 3u);
  // line 565: first ckks.rescale, of !ct_L3_2 (modulus_chain_L13_C3) -> level 3;
  // line 578: third one, of !ct_L2_1 (modulus_chain_L2_C2) -> level 2
  EXPECT_EQ(first(p, FheOpKind::Rescale, 0).level, 3u);
  EXPECT_EQ(first(p, FheOpKind::Rescale, 2).level, 2u);
  // Encode (line 59) is used by mul_plain on !ct_L3 -> level 3
  EXPECT_EQ(first(p, FheOpKind::Encode).level, 3u);
  EXPECT_EQ(first(p, FheOpKind::Rotate).location, path_of("dacapo_mlp_ckks.mlir") + ":57:13");
  EXPECT_TRUE(mentions(p.derived, "dnum = 14"));
}

TEST(HeirParams, Orion) {
  FheProgram p = load_heir(path_of("orion_mlp_ckks.mlir"));
  // ckks.schemeParam<logN = 13, Q = [6 primes], P = [2 primes]> -> L = 5, alpha = 2,
  // dnum = ceil(6 / 2) = 3.
  expect_all(p, 13, 5, 2, 3);
  // First linear transform on !ct_L5 (modulus_chain_L5_C5), second on !ct_L4, third on !ct_L3.
  EXPECT_EQ(first(p, FheOpKind::HoistedRotate, 0).level, 5u);
  EXPECT_EQ(first(p, FheOpKind::HoistedRotate, 1).level, 4u);
  EXPECT_EQ(first(p, FheOpKind::HoistedRotate, 2).level, 3u);
  // ckks.mul on !ct_L5 -> relinearize of !ct_L5_D3 (size 3)
  EXPECT_EQ(first(p, FheOpKind::Mul).ct_degree, 1u);
  EXPECT_EQ(first(p, FheOpKind::Relinearize).ct_degree, 2u);
  // The giant-step rotations of the first transform: 8, 16, ..., 120 (n1 = 8).
  for (int g = 1; g <= 15; ++g) EXPECT_EQ(first(p, FheOpKind::Rotate, g - 1).rotation, 8 * g);
  // ckks.rotate %ct_0 {static_shift = 2048} right after the first transform
  EXPECT_EQ(first(p, FheOpKind::Rotate, 15).rotation, 2048);
  // Third transform (D = 137, n1 = 16), after 15 + 5 + 15 + 5 rotations: the last giant offset is
  // floor(4087 / 16) * 16 = 4080.
  EXPECT_EQ(first(p, FheOpKind::Rotate, 15 + 5 + 15 + 5 + 7).rotation, 4080);
}

TEST(HeirParams, SchemeZoosWithoutSchemeParam) {
  for (const char* f : {"bgv_to_openfhe_zoo.mlir", "ckks_to_openfhe_zoo.mlir", "simfhe_op_zoo_ckks.mlir"}) {
    SCOPED_TRACE(f);
    FheProgram p = load_heir(path_of(f));
    // No schemeParam: N = 1024 from `1 + x**1024` (log_n 10); modulus_chain_L5 has 6
    // elements -> L = 5; OpenFHE default digits for multDepth 5 (> 3) -> dnum = 3;
    // alpha = ceil(6 / 3) = 2.
    expect_all(p, 10, 5, 2, 3);
    // !ct uses modulus_chain_L5_C1 (current = 1)
    EXPECT_EQ(first(p, FheOpKind::Add).level, 1u);
    EXPECT_TRUE(mentions(p.derived, "ComputeNumLargeDigits"));
  }
  // bgv: rotate_cols %x { static_shift = 4 } ; dynamic rotate_cols %x, %c4 with %c4 = 4
  FheProgram b = load_heir(path_of("bgv_to_openfhe_zoo.mlir"));
  EXPECT_EQ(b.scheme, "bgv");
  EXPECT_EQ(first(b, FheOpKind::Rotate, 0).rotation, 4);
  EXPECT_EQ(first(b, FheOpKind::Rotate, 1).rotation, 4);
  // test_relin: relinearize of !ct_D4 (ciphertext_space size = 4 -> degree 3)
  EXPECT_EQ(first(b, FheOpKind::Relinearize).ct_degree, 3u);
  // test_modswitch: modulus_switch of !ct (current = 1)
  EXPECT_EQ(first(b, FheOpKind::Rescale).level, 1u);
  FheProgram s = load_heir(path_of("simfhe_op_zoo_ckks.mlir"));
  // relinearize of !ct_D3 (size 3 -> degree 2)
  EXPECT_EQ(first(s, FheOpKind::Relinearize).ct_degree, 2u);
  EXPECT_EQ(s.scheme, "ckks");
}

TEST(HeirParams, OpenfheRotations) {
  FheProgram p = load_heir(path_of("openfhe_rotations.mlir"));
  // openfhe.gen_params {mulDepth = 0} -> L = 0; OpenFHE default digits for depth 0 -> dnum = 1,
  // alpha = 1. No ring in any type: #layout has `0 <= slot <= 1023` -> 1024 slots -> N = 2048.
  expect_all(p, 11, 0, 1, 1);
  EXPECT_EQ(first(p, FheOpKind::Rotate).level, 0u);
  EXPECT_TRUE(mentions(p.derived, "slots = 1024"));
}

TEST(HeirParams, InconsistentNIsAWarning) {
  const char* text = R"(
#ring8 = #polynomial.ring<coefficientType = !rns.rns<!mod_arith.int<17 : i64>>, polynomialModulus = <1 + x**8192>>
!ct = !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = #ring8, encryption_type = mix>, modulus_chain = #lwe.modulus_chain<elements = <17 : i64, 97 : i64>, current = 0>>
module attributes {ckks.schemeParam = #ckks.scheme_param<logN = 14, Q = [17, 97], P = [193], logDefaultScale = 45>} {
  func.func @f(%x: !ct) -> !ct {
    %y = ckks.add %x, %x : (!ct, !ct) -> !ct
    return %y : !ct
  }
})";
  FheProgram p = load_heir_string(text, "n.mlir");
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("N = 2^13"), std::string::npos) << p.warnings[0];
  EXPECT_NE(p.warnings[0].find("logN = 14"), std::string::npos) << p.warnings[0];
  // Located at the definition of !ct (line 3: the text starts with a newline).
  EXPECT_EQ(
      p.warnings[0].rfind("n.mlir:3:1: N = 2^13 in type !ct disagrees with ckks.schemeParam logN = 14", 0),
      0u)
      << p.warnings[0];
  ASSERT_EQ(p.ops.size(), 1u);
  EXPECT_EQ(p.ops[0].log_n, 14u);  // the module attribute wins
  EXPECT_EQ(p.ops[0].max_level, 1u);
  EXPECT_EQ(p.ops[0].dnum, 2u);  // ceil(2 / 1)
}

TEST(HeirParams, LevelAboveSchemeParamIsClampedWithWarning) {
  // schemeParam has 2 Q primes (L = 1) but the type's chain says current = 3.
  const char* text = R"(
!ct = !lwe.lwe_ciphertext<modulus_chain = #lwe.modulus_chain<elements = <17 : i64, 97 : i64, 113 : i64, 193 : i64>, current = 3>>
module attributes {bgv.schemeParam = #bgv.scheme_param<logN = 12, Q = [17, 97], P = [193, 257], plaintextModulus = 65537>} {
  func.func @f(%x: !ct) -> !ct {
    %y = bgv.negate %x : !ct
    return %y : !ct
  }
})";
  FheProgram p = load_heir_string(text, "c.mlir");
  EXPECT_EQ(p.scheme, "bgv");  // from bgv.schemeParam
  ASSERT_EQ(p.ops.size(), 1u);
  EXPECT_EQ(p.ops[0].level, 1u);
  EXPECT_EQ(p.ops[0].alpha, 2u);  // |P| = 2
  EXPECT_EQ(p.ops[0].dnum, 1u);   // ceil(2 / 2)
  EXPECT_EQ(p.ops[0].log_n, 12u);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("c.mlir:5:10: level 3 of 'bgv.negate' above max_level 1"), std::string::npos)
      << p.warnings[0];
}

TEST(HeirParams, BadLogNIsAnError) {
  const char* text =
      "module attributes {ckks.schemeParam = #ckks.scheme_param<logN = 99, Q = [17], P = [97]>} "
      "{\n}\n";
  try {
    load_heir_string(text, "b.mlir");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("b.mlir:1:1: ckks.schemeParam: logN = 99 out of range"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace photon::heir

namespace photon::heir {
namespace {

TEST(HeirParams, InconsistentNWithoutSchemeParamNamesTheOpUsingTheType) {
  // !ct has N = 2^13; the op on line 6 spells an inline type with N = 2^12.
  const char* text = R"(
#ring8 = #polynomial.ring<coefficientType = !rns.rns<!mod_arith.int<17 : i64>>, polynomialModulus = <1 + x**8192>>
!ct = !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = #ring8, encryption_type = mix>, modulus_chain = #lwe.modulus_chain<elements = <17 : i64, 97 : i64>, current = 0>>
module {
  func.func @f(%x: !ct) -> !ct {
    %y = ckks.negate %x : !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = #polynomial.ring<coefficientType = !rns.rns<!mod_arith.int<17 : i64>>, polynomialModulus = <1 + x**4096>>, encryption_type = mix>, modulus_chain = #lwe.modulus_chain<elements = <17 : i64, 97 : i64>, current = 0>>
    return %x : !ct
  }
})";
  FheProgram p = load_heir_string(text, "m.mlir");
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_EQ(
      p.warnings[0].rfind("m.mlir:6:10: N = 2^12 in type m.mlir:6:10 disagrees with N = 2^13 in !ct", 0), 0u)
      << p.warnings[0];
}

}  // namespace
}  // namespace photon::heir
