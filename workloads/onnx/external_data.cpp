#include "workloads/onnx/external_data.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "base/checked_size.h"
#include "base/error.h"
#include "base/file_read.h"
#include "workloads/onnx/model_checks.h"
#include "workloads/onnx/tensor_io.h"

namespace photon::onnx_frontend {
namespace {

namespace fs = std::filesystem;
using TP = onnx::TensorProto;

// A decimal offset or length of the external_data entry `key`.
uint64_t parse_count(const std::string& key, const std::string& v) {
  if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
    throw Error("external_data " + key + " '" + v + "' is not a decimal byte count");
  return std::stoull(v);
}

// The file `location` names, inside `dir` (the model's directory, canonical). Refuses absolute
// paths, ".." components and symbolic links that lead outside `dir`.
fs::path resolve_location(const fs::path& dir, const std::string& location) {
  if (location.empty()) throw Error("external_data location is empty");
  const fs::path rel(location);
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
    throw Error("external_data location '" + location +
                "' is absolute: external data must lie in the model's directory");
  for (const auto& part : rel)
    if (part == "..")
      throw Error("external_data location '" + location +
                  "' leaves the model's directory ('..'): external data must lie in it");
  const fs::path p = dir / rel;
  std::error_code ec;
  if (!fs::exists(p, ec)) throw Error("external data file " + p.string() + " does not exist");
  const fs::path real = fs::weakly_canonical(p, ec);
  if (ec) throw Error("external data file " + p.string() + ": " + ec.message());
  const auto rel_real = real.lexically_relative(dir);
  if (rel_real.empty() || *rel_real.begin() == "..")
    throw Error("external data file " + p.string() + " resolves to " + real.string() +
                ", outside the model's directory");
  return p;
}

void load_one(TP& t, const fs::path& dir) {
  std::string location;
  uint64_t offset = 0;
  bool has_length = false;
  uint64_t length = 0;
  for (const auto& e : t.external_data()) {
    if (e.key() == "location")
      location = e.value();
    else if (e.key() == "offset")
      offset = parse_count("offset", e.value());
    else if (e.key() == "length")
      has_length = true, length = parse_count("length", e.value());
  }
  if (location.empty()) throw Error("data_location is EXTERNAL but external_data has no location");
  const fs::path p = resolve_location(dir, location);
  const uint64_t size = regular_file_size(p.string(), "an external data file");
  if (offset > size)
    throw Error("external_data offset " + std::to_string(offset) + " is past the end of " + p.string() + " (" +
                std::to_string(size) + " bytes)");
  if (!has_length) length = size - offset;
  if ((Size::of_unsigned(offset) + Size::of_unsigned(length)).value() > size)
    throw Error("external_data offset " + std::to_string(offset) + " + length " + std::to_string(length) +
                " reaches past the end of " + p.string() + " (" + std::to_string(size) + " bytes)");
  // The payload the dims allow, checked before any byte is read.
  if (onnx_element_bytes(t.data_type()) == 0)
    throw Error("external data of data type " + onnx_type_name(t.data_type()) + " is not supported");
  const uint64_t expected = (tensor_element_count(t) * Size::of_unsigned(onnx_element_bytes(t.data_type()))).value();
  if (length != expected)
    throw Error("external data holds " + std::to_string(length) + " bytes (" + p.string() + "), dims and " +
                onnx_type_name(t.data_type()) + " need " + std::to_string(expected));
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(p.c_str(), "rb"), &std::fclose);
  if (!f) throw Error(std::string("cannot open external data file ") + p.string() + ": " + std::strerror(errno));
  std::string* raw = t.mutable_raw_data();
  raw->resize(length);
  if ((offset && std::fseek(f.get(), long(offset), SEEK_SET) != 0) ||
      (length && std::fread(&(*raw)[0], 1, length, f.get()) != length))
    throw Error("external data file " + p.string() + ": read of " + std::to_string(length) + " bytes at offset " +
                std::to_string(offset) + " failed");
  t.clear_external_data();
  t.set_data_location(TP::DEFAULT);
}

}  // namespace

void load_external_data(onnx::ModelProto& m, const std::string& model_path) {
  fs::path dir;
  bool have_dir = false;
  for_each_tensor(*m.mutable_graph(), [&](TP& t, const std::string& where) {
    if (t.data_location() != TP::EXTERNAL) return;
    if (!have_dir) {
      std::error_code ec;
      fs::path parent = fs::path(model_path).parent_path();
      dir = fs::weakly_canonical(parent.empty() ? fs::path(".") : parent, ec);
      if (ec) throw Error("cannot resolve the model's directory: " + ec.message());
      have_dir = true;
    }
    with_error_context(where, [&] { load_one(t, dir); });
  });
}

}  // namespace photon::onnx_frontend
