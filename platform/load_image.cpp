#include "platform/load_image.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <vector>

namespace photon {

namespace {
/// Rows above this count are not followed one by one: the copy's whole extent becomes unknown.
constexpr uint64_t kMaxFollowedRows = 1 << 16;
}  // namespace

void LoadImage::split(uint64_t a) {
  auto it = pieces_.upper_bound(a);
  if (it == pieces_.begin()) return;
  --it;
  const uint64_t lo = it->first;
  Piece& p = it->second;
  if (a <= lo || a >= p.hi) return;
  Piece right = p;
  if (right.data) right.data += a - lo;
  p.hi = a;
  pieces_.emplace(a, right);
}

bool LoadImage::any_known(uint64_t lo, uint64_t hi) const {
  if (lo >= hi) return false;
  auto it = pieces_.upper_bound(lo);  // the first piece starting after lo
  if (it != pieces_.end() && it->first < hi) return true;
  if (it == pieces_.begin()) return false;
  return std::prev(it)->second.hi > lo;  // the piece starting at or before lo
}

void LoadImage::erase(uint64_t lo, uint64_t hi) {
  if (!any_known(lo, hi)) return;
  split(lo);
  split(hi);
  pieces_.erase(pieces_.lower_bound(lo), pieces_.lower_bound(hi));
}

void LoadImage::add_bytes(uint64_t address, const uint8_t* data, uint64_t bytes) {
  if (bytes == 0) return;
  erase(address, address + bytes);
  pieces_.emplace(address, Piece{address + bytes, data, 0, 0});
}

void LoadImage::add_fill(uint64_t address, uint64_t count, float value) {
  if (count == 0) return;
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  erase(address, address + count * 4);
  pieces_.emplace(address, Piece{address + count * 4, nullptr, address, bits});
}

void LoadImage::copy(uint64_t src, uint64_t dst, uint64_t bytes) {
  if (!any_known(src, src + bytes)) {  // unknown bytes make the destination unknown
    erase(dst, dst + bytes);
    return;
  }
  std::vector<std::pair<uint64_t, Piece>> moved;
  for (auto it = pieces_.upper_bound(src); it != pieces_.begin();) {  // the piece holding src
    --it;
    if (it->second.hi > src) moved.push_back(*it);
    break;
  }
  for (auto it = pieces_.upper_bound(src); it != pieces_.end() && it->first < src + bytes; ++it)
    moved.push_back(*it);
  erase(dst, dst + bytes);
  for (auto [lo, p] : moved) {
    const uint64_t a = std::max(lo, src), b = std::min(p.hi, src + bytes);
    if (a >= b) continue;
    if (p.data) p.data += a - lo;
    // A fill keeps its fp32 phase: the origin moves with the bytes.
    p.fill_origin = p.fill_origin + dst - src;
    p.hi = b - src + dst;
    pieces_.emplace(a - src + dst, p);
  }
}

void LoadImage::apply(const pcs::Command& c) {
  if (const auto* d = std::get_if<pcs::DmaCopy>(&c.body)) {
    if (c.opcode != pcs::Opcode::DmaCopy || d->inner_bytes == 0) return;
    const uint64_t rows = uint64_t(d->n1) * d->n2;
    if (rows > kMaxFollowedRows) {  // forget the destination's whole extent
      const uint64_t extent = uint64_t(d->n2 - 1) * d->dst_stride2 + uint64_t(d->n1 - 1) * d->dst_stride1 +
                              d->inner_bytes;
      erase(d->dst, d->dst + extent);
      return;
    }
    for (uint64_t i2 = 0; i2 < d->n2; ++i2)
      for (uint64_t i1 = 0; i1 < d->n1; ++i1)
        copy(d->src + i2 * d->src_stride2 + i1 * d->src_stride1,
             d->dst + i2 * d->dst_stride2 + i1 * d->dst_stride1, d->inner_bytes);
    return;
  }
  if (const auto* n = std::get_if<pcs::Ntt>(&c.body)) {
    if (c.opcode != pcs::Opcode::Ntt || n->log_n > 17) return;
    const uint64_t limbs = n->op == pcs::Ntt::kBConv ? n->out_limbs : n->limbs;
    const uint64_t lo = spm_base_ + n->dst;
    erase(lo, lo + (limbs << n->log_n) * 8);
  }
}

bool LoadImage::read(uint64_t address, void* dst, uint64_t bytes) const {
  uint8_t* out = static_cast<uint8_t*>(dst);
  uint64_t a = address;
  const uint64_t end = address + bytes;
  auto it = pieces_.upper_bound(a);
  if (it == pieces_.begin()) return bytes == 0;
  --it;
  while (a < end) {
    if (it == pieces_.end() || it->first > a || it->second.hi <= a) return false;
    const Piece& p = it->second;
    const uint64_t b = std::min(end, p.hi);
    if (p.data) {
      std::memcpy(out + (a - address), p.data + (a - it->first), b - a);
    } else {
      uint8_t pattern[4];
      std::memcpy(pattern, &p.fill_bits, 4);
      for (uint64_t x = a; x < b; ++x) out[x - address] = pattern[(x - p.fill_origin) % 4];
    }
    a = b;
    ++it;
  }
  return true;
}

}  // namespace photon
