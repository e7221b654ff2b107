// Reading an input file whole, safely: the one place that opens inputs named on the command line
// or inside other inputs (configurations, command streams and their `.segment file:` data, HEIR
// programs, ONNX models, tensors, DRAM traces).
//
// A path that is not a regular file (a directory, /dev/zero, a FIFO) is refused before any read,
// checked on the opened descriptor (opened without blocking), so no input can make a reader wait
// or read without bound, even when it is replaced between a check and the read; the size is known before the buffer
// is allocated, and a size the host cannot hold is an Error, not std::bad_alloc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace photon {

/// Size in bytes of the regular file at `path`. Throws Error with context `path`: "cannot open:
/// <reason>" (missing, no permission), "is a directory, expected <what>", "not a regular file
/// (a FIFO | a character device | a block device | a socket), expected <what>".
uint64_t regular_file_size(const std::string& path, const std::string& what);

/// The contents of the regular file at `path` (checked as regular_file_size()). A file larger
/// than `max_bytes` is an Error "<N> bytes: larger than the <max_bytes>-byte limit for <what>";
/// a read error or a buffer the host cannot allocate is an Error too. `what` names the kind of
/// file in messages ("a YAML configuration file", "a .pcs command stream").
std::string read_file(const std::string& path, const std::string& what, uint64_t max_bytes = ~uint64_t(0));
std::vector<uint8_t> read_file_bytes(const std::string& path, const std::string& what,
                                     uint64_t max_bytes = ~uint64_t(0));

}  // namespace photon
