// SHA-256 digests (OpenSSL libcrypto, FIPS 180-4) as lower-case hex: the keys of sweep results.
#pragma once

#include <string>

namespace photon::sweep {

/// SHA-256 of `bytes`, 64 hex digits.
std::string sha256_hex(const std::string& bytes);
/// SHA-256 of a file's content. Throws Error naming the file if it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace photon::sweep
