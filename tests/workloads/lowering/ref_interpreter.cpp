#include "ref_interpreter.h"

#include "tests/support/queue_semantics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <random>
#include <stdexcept>

namespace photon::testing {

using V = pcs::Vector;

RefMachine::RefMachine(const PlatformConfig& cfg, uint64_t hbm_bytes)
    : cfg_(cfg), hbm_(hbm_bytes, 0), spm_(cfg.scratchpad.size_bytes(), 0), sem_(cfg.cpu.semaphores, 0) {}

uint8_t* RefMachine::at(uint64_t addr, uint64_t bytes) {
  if (addr >= cfg_.noc.hbm_base && addr + bytes <= cfg_.noc.hbm_base + hbm_.size())
    return hbm_.data() + (addr - cfg_.noc.hbm_base);
  if (addr >= cfg_.noc.scratchpad_base && addr + bytes <= cfg_.noc.scratchpad_base + spm_.size())
    return spm_.data() + (addr - cfg_.noc.scratchpad_base);
  throw std::runtime_error("address out of range: " + std::to_string(addr) + " + " + std::to_string(bytes));
}

float* RefMachine::spm_f(uint32_t off, uint64_t n) {
  if (uint64_t(off) + n * 4 > spm_.size() || off % 4)
    throw std::runtime_error("scratchpad operand out of range: offset " + std::to_string(off));
  return reinterpret_cast<float*>(spm_.data() + off);
}

void RefMachine::load(const lowering::LoweringResult& r) {
  for (const auto& s : r.program.segments)
    std::memcpy(at(s.address, s.bytes.size()), s.bytes.data(), s.bytes.size());
  for (const auto& f : r.splat_fills) {
    float* p = reinterpret_cast<float*>(at(f.address, f.bytes));
    std::fill(p, p + f.bytes / 4, f.value);
  }
}

void RefMachine::write_f32(uint64_t addr, const std::vector<float>& v) {
  std::memcpy(at(addr, v.size() * 4), v.data(), v.size() * 4);
}

std::vector<float> RefMachine::read_f32(uint64_t addr, size_t n) {
  std::vector<float> v(n);
  std::memcpy(v.data(), at(addr, n * 4), n * 4);
  return v;
}

void RefMachine::dma(const pcs::DmaCopy& d) {
  for (uint32_t i2 = 0; i2 < d.n2; ++i2)
    for (uint32_t i1 = 0; i1 < d.n1; ++i1) {
      uint64_t s = d.src + uint64_t(i2) * d.src_stride2 + uint64_t(i1) * d.src_stride1;
      uint64_t t = d.dst + uint64_t(i2) * d.dst_stride2 + uint64_t(i1) * d.dst_stride1;
      std::memmove(at(t, d.inner_bytes), at(s, d.inner_bytes), d.inner_bytes);
    }
}

void RefMachine::gemm(const pcs::Gemm& g) {
  ++gemm_commands;
  const bool ta = g.flags & pcs::Gemm::kTransposeA, tb = g.flags & pcs::Gemm::kTransposeB;
  const float* A = spm_f(g.a, uint64_t(ta ? g.k * g.lda : g.m * g.lda));
  // Weight operand: programmed into the array unless reused.
  if (g.flags & pcs::Gemm::kReuseWeights) {
    ++reused_weights;
    if (!programmed_valid_ || prog_k_ != g.k || prog_n_ != g.n)
      throw std::runtime_error("kReuseWeights without a matching programmed tile");
  } else {
    const float* B = spm_f(g.b, uint64_t(tb ? g.n * g.ldb : g.k * g.ldb));
    programmed_.assign(uint64_t(g.k) * g.n, 0);
    for (uint32_t kk = 0; kk < g.k; ++kk)
      for (uint32_t nn = 0; nn < g.n; ++nn)
        programmed_[uint64_t(kk) * g.n + nn] =
            tb ? B[uint64_t(nn) * g.ldb + kk] : B[uint64_t(kk) * g.ldb + nn];
    prog_k_ = g.k;
    prog_n_ = g.n;
    programmed_valid_ = true;
  }
  float* C = spm_f(g.c, uint64_t(g.m) * g.ldc);
  const float* bias = (g.flags & pcs::Gemm::kBias) ? spm_f(g.bias, g.n) : nullptr;
  for (uint32_t i = 0; i < g.m; ++i)
    for (uint32_t j = 0; j < g.n; ++j) {
      double acc = 0;
      for (uint32_t kk = 0; kk < g.k; ++kk) {
        float a = ta ? A[uint64_t(kk) * g.lda + i] : A[uint64_t(i) * g.lda + kk];
        acc += double(a) * programmed_[uint64_t(kk) * g.n + j];
      }
      if (bias) acc += bias[j];
      float& c = C[uint64_t(i) * g.ldc + j];
      c = (g.flags & pcs::Gemm::kAccumulate) ? c + float(acc) : float(acc);
    }
}

static float unary(uint8_t op, float x) {
  switch (op) {
    case V::kCopy: return x;
    case V::kRelu: return x > 0 ? x : 0;
    case V::kGelu: return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f)));
    case V::kSilu: return x / (1.0f + std::exp(-x));
    case V::kSigmoid: return 1.0f / (1.0f + std::exp(-x));
    case V::kTanh: return std::tanh(x);
    case V::kErf: return std::erf(x);
    case V::kExp: return std::exp(x);
    case V::kSqrt: return std::sqrt(x);
    case V::kRecip: return 1.0f / x;
    case V::kNeg: return -x;
    case V::kAbs: return std::fabs(x);
  }
  throw std::runtime_error("bad unary op " + std::to_string(op));
}

static float binary(uint8_t op, float a, float b) {
  switch (op) {
    case V::kAdd: return a + b;
    case V::kSub: return a - b;
    case V::kMul: return a * b;
    case V::kDiv: return a / b;
    case V::kMax: return std::max(a, b);
    case V::kMin: return std::min(a, b);
    case V::kPow: return std::pow(a, b);
  }
  throw std::runtime_error("bad binary op " + std::to_string(op));
}

void RefMachine::vector(const pcs::Vector& v) {
  const uint32_t n = v.n;
  std::vector<float> x(spm_f(v.src0, n), spm_f(v.src0, n) + n);
  auto out = [&](uint64_t cnt) { return spm_f(v.dst, cnt); };
  if (v.op < 16) {
    float* d = out(n);
    for (uint32_t i = 0; i < n; ++i) d[i] = unary(v.op, x[i]);
  } else if (v.op < 32) {
    const uint32_t bi = std::max<uint32_t>(v.bcast_inner, 1), bl = std::max<uint32_t>(v.bcast_len, 1);
    std::vector<float> b(spm_f(v.src1, bl), spm_f(v.src1, bl) + bl);
    float* d = out(n);
    for (uint32_t i = 0; i < n; ++i) d[i] = binary(v.op, x[i], b[(i / bi) % bl]);
  } else if (v.op < 48) {
    float* d = out(n);
    for (uint32_t i = 0; i < n; ++i) {
      float a = x[i];
      switch (v.op) {
        case V::kAddScalar: d[i] = a + v.imm0; break;
        case V::kMulScalar: d[i] = a * v.imm0; break;
        case V::kClip: d[i] = std::min(std::max(a, v.imm0), v.imm1); break;
        case V::kLeakyRelu: d[i] = a < 0 ? v.imm0 * a : a; break;
        case V::kPowScalar: d[i] = std::pow(a, v.imm0); break;
        default: throw std::runtime_error("bad scalar op");
      }
    }
  } else if (v.op < 64) {
    const uint32_t in = v.inner, rows = n / in;
    if (in == 0 || n % in) throw std::runtime_error("row op: n not a multiple of inner");
    const bool reduce = v.op >= V::kReduceSum;
    float* d = out(reduce ? rows : n);
    std::vector<float> gm, bt;
    if (v.op == V::kLayerNorm) {
      gm.assign(spm_f(v.src1, in), spm_f(v.src1, in) + in);
      bt.assign(spm_f(v.src2, in), spm_f(v.src2, in) + in);
    }
    for (uint32_t r = 0; r < rows; ++r) {
      const float* row = x.data() + uint64_t(r) * in;
      if (v.op == V::kSoftmax) {
        float mx = *std::max_element(row, row + in);
        double s = 0;
        for (uint32_t j = 0; j < in; ++j) s += std::exp(row[j] - mx);
        for (uint32_t j = 0; j < in; ++j) d[uint64_t(r) * in + j] = float(std::exp(row[j] - mx) / s);
      } else if (v.op == V::kLayerNorm) {
        double m = 0, var = 0;
        for (uint32_t j = 0; j < in; ++j) m += row[j];
        m /= in;
        for (uint32_t j = 0; j < in; ++j) var += (row[j] - m) * (row[j] - m);
        var /= in;
        for (uint32_t j = 0; j < in; ++j)
          d[uint64_t(r) * in + j] = float((row[j] - m) / std::sqrt(var + v.imm0)) * gm[j] + bt[j];
      } else {
        double s = 0, mx = -std::numeric_limits<double>::infinity();
        for (uint32_t j = 0; j < in; ++j) {
          s += row[j];
          mx = std::max<double>(mx, row[j]);
        }
        d[r] = float(v.op == V::kReduceSum ? s : v.op == V::kReduceMean ? s / in : mx);
      }
    }
  } else if (v.op == V::kMaxPool || v.op == V::kAvgPool || v.op == V::kIm2col) {
    const uint32_t hw = uint32_t(v.h) * v.w;
    const uint32_t C = hw ? n / hw : 0;
    const uint32_t ohw = uint32_t(v.oh) * v.ow;
    if (v.op == V::kIm2col) {
      float* d = out(uint64_t(C) * v.kh * v.kw * ohw);
      for (uint32_t c = 0; c < C; ++c)
        for (uint32_t ki = 0; ki < v.kh; ++ki)
          for (uint32_t kj = 0; kj < v.kw; ++kj)
            for (uint32_t oy = 0; oy < v.oh; ++oy)
              for (uint32_t ox = 0; ox < v.ow; ++ox) {
                int64_t iy = int64_t(oy) * v.sh - v.pad_top + int64_t(ki) * v.dilation_h();
                int64_t ix = int64_t(ox) * v.sw - v.pad_left + int64_t(kj) * v.dilation_w();
                float val =
                    (iy >= 0 && iy < v.h && ix >= 0 && ix < v.w) ? x[uint64_t(c) * hw + iy * v.w + ix] : 0.0f;
                d[((uint64_t(c) * v.kh + ki) * v.kw + kj) * ohw + uint64_t(oy) * v.ow + ox] = val;
              }
      // A band with no input rows (h = 0) still produces C = n / (h*w) = 0 channels; the lowering
      // never emits that.
    } else {
      float* d = out(uint64_t(C) * ohw);
      for (uint32_t c = 0; c < C; ++c)
        for (uint32_t oy = 0; oy < v.oh; ++oy)
          for (uint32_t ox = 0; ox < v.ow; ++ox) {
            double acc = v.op == V::kMaxPool ? -std::numeric_limits<double>::infinity() : 0;
            int cnt = 0;
            for (uint32_t ki = 0; ki < v.kh; ++ki)
              for (uint32_t kj = 0; kj < v.kw; ++kj) {
                int64_t iy = int64_t(oy) * v.sh - v.pad_top + ki, ix = int64_t(ox) * v.sw - v.pad_left + kj;
                if (iy < 0 || iy >= v.h || ix < 0 || ix >= v.w) continue;
                float val = x[uint64_t(c) * hw + iy * v.w + ix];
                acc = v.op == V::kMaxPool ? std::max<double>(acc, val) : acc + val;
                ++cnt;
              }
            if (v.op == V::kAvgPool) acc /= v.count_include_pad ? double(v.kh) * v.kw : std::max(cnt, 1);
            d[uint64_t(c) * ohw + uint64_t(oy) * v.ow + ox] = float(acc);
          }
    }
  } else if (v.op == V::kTranspose) {
    const uint32_t in = v.inner, rows = n / in;
    float* d = out(n);
    for (uint32_t i = 0; i < rows; ++i)
      for (uint32_t j = 0; j < in; ++j) d[uint64_t(j) * rows + i] = x[uint64_t(i) * in + j];
  } else {
    throw std::runtime_error("bad vector op " + std::to_string(v.op));
  }
}

void RefMachine::exec(const pcs::Command& c) {
  switch (c.opcode) {
    case pcs::Opcode::DmaCopy: dma(std::get<pcs::DmaCopy>(c.body)); break;
    case pcs::Opcode::Gemm: gemm(std::get<pcs::Gemm>(c.body)); break;
    case pcs::Opcode::Vector: vector(std::get<pcs::Vector>(c.body)); break;
    case pcs::Opcode::Signal: {
      const auto& s = std::get<pcs::Sync>(c.body);
      sem_.at(s.sem) += 1;
      break;
    }
    case pcs::Opcode::Wait: {
      const auto& s = std::get<pcs::Sync>(c.body);
      if (sem_.at(s.sem) <= 0)
        throw std::runtime_error("Wait on semaphore " + std::to_string(s.sem) + " at 0");
      sem_.at(s.sem) -= 1;
      break;
    }
    default: break;
  }
}

void RefMachine::run_in_order(const pcs::Program& p) {
  for (size_t i = 0; i < p.commands.size(); ++i) {
    try {
      exec(p.commands[i]);
    } catch (const std::out_of_range&) {
      throw std::runtime_error("command " + std::to_string(i) + ": semaphore id out of range");
    }
  }
}

void RefMachine::run_interleaved(const pcs::Program& p, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const auto& c : p.commands)
    if (const auto* s = std::get_if<pcs::Sync>(&c.body))
      if (s->sem >= sem_.size())
        throw std::runtime_error("semaphore id " + std::to_string(s->sem) + " out of range");
  const photon_test::QueueRunResult r = photon_test::run_queue_semantics(
      p, [&](size_t i) { exec(p.commands[i]); },
      [&](const std::vector<int>& ready) { return size_t(rng() % ready.size()); });
  if (r.blocked_at >= 0) throw std::runtime_error("deadlock: every queue blocked on a Wait");
  for (const auto& [sem, v] : r.sems) sem_.at(sem) = v;
  for (size_t s = 0; s < sem_.size(); ++s)
    if (sem_[s] != 0) throw std::runtime_error("semaphore " + std::to_string(s) + " not 0 at the end");
}

}  // namespace photon::testing
