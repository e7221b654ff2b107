// Fuzz harness: the ONNX loader (workloads/onnx/onnx_loader.h) on arbitrary file contents.
#include "fuzz/fuzz_support.h"
#include "workloads/onnx/onnx_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  photon::fuzz::TempFile file(data, size, ".onnx");
  photon::fuzz::run_reader([&] { photon::onnx_frontend::load_onnx(file.path()); });
  return 0;
}
