// Input checks of the HEIR frontend: unsupported rings, undefined SSA values, files without a
// module or without FHE operations, and the file named once in an error. Each error is one
// photon::Error "file:line:col: message"; the expected line:col is found by searching the input
// text for the offending token (independent of the lexer).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <limits>

#include "base/error.h"
#include "workloads/heir/heir_frontend.h"
#include "workloads/heir/mlir_parser.h"

namespace photon::heir {
namespace {

using fhe::FheOp;
using fhe::FheOpKind;
using fhe::FheProgram;

// "t.mlir:L:C" of the first occurrence of `needle` in `text` (1-based line and column).
std::string where(const std::string& text, const std::string& needle, const std::string& file = "t.mlir") {
  size_t at = text.find(needle);
  if (at == std::string::npos) return "<" + needle + " not in the input>";
  size_t line = 1, col = 1;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

std::string error_of(const std::string& text) {
  try {
    load_heir_string(text, "t.mlir");
  } catch (const Error& e) { return e.what(); }
  return "<no error>";
}

// A CKKS program on ring `poly` (the polynomialModulus text); the body negates %x.
std::string ring_program(const std::string& poly,
                         const std::string& body = "    %y = ckks.negate %x : !ct\n") {
  return "!Z = !mod_arith.int<17 : i64>\n"
         "#ring_x = #polynomial.ring<coefficientType = !rns.rns<!Z, !Z>, polynomialModulus = " +
         poly +
         ">\n"
         "!ct = !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = #ring_x, "
         "encryption_type = mix>, modulus_chain = #lwe.modulus_chain<elements = <17 : i64, 97 : "
         "i64>, current = 1>>\n"
         "module {\n"
         "  func.func @f(%x: !ct) -> !ct {\n" +
         body +
         "    return %y : !ct\n"
         "  }\n"
         "}\n";
}

// ------------------------------------------------------------------------------------- rings

TEST(HeirInputChecks, RingDegreeNotPowerOfTwoIsAnError) {
  std::string text = ring_program("<1 + x**1000>");
  std::string e = error_of(text);
  EXPECT_EQ(e, where(text, "#polynomial.ring") +
                   ": ring #ring_x (polynomialModulus = <1 + x**1000>): N = 1000 is not a power "
                   "of two (the NTT needs N = 2^k)");
}

TEST(HeirInputChecks, RingDegreeOutsideHardwareRangeIsAnError) {
  std::string big = ring_program("<1 + x**262144>");  // 2^18
  EXPECT_EQ(error_of(big), where(big, "#polynomial.ring") +
                               ": ring #ring_x (polynomialModulus = <1 + x**262144>): N = 2^18 "
                               "outside the supported ring degrees 2^10 .. 2^17");
  std::string small = ring_program("<1 + x**512>");  // 2^9
  EXPECT_NE(error_of(small).find(where(small, "#polynomial.ring") +
                                 ": ring #ring_x (polynomialModulus = <1 + x**512>): N = 2^9 "
                                 "outside the supported ring degrees 2^10 .. 2^17"),
            std::string::npos)
      << error_of(small);
  // The two ends of the range load, in both spellings of x**N + 1.
  FheProgram lo = load_heir_string(ring_program("<x**1024 + 1>"), "t.mlir");
  ASSERT_EQ(lo.ops.size(), 1u);
  EXPECT_EQ(lo.ops[0].log_n, 10u);
  FheProgram hi = load_heir_string(ring_program("<1 + x**131072>"), "t.mlir");
  ASSERT_EQ(hi.ops.size(), 1u);
  EXPECT_EQ(hi.ops[0].log_n, 17u);
}

TEST(HeirInputChecks, RingThatIsNotNegacyclicIsAnError) {
  std::string text = ring_program("<x**1024 - 1>");
  EXPECT_EQ(error_of(text), where(text, "#polynomial.ring") +
                                ": ring #ring_x (polynomialModulus = <x**1024 - 1>): the "
                                "polynomial modulus is not x**N + 1 (the negacyclic ring of RLWE "
                                "schemes)");
}

TEST(HeirInputChecks, InlineRingIsNamedByItsLocation) {
  const std::string text =
      "!ct = !lwe.lwe_ciphertext<ciphertext_space = #lwe.ciphertext_space<ring = "
      "#polynomial.ring<coefficientType = i64, polynomialModulus = <1 + x**3000>>, "
      "encryption_type = mix>>\n"
      "func.func @f(%x: !ct) -> !ct {\n"
      "  %y = ckks.negate %x : !ct\n"
      "  return %y : !ct\n"
      "}\n";
  EXPECT_EQ(error_of(text), where(text, "#polynomial.ring") +
                                ": ring #polynomial.ring (polynomialModulus = <1 + x**3000>): N = "
                                "3000 is not a power of two (the NTT needs N = 2^k)");
}

TEST(HeirInputChecks, SchemeParamAndGenParamsRingDegreesAreChecked) {
  std::string sp =
      "module attributes {ckks.schemeParam = #ckks.scheme_param<logN = 18, Q = [17], P = [97]>} "
      "{\n"
      "  func.func @f(%x: !openfhe.ciphertext) -> !openfhe.ciphertext {\n"
      "    return %x : !openfhe.ciphertext\n"
      "  }\n"
      "}\n";
  EXPECT_EQ(error_of(sp),
            "t.mlir:1:1: ckks.schemeParam: logN = 18 out of range [10, 17] "
            "(supported ring degrees)");
  std::string gp =
      "module {\n"
      "  func.func @setup() -> !openfhe.crypto_context {\n"
      "    %p = openfhe.gen_params {mulDepth = 2 : i64, ringDim = 1000 : i64} : () -> "
      "!openfhe.cc_params\n"
      "    %cc = openfhe.gen_context %p : (!openfhe.cc_params) -> !openfhe.crypto_context\n"
      "    return %cc : !openfhe.crypto_context\n"
      "  }\n"
      "}\n";
  EXPECT_EQ(error_of(gp), where(gp, "openfhe.gen_params") +
                              ": ringDim = 1000 is not a power of two in [2^10, 2^17] "
                              "(supported ring degrees)");
}

// ---------------------------------------------------------------------------- SSA values

TEST(HeirInputChecks, UndefinedValueIsAnError) {
  std::string text = ring_program("<1 + x**1024>", "    %y = ckks.negate %undefined_val : !ct\n");
  EXPECT_EQ(error_of(text), where(text, "ckks.negate") +
                                ": use of undefined value '%undefined_val' (operand of "
                                "'ckks.negate')");
  // An undefined value in a return, and one used only by a non-FHE op, are errors too.
  std::string ret = ring_program("<1 + x**1024>", "    %z = ckks.negate %x : !ct\n");
  EXPECT_EQ(error_of(ret), where(ret, "return") + ": use of undefined value '%y' (operand of 'func.return')");
  std::string tensor = ring_program("<1 + x**1024>",
                                    "    %t = tensor.from_elements %x, %w : tensor<2x!ct>\n"
                                    "    %y = ckks.negate %x : !ct\n");
  EXPECT_EQ(error_of(tensor), where(tensor, "tensor.from_elements") +
                                  ": use of undefined value '%w' (operand of "
                                  "'tensor.from_elements')");
}

TEST(HeirInputChecks, MultiResultValuesAreDefined) {
  // `%r:2 = call` defines %r#0 and %r#1; both uses resolve (no undefined-value error) and the
  // add sees the callee's ciphertexts (level 1 from the type).
  std::string text = ring_program("<1 + x**1024>",
                                  "    %r:2 = func.call @g(%x) : (!ct) -> (!ct, !ct)\n"
                                  "    %y = ckks.add %r#0, %r#1 : (!ct, !ct) -> !ct\n");
  text.replace(text.rfind('}'), 1,
               "  func.func private @g(%a: !ct) -> (!ct, !ct) {\n"
               "    %b = ckks.negate %a : !ct\n"
               "    return %a, %b : !ct, !ct\n"
               "  }\n"
               "}");
  FheProgram p = load_heir_string(text, "t.mlir");
  ASSERT_EQ(p.ops.size(), 2u);
  EXPECT_EQ(p.ops[0].kind, FheOpKind::Negate);
  EXPECT_EQ(p.ops[1].kind, FheOpKind::Add);
  EXPECT_EQ(p.ops[1].level, 1u);
}

// ------------------------------------------------------------------- empty programs

TEST(HeirInputChecks, FileWithoutModuleIsAnError) {
  for (const char* text : {"", "// only a comment\n", "!Z = !mod_arith.int<17 : i64>\n"})
    EXPECT_EQ(error_of(text),
              "t.mlir:1:1: no module found (expected 'module { ... }' or a top-level "
              "'func.func')")
        << "input: " << text;
}

TEST(HeirInputChecks, ModuleWithoutFheOperationsIsAnError) {
  const std::string empty = "// header\nmodule {\n}\n";
  EXPECT_EQ(error_of(empty), where(empty, "module") + ": no FHE operations found in any function");
  const std::string scaffolding =
      "module {\n"
      "  func.func @f(%i: index) -> index {\n"
      "    %c1 = arith.constant 1 : index\n"
      "    %j = arith.addi %i, %c1 : index\n"
      "    return %j : index\n"
      "  }\n"
      "}\n";
  EXPECT_EQ(error_of(scaffolding), "t.mlir:1:1: no FHE operations found in any function");
  // FHE operations that never execute: a loop with zero trips.
  std::string zero_trip =
      ring_program("<1 + x**1024>",
                   "    %c0 = arith.constant 0 : index\n"
                   "    %c1 = arith.constant 1 : index\n"
                   "    %y = scf.for %i = %c0 to %c0 step %c1 iter_args(%a = %x) -> (!ct) {\n"
                   "      %b = ckks.negate %a : !ct\n"
                   "      scf.yield %b : !ct\n"
                   "    }\n");
  EXPECT_EQ(error_of(zero_trip),
            where(zero_trip, "module") +
                ": no FHE operation left after unrolling loops and inlining calls (the FHE "
                "operations are only in loops with zero trips, unreached functions or unused "
                "precomputations)");
}

// ------------------------------------------------------------- the file named once

TEST(HeirInputChecks, ErrorFromAFileNamesTheFileOnce) {
  const std::string path = ::testing::TempDir() + "heir_input_checks_hugeN.mlir";
  const std::string text = ring_program("<1 + x**262144>");
  {
    std::ofstream out(path);
    out << text;
  }
  std::string e;
  try {
    load_heir(path);
  } catch (const Error& err) { e = err.what(); }
  std::remove(path.c_str());
  EXPECT_EQ(e.rfind(where(text, "#polynomial.ring", path) + ": ring #ring_x", 0), 0u) << e;
  EXPECT_EQ(e.find(path, 1), std::string::npos) << "path printed twice: " << e;
  // An unreadable file: the path once, then the problem.
  try {
    load_heir(path);
    FAIL() << "no error";
  } catch (const Error& err) { EXPECT_EQ(std::string(err.what()), path + ": cannot open HEIR MLIR file"); }
}

}  // namespace
}  // namespace photon::heir

namespace photon::heir {
namespace {

// ------------------------------------------------------------- integer literal ranges

TEST(HeirInputChecks, IntegerLiteralOutsideItsTypeIsAnError) {
  // Saturating 99999999999999999999 to INT64_MAX would rotate by 9223372036854775807.
  const std::string big =
      ring_program("<1 + x**1024>", "    %y = ckks.rotate %x {static_shift = 99999999999999999999} : !ct\n");
  EXPECT_EQ(error_of(big), where(big, "99999999999999999999") +
                               ": integer literal 99999999999999999999 does not fit i64 (range "
                               "-9223372036854775808 .. 9223372036854775807)");
  const std::string i32 =
      ring_program("<1 + x**1024>", "    %y = ckks.rotate %x {static_shift = 4294967296 : i32} : !ct\n");
  EXPECT_EQ(error_of(i32),
            where(i32, "4294967296") +
                ": integer literal 4294967296 does not fit i32 (range -2147483648 .. 4294967295)");
  // A negative literal is located at its sign.
  const std::string neg =
      ring_program("<1 + x**1024>", "    %y = ckks.rotate %x {static_shift = -2147483649 : i32} : !ct\n");
  EXPECT_EQ(error_of(neg),
            where(neg, "-2147483649") +
                ": integer literal -2147483649 does not fit i32 (range -2147483648 .. 4294967295)");
  const std::string hex =
      ring_program("<1 + x**1024>", "    %y = ckks.rotate %x {static_shift = 0x1FF : ui8} : !ct\n");
  EXPECT_EQ(error_of(hex), where(hex, "0x1FF") + ": integer literal 0x1FF does not fit ui8 (range 0 .. 255)");
  const std::string uneg =
      ring_program("<1 + x**1024>", "    %y = ckks.rotate %x {static_shift = -1 : ui8} : !ct\n");
  EXPECT_EQ(error_of(uneg),
            where(uneg, "-1 : ui8") + ": integer literal -1 does not fit ui8 (range 0 .. 255)");
  const std::string si =
      ring_program("<1 + x**1024>", "    %y = ckks.rotate %x {static_shift = 128 : si8} : !ct\n");
  EXPECT_EQ(error_of(si),
            where(si, "128 : si8") + ": integer literal 128 does not fit si8 (range -128 .. 127)");
  // An operand constant (arith.constant) is checked the same way.
  const std::string cst = ring_program("<1 + x**1024>",
                                       "    %c = arith.constant 18446744073709551616 : index\n"
                                       "    %y = ckks.rotate %x, %c : index : !ct\n");
  EXPECT_EQ(error_of(cst), where(cst, "18446744073709551616") +
                               ": integer literal 18446744073709551616 does not fit index (range "
                               "-9223372036854775808 .. 9223372036854775807)");
}

TEST(HeirInputChecks, ARotationWithoutAnIntegerAmountIsAnError) {
  // Lowered as rotation 0 it would drop the rotation's key switch (and its key) silently.
  const std::string msg =
      ": 'ckks.rotate' has no integer rotation amount (expected an integer attribute static_shift, "
      "shift, offset, index or k, or a constant operand)";
  for (const std::string body : {std::string("    %y = ckks.rotate %x : !ct\n"),
                                 std::string("    %y = ckks.rotate %x {static_shift = \"1\"} : !ct\n"),
                                 std::string("    %y = ckks.rotate %x {static_shift = 1.5 : f64} : !ct\n")}) {
    const std::string text = ring_program("<1 + x**1024>", body);
    EXPECT_EQ(error_of(text), where(text, "ckks.rotate") + msg) << body;
  }
  // With an integer amount it lowers (the oracle: the amount as written).
  const FheProgram p =
      load_heir_string(ring_program("<1 + x**1024>", "    %y = ckks.rotate %x {static_shift = 3} : !ct\n"), "t.mlir");
  ASSERT_EQ(p.ops.size(), 1u);
  EXPECT_EQ(p.ops[0].kind, FheOpKind::Rotate);
  EXPECT_EQ(p.ops[0].rotation, 3);
}

TEST(HeirInputChecks, IntegerLiteralsAtTheirTypeBoundsParse) {
  const std::string text =
      "module attributes {a = 9223372036854775807, b = -9223372036854775808 : i64, c = 4294967295 : i32, "
      "d = -2147483648 : i32, e = 127 : si8, f = -128 : si8, g = 255 : ui8, h = 0 : ui8, i = 0x7FC00000 : "
      "f32, "
      "j = 1 : i1, k = 2.5e+10 : f64} {\n}\n";
  const mlir::Module m = mlir::parse_mlir(text, "b.mlir");
  long long v = 0;
  ASSERT_TRUE(mlir::scalar_int(m.attr("a"), &v));
  EXPECT_EQ(v, 9223372036854775807LL);
  ASSERT_TRUE(mlir::scalar_int(m.attr("b"), &v));
  EXPECT_EQ(v, std::numeric_limits<long long>::min());
  ASSERT_TRUE(mlir::scalar_int(m.attr("c"), &v));
  EXPECT_EQ(v, 4294967295LL);
  ASSERT_TRUE(mlir::scalar_int(m.attr("f"), &v));
  EXPECT_EQ(v, -128);
  EXPECT_THROW(mlir::parse_mlir("module attributes {a = 9223372036854775808} {\n}\n", "b.mlir"), Error);
  EXPECT_THROW(mlir::parse_mlir("module attributes {j = 2 : i1} {\n}\n", "b.mlir"), Error);
  // Wider than 64 bits: MLIR would accept 2^64 : i65, the frontend cannot read it.
  try {
    mlir::parse_mlir("module attributes {q = 18446744073709551616 : i65} {\n}\n", "b.mlir");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "b.mlir:1:24: integer literal 18446744073709551616 does not fit i65 (range "
              "-9223372036854775808 .. 9223372036854775807: integers are read as int64)");
  }
}

// ------------------------------------------------------------- one-line errors

bool printable(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7f) return false;
  return true;
}

TEST(HeirInputChecks, ControlCharactersInErrorsAreEscaped) {
  struct Case {
    std::string text, msg;
  };
  const Case cases[] = {
      {"module {\n  func.func @f(%x: !ct) -> !ct {\n    %y = ckks.negate %\n  }\n}\n",
       "t.mlir:3:22: expected a name after '%', got '\\n'"},
      {std::string("module {\0}", 10), "t.mlir:1:9: unexpected character '\\x00'"},
      {"module {\x7f}", "t.mlir:1:9: unexpected character '\\x7f'"},
      {"module {\xc3\xa9}", "t.mlir:1:9: unexpected character '\\xc3'"},
      {"module {\t\x01}", "t.mlir:1:10: unexpected character '\\x01'"},
      // Raw bytes inside a string token, quoted back by the parser and by the frontend.
      {"module { \"a\x02"
       "b\" }",
       "t.mlir:1:10: expected 'func.func' in the module body, got string \"a\\x02b\""},
  };
  for (const Case& c : cases) {
    const std::string e = error_of(c.text);
    EXPECT_EQ(e, c.msg);
    EXPECT_TRUE(printable(e)) << e;
  }
  // A generic-form op whose name holds a control character: the frontend's own message.
  const std::string gen =
      ring_program("<1 + x**1024>", "    %y = \"ckks.neg\x1b[2Jate\"(%x) : (!ct) -> !ct\n");
  const std::string e = error_of(gen);
  EXPECT_NE(e.find("\\x1b[2J"), std::string::npos) << e;
  EXPECT_TRUE(printable(e)) << e;
}

}  // namespace
}  // namespace photon::heir
