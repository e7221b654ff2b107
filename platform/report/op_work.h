// OpWork: the work each op-table entry asks of the hardware, counted from its commands.
//
// Per tag: commands, DMA bytes (and the part read from / written to HBM), GEMM multiply-
// accumulates, vector elements, and NTT-unit work: limb transforms (NTT + INTT, N/2*log2 N
// butterflies each), modular multiplies and adds in words, base-conversion MACs
// (limbs x out_limbs x N) and automorphism words. Pure C++: the report adds these to its rows.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "isa/program.h"

namespace photon {

struct OpWork {
  uint64_t commands = 0;
  uint64_t dma_bytes = 0, hbm_read_bytes = 0, hbm_write_bytes = 0;
  uint64_t gemm_macs = 0;
  uint64_t vector_elements = 0;
  uint64_t ntt_limb_transforms = 0, modmul_words = 0, modadd_words = 0, bconv_macs = 0, automorph_words = 0;

  OpWork& operator+=(const OpWork& o);
  nlohmann::json to_json() const;
};

/// Work per op-table entry (index = tag); commands without a tag are not counted.
/// `hbm_base`/`hbm_bytes`: the HBM window of the data NoC, to tell HBM traffic apart.
std::vector<OpWork> count_op_work(const pcs::Program& p, uint64_t hbm_base, uint64_t hbm_bytes);

}  // namespace photon
