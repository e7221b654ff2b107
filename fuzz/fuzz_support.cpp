#include "fuzz/fuzz_support.h"

#include <unistd.h>

#include <vector>

namespace photon::fuzz {

TempFile::TempFile(const uint8_t* data, size_t size, const std::string& suffix) {
  const char* dir = std::getenv("TMPDIR");
  std::string tmpl = std::string(dir && *dir ? dir : "/tmp") + "/photon_fuzz_XXXXXX" + suffix;
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const int fd = mkstemps(buf.data(), static_cast<int>(suffix.size()));
  if (fd < 0) finding("cannot create a temporary file under " + tmpl);
  path_ = buf.data();
  size_t done = 0;
  while (done < size) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) finding("cannot write the temporary file " + path_);
    done += static_cast<size_t>(n);
  }
  close(fd);
}

TempFile::~TempFile() { unlink(path_.c_str()); }

}  // namespace photon::fuzz
