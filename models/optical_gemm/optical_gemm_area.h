// Optical GEMM engine area (README.md "Area"): photonic devices, converters and light source.
//
// Device footprints are those of Lightening-Transformer's device table (Zhu et al.,
// "Lightening-Transformer: A Dynamically-operated Optically-interconnected Photonic Transformer
// Accelerator", HPCA 2024; its open-source simulator, hardware_simulator/params/device_params),
// in um: thermo-optic MZI 180 x 100, MZI modulator 260 x 20, microring (WDM mux/demux) 4.8 x
// 4.8, photodetector 4 x 10, TIA 50 um2, crossbar node (y-branch 1.8, phase shifter 100 x 45,
// directional coupler 5.25, detector 10, 30 um spacing) 147.05 x 66.8, on-chip laser 400 x 300,
// micro-comb 1184 x 1184.
// Converters, scaled from one published design each:
//   ADC: 8 bit, 10 GS/s, 2850 um2 (a two-step time-domain ADC in 14 nm CMOS, ISSCC 2022, the ADC
//        of Lightening-Transformer's table);
//   DAC: 8 bit, 14 GS/s, 11000 um2 (Lightening-Transformer's table).
//   area(bits, rate) = A_ref x 2^(bits - 8) x max(1, rate / rate_ref): a binary-weighted
//   converter (SAR capacitor array, current-steering cells) doubles its unit elements per bit;
//   above the reference rate, time-interleaved channels are added.
// Counts (the engine of README.md "Architecture assumed"):
//   stationary: rows x cols MZI weight cells; cols x wavelengths input modulators and DACs at
//     modulation_ghz; rows x cols weight DACs at the reprogramming rate 1/weight_program_ns
//     (below the reference rate: one channel each); rows x wavelengths photodetectors, TIAs and
//     ADCs at modulation_ghz; (rows + cols) x wavelengths x 2 microrings.
//   streamed: rows x cols crossbar nodes (each with its detector pair); (rows + cols) x
//     wavelengths modulators and DACs at modulation_ghz; rows x wavelengths TIAs and ADCs;
//     (rows + cols) x wavelengths x 2 microrings.
//   light source: one laser, and a micro-comb when wavelengths > 1.
#pragma once

#include "models/optical_gemm/optical_gemm_config.h"
#include "platform/stats/area.h"

namespace photon {

/// ADC area at `bits` and `gsps` (GS/s), mm2 (scaling above).
double adc_area_mm2(uint32_t bits, double gsps);
/// DAC area at `bits` and `gsps` (GS/s), mm2 (scaling above).
double dac_area_mm2(uint32_t bits, double gsps);

/// The engine's area by part (weight cells, modulators, microrings, detectors, DACs, ADCs,
/// laser), mm2.
UnitArea optical_gemm_area(const OpticalGemmConfig& c);

}  // namespace photon
