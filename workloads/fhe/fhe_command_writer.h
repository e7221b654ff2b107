// Appends the FHE lowering's commands to a pcs::Program: multi-limb NTT-unit commands, DMA copies,
// semaphore Signal/Wait, and the moduli tables the NTT and BConv commands name (isa/command.h).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "isa/program.h"

namespace photon::fhe {

/// Chain slots [lo, hi).
struct Range {
  uint32_t lo, hi;
};

/// What a DMA moves, for the report's per-op memory figures (docs/report.md): ciphertext
/// operands read from HBM, results written to HBM, evaluation keys, spills (intermediate data
/// written to HBM and read back), plaintext operands, and the set-up's moduli tables.
enum class ByteClass : uint8_t { CtIn, CtOut, Keys, Spill, Plaintext, Tables };
constexpr int kByteClasses = 6;
/// The report name of a class: "ct_in_bytes", "ct_out_bytes", "key_bytes", "spill_bytes",
/// "plaintext_bytes", "table_bytes".
const char* byte_class_name(ByteClass c);

/// Bytes moved per class by one op-table entry.
struct ByteTally {
  uint64_t bytes[kByteClasses] = {};
  uint64_t operator[](ByteClass c) const { return bytes[int(c)]; }
};

class FheCommandWriter {
 public:
  explicit FheCommandWriter(pcs::Program& out) : out_(out) {}

  /// The op-table tag and ring degree of the commands that follow.
  void set_tag(uint32_t tag) { tag_ = tag; }
  uint32_t tag() const { return tag_; }
  void set_log_n(uint32_t log_n) { log_n_ = log_n; }

  /// One NTT-unit command over `limbs` limbs (scratchpad byte offsets; `moduli`: byte offset of
  /// its moduli table).
  void ntt(uint8_t op, uint64_t src0, uint64_t src1, uint64_t dst, uint32_t limbs, uint32_t moduli,
           uint32_t out_limbs = 0, uint32_t galois = 1);
  /// dst (+)= sum over `terms` products of `limbs` limbs: term t reads src0 + t*src0_stride and
  /// src1 + t*src1_stride (bytes); `accumulate`: mul_acc_mod (dst +=), else mul_mod (dst =). One
  /// command (pcs::Ntt::terms) however many terms.
  void sum_of_products(bool accumulate, uint64_t src0, uint64_t src0_stride, uint64_t src1, uint64_t src1_stride,
                       uint64_t dst, uint32_t terms, uint32_t limbs, uint32_t moduli);
  /// Base conversion of limbs `from` at `src` to limbs `to` at `dst` (moduli from `chain`).
  void bconv(const std::vector<uint64_t>& chain, uint64_t src, Range from, uint64_t dst, Range to);
  void sync(pcs::Opcode op, pcs::Queue q, uint32_t sem);
  /// A 2-D DMA copy (data-NoC addresses) of bytes of class `cls`, on DMA channel `channel`.
  /// Throws Error for a row above 4 GiB.
  void dma(uint64_t src, uint64_t dst, uint64_t inner, uint32_t n1, uint64_t src_stride, uint64_t dst_stride,
           ByteClass cls, uint32_t channel = 0);
  /// Bytes moved per class by the commands of op-table entry `tag` so far.
  ByteTally tally(uint32_t tag) const { return tag < tallies_.size() ? tallies_[tag] : ByteTally{}; }
  /// Byte offset of the moduli table `moduli` in the tables region, added on first use. Throws
  /// Error when the tables outgrow kFheTablesBytes.
  uint32_t table(const std::vector<uint64_t>& moduli);
  /// The tables region's contents (64-bit words).
  const std::vector<uint64_t>& tables() const { return blob_; }

 private:
  void append(pcs::Command&& c);
  pcs::Program& out_;
  uint32_t tag_ = pcs::kNoTag;
  uint32_t log_n_ = 0;
  std::vector<uint64_t> blob_;
  std::vector<ByteTally> tallies_;
  std::map<std::vector<uint64_t>, uint32_t> tables_;
};

}  // namespace photon::fhe
