#include "lowering_harness.h"

#include <cmath>
#include <stdexcept>

#include "ref_interpreter.h"

namespace photon::testing {

std::map<std::string, std::vector<float>> run_graph(const GraphBuilder& b, const PlatformConfig& cfg,
                                                    lowering::LoweringResult* out, bool interleaved,
                                                    uint64_t seed) {
  lowering::LoweringResult r = lowering::lower_graph(b.g, cfg);
  RefMachine m(cfg, r.hbm_bytes + 4096);
  m.load(r);
  for (const auto& [name, data] : b.inputs) m.write_f32(r.tensor_address.at(name), data);
  if (interleaved)
    m.run_interleaved(r.program, seed);
  else
    m.run_in_order(r.program);
  std::map<std::string, std::vector<float>> res;
  for (const auto& o : b.g.outputs) res[o] = m.read_f32(r.tensor_address.at(o), b.g.tensors.at(o).numel());
  if (out) *out = std::move(r);
  return res;
}

PlatformConfig small_config() {
  PlatformConfig c;
  c.scratchpad.size_kib = 64;
  c.optical_gemm.rows = 8;
  c.optical_gemm.cols = 8;
  c.optical_gemm.wavelengths = 4;
  return c;
}

std::vector<float> ref_conv(const std::vector<float>& x, const std::vector<int64_t>& xs,
                            const std::vector<float>& w, const std::vector<int64_t>& ws,
                            const std::vector<float>* bias, int64_t group, int64_t stride, int64_t pad,
                            std::vector<int64_t>& ys) {
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], M = ws[0], Cg = ws[1], KH = ws[2], KW = ws[3];
  const int64_t OH = (H + 2 * pad - KH) / stride + 1, OW = (W + 2 * pad - KW) / stride + 1;
  ys = {N, M, OH, OW};
  std::vector<float> y(N * M * OH * OW);
  const int64_t Mg = M / group;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      const int64_t g = m / Mg;
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          double acc = bias ? (*bias)[m] : 0.0;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t ki = 0; ki < KH; ++ki)
              for (int64_t kj = 0; kj < KW; ++kj) {
                int64_t iy = oy * stride - pad + ki, ix = ox * stride - pad + kj;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                acc += double(x[((n * C + g * Cg + c) * H + iy) * W + ix]) *
                       w[((m * Cg + c) * KH + ki) * KW + kj];
              }
          y[((n * M + m) * OH + oy) * OW + ox] = float(acc);
        }
    }
  (void)C;
  return y;
}

static std::vector<int64_t> strides(const std::vector<int64_t>& s) {
  std::vector<int64_t> r(s.size(), 1);
  for (int i = int(s.size()) - 2; i >= 0; --i) r[i] = r[i + 1] * s[i + 1];
  return r;
}

std::vector<float> ref_matmul(const std::vector<float>& a, std::vector<int64_t> as,
                              const std::vector<float>& b, std::vector<int64_t> bs,
                              std::vector<int64_t>& ys) {
  const size_t r = std::max(as.size(), bs.size());
  while (as.size() < r) as.insert(as.begin(), 1);
  while (bs.size() < r) bs.insert(bs.begin(), 1);
  const int64_t M = as[r - 2], K = as[r - 1], N = bs[r - 1];
  ys.assign(r, 1);
  for (size_t i = 0; i + 2 < r; ++i) ys[i] = std::max(as[i], bs[i]);
  ys[r - 2] = M;
  ys[r - 1] = N;
  std::vector<float> y(GraphBuilder::numel(ys));
  auto ast = strides(as), bst = strides(bs), yst = strides(ys);
  const int64_t batches = GraphBuilder::numel(ys) / (M * N);
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t ao = 0, bo = 0, rem = bi;
    for (int i = int(r) - 3; i >= 0; --i) {
      int64_t idx = rem % ys[i];
      rem /= ys[i];
      ao += (as[i] == 1 ? 0 : idx) * ast[i];
      bo += (bs[i] == 1 ? 0 : idx) * bst[i];
    }
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += double(a[ao + m * K + k]) * b[bo + k * N + n];
        y[bi * M * N + m * N + n] = float(acc);
      }
  }
  return y;
}

std::vector<float> ref_broadcast(const std::vector<float>& a, std::vector<int64_t> as,
                                 const std::vector<float>& b, std::vector<int64_t> bs, char op,
                                 std::vector<int64_t>& ys) {
  const size_t r = std::max(as.size(), bs.size());
  while (as.size() < r) as.insert(as.begin(), 1);
  while (bs.size() < r) bs.insert(bs.begin(), 1);
  ys.assign(r, 1);
  for (size_t i = 0; i < r; ++i) ys[i] = std::max(as[i], bs[i]);
  auto ast = strides(as), bst = strides(bs);
  std::vector<float> y(GraphBuilder::numel(ys));
  for (int64_t f = 0; f < int64_t(y.size()); ++f) {
    int64_t rem = f, ao = 0, bo = 0;
    for (int i = int(r) - 1; i >= 0; --i) {
      int64_t idx = rem % ys[i];
      rem /= ys[i];
      ao += (as[i] == 1 ? 0 : idx) * ast[i];
      bo += (bs[i] == 1 ? 0 : idx) * bst[i];
    }
    float x = a[ao], z = b[bo];
    switch (op) {
      case '+': y[f] = x + z; break;
      case '-': y[f] = x - z; break;
      case '*': y[f] = x * z; break;
      case '/': y[f] = x / z; break;
      case '^': y[f] = std::pow(x, z); break;
      case 'M': y[f] = std::max(x, z); break;
      case 'm': y[f] = std::min(x, z); break;
      default: throw std::runtime_error("bad op");
    }
  }
  return y;
}

}  // namespace photon::testing
