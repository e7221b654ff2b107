#include "workloads/onnx/tensor_io.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "base/error.h"

namespace photon::onnx_frontend {
namespace {

using TP = onnx::TensorProto;

// IEEE 754 binary16 bit pattern -> float (exact: every half value is representable in fp32).
float half_to_float(uint16_t h) {
  const int sign = (h >> 15) & 1;
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);  // subnormal: mant * 2^-24
  } else if (exp == 31) {
    v = mant ? NAN : INFINITY;
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400), exp - 25);  // (1.mant) * 2^(exp-15)
  }
  return sign ? -v : v;
}

// bfloat16 bit pattern -> float (the upper 16 bits of an fp32).
float bf16_to_float(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// Bytes per element in raw_data; 0 for unsupported types.
size_t element_size(int32_t type) {
  switch (type) {
    case TP::FLOAT:
    case TP::INT32:
    case TP::UINT32: return 4;
    case TP::DOUBLE:
    case TP::INT64:
    case TP::UINT64: return 8;
    case TP::FLOAT16:
    case TP::BFLOAT16:
    case TP::INT16:
    case TP::UINT16: return 2;
    case TP::INT8:
    case TP::UINT8:
    case TP::BOOL: return 1;
    default: return 0;
  }
}

template <typename T>
T load_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);  // hosts are little-endian (x86-64, AArch64), as is raw_data
  return v;
}

// One element of raw_data as float (float types) or int64 (integer types).
double raw_element(int32_t type, const char* p) {
  switch (type) {
    case TP::FLOAT: return load_le<float>(p);
    case TP::DOUBLE: return load_le<double>(p);
    case TP::FLOAT16: return half_to_float(load_le<uint16_t>(p));
    case TP::BFLOAT16: return bf16_to_float(load_le<uint16_t>(p));
    default: return 0;
  }
}

int64_t raw_int_element(int32_t type, const char* p) {
  switch (type) {
    case TP::INT8: return load_le<int8_t>(p);
    case TP::UINT8: return load_le<uint8_t>(p);
    case TP::BOOL: return load_le<uint8_t>(p) != 0;
    case TP::INT16: return load_le<int16_t>(p);
    case TP::UINT16: return load_le<uint16_t>(p);
    case TP::INT32: return load_le<int32_t>(p);
    case TP::UINT32: return load_le<uint32_t>(p);
    case TP::INT64: return load_le<int64_t>(p);
    case TP::UINT64: return static_cast<int64_t>(load_le<uint64_t>(p));
    default: return 0;
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error("read error");
  return ss.str();
}

}  // namespace

bool onnx_is_integer_type(int32_t t) {
  switch (t) {
    case TP::INT8:
    case TP::UINT8:
    case TP::INT16:
    case TP::UINT16:
    case TP::INT32:
    case TP::UINT32:
    case TP::INT64:
    case TP::UINT64:
    case TP::BOOL: return true;
    default: return false;
  }
}

bool onnx_is_float_type(int32_t t) {
  return t == TP::FLOAT || t == TP::DOUBLE || t == TP::FLOAT16 || t == TP::BFLOAT16;
}

DType dtype_from_onnx(int32_t t) {
  switch (t) {
    case TP::FLOAT:
    case TP::DOUBLE:
    case TP::BFLOAT16: return DType::Float32;
    case TP::FLOAT16: return DType::Float16;
    case TP::INT64: return DType::Int64;
    case TP::INT32: return DType::Int32;
    case TP::BOOL: return DType::Bool;
    default: return DType::Other;
  }
}

std::string onnx_type_name(int32_t t) {
  if (!onnx::TensorProto_DataType_IsValid(t)) return "type " + std::to_string(t);
  return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(t));
}

void decode_tensor_values(const TP& t, std::vector<float>* f, std::vector<int64_t>* i) {
  const std::string where = "tensor '" + t.name() + "'";
  const int32_t type = t.data_type();
  const size_t esize = element_size(type);
  if (esize == 0) throw Error("unsupported data type " + onnx_type_name(type)).with_context(where);
  if (t.data_location() == TP::EXTERNAL) {
    throw Error("external data is not supported (save the model with weights inside the file)")
        .with_context(where);
  }
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) throw Error("negative dimension " + std::to_string(d)).with_context(where);
    n *= d;
  }
  const bool is_float = onnx_is_float_type(type);
  if (is_float)
    f->resize(static_cast<size_t>(n));
  else
    i->resize(static_cast<size_t>(n));

  auto check_count = [&](int64_t have, const char* field) {
    if (have != n) {
      throw Error(std::string(field) + " holds " + std::to_string(have) + " values, dims say " +
                  std::to_string(n))
          .with_context(where);
    }
  };
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    check_count(static_cast<int64_t>(raw.size() / esize), "raw_data");
    if (raw.size() % esize)
      throw Error("raw_data size is not a multiple of the element size").with_context(where);
    const char* p = raw.data();
    if (n == 0) {
      return;
    } else if (type == TP::FLOAT) {
      std::memcpy(f->data(), p, raw.size());
    } else if (is_float) {
      for (int64_t k = 0; k < n; ++k) (*f)[k] = static_cast<float>(raw_element(type, p + k * esize));
    } else {
      for (int64_t k = 0; k < n; ++k) (*i)[k] = raw_int_element(type, p + k * esize);
    }
    return;
  }
  switch (type) {
    case TP::FLOAT:
      check_count(t.float_data_size(), "float_data");
      std::copy(t.float_data().begin(), t.float_data().end(), f->begin());
      break;
    case TP::DOUBLE:
      check_count(t.double_data_size(), "double_data");
      for (int64_t k = 0; k < n; ++k) (*f)[k] = static_cast<float>(t.double_data(k));
      break;
    case TP::FLOAT16:
    case TP::BFLOAT16:
      check_count(t.int32_data_size(), "int32_data");
      for (int64_t k = 0; k < n; ++k) {
        const auto bits = static_cast<uint16_t>(t.int32_data(k));
        (*f)[k] = type == TP::FLOAT16 ? half_to_float(bits) : bf16_to_float(bits);
      }
      break;
    case TP::INT64:
      check_count(t.int64_data_size(), "int64_data");
      std::copy(t.int64_data().begin(), t.int64_data().end(), i->begin());
      break;
    case TP::UINT32:
    case TP::UINT64:
      check_count(t.uint64_data_size(), "uint64_data");
      for (int64_t k = 0; k < n; ++k) (*i)[k] = static_cast<int64_t>(t.uint64_data(k));
      break;
    default:  // INT8..UINT16, INT32, BOOL live in int32_data
      check_count(t.int32_data_size(), "int32_data");
      for (int64_t k = 0; k < n; ++k) (*i)[k] = type == TP::BOOL ? (t.int32_data(k) != 0) : t.int32_data(k);
      break;
  }
}

TensorInfo tensor_from_proto(const TP& t) {
  TensorInfo info;
  info.name = t.name();
  info.dtype = dtype_from_onnx(t.data_type());
  info.shape.assign(t.dims().begin(), t.dims().end());
  info.is_constant = true;
  decode_tensor_values(t, &info.data, &info.int_data);
  if (!info.int_data.empty()) info.data.assign(info.int_data.begin(), info.int_data.end());
  return info;
}

TP tensor_to_proto(const TensorInfo& t) {
  const int64_t n = t.numel();
  TP p;
  p.set_name(t.name);
  p.set_data_type(TP::FLOAT);
  for (int64_t d : t.shape) p.add_dims(d);
  std::string* raw = p.mutable_raw_data();
  raw->resize(static_cast<size_t>(n) * sizeof(float));
  if (t.splat && t.data.empty()) {
    for (int64_t k = 0; k < n; ++k) std::memcpy(&(*raw)[k * sizeof(float)], &t.splat_value, sizeof(float));
  } else {
    if (static_cast<int64_t>(t.data.size()) != n) {
      throw Error("holds " + std::to_string(t.data.size()) + " values, shape says " + std::to_string(n))
          .with_context("tensor '" + t.name + "'");
    }
    if (n) std::memcpy(raw->data(), t.data.data(), raw->size());
  }
  return p;
}

TensorInfo read_tensor_pb(const std::string& path) {
  return with_error_context(path, [&] {
    const std::string bytes = read_file(path);
    TP t;
    if (bytes.empty() || !t.ParseFromString(bytes)) {
      throw Error("not a serialized ONNX TensorProto (empty, truncated or another format)");
    }
    if (t.data_type() == TP::UNDEFINED) throw Error("not an ONNX TensorProto: data_type is unset");
    return tensor_from_proto(t);
  });
}

void write_tensor_pb(const std::string& path, const TensorInfo& t) {
  with_error_context(path, [&] {
    const std::string bytes = tensor_to_proto(t).SerializeAsString();
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) throw Error("cannot open '" + tmp + "' for writing");
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      out.close();
      if (!out) {
        std::remove(tmp.c_str());
        throw Error("write to '" + tmp + "' failed");
      }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      std::remove(tmp.c_str());
      throw Error("cannot rename '" + tmp + "' to the target: " + why);
    }
  });
}

}  // namespace photon::onnx_frontend
