// Fuzz harness: the MLIR parser and the HEIR frontend (workloads/heir/heir_frontend.h) on
// arbitrary text: parse, resolve aliases and resources, unroll, derive the RNS parameters.
#include "fuzz/fuzz_support.h"
#include "workloads/heir/heir_frontend.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = photon::fuzz::as_text(data, size);
  photon::fuzz::run_reader([&] { photon::heir::load_heir_string(text, "fuzz.mlir"); });
  return 0;
}
