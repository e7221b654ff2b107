#include "base/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/error.h"

namespace photon {

void probe_output_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (path.empty()) throw Error("empty output path");
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) throw Error("directory " + dir.string() + " does not exist").with_context(path);
  const bool existed = fs::exists(p, ec);
  if (existed && !fs::is_regular_file(p, ec)) throw Error("not a regular file (refusing to replace it)").with_context(path);
  const int fd = existed ? ::open(path.c_str(), O_WRONLY | O_CLOEXEC)
                         : ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error(std::string(existed ? "cannot be written: " : "cannot be created: ") + std::strerror(errno))
        .with_context(path);
  ::close(fd);
  if (!existed) ::unlink(path.c_str());
}

void write_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  // The name is this process's: whatever is there (left by a process with the same pid, or a
  // FIFO or symlink put there) is removed, and the file is created new, never opened through a
  // link or a FIFO.
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(std::strerror(errno)).with_context(path);
  size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw Error(std::strerror(e)).with_context(path);
    }
    off += size_t(n);
  }
  if (::close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw Error(std::strerror(e)).with_context(path);
  }
}

}  // namespace photon
