// EngineFactories::real(): the platform's compute engines.
#include "models/ntt/ntt_engine.h"
#include "models/optical_gemm/optical_gemm_engine.h"
#include "models/vector/vector_engine.h"
#include "soc/platform.h"

namespace photon {

EngineFactories EngineFactories::real() {
  EngineFactories f;
  f.gemm = [](const PlatformConfig& c) { return std::make_unique<OpticalGemmEngine>(c.optical_gemm); };
  f.ntt = [](const PlatformConfig& c) { return std::make_unique<NttEngine>(c.ntt); };
  f.vector = [](const PlatformConfig& c) { return std::make_unique<VectorEngine>(c.vector); };
  return f;
}

}  // namespace photon
