#include "workloads/fhe/fhe_command_writer.h"

#include <algorithm>
#include <string>

#include "base/error.h"
#include "workloads/fhe/fhe_memory_plan.h"

namespace photon::fhe {

void FheCommandWriter::ntt(uint8_t op, uint64_t src0, uint64_t src1, uint64_t dst, uint32_t limbs,
                           uint32_t moduli, uint32_t out_limbs, uint32_t galois) {
  pcs::Ntt n;
  n.op = op;
  n.log_n = uint8_t(log_n_);
  n.limbs = limbs;
  n.out_limbs = out_limbs;
  n.src0 = uint32_t(src0);
  n.src1 = uint32_t(src1);
  n.dst = uint32_t(dst);
  n.moduli = moduli;
  n.galois = galois;
  append(pcs::make_ntt(n, tag_));
}

void FheCommandWriter::append(pcs::Command&& c) {
  // Streamed programs run to 10^5-10^6 commands: growing 4x at a time copies a third of what
  // doubling copies (capacity never touched costs no memory).
  std::vector<pcs::Command>& v = out_.commands;
  if (v.size() == v.capacity()) v.reserve(std::max<size_t>(1024, 4 * v.capacity()));
  v.push_back(std::move(c));
}

void FheCommandWriter::sum_of_products(bool accumulate, uint64_t src0, uint64_t src0_stride, uint64_t src1,
                                       uint64_t src1_stride, uint64_t dst, uint32_t terms, uint32_t limbs,
                                       uint32_t moduli) {
  ntt(accumulate ? pcs::Ntt::kMulAccMod : pcs::Ntt::kMulMod, src0, src1, dst, limbs, moduli);
  if (terms > 1) {
    auto& n = std::get<pcs::Ntt>(out_.commands.back().body);
    n.terms = terms;
    n.src0_stride = uint32_t(src0_stride);
    n.src1_stride = uint32_t(src1_stride);
  }
}

void FheCommandWriter::bconv(const std::vector<uint64_t>& chain, uint64_t src, Range from, uint64_t dst,
                             Range to) {
  std::vector<uint64_t> m(chain.begin() + from.lo, chain.begin() + from.hi);
  m.insert(m.end(), chain.begin() + to.lo, chain.begin() + to.hi);
  ntt(pcs::Ntt::kBConv, src, 0, dst, from.hi - from.lo, table(m), to.hi - to.lo);
}

void FheCommandWriter::sync(pcs::Opcode op, pcs::Queue q, uint32_t sem) {
  append(op == pcs::Opcode::Signal ? pcs::make_signal(q, sem, tag_) : pcs::make_wait(q, sem, tag_));
}

const char* byte_class_name(ByteClass c) {
  static const char* names[kByteClasses] = {"ct_in_bytes", "ct_out_bytes",    "key_bytes",
                                            "spill_bytes", "plaintext_bytes", "table_bytes"};
  return names[int(c)];
}

void FheCommandWriter::dma(uint64_t src, uint64_t dst, uint64_t inner, uint32_t n1, uint64_t src_stride,
                           uint64_t dst_stride, ByteClass cls, uint32_t channel) {
  if (inner > 0xFFFFFFFFull)
    throw Error("fhe lowering: DMA row of " + std::to_string(inner) + " bytes exceeds 4 GiB");
  pcs::DmaCopy d;
  d.src = src;
  d.dst = dst;
  d.inner_bytes = uint32_t(inner);
  d.n1 = n1;
  d.src_stride1 = src_stride;
  d.dst_stride1 = dst_stride;
  d.channel = channel;
  append(pcs::make_dma(d, tag_));
  if (tag_ != pcs::kNoTag) {
    if (tallies_.size() <= tag_) tallies_.resize(tag_ + 1);
    tallies_[tag_].bytes[int(cls)] += inner * n1;
  }
}

uint32_t FheCommandWriter::table(const std::vector<uint64_t>& moduli) {
  auto it = tables_.find(moduli);
  if (it != tables_.end()) return it->second;
  const uint32_t offset = uint32_t(blob_.size() * 8);
  blob_.insert(blob_.end(), moduli.begin(), moduli.end());
  if (blob_.size() * 8 > kFheTablesBytes)
    throw Error("fhe lowering: moduli tables exceed their " + std::to_string(kFheTablesBytes) +
                "-byte region");
  tables_.emplace(moduli, offset);
  return offset;
}

}  // namespace photon::fhe
