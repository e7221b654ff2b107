// read_file (base/file_read.h) and write_atomic (base/output_file.h) against what is put in a
// file's place: a FIFO is refused without waiting for a writer, and a FIFO or a symlink at
// write_atomic's temporary name is replaced, never opened, so the write neither hangs nor
// writes through the link. Oracle: the bytes written, read back, and the link's target unchanged.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/error.h"
#include "base/file_read.h"
#include "base/output_file.h"

namespace photon {
namespace {

namespace fs = std::filesystem;

/// A fresh directory under the system's temporary directory, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "photon_file_io_XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string read_error(const std::string& path) {
  try {
    read_file(path, "a test file");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(FileIo, AFifoIsRefusedWithoutWaitingForAWriter) {
  TempDir d;
  const std::string fifo = (d.path / "in.yaml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(read_error(fifo), fifo + ": not a regular file (a FIFO), expected a test file");
  EXPECT_EQ(read_error(d.path.string()), d.path.string() + ": is a directory, expected a test file");
}

TEST(FileIo, ReadFileKeepsItsSizeLimit) {
  TempDir d;
  const std::string f = (d.path / "big.json").string();
  std::ofstream(f) << std::string(100, 'x');
  EXPECT_EQ(read_file(f, "a test file", 100), std::string(100, 'x'));
  try {
    read_file(f, "a test file", 99);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), f + ": 100 bytes: larger than the 99-byte limit for a test file");
  }
}

TEST(FileIo, WriteAtomicReplacesWhatIsAtItsTemporaryName) {
  TempDir d;
  const std::string out = (d.path / "out.json").string();
  const std::string tmp = out + ".tmp." + std::to_string(::getpid());
  ASSERT_EQ(::mkfifo(tmp.c_str(), 0600), 0);  // opening it for writing would wait for a reader
  write_atomic(out, "first");
  EXPECT_EQ(read_file(out, "a test file"), "first");
  EXPECT_FALSE(fs::exists(tmp));

  const std::string target = (d.path / "target").string();
  std::ofstream(target) << "keep";
  fs::create_symlink(target, tmp);
  write_atomic(out, "second");
  EXPECT_EQ(read_file(out, "a test file"), "second");
  EXPECT_EQ(read_file(target, "a test file"), "keep");
  EXPECT_FALSE(fs::is_symlink(out));
}

}  // namespace
}  // namespace photon
