#include "tests/workloads/fhe/fhe_closed_form.h"

#include <algorithm>

#include "workloads/fhe/fhe_bootstrap.h"
#include <utility>

#include "workloads/fhe/fhe_keys.h"

namespace photon::fhe {

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

namespace {

/// ModUp's BConv MACs: digit j (d_j limbs) converts to the K + alpha - d_j other limbs.
uint64_t mod_up_macs(uint64_t K, uint64_t A, uint64_t beta, uint64_t N) {
  uint64_t sumsq = 0;
  for (uint64_t j = 0; j < beta; ++j) {
    const uint64_t d = std::min(A, K - j * A);
    sumsq += d * d;
  }
  return N * (K * (K + A) - sumsq);
}

/// ModUp + inner product + ModDown up to the subtraction, and the P^-1 multiply (2 polys).
FheOpCounts key_switch_core(uint64_t K, uint64_t A, uint64_t beta, uint64_t N) {
  FheOpCounts c;
  c.ntt = beta * (K + A) + 2 * (A + K);
  c.bconv_macs = mod_up_macs(K, A, beta, N) + 2 * A * K * N;
  c.modmuls = 2 * beta * (K + A) * N + 2 * K * N;
  c.modadds = 2 * (beta - 1) * (K + A) * N + 2 * K * N;
  c.key_switches = 1;
  return c;
}

}  // namespace

FheOpCounts count_fhe_op(const FheOp& op, const FheConfig& fc, uint32_t storage_bits) {
  const uint64_t N = uint64_t(1) << op.log_n, K = op.level + 1ull, A = op.alpha, beta = fhe_digits(op);
  // A cold key slot loads what the key switch reads: the whole key at l = L, else the 2 beta
  // polynomials of its digits over Q limbs 0..K-1 and the alpha P limbs.
  const uint64_t key = K == op.max_level + 1ull
                           ? fhe_key_bytes(op, storage_bits)
                           : 2 * beta * (K + A) * N * storage_bits / 8;
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
      const uint64_t modup_ntt = beta * (K + A), modup_macs = mod_up_macs(K, A, beta, N);
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
      for (const FheOp& s : bootstrap_sequence(op, fc)) c += count_fhe_op(s, fc, storage_bits);
      // Distinct keys: one per CoeffToSlot/SlotToCoeff rotation, the conjugation key, the
      // relinearization key. Repeated uses of the relinearization key are back to back at falling
      // levels, so a cold cache that holds one key loads each distinct key once, for its first use.
      const uint64_t keys =
          uint64_t(fc.bootstrap_cts_levels + fc.bootstrap_stc_levels) * fc.bootstrap_bsgs_rotations + 1 +
          (fc.bootstrap_evalmod_hmults > 0 ? 1 : 0);
      c.keys = keys;
      c.key_bytes = 0;
      bool relin_loaded = false;
      for (const FheOp& s : bootstrap_sequence(op, fc)) {
        if (s.kind == FheOpKind::Relinearize && std::exchange(relin_loaded, true)) continue;
        c.key_bytes += count_fhe_op(s, fc, storage_bits).key_bytes;
      }
      c.hbm_bytes = c.key_bytes;
      break;
    }
  }
  return c;
}

}  // namespace photon::fhe
