// Configuration: defaults, YAML loading, --set overrides, presets and every kind of error.
#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/error.h"
#include "workloads/config/run_config.h"

using photon::Error;
using photon::load_run_config;
using ::testing::HasSubstr;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& yaml_path, const std::vector<std::string>& sets) {
  try {
    load_run_config(yaml_path, sets);
  } catch (const Error& e) { return e.what(); }
  return "";
}

}  // namespace

TEST(Config, DefaultYamlIsCompleteAndMatchesBuiltInDefaults) {
  // configs/default.yaml must name every key and agree with the defaults in the code, so the
  // file documents the platform the code builds when no file is given.
  std::string path = std::string(PHOTON_SOURCE_DIR) + "/configs/default.yaml";
  photon::RunConfig from_file = load_run_config(path, {});
  photon::RunConfig builtin;
  EXPECT_EQ(photon::config_json(from_file), photon::config_json(builtin));
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const photon::ParamSet ps = photon::bind_params(builtin);
  for (const auto& [key, p] : ps.params()) {
    std::string leaf = key.substr(key.find('.') + 1) + ":";
    EXPECT_THAT(text, HasSubstr(leaf)) << key;
  }
}

TEST(Config, YamlValuesAndOverridesApply) {
  auto path = write_temp("ok.yaml", "hbm:\n  tRCD: 20\noptical_gemm:\n  rows: 64\n  numerics: physical\n");
  auto cfg = load_run_config(path, {"hbm.tRCD=22", "scratchpad.size_kib=1024"});
  EXPECT_EQ(cfg.hbm.tRCD, 22u);  // --set wins over the file
  EXPECT_EQ(cfg.optical_gemm.rows, 64u);
  EXPECT_EQ(cfg.optical_gemm.numerics, photon::Numerics::Physical);
  EXPECT_EQ(cfg.scratchpad.size_bytes(), 1024u * 1024u);
  EXPECT_EQ(photon::config_json(cfg)["hbm"]["tRCD"], 22);
}

TEST(Config, FilePathKeysInAYamlFileAreRelativeToIt) {
  // cpu.firmware and cosim.waveform name files: relative to the YAML file's directory when given
  // there; a --set value and an absolute path are taken as they are.
  const std::string dir = ::testing::TempDir() + "cfgdir_paths";
  std::filesystem::create_directories(dir + "/sub");
  const std::string path = dir + "/sub/paths.yaml";
  std::ofstream(path) << "cpu:\n  model: rv32\n  firmware: ../fw/my.elf\n";
  auto cfg = load_run_config(path, {});
  EXPECT_EQ(cfg.cpu.firmware, (std::filesystem::path(dir) / "fw/my.elf").lexically_normal().string());
  cfg = load_run_config(path, {"cpu.firmware=rel.elf"});
  EXPECT_EQ(cfg.cpu.firmware, "rel.elf");
  std::ofstream(path) << "cpu:\n  model: rv32\n  firmware: /abs/my.elf\n";
  EXPECT_EQ(load_run_config(path, {}).cpu.firmware, "/abs/my.elf");
  // hbm.address_mapping is text but no file: untouched.
  std::ofstream(path) << "hbm:\n  address_mapping: ro ra bg ba ch co\n";
  EXPECT_EQ(load_run_config(path, {}).hbm.address_mapping, "ro ra bg ba ch co");
}

TEST(Config, FirmwareNeedsTheRv32Model) {
  EXPECT_THAT(error_of("", {"cpu.firmware=x.elf"}), HasSubstr("cpu.firmware: only used with cpu.model=rv32"));
}

TEST(Config, PresetAppliesBeforeExplicitKeys) {
  // Key order in the file must not matter: the preset is applied first.
  auto path = write_temp("preset.yaml", "hbm:\n  tRCD: 30\n  preset: hbm3\n");
  auto cfg = load_run_config(path, {});
  EXPECT_EQ(cfg.hbm.tRCD, 30u);
  EXPECT_EQ(cfg.hbm.channels, 16u);  // from the hbm3 preset
}

TEST(Config, UnknownKeyNamesKeyAndFile) {
  auto path = write_temp("unknown.yaml", "hbm:\n  tRCDX: 3\n");
  std::string e = error_of(path, {});
  EXPECT_THAT(e, HasSubstr("hbm.tRCDX"));
  EXPECT_THAT(e, HasSubstr("unknown.yaml:2:3"));
  EXPECT_THAT(error_of("", {"no.such.key=1"}), HasSubstr("no.such.key"));
}

TEST(Config, WrongTypeNamesKey) {
  auto path = write_temp("type.yaml", "hbm:\n  channels: many\n");
  std::string e = error_of(path, {});
  EXPECT_THAT(e, HasSubstr("hbm.channels"));
  EXPECT_THAT(e, HasSubstr("non-negative integer"));
  EXPECT_THAT(error_of("", {"optical_gemm.numerics=exact"}), HasSubstr("ideal, physical"));
  EXPECT_THAT(error_of("", {"hbm.refresh_enabled=maybe"}), HasSubstr("true or false"));
  auto seq = write_temp("seq.yaml", "hbm:\n  channels: [1, 2]\n");
  EXPECT_THAT(error_of(seq, {}), HasSubstr("sequence"));
}

TEST(Config, IntegersReadAsYamlCoreSchemaIntegers) {
  // YAML 1.2 core: a leading zero is decimal (010 is 10, not octal 8); 0x hex and 0o octal.
  EXPECT_EQ(load_run_config("", {"scratchpad.size_kib=010"}).scratchpad.size_kib, 10u);
  EXPECT_EQ(load_run_config("", {"scratchpad.size_kib=0x400"}).scratchpad.size_kib, 1024u);
  EXPECT_EQ(load_run_config("", {"scratchpad.size_kib=0o20"}).scratchpad.size_kib, 16u);
  EXPECT_EQ(load_run_config("", {"scratchpad.size_kib=2_048"}).scratchpad.size_kib, 2048u);
  EXPECT_THAT(error_of("", {"scratchpad.size_kib=0o9"}), HasSubstr("scratchpad.size_kib"));
  EXPECT_THAT(error_of("", {"scratchpad.size_kib=0x"}), HasSubstr("scratchpad.size_kib"));
}

TEST(Config, OutOfRangeNamesKeyAndRange) {
  std::string e = error_of("", {"optical_gemm.dac_bits=40"});
  EXPECT_THAT(e, HasSubstr("optical_gemm.dac_bits"));
  EXPECT_THAT(e, HasSubstr("out of range [1, 16]"));
  EXPECT_THAT(error_of("", {"vector.clock_ghz=0"}), HasSubstr("vector.clock_ghz"));
  // Integer bounds above 2^53 are compared and printed exactly: 2^63 is one past cpu.ring_base's
  // bound (it rounded to the bound as a double and was accepted), printed as an integer.
  EXPECT_THAT(error_of("", {"cpu.ring_base=9223372036854775808"}),
              HasSubstr("cpu.ring_base: value 9223372036854775808 out of range [0, 9223372036854775807]"));
  EXPECT_THAT(error_of("", {"cpu.ring_base=100"}), HasSubstr("cpu.ring_base: 100 is not a multiple of 64 bytes"));
}

TEST(Config, BadYamlGivesLineNumber) {
  auto path = write_temp("bad.yaml", "hbm:\n  tRCD: 14\n  tRP: [14\nscratchpad:\n");
  std::string e = error_of(path, {});
  EXPECT_THAT(e, HasSubstr("bad.yaml:"));
  EXPECT_THAT(e, HasSubstr("invalid YAML"));
  // yaml-cpp reports the line where the flow sequence breaks (1-based here).
  EXPECT_THAT(e, ::testing::ContainsRegex("bad.yaml:[3-5]:"));
}

TEST(Config, MissingFileAndMalformedSet) {
  EXPECT_THAT(error_of("/nonexistent/x.yaml", {}), HasSubstr("cannot open"));
  EXPECT_THAT(error_of("", {"hbm.tRCD"}), HasSubstr("key=value"));
}

TEST(Config, CrossFieldValidation) {
  std::string e = error_of("", {"noc.scratchpad_base=0x1000"});
  EXPECT_THAT(e, HasSubstr("noc.scratchpad_base"));
}
