#include "cli/common.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "base/text.h"

namespace photon::cli {

void ConfigOptions::add_to(CLI::App& app, bool required) {
  auto* o = app.add_option("--config", file, "platform configuration (YAML), e.g. configs/default.yaml");
  if (required) o->required();
  app.add_option("--set", sets, "override one configuration key: --set hbm.tRCD=16 (repeatable)")
      ->allow_extra_args(false);
}

RunConfig ConfigOptions::load() const { return load_run_config(file, sets); }

void check_output_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (fs::exists(p, ec) && !fs::is_regular_file(p, ec))
    throw Error("not a regular file (refusing to replace it)").with_context(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) throw Error("directory does not exist").with_context(path);
  if (::access(dir.c_str(), W_OK) != 0) throw Error("directory is not writable").with_context(path);
}

void write_file_atomic(const std::string& path, const std::string& text) {
  check_output_path(path);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write output file").with_context(path);
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw Error("write failed").with_context(path);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error("cannot rename temporary file into place").with_context(path);
  }
}

void write_json_atomic(const std::string& path, const nlohmann::json& j) {
  write_file_atomic(path, dump_json(j, 1) + "\n");
}

double wall_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

Progress::Progress(bool quiet) : enabled_(!quiet && ::isatty(2)), start_s_(wall_seconds()) {}

Progress::~Progress() {
  if (shown_) std::fprintf(stderr, "\r\033[K");
}

void Progress::update(const std::string& text) {
  if (!enabled_ || wall_seconds() - start_s_ < 1.0) return;
  std::fprintf(stderr, "\r\033[K[photon] %s", text.c_str());
  std::fflush(stderr);
  shown_ = true;
}

}  // namespace photon::cli
