#include "base/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "base/error.h"

namespace photon {

namespace {

/// Refuses what `st` describes unless it is a regular file (the messages of regular_file_size).
void check_regular(const struct stat& st, const std::string& path, const std::string& what) {
  if (S_ISDIR(st.st_mode)) throw Error("is a directory, expected " + what).with_context(path);
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a file";
    throw Error(std::string("not a regular file (") + kind + "), expected " + what).with_context(path);
  }
}

}  // namespace

uint64_t regular_file_size(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error(std::string("cannot open: ") + std::strerror(errno)).with_context(path);
  check_regular(st, path, what);
  return uint64_t(st.st_size);
}

namespace {

template <class Buffer>
Buffer read_whole(const std::string& path, const std::string& what, uint64_t max_bytes) {
  // Opened without blocking (a FIFO put in the file's place meanwhile would wait for a writer)
  // and checked through the open descriptor, so what is read is what was checked.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Error(std::string("cannot open: ") + std::strerror(errno)).with_context(path);
  std::unique_ptr<FILE, int (*)(FILE*)> f(::fdopen(fd, "rb"), &std::fclose);
  if (!f) {
    const int e = errno;
    ::close(fd);
    throw Error(std::string("cannot open: ") + std::strerror(e)).with_context(path);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw Error(std::string("cannot open: ") + std::strerror(errno)).with_context(path);
  check_regular(st, path, what);
  const uint64_t size = uint64_t(st.st_size);
  if (size > max_bytes)
    throw Error(std::to_string(size) + " bytes: larger than the " + std::to_string(max_bytes) +
                "-byte limit for " + what)
        .with_context(path);
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
