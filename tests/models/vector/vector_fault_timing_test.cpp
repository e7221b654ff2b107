// Faults (decode and address; nothing written) and the timing/energy formulas of vector_plan.h
// evaluated by hand for known commands.
#include <gtest/gtest.h>

#include "models/vector/vector_plan.h"
#include "tests/models/vector/vector_test_util.h"

namespace photon {
namespace {

using V = pcs::Vector;
using test::VecSpm;

V ok_add() {
  V v;
  v.op = V::kAdd;
  v.n = 16;
  v.src0 = 0;
  v.src1 = 64;
  v.dst = 128;
  v.bcast_len = 16;
  return v;
}

void expect_fault(const pcs::Command& cmd, UnitErrorCode code) {
  VectorEngine eng{VectorConfig{}};
  VecSpm s(256);
  const VecSpm before = s;
  try {
    eng.issue(cmd, 0, s.view());
    ADD_FAILURE() << "no fault";
  } catch (const UnitFault& f) { EXPECT_EQ(f.code(), code) << f.what(); }
  EXPECT_EQ(s.bytes, before.bytes) << "memory written on a fault";
  EXPECT_EQ(eng.counters().at("commands"), 0);
}

template <typename F>
void bad(F mutate, UnitErrorCode code) {
  V v = ok_add();
  mutate(v);
  expect_fault(test::vec_cmd(v), code);
}

TEST(VectorFaults, DecodeFaults) {
  const auto D = UnitErrorCode::DECODE;
  bad([](V& v) { v.n = 0; }, D);
  bad([](V& v) { v.op = 15; }, D);
  bad([](V& v) { v.op = 200; }, D);
  bad([](V& v) { v.bcast_len = 0; }, D);
  bad([](V& v) { v.bcast_inner = 0; }, D);
  bad(
      [](V& v) {
        v.op = V::kSoftmax;
        v.inner = 5;
      },
      D);  // 16 % 5 != 0
  bad(
      [](V& v) {
        v.op = V::kLayerNorm;
        v.inner = 0;
      },
      D);
  bad(
      [](V& v) {
        v.op = V::kTranspose;
        v.inner = 3;
      },
      D);
  auto pool = [](V& v) {
    v.op = V::kMaxPool;
    v.h = 4;
    v.w = 4;
    v.oh = 2;
    v.ow = 2;
    v.kh = 2;
    v.kw = 2;
    v.sh = 2;
    v.sw = 2;
    v.dst = 128;
  };
  bad(
      [&](V& v) {
        pool(v);
        v.kh = 0;
      },
      D);
  bad(
      [&](V& v) {
        pool(v);
        v.sh = 0;
      },
      D);
  bad(
      [&](V& v) {
        pool(v);
        v.w = 5;
      },
      D);  // 16 % 20 != 0
  bad(
      [&](V& v) {
        pool(v);
        v.pad_top = 2;
      },
      D);  // pad >= kernel
  bad(
      [&](V& v) {
        pool(v);
        v.oh = 3;
      },
      D);  // third window starts at row 4
  bad(
      [&](V& v) {
        pool(v);
        v.op = V::kIm2col;
        v.ow = 0;
      },
      D);
  pcs::Command wrong;
  wrong.opcode = pcs::Opcode::Gemm;
  wrong.body = pcs::Gemm{};
  expect_fault(wrong, D);
}

TEST(VectorFaults, AddressFaultsWriteNothing) {
  const auto A = UnitErrorCode::ADDRESS;
  bad([](V& v) { v.dst = 200; }, A);  // 200 + 64 > 256
  bad([](V& v) { v.src0 = 0xFFFFFFFCu; }, A);
  bad([](V& v) { v.bcast_len = 64; }, A);  // src1 64 + 256 bytes
  bad(
      [](V& v) {
        v.op = V::kLayerNorm;
        v.inner = 16;
        v.src1 = 0;
        v.src2 = 240;
      },
      A);  // beta
  bad(
      [](V& v) {
        v.op = V::kIm2col;
        v.h = 4;
        v.w = 4;
        v.oh = 4;
        v.ow = 4;
        v.kh = 3;
        v.kw = 3;
        v.pad_top = 1;
        v.pad_left = 1;
        v.dst = 64;
      },
      A);  // 144 floats of output
  // The same Add in range works, and a reduce's dst is only n/inner long.
  V r = ok_add();
  r.op = V::kReduceSum;
  r.inner = 16;
  r.dst = 252;
  VectorEngine eng{VectorConfig{}};
  VecSpm s(256);
  EXPECT_NO_THROW(eng.issue(test::vec_cmd(r), 0, s.view()));
}

// Default config: lanes 64, pipeline_depth 8, transcendental_cycles 4, 0.5 pJ per element op.
TEST(VectorTiming, KnownCommands) {
  const VectorConfig cfg;
  V v;
  v.n = 1000;
  v.op = V::kGelu;
  VectorPlan p = vector_plan(cfg, v);
  EXPECT_EQ(p.cycles, 16u * 4 + 8);  // ceil(1000/64) = 16 groups x 4 cycles + fill
  EXPECT_DOUBLE_EQ(p.energy_pj, 0.5 * 1000 * 4);
  v.op = V::kAdd;
  p = vector_plan(cfg, v);
  EXPECT_EQ(p.cycles, 16u + 8);
  EXPECT_DOUBLE_EQ(p.energy_pj, 500);
  v.op = V::kSoftmax;
  v.inner = 100;  // 10 rows
  p = vector_plan(cfg, v);
  EXPECT_EQ(p.cycles, 16u + 16 * 4 + 16 + 1 + 8);
  EXPECT_DOUBLE_EQ(p.energy_pj, 0.5 * (1000 + 4000 + 1000 + 10));
  v.op = V::kLayerNorm;
  p = vector_plan(cfg, v);
  EXPECT_EQ(p.cycles, 4u * 16 + 1 * 4 + 8);
  v.op = V::kReduceMean;
  p = vector_plan(cfg, v);
  EXPECT_EQ(p.cycles, 16u + 1 + 8);
  EXPECT_EQ(p.dst_bytes, 40u);
  V pool;
  pool.op = V::kMaxPool;
  pool.n = 3 * 7 * 6;
  pool.h = 7;
  pool.w = 6;
  pool.oh = 4;
  pool.ow = 3;
  pool.kh = 3;
  pool.kw = 3;
  pool.sh = 2;
  pool.sw = 2;
  pool.pad_top = 1;
  pool.pad_left = 1;
  p = vector_plan(cfg, pool);
  EXPECT_EQ(p.cycles, 6u + 8);  // 36 outputs x 9 = 324 window elements -> 6 groups
  pool.op = V::kAvgPool;
  EXPECT_EQ(vector_plan(cfg, pool).cycles, 6u + 1 + 8);
  pool.op = V::kIm2col;
  p = vector_plan(cfg, pool);
  EXPECT_EQ(p.dst_bytes, 4u * 3 * 9 * 12);
  EXPECT_EQ(p.cycles, 6u + 8);  // 324 outputs
}

TEST(VectorTiming, EngineTimingOnlyAndBackToBack) {
  VectorEngine eng{VectorConfig{}};
  V v;
  v.op = V::kExp;
  v.n = 4000000000u;  // timing-only: no per-element work
  const IssueResult r = eng.issue(test::vec_cmd(v), 5, MemView{});
  EXPECT_EQ(r.done_cycle, 5 + 62500000ull * 4 + 8);
  EXPECT_EQ(r.accept_cycle, r.done_cycle);
  EXPECT_EQ(r.spm_bytes_read, 16000000000ull);
  const IssueResult r2 = eng.issue(test::vec_cmd(v), 6, MemView{});
  EXPECT_EQ(r2.done_cycle, r.done_cycle + 62500000ull * 4 + 8);
  EXPECT_EQ(eng.counters().at("elements"), 8e9);
}

}  // namespace
}  // namespace photon
