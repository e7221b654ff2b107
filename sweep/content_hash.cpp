#include "sweep/content_hash.h"

#include <fstream>
#include <sstream>

#include <openssl/evp.h>

#include "base/error.h"

namespace photon::sweep {

std::string sha256_hex(const std::string& bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr) != 1)
    throw Error("SHA-256 failed (OpenSSL)");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read file").with_context(path);
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error("read failed").with_context(path);
  return sha256_hex(ss.str());
}

}  // namespace photon::sweep
