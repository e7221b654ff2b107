// examples/*.pasm: each assembles, round-trips, keeps every operand inside the scratchpad, ends
// with End and cannot deadlock on its semaphores; together they cover every command and sub-op.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>
#include <set>

#include "base/error.h"
#include "isa/assembler.h"
#include "isa/disassembler.h"
#include "test_programs.h"
#include "tests/support/queue_semantics.h"

namespace photon::pcs {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kSpmBase = 0x4000000000ull;  // NocConfig::scratchpad_base
constexpr uint64_t kSpmBytes = 8ull << 20;      // ScratchpadConfig::size_kib default, 8 MiB
constexpr uint32_t kSemaphores = 64;            // CpuConfig::semaphores default

std::vector<fs::path> example_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(PHOTON_SOURCE_DIR) / "examples"))
    if (e.path().extension() == ".pasm") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// Fails the test unless [off, off+bytes) lies inside the scratchpad.
void expect_spm(uint64_t off, uint64_t bytes, const std::string& what) {
  EXPECT_LE(off + bytes, kSpmBytes) << what << " [" << off << ", +" << bytes << ")";
}

/// Last byte + 1 touched by one side of a DMA copy, relative to its base.
uint64_t dma_extent(const DmaCopy& d, uint64_t stride1, uint64_t stride2) {
  return (d.n2 - 1) * stride2 + (d.n1 - 1) * stride1 + d.inner_bytes;
}

void check_operands(const Command& c, const std::string& where) {
  if (const auto* d = std::get_if<DmaCopy>(&c.body)) {
    EXPECT_GT(d->inner_bytes, 0u) << where;
    EXPECT_GE(d->n1, 1u) << where;
    EXPECT_GE(d->n2, 1u) << where;
    EXPECT_LT(d->channel, 2u) << where;  // DmaConfig::channels default
    const bool src_spm = d->src >= kSpmBase, dst_spm = d->dst >= kSpmBase;
    EXPECT_NE(src_spm, dst_spm) << where << ": one side HBM, the other scratchpad";
    if (src_spm) expect_spm(d->src - kSpmBase, dma_extent(*d, d->src_stride1, d->src_stride2), where);
    if (dst_spm) expect_spm(d->dst - kSpmBase, dma_extent(*d, d->dst_stride1, d->dst_stride2), where);
  } else if (const auto* g = std::get_if<Gemm>(&c.body)) {
    ASSERT_TRUE(g->m > 0 && g->n > 0 && g->k > 0) << where;
    const bool ta = g->flags & Gemm::kTransposeA, tb = g->flags & Gemm::kTransposeB;
    EXPECT_GE(g->lda, ta ? g->m : g->k) << where;
    EXPECT_GE(g->ldb, tb ? g->k : g->n) << where;
    EXPECT_GE(g->ldc, g->n) << where;
    expect_spm(g->a, 4ull * g->lda * (ta ? g->k : g->m), where + " A");
    expect_spm(g->b, 4ull * g->ldb * (tb ? g->n : g->k), where + " B");
    expect_spm(g->c, 4ull * g->ldc * g->m, where + " C");
    if (g->flags & Gemm::kBias) expect_spm(g->bias, 4ull * g->n, where + " bias");
  } else if (const auto* n = std::get_if<Ntt>(&c.body)) {
    EXPECT_LE(n->log_n, 17) << where;
    const uint64_t poly = 8ull << n->log_n;
    expect_spm(n->src0, poly * n->limbs, where + " src0");
    const bool bconv = n->op == Ntt::kBConv;
    expect_spm(n->dst, poly * (bconv ? n->out_limbs : n->limbs), where + " dst");
    expect_spm(n->moduli, 8ull * (n->limbs + (bconv ? n->out_limbs : 0)), where + " moduli");
    if (bconv) { EXPECT_GT(n->out_limbs, 0u) << where; }
    if (n->op == Ntt::kAutomorph) { EXPECT_EQ(n->galois % 2, 1u) << where << ": galois must be odd"; }
  } else if (const auto* v = std::get_if<Vector>(&c.body)) {
    ASSERT_GT(v->n, 0u) << where;
    ASSERT_GT(v->inner, 0u) << where;
    EXPECT_EQ(v->n % v->inner, 0u) << where;
    expect_spm(v->src0, 4ull * v->n, where + " src0");
    uint64_t out = v->n;
    if (v->op >= Vector::kSoftmax + 2 && v->op <= Vector::kReduceMax) out = v->n / v->inner;
    if (v->op == Vector::kMaxPool || v->op == Vector::kAvgPool || v->op == Vector::kIm2col) {
      ASSERT_GT(uint64_t{v->h} * v->w, 0u) << where;
      EXPECT_EQ(v->n % (v->h * v->w), 0u) << where;
      const uint64_t ch = v->n / (v->h * v->w);
      EXPECT_EQ(v->oh, (v->h + 2 * v->pad_top - v->kh) / v->sh + 1) << where;
      EXPECT_EQ(v->ow, (v->w + 2 * v->pad_left - v->kw) / v->sw + 1) << where;
      out = v->op == Vector::kIm2col ? ch * v->kh * v->kw * v->oh * v->ow : ch * v->oh * v->ow;
    }
    expect_spm(v->dst, 4 * out, where + " dst");
    if (v->op >= Vector::kAdd && v->op <= Vector::kPow)
      expect_spm(v->src1, 4ull * v->bcast_len, where + " src1");
  } else if (const auto* s = std::get_if<Sync>(&c.body)) {
    EXPECT_LT(s->sem, kSemaphores) << where;
  }
}

TEST(PcsExamples, EachIsValid) {
  const auto files = example_files();
  ASSERT_GE(files.size(), 5u);
  bool has_double_buffer = false;
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    has_double_buffer |= f.filename() == "double_buffer.pasm";
    const Program p = assemble_file(f.string());
    ASSERT_FALSE(p.commands.empty());
    EXPECT_EQ(p.commands.back().opcode, Opcode::End);
    for (size_t i = 0; i + 1 < p.commands.size(); ++i)
      EXPECT_NE(p.commands[i].opcode, Opcode::End) << "End before the last command, at " << i;
    for (size_t i = 0; i < p.commands.size(); ++i) {
      check_operands(p.commands[i], "command " + std::to_string(i));
      if (p.commands[i].tag != kNoTag) { EXPECT_LT(p.commands[i].tag, p.ops.size()) << i; }
    }
    for (const auto& s : p.segments) EXPECT_LT(s.address + s.bytes.size(), kSpmBase);
    const photon_test::QueueRunResult run = photon_test::run_queue_semantics(p);
    EXPECT_EQ(run.blocked_at, -1) << "semaphore deadlock";
    for (const auto& [id, count] : run.sems) EXPECT_EQ(count, 0) << "semaphore " << id << " left set";
    EXPECT_EQ(assemble(disassemble(p), "again"), p);
  }
  EXPECT_TRUE(has_double_buffer);
}

TEST(PcsExamples, TogetherCoverEveryCommand) {
  std::set<Opcode> opcodes;
  std::set<uint8_t> ntt_ops, vec_ops;
  uint8_t gemm_flags = 0;
  bool dma1 = false, dma2 = false, dma3 = false;
  for (const auto& f : example_files())
    for (const auto& c : assemble_file(f.string()).commands) {
      opcodes.insert(c.opcode);
      if (const auto* d = std::get_if<DmaCopy>(&c.body)) {
        dma1 |= d->n1 == 1 && d->n2 == 1;
        dma2 |= d->n1 > 1 && d->n2 == 1;
        dma3 |= d->n2 > 1;
      }
      if (const auto* g = std::get_if<Gemm>(&c.body)) gemm_flags |= g->flags;
      if (const auto* n = std::get_if<Ntt>(&c.body)) ntt_ops.insert(n->op);
      if (const auto* v = std::get_if<Vector>(&c.body)) vec_ops.insert(v->op);
    }
  EXPECT_EQ(opcodes.size(), 8u);
  EXPECT_EQ(ntt_ops.size(), 8u);
  EXPECT_EQ(vec_ops.size(), test_support::all_vector_ops().size());
  EXPECT_EQ(gemm_flags, detail::kGemmFlagMask);
  EXPECT_TRUE(dma1 && dma2 && dma3);
}

TEST(PcsExamples, DeadlockCheckerFindsADeadlock) {
  // The oracle above must be able to fail: a Wait nobody signals blocks the End.
  const Program p = assemble("wait queue=gemm sem=1\ngemm\nend\n", "t");
  EXPECT_EQ(photon_test::run_queue_semantics(p).blocked_at, 2);
}

}  // namespace
}  // namespace photon::pcs
