// Fuzz harness: the YAML configuration loader (base/config_loader.h) for the run configuration
// every command reads (workloads/config/run_config.h): parse, merge keys, presets, ranges, the
// cross-section checks.
#include "fuzz/fuzz_support.h"
#include "workloads/config/run_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  photon::fuzz::TempFile file(data, size, ".yaml");
  photon::fuzz::run_reader([&] { photon::load_run_config(file.path(), {}); });
  return 0;
}
