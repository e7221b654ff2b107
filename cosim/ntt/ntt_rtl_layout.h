// What the NTT core's transactor computes for the core: Montgomery constants, the twiddle table
// and the order of coefficients on the streams (cosim/ntt/rtl/ntt_core.sv, header comment).
// Pure C++ (no SystemC).
#pragma once

#include <cstdint>
#include <vector>

namespace photon::cosim {

/// q' = -q^-1 mod 2^width, the Montgomery constant of an odd q (Montgomery, Math. Comp. 1985).
/// Newton's iteration x <- x (2 - q x) doubles the correct low bits from x = q (q q = 1 mod 8).
uint64_t mont_q_inv(uint64_t q, uint32_t width);
/// a 2^width mod q (to Montgomery form), a < q.
uint64_t to_mont(uint64_t a, uint64_t q, uint32_t width);
/// The core's twiddle table of one (q, N): W[j] = psi^brev(j) 2^width mod q for j in [0, N), psi
/// the primitive 2N-th root that models/ntt NttTables uses (primitive_2n_root). Throws
/// photon::Error if q is not 1 mod 2N.
std::vector<uint64_t> twiddle_table(uint64_t q, uint32_t log_n, uint32_t width);

/// Coefficient index of word `w` (0 <= w < 2 lanes) of beat `c` of a limb of N = 2^log_n words:
/// natural beats carry 2 c lanes + w; split-half beats c lanes + w (w < lanes) and
/// N/2 + c lanes + (w - lanes).
inline uint64_t beat_word_index(uint32_t log_n, uint32_t lanes, uint64_t c, uint32_t w, bool split_half) {
  if (!split_half) return 2 * c * lanes + w;
  return w < lanes ? c * lanes + w : (uint64_t(1) << (log_n - 1)) + c * lanes + (w - lanes);
}
/// The in stream of a limb is split-half for the forward transform, natural for the inverse; the
/// out stream the other way round.
inline bool in_split_half(bool inverse) { return !inverse; }
inline bool out_split_half(bool inverse) { return inverse; }
/// Table row held in the low half of tw beat b (the high half holds row + 1): 2 b forward,
/// 2 (T - 1 - b) inverse, T = N / (2 lanes) beats per limb.
inline uint64_t tw_beat_row(uint64_t b, uint64_t rows_per_stage, bool inverse) {
  return 2 * (inverse ? rows_per_stage - 1 - b : b);
}

}  // namespace photon::cosim
