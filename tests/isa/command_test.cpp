// Command encoding: byte offsets as documented in docs/command-stream.md, round trips for every
// opcode and sub-op, and decode() rejection of malformed commands.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <set>

#include "base/error.h"
#include "isa/command.h"
#include "isa/fields.h"
#include "test_programs.h"

namespace photon::pcs {
namespace {

using ::testing::HasSubstr;
using namespace test_support;
using Bytes = std::array<uint8_t, kCommandBytes>;

Bytes enc(const Command& c) {
  Bytes b;
  encode(c, b.data());
  return b;
}
uint64_t le(const Bytes& b, int off, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t{b[off + i]} << (8 * i);
  return v;
}
std::string decode_error(const Bytes& b) {
  try {
    decode(b.data());
  } catch (const Error& e) { return e.what(); }
  return "no error";
}

// Offsets below are the tables of docs/command-stream.md, typed in by hand.
TEST(PcsCommand, HeadLayout) {
  Ntt n;
  n.op = Ntt::kBConv;
  Bytes b = enc(make_ntt(n, 0xA1B2C3D4));
  EXPECT_EQ(b[0], 0x30);
  EXPECT_EQ(b[1], Ntt::kBConv);
  EXPECT_EQ(b[2], 0);
  EXPECT_EQ(b[3], 0);
  EXPECT_EQ(le(b, 4, 4), 0xA1B2C3D4u);
  b = enc(make_wait(Queue::Vector, 0x11223344));
  EXPECT_EQ(b[0], 0x03);
  EXPECT_EQ(b[2], 3);
  EXPECT_EQ(le(b, 4, 4), kNoTag);
  EXPECT_EQ(le(b, 8, 4), 0x11223344u);
  for (int i = 12; i < 64; ++i) EXPECT_EQ(b[i], 0) << i;
  Gemm g;
  g.flags = Gemm::kAccumulate | Gemm::kBias;
  b = enc(make_gemm(g));
  EXPECT_EQ(b[0], 0x20);
  EXPECT_EQ(b[3], 17);
}

TEST(PcsCommand, DmaOffsets) {
  DmaCopy d;
  d.src = 0x0102030405060708;
  d.dst = 0x1112131415161718;
  d.inner_bytes = 0x21222324;
  d.n1 = 0x31323334;
  d.n2 = 0x41424344;
  d.channel = 0x51525354;
  d.src_stride1 = 0x6162636465666768;
  d.dst_stride1 = 0x7172737475767778;
  d.src_stride2 = 0x81828384;
  d.dst_stride2 = 0x91929394;
  const Bytes b = enc(make_dma(d, 7));
  EXPECT_EQ(b[0], 0x10);
  EXPECT_EQ(le(b, 8, 8), d.src);
  EXPECT_EQ(le(b, 16, 8), d.dst);
  EXPECT_EQ(le(b, 24, 4), d.inner_bytes);
  EXPECT_EQ(le(b, 28, 4), d.n1);
  EXPECT_EQ(le(b, 32, 4), d.n2);
  EXPECT_EQ(le(b, 36, 4), d.channel);
  EXPECT_EQ(le(b, 40, 8), d.src_stride1);
  EXPECT_EQ(le(b, 48, 8), d.dst_stride1);
  EXPECT_EQ(le(b, 56, 4), d.src_stride2);
  EXPECT_EQ(le(b, 60, 4), d.dst_stride2);
}

TEST(PcsCommand, GemmOffsets) {
  Gemm g;
  uint32_t* f[] = {&g.a, &g.b, &g.c, &g.bias, &g.m, &g.n, &g.k, &g.lda, &g.ldb, &g.ldc};
  for (int i = 0; i < 10; ++i) *f[i] = 0x01010101u * (i + 1);
  const Bytes b = enc(make_gemm(g));
  for (int i = 0; i < 10; ++i) EXPECT_EQ(le(b, 8 + 4 * i, 4), *f[i]) << i;
  for (int i = 48; i < 64; ++i) EXPECT_EQ(b[i], 0) << i;
}

TEST(PcsCommand, NttOffsets) {
  Ntt n;
  n.op = Ntt::kAutomorph;
  n.log_n = 17;
  n.limbs = 0x0A0B0C0D;
  n.out_limbs = 0x1A1B1C1D;
  n.src0 = 0x2A2B2C2D;
  n.src1 = 0x3A3B3C3D;
  n.dst = 0x4A4B4C4D;
  n.moduli = 0x5A5B5C5D;
  n.galois = 0x6A6B6C6D;
  n.terms = 0x7A7B7C7D;
  n.src0_stride = 0x8A8B8C8D;
  n.src1_stride = 0x9A9B9C9D;
  const Bytes b = enc(make_ntt(n));
  EXPECT_EQ(b[8], 17);
  EXPECT_EQ(le(b, 9, 4), n.limbs);
  EXPECT_EQ(le(b, 13, 4), n.out_limbs);
  EXPECT_EQ(le(b, 17, 4), n.src0);
  EXPECT_EQ(le(b, 21, 4), n.src1);
  EXPECT_EQ(le(b, 25, 4), n.dst);
  EXPECT_EQ(le(b, 29, 4), n.moduli);
  EXPECT_EQ(le(b, 33, 4), n.galois);
  EXPECT_EQ(le(b, 37, 4), n.terms);
  EXPECT_EQ(le(b, 41, 4), n.src0_stride);
  EXPECT_EQ(le(b, 45, 4), n.src1_stride);
  for (int i = 49; i < 64; ++i) EXPECT_EQ(b[i], 0) << i;
}

TEST(PcsCommand, VectorOffsets) {
  Vector v;
  v.op = Vector::kAvgPool;
  v.src0 = 0x10;
  v.src1 = 0x20;
  v.src2 = 0x30;
  v.dst = 0x40;
  v.n = 0x50;
  v.inner = 0x60;
  v.bcast_inner = 0x70;
  v.bcast_len = 0x80;
  v.imm0 = 1.5f;   // 0x3fc00000
  v.imm1 = -2.0f;  // 0xc0000000
  v.h = 0x0102;
  v.w = 0x0304;
  v.oh = 0x0506;
  v.ow = 0x0708;
  v.kh = 3;
  v.kw = 4;
  v.sh = 5;
  v.sw = 6;
  v.pad_top = 7;
  v.pad_left = 8;
  v.count_include_pad = 1;
  const Bytes b = enc(make_vector(v));
  EXPECT_EQ(b[1], Vector::kAvgPool);
  const uint32_t words[] = {0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0x3fc00000, 0xc0000000};
  for (int i = 0; i < 10; ++i) EXPECT_EQ(le(b, 8 + 4 * i, 4), words[i]) << i;
  EXPECT_EQ(le(b, 48, 2), 0x0102u);
  EXPECT_EQ(le(b, 50, 2), 0x0304u);
  EXPECT_EQ(le(b, 52, 2), 0x0506u);
  EXPECT_EQ(le(b, 54, 2), 0x0708u);
  const uint8_t bytes[] = {3, 4, 5, 6, 7, 8, 1, 0};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(b[56 + i], bytes[i]) << i;
}

TEST(PcsCommand, LayoutTableMatchesDocumentedOffsets) {
  const auto v = detail::payload_layout(Opcode::Vector);
  ASSERT_EQ(v.size(), 22u);
  EXPECT_EQ(v.back().name, "dilation");
  EXPECT_EQ(v.back().offset, 63u);
  const auto d = detail::payload_layout(Opcode::DmaCopy);
  EXPECT_EQ(d.back().offset + d.back().bytes, 64u);
  EXPECT_TRUE(detail::payload_layout(Opcode::End).empty());
}

TEST(PcsCommand, RoundTripEveryOpcodeAndSubop) {
  std::mt19937_64 rng(42);
  std::set<int> opcodes;
  for (uint64_t sub = 0; sub < 64; ++sub) {
    for (int k = 0; k < 8; ++k) {
      const Command c = random_command(k, sub, rng);
      opcodes.insert(static_cast<int>(c.opcode));
      const Bytes b = enc(c);
      const Command back = decode(b.data());
      EXPECT_EQ(back, c) << opcode_name(c.opcode) << " sub " << sub;
      EXPECT_EQ(enc(back), b);
    }
  }
  EXPECT_EQ(opcodes.size(), 8u);
}

TEST(PcsCommand, EncodeWritesExactly64Bytes) {
  std::array<uint8_t, 80> buf;
  buf.fill(0xEE);
  encode(make_end(), buf.data());
  for (int i = 0; i < 64; ++i) EXPECT_EQ(buf[i], (i >= 4 && i < 8) ? 0xFF : 0) << i;
  for (int i = 64; i < 80; ++i) EXPECT_EQ(buf[i], 0xEE) << i;
}

TEST(PcsCommand, QueueOfEachCommand) {
  EXPECT_EQ(make_dma({}).queue(), 0);
  EXPECT_EQ(make_gemm({}).queue(), 1);
  EXPECT_EQ(make_ntt({}).queue(), 2);
  EXPECT_EQ(make_vector({}).queue(), 3);
  EXPECT_EQ(make_signal(Queue::Ntt, 1).queue(), 2);
  EXPECT_EQ(make_wait(Queue::Gemm, 1).queue(), 1);
  EXPECT_EQ(make_end().queue(), -1);
  EXPECT_EQ(make_fence().queue(), -1);
  EXPECT_STREQ(queue_name(Queue::Dma), "dma");
  EXPECT_STREQ(queue_name(Queue::Vector), "vec");
}

TEST(PcsCommand, NamesRoundTripAndAreUnique) {
  std::set<std::string> seen;
  for (int op = 0; op <= Ntt::kMulAccMod; ++op) {
    uint8_t back = 0xFF;
    ASSERT_TRUE(ntt_op_from_name(ntt_op_name(static_cast<uint8_t>(op)), back));
    EXPECT_EQ(back, op);
    EXPECT_TRUE(seen.insert(ntt_op_name(static_cast<uint8_t>(op))).second);
  }
  seen.clear();
  const auto ops = all_vector_ops();  // which values: vector_ops_test.cpp, against the format doc
  for (uint8_t op : ops) {
    uint8_t back = 0xFF;
    ASSERT_TRUE(vector_op_from_name(vector_op_name(op), back));
    EXPECT_EQ(back, op);
    EXPECT_TRUE(seen.insert(vector_op_name(op)).second);
  }
  uint8_t x;
  EXPECT_FALSE(ntt_op_from_name("fft", x));
  EXPECT_FALSE(vector_op_from_name("swish", x));
  EXPECT_STREQ(vector_op_name(Vector::kLayerNorm), "layer_norm");
  EXPECT_STREQ(ntt_op_name(Ntt::kBConv), "bconv");
  EXPECT_STREQ(opcode_name(Opcode::DmaCopy), "dma");
}

TEST(PcsCommand, DecodeRejectsMalformed) {
  Bytes b = enc(make_end());
  b[0] = 0x7f;
  EXPECT_THAT(decode_error(b), HasSubstr("unknown opcode 0x7f"));

  Ntt n;
  b = enc(make_ntt(n));
  b[1] = 8;
  EXPECT_THAT(decode_error(b), HasSubstr("unknown NTT op 8"));

  b = enc(make_vector(Vector{}));
  b[1] = 13;
  EXPECT_THAT(decode_error(b), HasSubstr("unknown vector op 13"));

  b = enc(make_signal(Queue::Dma, 0));
  b[2] = 9;
  EXPECT_THAT(decode_error(b), HasSubstr("bad queue 9"));

  b = enc(make_gemm(Gemm{}));
  b[3] = 0x20;
  EXPECT_THAT(decode_error(b), HasSubstr("unknown GEMM flag bits 0x20"));

  b = enc(make_gemm(Gemm{}));
  b[50] = 1;
  EXPECT_THAT(decode_error(b), HasSubstr("reserved byte 50 is 0x01"));

  b = enc(make_dma(DmaCopy{}));
  b[1] = 5;
  EXPECT_THAT(decode_error(b), HasSubstr("reserved byte 1 (subop)"));

  b = enc(make_ntt(Ntt{}));
  b[2] = 1;
  EXPECT_THAT(decode_error(b), HasSubstr("reserved byte 2 (queue)"));

  // Vector byte 63 is the im2col dilation field (no reserved payload byte left): any value decodes.
  b = enc(make_vector(Vector{}));
  b[63] = 0x10;
  EXPECT_EQ(std::get<Vector>(decode(b.data()).body).dilation_w(), 2u);
}

TEST(PcsCommand, EncodeRejectsInconsistentCommands) {
  Command c = make_gemm(Gemm{});
  c.body = DmaCopy{};
  EXPECT_THROW(enc(c), Error);
  Vector v;
  v.op = 13;
  EXPECT_THROW(enc(make_vector(v)), Error);
  EXPECT_THROW(enc(make_signal(static_cast<Queue>(4), 0)), Error);
  try {
    enc(c);
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("opcode gemm needs a Gemm body, holds DmaCopy"));
  }
}

}  // namespace
}  // namespace photon::pcs
