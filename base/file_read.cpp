#include "base/file_read.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "base/error.h"

namespace photon {

uint64_t regular_file_size(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error(std::string("cannot open: ") + std::strerror(errno)).with_context(path);
  if (S_ISDIR(st.st_mode)) throw Error("is a directory, expected " + what).with_context(path);
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a file";
    throw Error(std::string("not a regular file (") + kind + "), expected " + what).with_context(path);
  }
  return uint64_t(st.st_size);
}

namespace {

template <class Buffer>
Buffer read_whole(const std::string& path, const std::string& what, uint64_t max_bytes) {
  const uint64_t size = regular_file_size(path, what);
  if (size > max_bytes)
    throw Error(std::to_string(size) + " bytes: larger than the " + std::to_string(max_bytes) +
                "-byte limit for " + what)
        .with_context(path);
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw Error(std::string("cannot open: ") + std::strerror(errno)).with_context(path);
  Buffer out;
  try {
    out.resize(size);
  } catch (const std::bad_alloc&) {
    throw Error("cannot hold " + std::to_string(size) + " bytes in host memory").with_context(path);
  } catch (const std::length_error&) {
    throw Error("cannot hold " + std::to_string(size) + " bytes in host memory").with_context(path);
  }
  const size_t got = size ? std::fread(&out[0], 1, size, f.get()) : 0;
  if (std::ferror(f.get()))
    throw Error(std::string("read failed: ") + std::strerror(errno)).with_context(path);
  out.resize(got);  // a file that shrank while it was read: what was there
  return out;
}

}  // namespace

std::string read_file(const std::string& path, const std::string& what, uint64_t max_bytes) {
  return read_whole<std::string>(path, what, max_bytes);
}

std::vector<uint8_t> read_file_bytes(const std::string& path, const std::string& what, uint64_t max_bytes) {
  return read_whole<std::vector<uint8_t>>(path, what, max_bytes);
}

}  // namespace photon
