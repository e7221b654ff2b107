// Closed-form work of each FheOp (docs/fhe.md derives every line) and the bootstrap sequence.
#include <algorithm>

#include "base/error.h"
#include "workloads/fhe/fhe_lowering.h"

namespace photon {

FheOpCounts& FheOpCounts::operator+=(const FheOpCounts& o) {
  ntt += o.ntt;
  bconv_macs += o.bconv_macs;
  modmuls += o.modmuls;
  modadds += o.modadds;
  automorph_elems += o.automorph_elems;
  key_switches += o.key_switches;
  keys += o.keys;
  key_bytes += o.key_bytes;
  hbm_bytes += o.hbm_bytes;
  return *this;
}

uint32_t fhe_digits(const FheOp& op) { return (op.level + 1 + op.alpha - 1) / op.alpha; }

uint64_t fhe_key_bytes(const FheOp& op, const FheConfig& fc) {
  const uint64_t n = uint64_t(1) << op.log_n;
  return 2ull * op.dnum * (op.max_level + 1ull + op.alpha) * n * fc.word_bytes;
}

uint32_t rotation_galois(int64_t r, uint32_t log_n) {
  const int64_t slots = int64_t(1) << (log_n - 1);  // N/2: the order of 5 mod 2N
  int64_t e = r % slots;
  if (e < 0) e += slots;
  uint64_t g = 1;
  const uint64_t m = uint64_t(2) << log_n;
  for (int64_t i = 0; i < e; ++i) g = g * 5 % m;
  return uint32_t(g);
}

bool fhe_rotation_is_identity(const FheOp& op) {
  return op.kind == FheOpKind::Rotate && op.log_n >= 1 && op.rotation % (int64_t(1) << (op.log_n - 1)) == 0;
}

namespace {

/// ModUp + inner product + ModDown up to the subtraction, and the P^-1 multiply (2 polys).
FheOpCounts key_switch_core(uint64_t K, uint64_t A, uint64_t beta, uint64_t N) {
  uint64_t sumsq = 0;
  for (uint64_t j = 0; j < beta; ++j) {
    const uint64_t d = std::min(A, K - j * A);
    sumsq += d * d;
  }
  FheOpCounts c;
  c.ntt = beta * (K + A) + 2 * (A + K);
  c.bconv_macs = N * (K * (K + A) - sumsq) + 2 * A * K * N;
  c.modmuls = 2 * beta * (K + A) * N + 2 * K * N;
  c.modadds = 2 * (beta - 1) * (K + A) * N + 2 * K * N;
  c.key_switches = 1;
  return c;
}

}  // namespace

FheOp bootstrap_chain(FheOp op, const FheConfig& fc) {
  const uint32_t need = fc.bootstrap_cts_levels + fc.bootstrap_evalmod_levels + fc.bootstrap_stc_levels;
  if (op.max_level < need) {
    op.max_level = need;
    op.dnum = std::max(op.dnum, (need + op.alpha) / op.alpha);
  }
  return op;
}

std::vector<FheOp> bootstrap_sequence(const FheOp& in, const FheConfig& fc) {
  const FheOp op = bootstrap_chain(in, fc);
  const uint32_t L = op.max_level, c = fc.bootstrap_cts_levels, e = fc.bootstrap_evalmod_levels,
                 s = fc.bootstrap_stc_levels, r = fc.bootstrap_bsgs_rotations,
                 H = fc.bootstrap_evalmod_hmults;
  if (uint64_t(2) * (c + s) * r + 2 >= (uint64_t(1) << (op.log_n - 1)))
    throw Error("bootstrap: " + std::to_string((c + s) * r) + " rotations do not fit N/2 slots");
  std::vector<FheOp> seq;
  auto sub = [&](FheOpKind k, uint32_t level, const char* step, int64_t rot = 0) {
    FheOp o = op;
    o.kind = k;
    o.level = level;
    o.rotation = rot;
    o.count = 1;
    o.ct_degree = k == FheOpKind::Relinearize ? 2 : 1;
    o.name = std::string("bootstrap.") + step;
    seq.push_back(o);
  };
  sub(FheOpKind::ModRaise, op.level, "mod_raise");
  for (uint32_t i = 0; i < c; ++i) {  // CoeffToSlot: one BSGS linear-transform level each
    const uint32_t l = L - i;
    for (uint32_t j = 0; j < r; ++j) {
      sub(FheOpKind::Rotate, l, "coeff_to_slot", int64_t(1 + j + i * r));
      sub(FheOpKind::MulPlain, l, "coeff_to_slot");
      sub(FheOpKind::Add, l, "coeff_to_slot");
    }
    sub(FheOpKind::Rescale, l, "coeff_to_slot");
  }
  sub(FheOpKind::Conjugate, L - c, "conjugate");
  sub(FheOpKind::Add, L - c, "conjugate");
  for (uint32_t k = 0; k < e; ++k) {  // EvalMod
    const uint32_t l = L - c - k;
    const uint32_t mults = H / e + (k < H % e ? 1 : 0);
    for (uint32_t m = 0; m < mults; ++m) {
      sub(FheOpKind::Mul, l, "eval_mod");
      sub(FheOpKind::Relinearize, l, "eval_mod");
    }
    sub(FheOpKind::Rescale, l, "eval_mod");
  }
  for (uint32_t i = 0; i < s; ++i) {  // SlotToCoeff
    const uint32_t l = L - c - e - i;
    for (uint32_t j = 0; j < r; ++j) {
      sub(FheOpKind::Rotate, l, "slot_to_coeff", -int64_t(1 + j + i * r));
      sub(FheOpKind::MulPlain, l, "slot_to_coeff");
      sub(FheOpKind::Add, l, "slot_to_coeff");
    }
    sub(FheOpKind::Rescale, l, "slot_to_coeff");
  }
  return seq;
}

FheOpCounts count_fhe_op(const FheOp& op, const FheConfig& fc) {
  const uint64_t N = uint64_t(1) << op.log_n, K = op.level + 1ull, A = op.alpha, beta = fhe_digits(op);
  const uint64_t key = fhe_key_bytes(op, fc);
  FheOpCounts c;
  auto with_key = [&](FheOpCounts x, uint64_t keys) {
    x.keys = keys;
    x.key_bytes = x.hbm_bytes = keys * key;
    return x;
  };
  switch (op.kind) {
    case FheOpKind::Add:
    case FheOpKind::Sub:
    case FheOpKind::Negate: c.modadds = 2 * K * N; break;
    case FheOpKind::AddPlain:
    case FheOpKind::SubPlain: c.modadds = K * N; break;
    case FheOpKind::MulPlain:
    case FheOpKind::MulScalar: c.modmuls = 2 * K * N; break;
    case FheOpKind::Mul: {  // degree d x degree d: (d+1)^2 products into 2d+1 components
      const uint64_t d = std::max<uint32_t>(op.ct_degree, 1);
      c.modmuls = (d + 1) * (d + 1) * K * N;
      c.modadds = ((d + 1) * (d + 1) - (2 * d + 1)) * K * N;
      break;
    }
    case FheOpKind::Relinearize: {  // one key switch per component above c_1 (keys s^2 .. s^d)
      const uint64_t extra = std::max<uint32_t>(op.ct_degree, 2) - 1;
      FheOpCounts one = key_switch_core(K, A, beta, N);
      one.modadds += 2 * K * N;
      for (uint64_t i = 0; i < extra; ++i) c += one;
      c = with_key(c, extra);
      break;
    }
    case FheOpKind::KeySwitch:
      c = key_switch_core(K, A, beta, N);
      c.modadds += K * N;
      c = with_key(c, 1);
      break;
    case FheOpKind::Rotate:
    case FheOpKind::Conjugate:
      if (fhe_rotation_is_identity(op)) break;  // X -> X: nothing to do
      c = key_switch_core(K, A, beta, N);
      c.modadds += K * N;
      c.automorph_elems = 2 * K * N;
      c = with_key(c, 1);
      break;
    case FheOpKind::HoistedRotate: {
      const uint64_t n = op.count;
      FheOpCounts one = key_switch_core(K, A, beta, N);
      const uint64_t modup_ntt = beta * (K + A);
      uint64_t sumsq = 0;
      for (uint64_t j = 0; j < beta; ++j) sumsq += std::min(A, K - j * A) * std::min(A, K - j * A);
      const uint64_t modup_macs = N * (K * (K + A) - sumsq);
      c.ntt = modup_ntt + n * (one.ntt - modup_ntt);
      c.bconv_macs = modup_macs + n * (one.bconv_macs - modup_macs);
      c.modmuls = n * one.modmuls;
      c.modadds = n * (one.modadds + K * N);
      c.automorph_elems = n * (K + beta * (K + A)) * N;
      c.key_switches = n;
      c = with_key(c, n);
      break;
    }
    case FheOpKind::Rescale:
      c.ntt = 2 * K;
      c.bconv_macs = c.modmuls = c.modadds = 2 * (K - 1) * N;
      break;
    case FheOpKind::ModRaise: {
      const uint64_t T = op.max_level + 1ull - K;
      if (T == 0) break;
      c.ntt = 2 * (K + T);
      c.bconv_macs = 2 * K * T * N;
      break;
    }
    case FheOpKind::Encode: c.ntt = K; break;
    case FheOpKind::LevelReduce:
    case FheOpKind::Encrypt:
    case FheOpKind::Decrypt: break;
    case FheOpKind::Bootstrap: {
      for (const FheOp& s : bootstrap_sequence(op, fc)) c += count_fhe_op(s, fc);
      // Distinct keys: one per CoeffToSlot/SlotToCoeff rotation, the conjugation key, the
      // relinearization key. Repeated uses of the relinearization key are back to back, so a
      // cold cache that holds one key loads each distinct key once.
      const uint64_t keys =
          uint64_t(fc.bootstrap_cts_levels + fc.bootstrap_stc_levels) * fc.bootstrap_bsgs_rotations + 1 +
          (fc.bootstrap_evalmod_hmults > 0 ? 1 : 0);
      c.keys = keys;
      c.key_bytes = c.hbm_bytes = keys * fhe_key_bytes(bootstrap_chain(op, fc), fc);
      break;
    }
  }
  return c;
}

}  // namespace photon
