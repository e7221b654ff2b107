// Helpers shared by the optical GEMM tests: a scratchpad image and command construction.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "isa/command.h"
#include "platform/engine.h"

namespace photon::test {

struct Spm {
  std::vector<uint8_t> bytes;
  explicit Spm(size_t size) : bytes(size, 0xAB) {}
  MemView view() { return MemView{bytes.data(), bytes.size()}; }
  float get(uint64_t off) const {
    float f;
    std::memcpy(&f, bytes.data() + off, 4);
    return f;
  }
  void put(uint64_t off, float f) { std::memcpy(bytes.data() + off, &f, 4); }
};

inline pcs::Command gemm_cmd(const pcs::Gemm& g) {
  pcs::Command c;
  c.opcode = pcs::Opcode::Gemm;
  c.body = g;
  return c;
}

}  // namespace photon::test
