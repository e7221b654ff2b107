#include "sweep/files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/error.h"

namespace photon::sweep {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read file").with_context(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json read_json(const std::string& path) {
  const std::string text = read_text(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("malformed JSON: ") + e.what()).with_context(path);
  }
}

void prepare_sweep_dir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw Error("exists and is not a directory").with_context(dir);
  for (const char* sub : {"", "results", "reports", "logs"}) {
    const fs::path p = fs::path(dir) / sub;
    fs::create_directories(p, ec);
    if (ec) throw Error("cannot create the directory: " + ec.message()).with_context(p.string());
  }
  write_atomic((fs::path(dir) / ".write_check").string(), "photon sweep\n");  // full disk, read-only
  ::unlink((fs::path(dir) / ".write_check").c_str());
}

std::string result_path(const std::string& dir, const std::string& key) {
  return (fs::path(dir) / "results" / (key + ".json")).string();
}

std::string report_relpath(const std::string& key) { return "reports/" + key + ".json"; }

std::string report_path(const std::string& dir, const std::string& key) {
  return (fs::path(dir) / report_relpath(key)).string();
}

DirLock::DirLock(const std::string& dir) {
  const std::string path = (fs::path(dir) / ".lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(std::strerror(errno)).with_context(path);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw Error("another photon sweep is running in this directory").with_context(dir);
  }
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);
}

bool dir_locked(const std::string& dir) {
  const std::string path = (fs::path(dir) / ".lock").string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool locked = ::flock(fd, LOCK_EX | LOCK_NB) != 0;
  ::close(fd);
  return locked;
}

}  // namespace photon::sweep
