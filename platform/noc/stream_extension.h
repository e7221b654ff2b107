// StreamExtension: a TLM-2.0 extension that makes one transaction a 2-D stream, the way a DMA
// engine's bulk path hands a whole strided copy to a memory in one call instead of one burst at
// a time (models/dma/README.md "Bulk copies").
//
// With the extension set, the transaction covers data_length / row_bytes rows of row_bytes bytes,
// row r at address + r * stride (bytes); data_length must be a whole number of rows and the
// streaming width equals data_length. The data pointer holds the rows packed, or is null for a
// timing-only transaction that moves no data. Every data-NoC target (DataRouter, Hbm,
// Scratchpad) honours it: it is not an ignorable extension.
#pragma once

#include <cstdint>

#include <tlm>

namespace photon {

struct StreamExtension : tlm::tlm_extension<StreamExtension> {
  uint64_t row_bytes = 0;  ///< bytes per row
  uint64_t stride = 0;     ///< bytes from one row's start to the next

  tlm::tlm_extension_base* clone() const override { return new StreamExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override {
    *this = static_cast<const StreamExtension&>(e);
  }
};

/// The stream described by a transaction: rows, row bytes, stride; a plain transaction is one
/// row of data_length bytes. `ok` is false when data_length is not a whole number of rows.
struct StreamShape {
  uint64_t rows = 1, row_bytes = 0, stride = 0;
  bool ok = true;
  /// Bytes from the first to one past the last byte touched.
  /// Saturates at UINT64_MAX instead of wrapping.
  uint64_t extent() const {
    if (rows == 0) return 0;
    if (stride != 0 && rows - 1 > (UINT64_MAX - row_bytes) / stride) return UINT64_MAX;
    return (rows - 1) * stride + row_bytes;
  }
};

inline StreamShape stream_shape(tlm::tlm_generic_payload& gp) {
  StreamShape s;
  s.row_bytes = s.stride = gp.get_data_length();
  StreamExtension* e = nullptr;
  gp.get_extension(e);
  if (!e) return s;
  if (e->row_bytes == 0 || gp.get_data_length() % e->row_bytes != 0) {
    s.ok = false;
    return s;
  }
  s.rows = gp.get_data_length() / e->row_bytes;
  s.row_bytes = e->row_bytes;
  s.stride = e->stride;
  return s;
}

}  // namespace photon
