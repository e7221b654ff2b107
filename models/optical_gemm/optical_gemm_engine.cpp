#include "models/optical_gemm/optical_gemm_engine.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "models/optical_gemm/optical_numerics.h"

namespace photon {

namespace {

constexpr uint8_t kKnownFlags = pcs::Gemm::kAccumulate | pcs::Gemm::kTransposeA | pcs::Gemm::kTransposeB |
                                pcs::Gemm::kReuseWeights | pcs::Gemm::kBias;

[[noreturn]] void decode_fault(const std::string& what) {
  throw UnitFault(UnitErrorCode::DECODE, what);  // the shell names the unit
}

// Bytes spanned by `rows` rows of `row_len` fp32 elements `ld` elements apart; saturates
// (so that an overflowing range fails MemView::check).
uint64_t span_bytes(uint64_t rows, uint64_t ld, uint64_t row_len) {
  const unsigned __int128 e = static_cast<unsigned __int128>(rows - 1) * ld + row_len;
  const unsigned __int128 b = e * 4u;
  const uint64_t max = std::numeric_limits<uint64_t>::max() / 2;
  return b > max ? max : static_cast<uint64_t>(b);
}

// Copies `rows` rows of `row_len` floats at byte offset `off` (stride ld elements) into dst,
// laid out so that row r, element q lands at dst[r * dst_row + q * dst_col].
void gather(const MemView& spm, uint64_t off, uint32_t rows, uint32_t ld, uint32_t row_len, float* dst,
            size_t dst_row, size_t dst_col) {
  std::vector<float> row(row_len);
  for (uint32_t r = 0; r < rows; ++r) {
    std::memcpy(row.data(), spm.data + off + static_cast<uint64_t>(r) * ld * 4, row_len * 4ull);
    for (uint32_t q = 0; q < row_len; ++q) dst[r * dst_row + q * dst_col] = row[q];
  }
}

}  // namespace

OpticalGemmEngine::OpticalGemmEngine(const OpticalGemmConfig& cfg) : cfg_(cfg) {
  if (cfg_.rows == 0 || cfg_.cols == 0 || cfg_.wavelengths == 0)
    throw Error("optical_gemm: rows, cols and wavelengths must be positive");
  if (!(cfg_.modulation_ghz > 0) || !(cfg_.clock_ghz > 0))
    throw Error("optical_gemm: modulation_ghz and clock_ghz must be positive");
  physical_ = cfg_.numerics == Numerics::Physical;
}

IssueResult OpticalGemmEngine::issue(const pcs::Command& cmd, uint64_t now_cycle, const MemView& spm) {
  const auto* gp = std::get_if<pcs::Gemm>(&cmd.body);
  if (cmd.opcode != pcs::Opcode::Gemm || !gp) decode_fault("command is not a GEMM");
  const pcs::Gemm& g = *gp;
  if (g.flags & ~kKnownFlags) decode_fault("unknown flag bits 0x" + std::to_string(g.flags));
  if (g.m == 0 || g.n == 0 || g.k == 0)
    decode_fault("zero size m=" + std::to_string(g.m) + " n=" + std::to_string(g.n) +
                 " k=" + std::to_string(g.k));
  const bool ta = g.flags & pcs::Gemm::kTransposeA, tb = g.flags & pcs::Gemm::kTransposeB;
  const bool acc = g.flags & pcs::Gemm::kAccumulate, bias = g.flags & pcs::Gemm::kBias;
  // Stored shapes (rows x row length).
  const uint32_t a_rows = ta ? g.k : g.m, a_len = ta ? g.m : g.k;
  const uint32_t b_rows = tb ? g.n : g.k, b_len = tb ? g.k : g.n;
  if (g.lda < a_len)
    decode_fault("lda " + std::to_string(g.lda) + " < A row length " + std::to_string(a_len));
  if (g.ldb < b_len)
    decode_fault("ldb " + std::to_string(g.ldb) + " < B row length " + std::to_string(b_len));
  if (g.ldc < g.n) decode_fault("ldc " + std::to_string(g.ldc) + " < n " + std::to_string(g.n));

  if (spm.data || spm.size) {
    spm.check(g.a, span_bytes(a_rows, g.lda, a_len), "gemm A");
    spm.check(g.b, span_bytes(b_rows, g.ldb, b_len), "gemm B");
    spm.check(g.c, span_bytes(g.m, g.ldc, g.n), "gemm C");
    if (bias) spm.check(g.bias, 4ull * g.n, "gemm bias");
  }

  const OpticalGemmCost cost = optical_gemm_cost(cfg_, g);
  const uint64_t m = g.m, n = g.n, k = g.k;

  if (spm.data) {
    // Dense copies: a (m x k); B as bt (n x k) for the physical model, as b (k x n) for the
    // ideal one; c (m x n) holding the initial accumulator.
    std::vector<float> a(m * k), bd(n * k), c(m * n, 0.0f);
    if (ta)
      gather(spm, g.a, g.k, g.lda, g.m, a.data(), 1, k);
    else
      gather(spm, g.a, g.m, g.lda, g.k, a.data(), k, 1);
    const size_t j_stride = physical_ ? k : 1, p_stride = physical_ ? 1 : n;  // B(p, j) index
    if (tb)
      gather(spm, g.b, g.n, g.ldb, g.k, bd.data(), j_stride, p_stride);
    else
      gather(spm, g.b, g.k, g.ldb, g.n, bd.data(), p_stride, j_stride);
    if (acc) gather(spm, g.c, g.m, g.ldc, g.n, c.data(), n, 1);
    if (physical_) {
      optical::PhysicalParams p;
      p.rows = cfg_.rows;
      p.cols = cfg_.cols;
      p.dac_bits = cfg_.dac_bits;
      p.weight_bits = cfg_.weight_bits;
      p.adc_bits = cfg_.adc_bits;
      p.noise_std = cfg_.noise_std;
      p.seed = cfg_.seed;
      optical::matmul_physical(a.data(), bd.data(), c.data(), g.m, g.n, g.k, p, commands_);
    } else {
      optical::matmul_ideal(a.data(), bd.data(), c.data(), g.m, g.n, g.k);
    }
    if (bias) {
      std::vector<float> bv(n);
      std::memcpy(bv.data(), spm.data + g.bias, n * 4);
      for (uint64_t i = 0; i < m; ++i)
        for (uint64_t j = 0; j < n; ++j) c[i * n + j] += bv[j];
    }
    for (uint64_t i = 0; i < m; ++i) std::memcpy(spm.data + g.c + i * g.ldc * 4ull, c.data() + i * n, n * 4);
  }

  ++commands_;
  macs_ += cost.macs;
  weight_tiles_ += cost.tiles;
  weight_programs_ += cost.programs;
  symbols_ += cost.symbols;
  adc_conversions_ += cost.adc_conversions;

  IssueResult r;
  const uint64_t start = std::max(now_cycle, next_free_cycle_);
  r.done_cycle = start + cost.cycles;
  r.accept_cycle = r.done_cycle;
  next_free_cycle_ = r.done_cycle;
  r.energy_pj = cost.energy_pj;
  r.spm_bytes_read = 4 * (m * k * cost.n_tiles + k * n + (bias ? n : 0) + (acc ? m * n : 0));
  r.spm_bytes_written = 4 * m * n;
  return r;
}

std::map<std::string, double> OpticalGemmEngine::counters() const {
  return {{"macs", double(macs_)},
          {"weight_tiles", double(weight_tiles_)},
          {"weight_programs", double(weight_programs_)},
          {"symbols", double(symbols_)},
          {"adc_conversions", double(adc_conversions_)},
          {"commands", double(commands_)}};
}

}  // namespace photon
