// Payload field tables of the .pcs commands: one table per command body, in declaration order.
//
// The tables drive the binary packing (command.cpp), the text assembler and the disassembler, so
// the three cannot disagree. Fields that live in the 8-byte command head (Ntt::op and Vector::op
// in byte 1, Sync::queue in byte 2, Gemm::flags in byte 3) are not in these tables.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "isa/command.h"

namespace photon::pcs::detail {

/// How the disassembler prints a field (the assembler accepts any integer form for integers).
enum class FieldFormat : uint8_t {
  Dec,  ///< decimal integer (counts, strides in elements, geometry)
  Hex,  ///< 0x... integer (addresses, scratchpad offsets)
  F32,  ///< IEEE-754 binary32; get/set carry the bit pattern
};

/// One payload field of body type T: name, width in bytes (1, 2, 4 or 8), print format, whether
/// the disassembler prints it even at its default value, and accessors that carry the value as
/// uint64_t (floats: their bit pattern).
template <class T>
struct Field {
  const char* name;
  uint8_t bytes;
  FieldFormat format;
  bool always;
  uint64_t (*get)(const T&);
  void (*set)(T&, uint64_t);
};

inline uint64_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float f32_from_bits(uint64_t v) {
  uint32_t u = static_cast<uint32_t>(v);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

const std::vector<Field<Sync>>& sync_fields();
const std::vector<Field<DmaCopy>>& dma_fields();
const std::vector<Field<Gemm>>& gemm_fields();
const std::vector<Field<Ntt>>& ntt_fields();
const std::vector<Field<Vector>>& vector_fields();

/// Byte offset of a payload field inside the 64-byte command (first payload byte is 8).
struct FieldOffset {
  std::string name;
  uint32_t offset;  ///< bytes from the start of the command
  uint32_t bytes;
};
/// The packed payload layout of `op` (empty for End and Fence).
std::vector<FieldOffset> payload_layout(Opcode op);

/// Names of the Gemm::Flags bits, in bit order: accumulate, transpose_a, transpose_b,
/// reuse_weights, bias.
struct FlagName {
  uint8_t bit;
  const char* name;
};
const std::vector<FlagName>& gemm_flag_names();
constexpr uint8_t kGemmFlagMask = 0x1F;

/// True for a defined Ntt::Op / Vector::Op value.
bool valid_ntt_op(uint8_t op);
bool valid_vector_op(uint8_t op);

}  // namespace photon::pcs::detail
