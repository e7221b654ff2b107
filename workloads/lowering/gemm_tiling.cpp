// Tiling of a GEMM problem to the optical array and the scratchpad (gemm_core.h).
#include <cmath>

#include <fmt/format.h>

#include "workloads/lowering/gemm_core.h"

namespace photon::lowering {

namespace {

/// Bytes of one slot and of the whole arrangement for tile sizes t.
void size_tiling(const MmProblem& p, Tiling& t) {
  auto al = [](uint64_t b) { return align_up(b, kSpmAlign); };
  uint64_t slot = 0;
  if (p.conv) {
    t.mt = t.rows * p.cg.OW;
    t.kt = t.cc * p.cg.kh * p.cg.kw;
    slot += al(uint64_t(t.cc) * band_rows(p.cg, t.rows) * p.cg.W * 4);
  }
  if (!(p.conv && pointwise(p.cg))) slot += al(uint64_t(t.mt) * t.kt * 4);
  if (!t.resident) slot += al(uint64_t(t.kt) * t.nt * 4) + (p.has_bias ? al(t.nt * 4) : 0);
  if (p.has_cadd) slot += al(uint64_t(t.mt) * t.nt * 4);
  if (p.y_trans) slot += al(uint64_t(t.mt) * t.nt * 4);
  uint64_t total = 2 * slot + 2 * al(uint64_t(t.mt) * t.nt * 4);
  if (t.resident) total += 2 * (al(uint64_t(p.K) * p.N * 4) + (p.has_bias ? al(p.N * 4) : 0));
  t.slot_bytes = slot;
  t.total_bytes = total;
}

}  // namespace

Tiling choose_tiling(Ctx& c, const MmProblem& p) {
  const auto& oc = c.cfg.optical_gemm;
  const uint64_t cap = c.spm_bytes;
  Tiling t;
  t.resident = 2 * uint64_t(p.K) * p.N * 4 <= cap / 4;
  t.nt = p.N;
  if (p.conv) {
    t.rows = p.cg.OH;
    t.cc = p.cg.C;
  } else {
    t.mt = p.M;
    t.kt = p.K;
  }
  auto fits = [&]() {
    size_tiling(p, t);
    return t.total_bytes <= cap;
  };
  auto round_to = [](int64_t v, int64_t q) { return v > q ? v / q * q : v; };
  // 1. Shrink M down to m_min rows: the rows whose streaming time equals one weight programming
  //    (ceil(m / wavelengths) / modulation_ghz >= weight_program_ns), at least 256, so programming
  //    stays at most about half of the engine time.
  const int64_t m_min = std::max<int64_t>(
      256, static_cast<int64_t>(std::ceil(oc.weight_program_ns * oc.modulation_ghz * oc.wavelengths)));
  while (!fits()) {
    if (p.conv) {
      if ((t.rows + 1) / 2 * p.cg.OW < m_min || t.rows == 1) break;
      t.rows = (t.rows + 1) / 2;
    } else {
      if ((t.mt + 1) / 2 < m_min) break;
      t.mt = round_to((t.mt + 1) / 2, oc.wavelengths);
    }
  }
  // 2. Drop weight residency. 3. Halve N and K, the larger relative to the array first, down to the
  //    array's rows and columns (conv: whole input channels).
  if (!fits() && t.resident) t.resident = false;
  while (!fits()) {
    const int64_t kcur = p.conv ? t.cc * p.cg.kh * p.cg.kw : t.kt;
    const bool n_ok = t.nt > int64_t(oc.rows);
    const bool k_ok = p.conv ? (kcur > int64_t(oc.cols) && t.cc > 1) : t.kt > int64_t(oc.cols);
    if (!n_ok && !k_ok) break;
    if (n_ok && (!k_ok || t.nt * int64_t(oc.cols) >= kcur * int64_t(oc.rows))) {
      t.nt = round_to((t.nt + 1) / 2, oc.rows);
    } else if (p.conv) {
      t.cc = (t.cc + 1) / 2;
    } else {
      t.kt = round_to((t.kt + 1) / 2, oc.cols);
    }
  }
  // 4. Then everything down to 1.
  while (!fits()) {
    bool changed = false;
    if (p.conv ? t.rows > 1 : t.mt > 1) {
      if (p.conv)
        t.rows = (t.rows + 1) / 2;
      else
        t.mt = (t.mt + 1) / 2;
      changed = true;
    } else if (t.nt > 1) {
      t.nt = (t.nt + 1) / 2;
      changed = true;
    } else if (p.conv ? t.cc > 1 : t.kt > 1) {
      if (p.conv)
        t.cc = (t.cc + 1) / 2;
      else
        t.kt = (t.kt + 1) / 2;
      changed = true;
    }
    if (!changed) {
      c.fail(fmt::format("cannot tile into the scratchpad ({} bytes): one minimal tile needs {} bytes", cap,
                         t.total_bytes));
    }
  }
  return t;
}

Layout make_layout(Ctx& c, const MmProblem& p, const Tiling& t) {
  SpmArena ar(c.spm_bytes);
  Layout L;
  const std::string w = c.node->name;
  for (int s = 0; s < 2; ++s) {
    uint32_t base = static_cast<uint32_t>(ar.used());
    L.slot[s] = base;
    if (p.conv) {
      uint32_t o = ar.alloc(uint64_t(t.cc) * band_rows(p.cg, t.rows) * p.cg.W * 4, w + " input band");
      if (s == 0) L.a_in = o - base;
    }
    uint32_t o = 0;
    if (!(p.conv && pointwise(p.cg))) {
      o = ar.alloc(uint64_t(t.mt) * t.kt * 4, w + " A tile");
      if (s == 0) L.a = o - base;
    }
    if (!t.resident) {
      o = ar.alloc(uint64_t(t.kt) * t.nt * 4, w + " B tile");
      if (s == 0) L.b = o - base;
      if (p.has_bias) {
        o = ar.alloc(t.nt * 4, w + " bias");
        if (s == 0) L.bias = o - base;
      }
    }
    if (p.has_cadd) {
      o = ar.alloc(uint64_t(t.mt) * t.nt * 4, w + " C tile");
      if (s == 0) L.cadd = o - base;
    }
    if (p.y_trans) {
      o = ar.alloc(uint64_t(t.mt) * t.nt * 4, w + " transposed output");
      if (s == 0) L.tout = o - base;
    }
  }
  for (int s = 0; s < 2; ++s) L.acc[s] = ar.alloc(uint64_t(t.mt) * t.nt * 4, w + " accumulator");
  if (t.resident) {
    L.res_b_bytes = align_up(uint64_t(p.K) * p.N * 4, kSpmAlign);
    for (int s = 0; s < 2; ++s) {
      L.res[s] = ar.alloc(uint64_t(p.K) * p.N * 4, w + " resident weights");
      if (p.has_bias) ar.alloc(p.N * 4, w + " resident bias");
    }
  }
  return L;
}

}  // namespace photon::lowering
