#include "base/input_file.h"

#include <sys/stat.h>

#include "base/error.h"

namespace photon {

void check_regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw Error("cannot open file");
  if (S_ISREG(st.st_mode)) return;
  const char* what = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISFIFO(st.st_mode) ? "a FIFO"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  throw Error(std::string("not a regular file (") + what + "): refusing to read it");
}

}  // namespace photon
