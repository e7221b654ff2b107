// Input files: the check every reader makes before it opens a file by name.
#pragma once

#include <string>

namespace photon {

/// Throws Error (callers add the path as context) unless `path` names a regular file (symbolic links are
/// followed): a FIFO would block the open or the read until a writer appears, a device such as
/// /dev/zero or /dev/urandom never ends, a directory cannot be read. Missing files are "cannot
/// open file".
void check_regular_file(const std::string& path);

}  // namespace photon
