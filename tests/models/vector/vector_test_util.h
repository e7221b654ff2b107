// Helpers for the vector-unit tests: a scratchpad image, a float array writer/reader and a
// runner that issues one pcs::Vector command.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "models/vector/vector_engine.h"

namespace photon::test {

struct VecSpm {
  std::vector<uint8_t> bytes;
  explicit VecSpm(size_t size) : bytes(size, 0xCD) {}
  MemView view() { return MemView{bytes.data(), bytes.size()}; }
  // memcpy's pointers must be valid even for 0 bytes: an empty vector's data() may be null.
  void put(uint64_t off, const std::vector<float>& v) {
    if (v.empty()) return;
    std::memcpy(bytes.data() + off, v.data(), v.size() * 4);
  }
  std::vector<float> get(uint64_t off, size_t count) const {
    std::vector<float> v(count);
    if (count == 0) return v;
    std::memcpy(v.data(), bytes.data() + off, count * 4);
    return v;
  }
};

inline pcs::Command vec_cmd(const pcs::Vector& v) {
  pcs::Command c;
  c.opcode = pcs::Opcode::Vector;
  c.body = v;
  return c;
}

inline std::vector<float> random_floats(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace photon::test
