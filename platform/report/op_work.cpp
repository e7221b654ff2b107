#include "platform/report/op_work.h"

namespace photon {

OpWork& OpWork::operator+=(const OpWork& o) {
  commands += o.commands;
  dma_bytes += o.dma_bytes;
  hbm_read_bytes += o.hbm_read_bytes;
  hbm_write_bytes += o.hbm_write_bytes;
  gemm_macs += o.gemm_macs;
  vector_elements += o.vector_elements;
  ntt_limb_transforms += o.ntt_limb_transforms;
  modmul_words += o.modmul_words;
  modadd_words += o.modadd_words;
  bconv_macs += o.bconv_macs;
  automorph_words += o.automorph_words;
  return *this;
}

nlohmann::json OpWork::to_json() const {
  nlohmann::json j = {{"commands", commands}};
  auto put = [&](const char* k, uint64_t v) {
    if (v) j[k] = v;
  };
  put("dma_bytes", dma_bytes);
  put("hbm_read_bytes", hbm_read_bytes);
  put("hbm_write_bytes", hbm_write_bytes);
  put("gemm_macs", gemm_macs);
  put("vector_elements", vector_elements);
  put("ntt_limb_transforms", ntt_limb_transforms);
  put("modmul_words", modmul_words);
  put("modadd_words", modadd_words);
  put("bconv_macs", bconv_macs);
  put("automorph_words", automorph_words);
  return j;
}

std::vector<OpWork> count_op_work(const pcs::Program& p, uint64_t hbm_base, uint64_t hbm_bytes) {
  std::vector<OpWork> w(p.ops.size());
  auto in_hbm = [&](uint64_t a) { return a >= hbm_base && a - hbm_base < hbm_bytes; };
  for (const auto& c : p.commands) {
    if (c.tag >= w.size()) continue;
    OpWork& o = w[c.tag];
    o.commands++;
    if (const auto* d = std::get_if<pcs::DmaCopy>(&c.body)) {
      const uint64_t bytes = uint64_t(d->inner_bytes) * d->n1 * d->n2;
      o.dma_bytes += bytes;
      if (in_hbm(d->src)) o.hbm_read_bytes += bytes;
      if (in_hbm(d->dst)) o.hbm_write_bytes += bytes;
    } else if (const auto* g = std::get_if<pcs::Gemm>(&c.body)) {
      o.gemm_macs += uint64_t(g->m) * g->n * g->k;
    } else if (const auto* v = std::get_if<pcs::Vector>(&c.body)) {
      o.vector_elements += v->n;
    } else if (const auto* n = std::get_if<pcs::Ntt>(&c.body)) {
      const uint64_t words = (uint64_t(1) << n->log_n) * n->limbs;
      switch (n->op) {
        case pcs::Ntt::kForward:
        case pcs::Ntt::kInverse: o.ntt_limb_transforms += n->limbs; break;
        case pcs::Ntt::kMulMod:  // a sum of terms products: terms - 1 additions
          o.modmul_words += words * n->term_count();
          o.modadd_words += words * (n->term_count() - 1);
          break;
        case pcs::Ntt::kMulAccMod:
          o.modmul_words += words * n->term_count();
          o.modadd_words += words * n->term_count();
          break;
        case pcs::Ntt::kAddMod:
        case pcs::Ntt::kSubMod: o.modadd_words += words; break;
        case pcs::Ntt::kAutomorph: o.automorph_words += words; break;
        case pcs::Ntt::kBConv: o.bconv_macs += words * n->out_limbs; break;
        default: break;
      }
    }
  }
  return w;
}

}  // namespace photon
