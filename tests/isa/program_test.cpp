// .pcs file format: header fields, exact sizes, CRC, round trips and every rejection case.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <unistd.h>

#include "base/error.h"
#include "isa/program.h"
#include "test_programs.h"

namespace photon::pcs {
namespace {

using ::testing::HasSubstr;
using namespace test_support;
namespace fs = std::filesystem;

/// Bitwise CRC-32 (reflected polynomial 0xEDB88320, init and final xor 0xFFFFFFFF): the oracle
/// for the header's CRC field (check value of "123456789" is 0xCBF43926).
uint32_t crc32_ref(const uint8_t* p, size_t n) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}
uint64_t le(const std::vector<uint8_t>& b, size_t off, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t{b[off + i]} << (8 * i);
  return v;
}
void put(std::vector<uint8_t>& b, size_t off, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b[off + i] = static_cast<uint8_t>(v >> (8 * i));
}
/// Rewrites total length and CRC so that only the intended defect remains.
void fix_header(std::vector<uint8_t>& b) {
  put(b, 20, b.size(), 8);
  put(b, 28, crc32_ref(b.data() + 32, b.size() - 32), 4);
}
std::string error_of(const std::vector<uint8_t>& b) {
  try {
    deserialize(b);
  } catch (const Error& e) { return e.what(); }
  return "no error";
}

Program small_program() {
  Program p;
  const uint32_t t = p.add_op({"conv1", "Conv", "tiles 4x2", {}});
  DmaCopy d;
  d.dst = 0x4000000000;
  d.inner_bytes = 4096;
  p.commands.push_back(make_dma(d, t));
  p.commands.push_back(make_signal(Queue::Dma, 3, t));
  p.commands.push_back(make_wait(Queue::Gemm, 3, t));
  p.commands.push_back(make_gemm(Gemm{}, t));
  p.commands.push_back(make_fence());
  p.commands.push_back(make_end());
  p.segments.push_back({0x1000, {1, 2, 3, 4, 5}});
  return p;
}

TEST(PcsProgram, CrcOracleCheckValue) {
  const char* s = "123456789";
  EXPECT_EQ(crc32_ref(reinterpret_cast<const uint8_t*>(s), 9), 0xCBF43926u);
}

TEST(PcsProgram, HeaderFieldsAndExactSize) {
  const Program p = small_program();
  const auto b = serialize(p);
  // 32 header + 6 commands * 64 + op (3 lengths * 4 + 5 + 4 + 9) + segment (8 + 8 + 5).
  EXPECT_EQ(b.size(), 32u + 6 * 64 + (12 + 18) + (16 + 5));
  EXPECT_EQ(std::string(b.begin(), b.begin() + 4), "PCS1");
  EXPECT_EQ(le(b, 4, 2), 1u);
  EXPECT_EQ(le(b, 6, 2), 32u);
  EXPECT_EQ(le(b, 8, 4), 6u);
  EXPECT_EQ(le(b, 12, 4), 1u);
  EXPECT_EQ(le(b, 16, 4), 1u);
  EXPECT_EQ(le(b, 20, 8), b.size());
  EXPECT_EQ(le(b, 28, 4), crc32_ref(b.data() + 32, b.size() - 32));
  // Op table starts right after the commands: u32 length then the bytes of "conv1".
  const size_t op = 32 + 6 * 64;
  EXPECT_EQ(le(b, op, 4), 5u);
  EXPECT_EQ(std::string(b.begin() + op + 4, b.begin() + op + 9), "conv1");
  // Segment: address u64, length u64, bytes.
  const size_t seg = op + 12 + 18;
  EXPECT_EQ(le(b, seg, 8), 0x1000u);
  EXPECT_EQ(le(b, seg + 8, 8), 5u);
  EXPECT_EQ(b[seg + 16], 1);
  EXPECT_EQ(b.back(), 5);
}

TEST(PcsProgram, EmptyProgramIsJustTheHeader) {
  const auto b = serialize(Program{});
  EXPECT_EQ(b.size(), 32u);
  EXPECT_EQ(le(b, 28, 4), 0u);  // CRC-32 of no bytes
  EXPECT_EQ(deserialize(b), Program{});
}

TEST(PcsProgram, RandomisedRoundTrip) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Program p = random_program(seed);
    const auto b = serialize(p);
    const Program q = deserialize(b);
    EXPECT_EQ(q, p) << "seed " << seed;
    EXPECT_EQ(serialize(q), b) << "seed " << seed;
  }
}

TEST(PcsProgram, BadMagic) {
  auto b = serialize(small_program());
  b[0] = 'X';
  EXPECT_THAT(error_of(b), HasSubstr("not a .pcs file (bad magic"));
  EXPECT_THAT(error_of({'{', '"', 'a', '"', ':'}), HasSubstr("not a .pcs file"));
}

TEST(PcsProgram, UnsupportedVersion) {
  auto b = serialize(small_program());
  put(b, 4, 3, 2);
  EXPECT_THAT(error_of(b), HasSubstr("unsupported version 3"));
}

TEST(PcsProgram, TruncatedFile) {
  auto b = serialize(small_program());
  const size_t full = b.size();
  b.resize(full - 10);
  EXPECT_THAT(error_of(b),
              HasSubstr(fmt::format("truncated: header says {} bytes, file holds {}", full, full - 10)));
  b.resize(20);
  EXPECT_THAT(error_of(b), HasSubstr("truncated: file holds 20 bytes, the .pcs header needs 32"));
}

TEST(PcsProgram, CommandCountBeyondFile) {
  auto b = serialize(small_program());
  put(b, 8, 12, 4);  // header claims 12 commands; file holds 6 plus tables
  fix_header(b);
  EXPECT_THAT(error_of(b), HasSubstr("truncated: header says 12 commands (768 bytes)"));
}

TEST(PcsProgram, OpTableBeyondFile) {
  auto b = serialize(small_program());
  put(b, 12, 3, 4);  // 3 ops claimed, 1 stored: the segment bytes are read as op 1, then run out
  fix_header(b);
  EXPECT_THAT(error_of(b), HasSubstr("truncated: op 1 of 3"));
}

TEST(PcsProgram, CrcMismatch) {
  auto b = serialize(small_program());
  b[40] ^= 0x01;
  EXPECT_THAT(error_of(b), HasSubstr("CRC mismatch"));
}

TEST(PcsProgram, BadCommandNamesItsIndex) {
  auto b = serialize(small_program());
  b[32 + 5 * 64] = 0x7f;  // command 5's opcode
  fix_header(b);
  EXPECT_THAT(error_of(b), HasSubstr("command 5: unknown opcode 0x7f"));
}

TEST(PcsProgram, TrailingGarbage) {
  auto b = serialize(small_program());
  b.push_back(0);
  b.push_back(0);
  EXPECT_THAT(error_of(b), HasSubstr("trailing garbage: 2 bytes after the"));
  fix_header(b);  // now the header declares them, but no section holds them
  EXPECT_THAT(error_of(b), HasSubstr("trailing garbage: 2 bytes after the last segment"));
}

TEST(PcsProgram, SerializeNamesBadCommand) {
  Program p = small_program();
  Vector v;
  v.op = 200;
  p.commands.insert(p.commands.begin() + 2, make_vector(v));
  try {
    serialize(p);
    FAIL() << "no error";
  } catch (const Error& e) { EXPECT_THAT(e.what(), HasSubstr("command 2: unknown vector op 200")); }
}

class PcsFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pcs_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  size_t entries() const { return std::distance(fs::directory_iterator(dir_), {}); }
  fs::path dir_;
};

TEST_F(PcsFile, WriteThenReadRoundTrip) {
  const Program p = random_program(7);
  const std::string path = (dir_ / "a.pcs").string();
  write_program(p, path);
  EXPECT_EQ(read_program(path), p);
  EXPECT_EQ(fs::file_size(path), serialize(p).size());
  EXPECT_EQ(entries(), 1u);              // no temporary left behind
  write_program(small_program(), path);  // overwrite in place
  EXPECT_EQ(read_program(path), small_program());
}

TEST_F(PcsFile, WriteFailureLeavesNoFile) {
  const std::string missing = (dir_ / "no_such_dir" / "a.pcs").string();
  try {
    write_program(small_program(), missing);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr(missing));
    EXPECT_THAT(e.what(), HasSubstr("cannot create temporary file"));
  }
  EXPECT_FALSE(fs::exists(missing));
  // Target is a non-empty directory: the rename fails after the temporary was written.
  fs::create_directories(dir_ / "taken" / "x");
  EXPECT_THROW(write_program(small_program(), (dir_ / "taken").string()), Error);
  EXPECT_EQ(entries(), 1u);  // only "taken": the temporary was removed
}

TEST_F(PcsFile, WriteRejectsBadProgramWithoutCreatingFile) {
  Program p = small_program();
  p.commands[0].opcode = Opcode::Ntt;  // body is still DmaCopy
  const std::string path = (dir_ / "bad.pcs").string();
  EXPECT_THROW(write_program(p, path), Error);
  EXPECT_EQ(entries(), 0u);
}

TEST_F(PcsFile, ReadErrorsNameThePath) {
  const std::string path = (dir_ / "missing.pcs").string();
  try {
    read_program(path);
    FAIL() << "no error";
  } catch (const Error& e) { EXPECT_THAT(e.what(), HasSubstr(path + ": cannot open")); }
  const std::string bad = (dir_ / "bad.pcs").string();
  std::ofstream(bad) << "PCS1 but far too short";
  try {
    read_program(bad);
    FAIL() << "no error";
  } catch (const Error& e) { EXPECT_THAT(e.what(), HasSubstr(bad + ": truncated: file holds 22 bytes")); }
}

}  // namespace
}  // namespace photon::pcs
