// Size: the one overflow-checked type for sizes, element counts and shape arithmetic computed
// from input values (tensor dims, strides, dilations, blob lengths, copy extents).
//
// A Size holds an integer in [0, Size::kMax], kMax = 2^62: every sum or product of two Sizes that
// stays in range also fits int64_t, and no real buffer comes near it (2^62 bytes = 4 EiB). An
// operation whose exact result is negative or above kMax throws photon::Error "size overflow:
// A * B is above 2^62" (callers add the node, key or file as context with with_error_context).
// Use it wherever a value read from a file decides an allocation or a loop count:
//
//   Size n = Size::of(dims[0]);              // Error if negative or above 2^62
//   for (int64_t d : dims) n = n * Size::of(d);
//   buffer.resize(n.value());
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/error.h"

namespace photon {

class Size {
 public:
  static constexpr uint64_t kMax = uint64_t(1) << 62;

  constexpr Size() = default;
  /// `v` as a Size; Error "size overflow: V is negative" / "... is above 2^62".
  static Size of(int64_t v) {
    if (v < 0) throw Error("size overflow: " + std::to_string(v) + " is negative");
    return of_unsigned(uint64_t(v));
  }
  static Size of_unsigned(uint64_t v) {
    if (v > kMax) throw Error("size overflow: " + std::to_string(v) + " is above 2^62");
    return Size(v);
  }

  uint64_t value() const { return v_; }
  int64_t signed_value() const { return int64_t(v_); }

  Size operator+(Size o) const { return of_result(v_ + o.v_, "+", o); }  // no wrap: both <= 2^62
  Size operator-(Size o) const {
    if (o.v_ > v_)
      throw Error("size overflow: " + std::to_string(v_) + " - " + std::to_string(o.v_) + " is negative");
    return Size(v_ - o.v_);
  }
  Size operator*(Size o) const {
    uint64_t r;
    if (__builtin_mul_overflow(v_, o.v_, &r) || r > kMax)
      throw Error("size overflow: " + std::to_string(v_) + " * " + std::to_string(o.v_) + " is above 2^62");
    return Size(r);
  }
  /// Quotient rounded up; Error for a zero divisor.
  Size ceil_div(Size o) const {
    if (o.v_ == 0) throw Error("size overflow: division of " + std::to_string(v_) + " by zero");
    return Size(v_ / o.v_ + (v_ % o.v_ != 0));
  }
  Size& operator+=(Size o) { return *this = *this + o; }
  Size& operator*=(Size o) { return *this = *this * o; }

  friend bool operator==(Size a, Size b) { return a.v_ == b.v_; }
  friend bool operator!=(Size a, Size b) { return a.v_ != b.v_; }
  friend bool operator<(Size a, Size b) { return a.v_ < b.v_; }
  friend bool operator<=(Size a, Size b) { return a.v_ <= b.v_; }
  friend bool operator>(Size a, Size b) { return a.v_ > b.v_; }
  friend bool operator>=(Size a, Size b) { return a.v_ >= b.v_; }

 private:
  explicit constexpr Size(uint64_t v) : v_(v) {}
  Size of_result(uint64_t r, const char* op, Size o) const {
    if (r > kMax)
      throw Error("size overflow: " + std::to_string(v_) + " " + op + " " + std::to_string(o.v_) +
                  " is above 2^62");
    return Size(r);
  }
  uint64_t v_ = 0;
};

/// Product of `dims` (each >= 0) as a checked Size: the element count of a shape.
inline Size element_count(const std::vector<int64_t>& dims) {
  Size n = Size::of(1);
  for (int64_t d : dims) n *= Size::of(d);
  return n;
}

}  // namespace photon
