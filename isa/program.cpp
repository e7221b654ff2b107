// .pcs file format: serialisation, parsing and atomic file writes (docs/command-stream.md).
#include "isa/program.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/crc.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "base/error.h"
#include "base/file_read.h"

namespace photon::pcs {
namespace {

/// CRC-32 (IEEE 802.3 polynomial 0x04C11DB7, reflected, as zlib/PNG) of [p, p+n).
uint32_t crc32(const uint8_t* p, size_t n) {
  boost::crc_32_type crc;
  crc.process_bytes(p, n);
  return crc.checksum();
}

class Writer {
 public:
  void u16(uint16_t v) { le(v, 2); }
  void u32(uint32_t v) { le(v, 4); }
  void u64(uint64_t v) { le(v, 8); }
  void bytes(const uint8_t* p, size_t n) { out_.insert(out_.end(), p, p + n); }
  void str(const std::string& s) {
    if (s.size() > 0xFFFFFFFFu) throw Error("string longer than 4 GiB");
    u32(static_cast<uint32_t>(s.size()));
    bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
  std::vector<uint8_t>& out() { return out_; }

 private:
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t> out_;
};

class Reader {
 public:
  Reader(const std::vector<uint8_t>& b, size_t pos, size_t end) : b_(b), pos_(pos), end_(end) {}
  size_t left() const { return end_ - pos_; }
  size_t pos() const { return pos_; }
  /// Throws "truncated: <what>: expected N bytes, M left" unless n bytes remain.
  void need(uint64_t n, const std::string& what) const {
    if (n > left()) throw Error(fmt::format("truncated: {}: expected {} bytes, {} left", what, n, left()));
  }
  uint64_t le(int n, const std::string& what) {
    need(n, what);
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(b_[pos_ + i]) << (8 * i);
    pos_ += n;
    return v;
  }
  const uint8_t* take(uint64_t n, const std::string& what) {
    need(n, what);
    const uint8_t* p = b_.data() + pos_;
    pos_ += n;
    return p;
  }
  std::string str(const std::string& what) {
    const uint64_t n = le(4, what + " length");
    const uint8_t* p = take(n, what);
    return std::string(reinterpret_cast<const char*>(p), n);
  }

 private:
  const std::vector<uint8_t>& b_;
  size_t pos_, end_;
};

uint64_t get_le(const std::vector<uint8_t>& b, size_t pos, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(b[pos + i]) << (8 * i);
  return v;
}

void check_count(size_t n, const char* what) {
  if (n > 0xFFFFFFFFu) throw Error(fmt::format("too many {}: {}", what, n));
}

}  // namespace

std::vector<uint8_t> serialize(const Program& p) {
  check_count(p.commands.size(), "commands");
  check_count(p.ops.size(), "ops");
  check_count(p.segments.size(), "segments");
  bool memory = false;
  for (const auto& op : p.ops) memory = memory || !op.memory.empty();
  Writer w;
  w.u32(kMagic);
  w.u16(memory ? kVersionWithMemory : kVersion);
  w.u16(kHeaderBytes);
  w.u32(static_cast<uint32_t>(p.commands.size()));
  w.u32(static_cast<uint32_t>(p.ops.size()));
  w.u32(static_cast<uint32_t>(p.segments.size()));
  w.u64(0);  // total length, patched below
  w.u32(0);  // CRC-32, patched below
  uint8_t buf[kCommandBytes];
  for (size_t i = 0; i < p.commands.size(); ++i) {
    with_error_context(fmt::format("command {}", i), [&] { encode(p.commands[i], buf); });
    w.bytes(buf, kCommandBytes);
  }
  for (const auto& op : p.ops) {
    w.str(op.name);
    w.str(op.kind);
    w.str(op.detail);
    if (memory) {
      check_count(op.memory.size(), "memory figures");
      w.u32(static_cast<uint32_t>(op.memory.size()));
      for (const auto& [name, value] : op.memory) {
        w.str(name);
        w.u64(value);
      }
    }
  }
  for (const auto& s : p.segments) {
    w.u64(s.address);
    w.u64(s.bytes.size());
    w.bytes(s.bytes.data(), s.bytes.size());
  }
  auto& out = w.out();
  const uint64_t total = out.size();
  for (int i = 0; i < 8; ++i) out[20 + i] = static_cast<uint8_t>(total >> (8 * i));
  const uint32_t crc = crc32(out.data() + kHeaderBytes, out.size() - kHeaderBytes);
  for (int i = 0; i < 4; ++i) out[28 + i] = static_cast<uint8_t>(crc >> (8 * i));
  return out;
}

Program deserialize(const std::vector<uint8_t>& b) {
  if (b.size() >= 4 && get_le(b, 0, 4) != kMagic)
    throw Error(
        fmt::format("not a .pcs file (bad magic {:02x} {:02x} {:02x} {:02x}, expected "
                    "\"PCS1\")",
                    b[0], b[1], b[2], b[3]));
  if (b.size() < kHeaderBytes)
    throw Error(
        fmt::format("truncated: file holds {} bytes, the .pcs header needs {}", b.size(), kHeaderBytes));
  const auto version = static_cast<uint16_t>(get_le(b, 4, 2));
  if (version != kVersion && version != kVersionWithMemory)
    throw Error(fmt::format("unsupported version {} (this build reads versions {} and {})", version, kVersion,
                            kVersionWithMemory));
  const auto header = static_cast<uint16_t>(get_le(b, 6, 2));
  if (header != kHeaderBytes)
    throw Error(fmt::format("bad header size {}, version {} has {}", header, kVersion, kHeaderBytes));
  const uint64_t n_cmd = get_le(b, 8, 4), n_op = get_le(b, 12, 4), n_seg = get_le(b, 16, 4);
  const uint64_t total = get_le(b, 20, 8);
  if (total > b.size())
    throw Error(fmt::format("truncated: header says {} bytes, file holds {}", total, b.size()));
  if (total < b.size())
    throw Error(fmt::format("trailing garbage: {} bytes after the {} bytes the header declares",
                            b.size() - total, total));
  const uint32_t want_crc = static_cast<uint32_t>(get_le(b, 28, 4));
  const uint32_t got_crc = crc32(b.data() + kHeaderBytes, b.size() - kHeaderBytes);
  if (want_crc != got_crc)
    throw Error(fmt::format("CRC mismatch: header says 0x{:08x}, contents give 0x{:08x}", want_crc, got_crc));

  Reader r(b, kHeaderBytes, b.size());
  if (n_cmd * kCommandBytes > r.left())
    throw Error(
        fmt::format("truncated: header says {} commands ({} bytes), {} bytes follow the "
                    "header",
                    n_cmd, n_cmd * kCommandBytes, r.left()));
  Program p;
  p.commands.reserve(n_cmd);
  for (uint64_t i = 0; i < n_cmd; ++i) {
    const uint8_t* c = r.take(kCommandBytes, "command");
    p.commands.push_back(with_error_context(fmt::format("command {}", i), [&] { return decode(c); }));
  }
  for (uint64_t i = 0; i < n_op; ++i) {
    // Every read checks the bytes left first, so a huge op_count cannot allocate or overrun.
    const std::string ctx = fmt::format("op {} of {}", i, n_op);
    OpInfo op;
    op.name = r.str(ctx + " name");
    op.kind = r.str(ctx + " kind");
    op.detail = r.str(ctx + " detail");
    if (version == kVersionWithMemory) {
      const uint64_t n_fig = r.le(4, ctx + " memory count");
      for (uint64_t k = 0; k < n_fig; ++k) {
        std::string name = r.str(ctx + " memory name");
        op.memory.emplace_back(std::move(name), r.le(8, ctx + " memory value"));
      }
    }
    p.ops.push_back(std::move(op));
  }
  for (uint64_t i = 0; i < n_seg; ++i) {
    const std::string ctx = fmt::format("segment {} of {}", i, n_seg);
    Segment s;
    s.address = r.le(8, ctx + " address");
    const uint64_t len = r.le(8, ctx + " length");
    const uint8_t* d = r.take(len, ctx + " bytes");
    s.bytes.assign(d, d + len);
    p.segments.push_back(std::move(s));
  }
  if (r.left() != 0) throw Error(fmt::format("trailing garbage: {} bytes after the last segment", r.left()));
  return p;
}

Program read_program(const std::string& path) {
  return with_error_context(path,
                            [&] { return deserialize(read_file_bytes(path, "a .pcs command stream")); });
}

void write_program(const Program& p, const std::string& path) {
  with_error_context(path, [&] {
    const std::vector<uint8_t> bytes = serialize(p);
    std::string tmp = path + ".tmp.XXXXXX";
    const int fd = mkstemp(tmp.data());
    if (fd < 0) throw Error(fmt::format("cannot create temporary file: {}", std::strerror(errno)));
    auto fail = [&](const char* what) {
      const std::string err = std::strerror(errno);
      ::close(fd);
      std::remove(tmp.c_str());
      throw Error(fmt::format("{}: {}", what, err));
    };
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        fail("write failed");
      }
      done += static_cast<size_t>(n);
    }
    if (::fchmod(fd, 0644) != 0) fail("chmod failed");
    if (::close(fd) != 0) {
      const std::string err = std::strerror(errno);
      std::remove(tmp.c_str());
      throw Error("write failed: " + err);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      const std::string err = std::strerror(errno);
      std::remove(tmp.c_str());
      throw Error("cannot rename temporary file into place: " + err);
    }
  });
}

}  // namespace photon::pcs
