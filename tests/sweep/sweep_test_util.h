// Helpers for the sweep tests: specs written as text next to the source tree's configs.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "base/error.h"
#include "sweep/sweep_spec.h"

namespace photon_test {

/// A spec file name inside tests/sweep, so that "../../configs/default.yaml" resolves.
inline std::string spec_path() { return std::string(PHOTON_SOURCE_DIR) + "/tests/sweep/test_spec.yaml"; }

/// A spec with the default base and one command-stream workload, plus `body`.
inline std::string spec_text(const std::string& body) {
  return "base: ../../configs/default.yaml\nworkloads: [../../examples/gemm.pasm]\n" + body;
}

inline photon::sweep::SweepSpec parse(const std::string& body) {
  return photon::sweep::parse_sweep_spec_text(spec_text(body), spec_path());
}

/// The message of the Error that parsing `body` throws ("no error" when none).
inline std::string parse_error(const std::string& body) {
  try {
    parse(body);
  } catch (const photon::Error& e) { return e.what(); }
  return "no error";
}

}  // namespace photon_test
