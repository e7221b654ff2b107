// Output files checked before any work: a path is tried by writing it, not by asking access(),
// which says yes to root for a read-only or virtual file system (/proc, /sys). And files
// written whole or not at all.
#pragma once

#include <string>

namespace photon {

/// Checks that `path` can be written: its directory exists, an existing `path` is a regular file
/// and opens for writing (its contents are kept), a missing one is created and removed again.
/// Throws Error with context `path` ("directory does not exist", "not a regular file (refusing
/// to replace it)", "cannot be created: Permission denied").
void probe_output_file(const std::string& path);

/// Writes `text` to `path` through a temporary file in the same directory and a rename, so a
/// reader never sees a partial file. Throws Error "PATH: <strerror>" (e.g. "No space left on
/// device"); nothing is left behind.
void write_atomic(const std::string& path, const std::string& text);

}  // namespace photon
