#include "soc/unit_table.h"

#include "base/error.h"
#include "cosim/ntt/ntt_rtl_unit.h"
#include "models/dma/dma.h"
#include "models/dma/dma_area.h"
#include "models/ntt/ntt_area.h"
#include "models/ntt/ntt_engine.h"
#include "models/optical_gemm/optical_gemm_area.h"
#include "models/optical_gemm/optical_gemm_engine.h"
#include "models/vector/vector_area.h"
#include "models/vector/vector_engine.h"
#include "platform/compute_unit.h"

namespace photon {
namespace {

/// A unit whose commands a pure-C++ Engine executes.
template <class EngineT, class ConfigT>
UnitImpl engine_impl(ConfigT PlatformConfig::*section, std::string doc) {
  return {"tlm", std::move(doc),
          [section](const UnitContext& c) -> std::unique_ptr<QueueUnit> {
            return std::make_unique<ComputeUnit>(c.wiring.unit.c_str(),
                                                 std::make_unique<EngineT>(c.cfg.*section), c.spm, c.wiring);
          },
          nullptr};  // the engine's own validate() covers its section
}

}  // namespace

const UnitImpl& UnitDesc::implementation(const std::string& impl) const {
  for (const auto& i : impls)
    if (i.name == impl) return i;
  throw Error(name + ".impl: no implementation '" + impl + "'");
}

const std::vector<UnitDesc>& unit_table() {
  static const std::vector<UnitDesc> table = {
      {"dma",
       regs::QueueId::DMA,
       {{"tlm", "loosely timed TLM model (models/dma)",
         [](const UnitContext& c) -> std::unique_ptr<QueueUnit> {
           return std::make_unique<DmaUnit>("dma", c.cfg.dma, c.functional, c.wiring);
         },
         nullptr}},  // DmaConfig::validate() covers its section
       [](const PlatformConfig& c) { return dma_area(c.dma); }},
      {"optical_gemm",
       regs::QueueId::GEMM,
       {engine_impl<OpticalGemmEngine>(&PlatformConfig::optical_gemm,
                                       "timing and numerics model (models/optical_gemm)")},
       [](const PlatformConfig& c) { return optical_gemm_area(c.optical_gemm); }},
      {"ntt",
       regs::QueueId::NTT,
       {engine_impl<NttEngine>(&PlatformConfig::ntt, "timing and modular-arithmetic model (models/ntt)"),
        {"rtl", "NTT/INTT on the verilated RTL core (cosim/ntt), other commands on the TLM engine",
         [](const UnitContext& c) -> std::unique_ptr<QueueUnit> {
           return std::make_unique<NttRtlUnit>("ntt", c.cfg.ntt, c.cfg.cosim, c.spm, c.wiring);
         },
         [](const PlatformConfig& cfg) { NttRtlUnit::check_config(cfg.ntt, cfg.cosim); }}},
       [](const PlatformConfig& c) { return ntt_area(c.ntt); }},
      {"vector",
       regs::QueueId::VEC,
       {engine_impl<VectorEngine>(&PlatformConfig::vector, "timing and fp32 kernel model (models/vector)")},
       [](const PlatformConfig& c) { return vector_area(c.vector); }},
  };
  return table;
}

}  // namespace photon
