// The MLIR lexer and parser against the MLIR language reference (mlir.llvm.org/docs/LangRef) on
// minimal programs written for these tests: the identifier alphabet (HEIR emits `%c-23`), string
// literals and their escapes, dialect resource blobs with their alignment prefix and
// dense_resource constants, and regions whose body is empty (implicit terminator).
#include <gtest/gtest.h>

#include "base/error.h"
#include "workloads/heir/heir_frontend.h"
#include "workloads/heir/mlir_parser.h"

namespace photon::heir {
namespace {

using fhe::FheOpKind;
using fhe::FheProgram;

// N = 2^12, 2 primes; !ct is a level-1 ciphertext.
const char* kPrelude = R"(!Z = !mod_arith.int<17 : i64>
#ring = #polynomial.ring<coefficientType = !rns.rns<!Z, !Z>, polynomialModulus = <1 + x**4096>>
#chain = #lwe.modulus_chain<elements = <17 : i64, 97 : i64>, current = 1>
!ct = !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = #ring, encryption_type = mix>, modulus_chain = #chain>
)";

std::string error_of(const std::string& text) {
  try {
    load_heir_string(text, "t.mlir");
  } catch (const Error& e) { return e.what(); }
  return "";
}

std::vector<int64_t> rotations(const FheProgram& p) {
  std::vector<int64_t> r;
  for (const auto& op : p.ops)
    if (op.kind == FheOpKind::Rotate) r.push_back(op.rotation);
  return r;
}

TEST(MlirLangRef, SuffixIdsUseTheFullAlphabet) {
  // suffix-id ::= digit+ | (letter|id-punct)(letter|id-punct|digit)*, id-punct ::= [$._-]
  const FheProgram p = load_heir_string(std::string(kPrelude) + R"(
func.func @f(%x: !ct) -> !ct {
  %c-23 = arith.constant 3 : i64
  %-c = arith.constant 5 : i64
  %a.b$c_1 = ckks.rotate %x, %c-23 : (!ct, i64) -> !ct
  %0 = ckks.rotate %a.b$c_1, %-c : (!ct, i64) -> !ct
  ^bb-1:
  return %0 : !ct
})");
  EXPECT_EQ(rotations(p), (std::vector<int64_t>{3, 5}));
  // A digit-led suffix-id is digits only: `%1x` is `%1` then `x`.
  const auto t = mlir::lex("%1x %c-2 %a-b", "t.mlir");
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[0].text, "%1");
  EXPECT_EQ(t[1].text, "x");
  EXPECT_EQ(t[2].text, "%c-2");
  EXPECT_EQ(t[3].text, "%a-b");
  EXPECT_EQ(error_of("%"), "t.mlir:1:1: expected a name after '%', got end of file");
  EXPECT_EQ(error_of("@9"), "t.mlir:1:1: expected a letter, '_' or a string literal after '@', got '9'");
}

TEST(MlirLangRef, StringEscapes) {
  // \" \\ \n \t and \XX (two hex digits) as MLIR's Token::getStringValue decodes them.
  const auto t = mlir::lex(R"("a\41\42\n\t\"\\\ff\0A")", "t.mlir");
  ASSERT_EQ(t[0].kind, mlir::TokKind::String);
  EXPECT_EQ(t[0].text, std::string("aAB\n\t\"\\\xff\n"));
  EXPECT_EQ(mlir::lex(R"(@"a\20b")", "t.mlir")[0].text, "@\"a b\"");
  EXPECT_EQ(error_of(R"(module attributes {s = "a\qb"} {})"),
            R"(t.mlir:1:26: unknown escape '\q' in string literal (MLIR knows \", \\, \n, \t and \XX))");
  EXPECT_EQ(error_of("module attributes {s = \"a\\4\"} {}"),
            R"(t.mlir:1:26: unknown escape '\4' in string literal (MLIR knows \", \\, \n, \t and \XX))");
  EXPECT_EQ(error_of("module attributes {s = \"a\vb\"} {}"), "t.mlir:1:24: unterminated string literal");
}

TEST(MlirLangRef, DialectResourceBlobsAndDenseResourceConstants) {
  // Blob: alignment 8 (08000000, little-endian), then the i64 value 7 (0700000000000000).
  const std::string text = std::string(kPrelude) + R"(
func.func @f(%x: !ct) -> !ct {
  %c = arith.constant dense_resource<shift> : tensor<1xi64>
  %w = arith.constant dense_resource<weights> : tensor<2x2xf32>
  %r = ckks.rotate %x, %c : (!ct, tensor<1xi64>) -> !ct
  return %r : !ct
}
{-#
  dialect_resources: {
    builtin: {
      shift: "0x080000000700000000000000",
      weights: "0x040000000000803F000000400000404000008040"
    }
  },
  external_resources: {
    mlir_reproducer: {pipeline: "canonicalize", disable_threading: true}
  }
#-}
)";
  const mlir::Module m = mlir::parse_mlir(text, "t.mlir");
  const mlir::Resource& shift = m.resources.at("builtin").at("shift");
  EXPECT_EQ(shift.alignment, 8u);
  EXPECT_EQ(shift.data, (std::vector<uint8_t>{7, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(m.resources.at("builtin").at("weights").data.size(), 16u);  // 4 x f32
  ASSERT_EQ(m.dense_resources.size(), 2u);
  EXPECT_EQ(m.dense_resources[0].key, "shift");
  EXPECT_EQ(m.dense_resources[1].type->str(), "tensor<2x2xf32>");
  EXPECT_EQ(rotations(load_heir_string(text, "t.mlir")), (std::vector<int64_t>{7}));

  // A dense_resource with no blob is a declared handle, as in MLIR: accepted.
  EXPECT_EQ(error_of(std::string(kPrelude) + R"(
func.func @f(%x: !ct) -> !ct {
  %w = arith.constant dense_resource<elided> : tensor<4xf32>
  %n = ckks.negate %x : !ct
  return %n : !ct
})"),
            "");

  auto with_blob = [&](const std::string& type, const std::string& blob) {
    return error_of(std::string(kPrelude) +
                    "func.func @f(%x: !ct) -> !ct {\n  %w = arith.constant dense_resource<b> : " + type +
                    "\n  return %x : !ct\n}\n{-# dialect_resources: { builtin: { b: " + blob + " } } #-}\n");
  };
  EXPECT_EQ(
      with_blob("tensor<3xi64>", "\"0x0800000001000000000000000200000000000000\""),
      "t.mlir:6:23: dense_resource<b>: tensor<3xi64> needs 24 bytes, resource 'b' at t.mlir:9:37 holds 16");
  EXPECT_EQ(with_blob("tensor<1xi8>", "\"0x0300000001\""),
            "t.mlir:9:40: resource 'b': alignment 3 is not a power of two");
  EXPECT_EQ(with_blob("tensor<1xi8>", "\"0x080000\""),
            "t.mlir:9:40: resource 'b': the blob needs its 4-byte alignment first, has 3 bytes");
  EXPECT_EQ(with_blob("tensor<1xi8>", "\"0x0800000001F\""),
            "t.mlir:9:40: resource 'b': odd number of hex digits in the blob");
  EXPECT_EQ(with_blob("tensor<1xi8>", "\"0x08000000zz\""),
            "t.mlir:9:40: resource 'b': 'z' is not a hex digit");
  EXPECT_EQ(with_blob("tensor<1xi8>", "true"),
            "t.mlir:9:40: resource 'b': expected a hex string blob \"0x...\", got 'true'");
  EXPECT_EQ(with_blob("tensor<4611686018427387904x4xi64>", "\"0x08000000\""),
            "t.mlir:6:23: dense_resource<b> : tensor<4611686018427387904x4xi64>: size overflow: "
            "4611686018427387904 * 4 "
            "is above 2^62");
  EXPECT_EQ(error_of("{-# dialect_resources: { builtin: { b: \"0x08000000\", b: \"0x08000000\" } } #-}"),
            "t.mlir:1:54: resource 'b' of dialect 'builtin' is defined twice");
  EXPECT_EQ(error_of("{-# flags: {} #-}"),
            "t.mlir:1:5: unknown key 'flags' in the file metadata (expected dialect_resources or "
            "external_resources)");
  EXPECT_EQ(error_of("{-# dialect_resources: { builtin: {"),
            "t.mlir:1:36: expected a resource key in the file metadata, got end of file");
}

TEST(MlirLangRef, EmptyRegionsHaveAnImplicitTerminator) {
  // `scf.for ... {}` and a body of only a newline: one region whose block is empty.
  const std::string text = std::string(kPrelude) + R"(
func.func @f(%x: !ct) -> !ct {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {}
  scf.for %j = %c0 to %c4 step %c1 {
  }
  %y = "ckks.negate"(%x) {} : (!ct) -> !ct
  return %y : !ct
})";
  const mlir::Module m = mlir::parse_mlir(text, "t.mlir");
  const mlir::Region& body = m.funcs.at(0).body;
  ASSERT_EQ(body.size(), 7u);
  for (int k : {3, 4}) {
    EXPECT_EQ(body[k].name, "scf.for");
    ASSERT_EQ(body[k].regions.size(), 1u) << k;
    EXPECT_TRUE(body[k].regions[0].empty()) << k;
  }
  EXPECT_TRUE(body[5].regions.empty());  // `{} :` is an (empty) attribute dictionary
  const FheProgram p = load_heir_string(text, "t.mlir");
  ASSERT_EQ(p.ops.size(), 1u);
  EXPECT_EQ(p.ops[0].kind, FheOpKind::Negate);
}

}  // namespace
}  // namespace photon::heir
