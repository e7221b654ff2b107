// .pasm assembler and disassembler: field parsing, defaults, exact round trips (randomised) and
// error messages with name:line:col.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "base/error.h"
#include "isa/assembler.h"
#include "isa/disassembler.h"
#include "test_programs.h"

namespace photon::pcs {
namespace {

using ::testing::HasSubstr;
using namespace test_support;

std::string asm_error(const std::string& text) {
  try {
    assemble(text, "t.pasm");
  } catch (const Error& e) { return e.what(); }
  return "no error";
}

TEST(PcsAsm, ParsesEveryCommandKind) {
  const Program p = assemble(R"(
    .op 0 "conv1" Conv "tiles 4x2"
    .segment 0x1000 hex:0011aabb
    dma src=0x0 dst=0x4000000000 bytes=4096 n1=2 n2=3 src_stride1=8192 dst_stride1=4096 src_stride2=65536 dst_stride2=12288 channel=1 tag=0
    gemm a=0 b=4096 c=8192 m=16 n=16 k=16 lda=16 ldb=16 ldc=16 flags=accumulate|reuse_weights tag=0
    ntt op=bconv log_n=12 limbs=3 out_limbs=2 src0=0 dst=0x100 moduli=0x200 galois=5 tag=1
    vec op=clip src0=0 dst=4096 n=1024 imm0=-1.5 imm1=6 ; comment
    signal queue=gemm sem=3   # comment
    wait queue=dma sem=3
    fence
    end
  )",
                             "t.pasm");
  ASSERT_EQ(p.commands.size(), 8u);
  ASSERT_EQ(p.ops.size(), 1u);
  EXPECT_EQ(p.ops[0].name, "conv1");
  EXPECT_EQ(p.ops[0].kind, "Conv");
  EXPECT_EQ(p.ops[0].detail, "tiles 4x2");
  ASSERT_EQ(p.segments.size(), 1u);
  EXPECT_EQ(p.segments[0].address, 0x1000u);
  EXPECT_EQ(p.segments[0].bytes, (std::vector<uint8_t>{0x00, 0x11, 0xaa, 0xbb}));

  const auto& d = std::get<DmaCopy>(p.commands[0].body);
  EXPECT_EQ(d.dst, 0x4000000000u);
  EXPECT_EQ(d.inner_bytes, 4096u);
  EXPECT_EQ(d.n1, 2u);
  EXPECT_EQ(d.n2, 3u);
  EXPECT_EQ(d.src_stride1, 8192u);
  EXPECT_EQ(d.dst_stride2, 12288u);
  EXPECT_EQ(d.channel, 1u);
  EXPECT_EQ(p.commands[0].tag, 0u);

  const auto& g = std::get<Gemm>(p.commands[1].body);
  EXPECT_EQ(g.flags, Gemm::kAccumulate | Gemm::kReuseWeights);
  EXPECT_EQ(g.b, 4096u);
  EXPECT_EQ(g.ldc, 16u);

  const auto& n = std::get<Ntt>(p.commands[2].body);
  EXPECT_EQ(n.op, Ntt::kBConv);
  EXPECT_EQ(n.log_n, 12);
  EXPECT_EQ(n.out_limbs, 2u);
  EXPECT_EQ(n.moduli, 0x200u);
  EXPECT_EQ(n.galois, 5u);
  EXPECT_EQ(p.commands[2].tag, 1u);

  const auto& v = std::get<Vector>(p.commands[3].body);
  EXPECT_EQ(v.op, Vector::kClip);
  EXPECT_EQ(v.imm0, -1.5f);
  EXPECT_EQ(v.imm1, 6.0f);
  EXPECT_EQ(p.commands[3].tag, kNoTag);

  EXPECT_EQ(p.commands[4], make_signal(Queue::Gemm, 3));
  EXPECT_EQ(p.commands[5], make_wait(Queue::Dma, 3));
  EXPECT_EQ(p.commands[6], make_fence());
  EXPECT_EQ(p.commands[7], make_end());
}

TEST(PcsAsm, OmittedFieldsTakeStructDefaults) {
  const Program p = assemble("ntt\nvec\ndma\ngemm\nsignal\n", "t.pasm");
  EXPECT_EQ(p.commands[0], make_ntt(Ntt{}));
  EXPECT_EQ(std::get<Ntt>(p.commands[0].body).log_n, 10);
  EXPECT_EQ(p.commands[1], make_vector(Vector{}));
  EXPECT_EQ(std::get<Vector>(p.commands[1].body).sh, 1);
  EXPECT_EQ(p.commands[2], make_dma(DmaCopy{}));
  EXPECT_EQ(p.commands[3], make_gemm(Gemm{}));
  EXPECT_EQ(p.commands[4], make_signal(Queue::Dma, 0));
}

TEST(PcsAsm, MissingEndIsNotAnError) {
  EXPECT_EQ(assemble("fence\n", "t.pasm").commands.size(), 1u);
  EXPECT_TRUE(assemble("", "t.pasm").commands.empty());
}

TEST(PcsAsm, CrlfCommentsAndBlankLines) {
  const Program p = assemble("# header\r\n\r\n  ; x\r\nend ; done\r\n", "t.pasm");
  ASSERT_EQ(p.commands.size(), 1u);
  EXPECT_EQ(p.commands[0], make_end());
}

TEST(PcsAsm, SegmentForms) {
  const Program p = assemble(
      ".segment 0x10 f32:1,-2.5\n.segment 0x20 u64:1,0x3fffffffffe0001\n"
      ".segment 0x30 hex:\n",
      "t.pasm");
  ASSERT_EQ(p.segments.size(), 3u);
  std::vector<uint8_t> f(8);
  const float vals[] = {1.0f, -2.5f};
  std::memcpy(f.data(), vals, 8);
  EXPECT_EQ(p.segments[0].bytes, f);
  ASSERT_EQ(p.segments[1].bytes.size(), 16u);
  uint64_t q;
  std::memcpy(&q, p.segments[1].bytes.data() + 8, 8);
  EXPECT_EQ(q, 0x3fffffffffe0001u);
  EXPECT_TRUE(p.segments[2].bytes.empty());
}

TEST(PcsAsm, FileSegmentIsRelativeToTheSource) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("pcs_asm_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "w.bin", std::ios::binary) << "\x01\x02\x03";
  const Program p = assemble(".segment 0x0 file:w.bin\n", (dir / "prog.pasm").string());
  EXPECT_EQ(p.segments.at(0).bytes, (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_THAT(asm_error(".segment 0x0 file:nope.bin\n"),
              HasSubstr("t.pasm:1:14: cannot read segment file 'nope.bin'"));
  fs::remove_all(dir);
}

TEST(PcsAsm, FloatSpellingsAreExact) {
  const Program p = assemble("vec imm0=0.1 imm1=bits:0x7fc00001\nvec imm0=-inf imm1=1e-45\n", "t");
  const auto& v = std::get<Vector>(p.commands[0].body);
  EXPECT_EQ(v.imm0, 0.1f);
  uint32_t bits;
  std::memcpy(&bits, &v.imm1, 4);
  EXPECT_EQ(bits, 0x7fc00001u);
  const auto& w = std::get<Vector>(p.commands[1].body);
  EXPECT_TRUE(std::isinf(w.imm0) && w.imm0 < 0);
  EXPECT_EQ(w.imm1, std::nextafter(0.0f, 1.0f));
  const std::string text = disassemble(p);
  EXPECT_THAT(text, HasSubstr("imm0=0.1 imm1=bits:0x7fc00001"));
  EXPECT_EQ(assemble(text, "t"), p);
}

TEST(PcsAsm, DisassemblyIsReadable) {
  Program p;
  p.add_op({"conv1", "Conv", "tiles \"4x2\"", {}});
  Gemm g;
  g.m = 16;
  g.flags = Gemm::kBias | Gemm::kTransposeA;
  p.commands.push_back(make_gemm(g, 0));
  p.commands.push_back(make_wait(Queue::Ntt, 2));
  p.commands.push_back(make_end());
  const std::string text = disassemble(p);
  EXPECT_THAT(text, HasSubstr(".op 0 \"conv1\" Conv \"tiles \\\"4x2\\\"\"\n"));
  EXPECT_THAT(text, HasSubstr("gemm a=0x0 b=0x0 c=0x0 m=16 n=0 k=0 lda=0 ldb=0 ldc=0 "
                              "flags=transpose_a|bias tag=0\n"));
  EXPECT_THAT(text, HasSubstr("\nwait queue=ntt sem=2\nend\n"));
}

TEST(PcsAsm, RandomisedRoundTripIsExact) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    const Program p = random_program(seed);
    const std::string text = disassemble(p);
    const Program q = assemble(text, "random.pasm");
    ASSERT_EQ(q, p) << "seed " << seed;
    EXPECT_EQ(serialize(q), serialize(p));
    EXPECT_EQ(disassemble(q), text);
  }
}

TEST(PcsAsm, ReassemblyIsByteIdentical) {
  const std::string src = R"(
    .op 0 conv1 Conv
    .segment 0x0 f32:1,2,3,4
    dma bytes=16 dst=0x4000000000
    gemm m=2 n=2 k=2 lda=2 ldb=2 ldc=2 flags=bias bias=64 tag=0
    vec op=leaky_relu n=4 imm0=0.01 dst=32
    ntt op=automorph galois=3 limbs=2
  )";
  const Program p = assemble(src, "a.pasm");
  const Program q = assemble(disassemble(p), "b.pasm");
  EXPECT_EQ(serialize(q), serialize(p));
}

TEST(PcsAsm, Errors) {
  EXPECT_THAT(asm_error("end\n\n    foo x=1\n"), HasSubstr("t.pasm:3:5: unknown mnemonic 'foo'"));
  EXPECT_THAT(asm_error("gemm m=1 zz=3\n"), HasSubstr("t.pasm:1:10: unknown field 'zz' for gemm"));
  EXPECT_THAT(asm_error("fence tag=1 x=2\n"), HasSubstr("t.pasm:1:13: unknown field 'x' for fence"));
  EXPECT_THAT(asm_error("gemm m=12a\n"), HasSubstr("t.pasm:1:8: bad number '12a'"));
  EXPECT_THAT(asm_error("gemm m=-1\n"), HasSubstr("bad number '-1'"));
  EXPECT_THAT(asm_error("ntt log_n=256\n"),
              HasSubstr("t.pasm:1:11: value 256 out of range for field 'log_n' (8-bit): max 255"));
  EXPECT_THAT(asm_error("gemm m=0x100000000\n"), HasSubstr("out of range for field 'm' (32-bit)"));
  EXPECT_THAT(asm_error("dma src=99999999999999999999\n"), HasSubstr("out of range"));
  EXPECT_THAT(asm_error("vec h=65536\n"), HasSubstr("out of range for field 'h' (16-bit)"));
  EXPECT_THAT(asm_error("signal tag=4294967296\n"), HasSubstr("out of range for field 'tag'"));
  EXPECT_THAT(asm_error("gemm m=1 m=2\n"), HasSubstr("field 'm' given twice"));
  EXPECT_THAT(asm_error("ntt op=fft\n"), HasSubstr("t.pasm:1:8: unknown ntt op 'fft'"));
  EXPECT_THAT(asm_error("vec op=swish\n"), HasSubstr("unknown vec op 'swish'"));
  EXPECT_THAT(asm_error("wait queue=cpu\n"), HasSubstr("unknown queue 'cpu'"));
  EXPECT_THAT(asm_error("gemm flags=bias|fast\n"), HasSubstr("unknown gemm flag 'fast'"));
  EXPECT_THAT(asm_error("vec imm0=abc\n"), HasSubstr("bad number 'abc' for field 'imm0'"));
  EXPECT_THAT(asm_error("gemm 16\n"), HasSubstr("t.pasm:1:6: expected field=value, found '16'"));
  EXPECT_THAT(asm_error(".op 1 a b\n"), HasSubstr("op index 1 out of order, expected 0"));
  EXPECT_THAT(asm_error(".op 0 \"a b\n"), HasSubstr("t.pasm:1:7: unterminated string"));
  EXPECT_THAT(asm_error(".segment 0x0 hex:abc\n"), HasSubstr("odd number of hex digits"));
  EXPECT_THAT(asm_error(".segment 0x0 hex:zz\n"), HasSubstr("bad hex digit"));
  EXPECT_THAT(asm_error(".segment 0x0 raw:00\n"), HasSubstr("bad segment data"));
  EXPECT_THAT(asm_error(".align 4\n"), HasSubstr("unknown directive '.align'"));
}

TEST(PcsAsm, DisassembleRejectsInvalidCommand) {
  Program p;
  p.commands.push_back(make_end());
  Ntt n;
  n.op = 99;
  p.commands.push_back(make_ntt(n));
  try {
    disassemble(p);
    FAIL() << "no error";
  } catch (const Error& e) { EXPECT_THAT(e.what(), HasSubstr("command 1: unknown NTT op 99")); }
}

}  // namespace
}  // namespace photon::pcs

namespace photon::pcs {
namespace {

// An op's memory figures (version 2, as the FHE lowering writes them) survive the text form.
TEST(PcsAsm, OpMemoryFiguresRoundTrip) {
  Program p;
  p.ops.push_back({"ckks.rotate#1", "hrot", "N=2^17 g=1", {{"ct_in_bytes", 4194304}, {"key_bytes", 0}}});
  p.ops.push_back({"plain", "Conv", "", {}});
  p.commands.push_back(make_end());
  const std::string text = disassemble(p);
  EXPECT_THAT(text, HasSubstr(".op 0 \"ckks.rotate#1\" hrot \"N=2^17 g=1\" ct_in_bytes=4194304 key_bytes=0\n"));
  const Program q = assemble(text, "t");
  EXPECT_EQ(q, p);
  EXPECT_EQ(serialize(q), serialize(p));
  EXPECT_THAT(asm_error(".op 0 a b \"d\" key_bytes=1 key_bytes=2\n"), HasSubstr("figure 'key_bytes' given twice"));
  EXPECT_THAT(asm_error(".op 0 a b \"d\" \"x=1\"\n"), HasSubstr("memory figures are written name=bytes"));
  EXPECT_THAT(asm_error(".op 0 a b \"d\" key_bytes=-1\n"), HasSubstr("key_bytes"));
}

}  // namespace
}  // namespace photon::pcs
