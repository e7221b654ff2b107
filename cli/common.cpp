#include "cli/common.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "base/text.h"
#include "base/output_file.h"

namespace photon::cli {

void ConfigOptions::add_to(CLI::App& app, bool required) {
  auto* o = app.add_option("--config", file, "platform configuration (YAML), e.g. configs/default.yaml");
  if (required) o->required();
  app.add_option("--set", sets, "override one configuration key: --set hbm.tRCD=16 (repeatable)")
      ->allow_extra_args(false);
}

RunConfig ConfigOptions::load() const { return load_run_config(file, sets); }

void check_output_path(const std::string& path) { probe_output_file(path); }

void OutputFiles::add(const std::string& what, const std::string& path) {
  if (!path.empty()) files_.push_back({what, path});
}

void OutputFiles::state_of(const std::string& path, bool& exists, long long& stamp, unsigned long long& size) {
  namespace fs = std::filesystem;
  std::error_code ec;
  exists = fs::is_regular_file(path, ec);
  stamp = 0;
  size = 0;
  if (!exists) return;
  stamp = std::chrono::duration_cast<std::chrono::nanoseconds>(fs::last_write_time(path, ec).time_since_epoch())
              .count();
  size = fs::file_size(path, ec);
}

void OutputFiles::check() {
  namespace fs = std::filesystem;
  for (size_t i = 0; i < files_.size(); ++i) {
    File& f = files_[i];
    with_error_context(f.what, [&] { probe_output_file(f.path); });
    for (size_t k = 0; k < i; ++k)
      if (fs::weakly_canonical(files_[k].path) == fs::weakly_canonical(f.path))
        throw Error(files_[k].what + " and " + f.what + " name the same file: " + f.path);
  }
  for (File& f : files_) state_of(f.path, f.existed, f.stamp, f.size);
}

const OutputFiles::File* OutputFiles::find(const std::string& what) const {
  for (const File& f : files_)
    if (f.what == what) return &f;
  return nullptr;
}

bool OutputFiles::changed(const std::string& what) const {
  const File* f = find(what);
  if (!f) return false;
  bool exists;
  long long stamp;
  unsigned long long size;
  state_of(f->path, exists, stamp, size);
  return exists && (!f->existed || stamp != f->stamp || size != f->size);
}

void OutputFiles::remove(const std::string& what) {
  if (const File* f = find(what)) std::remove(f->path.c_str());
}

OutputFiles::~OutputFiles() {
  if (keep_) return;
  for (const File& f : files_)
    if (changed(f.what)) std::remove(f.path.c_str());
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
