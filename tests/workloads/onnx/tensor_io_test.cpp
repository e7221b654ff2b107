// TensorProto .pb reading/writing and payload decoding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "tests/workloads/onnx/model_builder.h"
#include "workloads/onnx/tensor_io.h"

namespace photon::onnx_frontend {
namespace {

using namespace photon::test;
using TP = onnx::TensorProto;

const std::string kDir = std::string(PHOTON_SHARED_DIR) + "/inputs/onnx/";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) { return e.what(); }
  ADD_FAILURE() << "no Error";
  return "";
}

#define EXPECT_HAS(haystack, needle) EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

// Expected values from python3-onnx:
//   t = onnx.TensorProto(); t.ParseFromString(open(f, 'rb').read()); a = onnx.numpy_helper.to_array(t)
//   lenet5_weights_output_0.pb: a.ravel()[0], a.ravel()[9]
//   transformer_layer_d64_weights_output_0.pb: a[0,5,7], a[0,15,63]
TEST(TensorIo, ReadsSharedOutputs) {
  const TensorInfo lenet = read_tensor_pb(kDir + "lenet5_weights_output_0.pb");
  EXPECT_EQ(lenet.name, "output");
  EXPECT_EQ(lenet.dtype, DType::Float32);
  EXPECT_EQ(lenet.shape, (std::vector<int64_t>{1, 10}));
  ASSERT_EQ(lenet.data.size(), 10u);
  EXPECT_FLOAT_EQ(lenet.data[0], -0.060927074402570724f);
  EXPECT_FLOAT_EQ(lenet.data[9], 0.1312815248966217f);

  const TensorInfo tr = read_tensor_pb(kDir + "transformer_layer_d64_weights_output_0.pb");
  EXPECT_EQ(tr.shape, (std::vector<int64_t>{1, 16, 64}));
  ASSERT_EQ(tr.data.size(), 1024u);
  EXPECT_FLOAT_EQ(tr.data[5 * 64 + 7], -0.011759385466575623f);
  EXPECT_FLOAT_EQ(tr.data[15 * 64 + 63], -2.1011040210723877f);

  const TensorInfo in = read_tensor_pb(kDir + "lenet5_weights_input_0.pb");
  EXPECT_EQ(in.shape, (std::vector<int64_t>{1, 1, 28, 28}));
  EXPECT_FLOAT_EQ(in.data[0], -0.948787271976471f);

  // Softmax over 1000 classes of a model whose weights are all equal: uniform 1/1000.
  const TensorInfo sq = read_tensor_pb(kDir + "light_squeezenet_output_0.pb");
  EXPECT_EQ(sq.shape, (std::vector<int64_t>{1, 1000, 1, 1}));
  for (float v : sq.data) EXPECT_FLOAT_EQ(v, 0.001f);
}

TEST(TensorIo, WriteReadRoundTrip) {
  TempDir dir;
  TensorInfo t;
  t.name = "y";
  t.shape = {2, 3};
  t.data = {1.5f, -2.25f, 0.0f, 3e-8f, -1e30f, 7.0f};
  const std::string p = dir.file("y.pb");
  write_tensor_pb(p, t);
  const TensorInfo r = read_tensor_pb(p);
  EXPECT_EQ(r.name, "y");
  EXPECT_EQ(r.shape, t.shape);
  EXPECT_EQ(r.data, t.data);  // bit-exact
  // Only the final file remains (the temp file was renamed).
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.file(""))) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
  // Overwriting an existing file works.
  t.data[0] = 9;
  write_tensor_pb(p, t);
  EXPECT_EQ(read_tensor_pb(p).data[0], 9.0f);
}

TEST(TensorIo, WriteSplatExpands) {
  TempDir dir;
  TensorInfo t;
  t.name = "w";
  t.shape = {4};
  t.splat = true;
  t.splat_value = 0.25f;
  write_tensor_pb(dir.file("w.pb"), t);
  EXPECT_EQ(read_tensor_pb(dir.file("w.pb")).data, (std::vector<float>{0.25f, 0.25f, 0.25f, 0.25f}));
}

TEST(TensorIo, Errors) {
  TempDir dir;
  const std::string text = write_bytes(dir, "t.pb", "hello, this is text\n");
  std::string e = error_of([&] { read_tensor_pb(text); });
  EXPECT_HAS(e, text);
  e = error_of([&] { read_tensor_pb(dir.file("missing.pb")); });
  EXPECT_HAS(e, "missing.pb: cannot open file");
  TensorInfo bad;
  bad.name = "b";
  bad.shape = {3};
  bad.data = {1, 2};
  e = error_of([&] { write_tensor_pb(dir.file("b.pb"), bad); });
  EXPECT_HAS(e, "b.pb");
  EXPECT_HAS(e, "holds 2 values, shape says 3");
  bad.data = {1, 2, 3};
  const std::string nodir = dir.file("no/such/dir/b.pb");
  e = error_of([&] { write_tensor_pb(nodir, bad); });
  EXPECT_HAS(e, nodir);
}

TEST(TensorIo, DecodesTypedFieldsAndRawData) {
  std::vector<float> f;
  std::vector<int64_t> i;
  TP t;
  t.set_name("h");
  t.set_data_type(TP::FLOAT16);
  t.add_dims(3);
  // IEEE binary16: 0x3C00 = 1.0, 0xC000 = -2.0, 0x0001 = 2^-24 (smallest subnormal).
  for (int bits : {0x3C00, 0xC000, 0x0001}) t.add_int32_data(bits);
  decode_tensor_values(t, &f, &i);
  EXPECT_EQ(f, (std::vector<float>{1.0f, -2.0f, std::ldexp(1.0f, -24)}));

  TP b;
  b.set_data_type(TP::BFLOAT16);
  b.add_dims(1);
  b.add_int32_data(0x3F80);  // bfloat16 1.0 (upper half of fp32 0x3F800000)
  decode_tensor_values(b, &f, &i);
  EXPECT_EQ(f, std::vector<float>{1.0f});

  TP d;
  d.set_data_type(TP::DOUBLE);
  d.add_dims(2);
  d.add_double_data(0.1);
  d.add_double_data(-3);
  decode_tensor_values(d, &f, &i);
  EXPECT_EQ(f, (std::vector<float>{0.1f, -3.0f}));

  TP r;
  r.set_data_type(TP::INT8);
  r.add_dims(3);
  r.set_raw_data(std::string("\x01\xff\x80", 3));
  decode_tensor_values(r, &f, &i);
  EXPECT_EQ(i, (std::vector<int64_t>{1, -1, -128}));

  TP l;
  l.set_data_type(TP::INT64);
  l.add_dims(2);
  int64_t vals[2] = {-5, int64_t{1} << 40};
  l.set_raw_data(std::string(reinterpret_cast<const char*>(vals), sizeof vals));
  const TensorInfo info = tensor_from_proto(l);
  EXPECT_EQ(info.dtype, DType::Int64);
  EXPECT_EQ(info.int_data, (std::vector<int64_t>{-5, int64_t{1} << 40}));
  EXPECT_EQ(info.data, (std::vector<float>{-5.0f, 1099511627776.0f}));

  TP c;
  c.set_name("z");
  c.set_data_type(TP::COMPLEX64);
  c.add_dims(1);
  const std::string e = error_of([&] { decode_tensor_values(c, &f, &i); });
  EXPECT_HAS(e, "tensor 'z'");
  EXPECT_HAS(e, "COMPLEX64");
}

}  // namespace
}  // namespace photon::onnx_frontend
