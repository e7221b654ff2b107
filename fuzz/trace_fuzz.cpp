// Fuzz harness: the DRAMsim3-format trace player (models/hbm/hbm_trace.h) on the default HBM2
// configuration, reading the input as the trace text.
#include <sstream>

#include "fuzz/fuzz_support.h"
#include "models/hbm/hbm_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(photon::fuzz::as_text(data, size));
  photon::fuzz::run_reader([&] { photon::run_hbm_trace(photon::HbmConfig{}, in, "fuzz.trace"); });
  return 0;
}
