// What every fuzz harness checks of a reader: it returns, or it throws photon::Error whose text is
// one printable line. Anything else is a finding, reported by aborting (libFuzzer saves the input):
// another exception type (the CLI would print "internal error"), a multi-line or non-printable
// error text, a crash or sanitizer report, an allocation above the harness's limit, a hang.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

#include "base/error.h"

namespace photon::fuzz {

/// Aborts with `what` on stderr (the libFuzzer driver records the input as a crasher).
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

/// An error text is one line of printable bytes (base/text.h printable(): no byte below 0x20, no
/// DEL); multi-byte UTF-8 is allowed.
inline void check_error_line(const std::string& text) {
  if (text.empty()) finding("empty error message");
  for (unsigned char c : text)
    if (c < 0x20 || c == 0x7f) finding("error message is not one printable line: " + text);
}

/// Runs the reader `f`: a photon::Error is the contract's answer (checked to be one line); any
/// other exception is a finding naming its type and text.
template <class F>
void run_reader(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    check_error_line(e.what());
  } catch (const std::exception& e) {
    finding(std::string("exception other than photon::Error (") + typeid(e).name() + "): " + e.what());
  } catch (...) {
    finding("exception of a non-std type");
  }
}

/// The fuzz input as text (the bytes as they are, NULs included).
inline std::string as_text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// Writes the input to a private temporary file (for readers that take a path) and removes it
/// when destroyed. `suffix` is the file's extension, e.g. ".onnx".
class TempFile {
 public:
  TempFile(const uint8_t* data, size_t size, const std::string& suffix);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace photon::fuzz
