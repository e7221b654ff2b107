// Node attribute helpers and Graph::tensor (workloads/graph/graph.cpp).
#include <gtest/gtest.h>

#include "base/error.h"
#include "workloads/graph/graph.h"

namespace photon {
namespace {

TEST(GraphHelpers, AttributesWithDefaultsAndTypeErrors) {
  Node n;
  n.name = "conv1";
  n.op_type = "Conv";
  n.attrs["group"] = int64_t{2};
  n.attrs["alpha"] = 0.5f;
  n.attrs["auto_pad"] = std::string("SAME_UPPER");
  n.attrs["pads"] = std::vector<int64_t>{1, 1, 2, 2};
  n.attrs["scales"] = std::vector<float>{2.0f, 3.0f};
  EXPECT_EQ(n.attr_int("group", 1), 2);
  EXPECT_EQ(n.attr_int("absent", 7), 7);
  EXPECT_FLOAT_EQ(n.attr_float("alpha", 1.0f), 0.5f);
  EXPECT_FLOAT_EQ(n.attr_float("group", 1.0f), 2.0f);  // an int attribute read as float
  EXPECT_EQ(n.attr_string("auto_pad", "NOTSET"), "SAME_UPPER");
  EXPECT_EQ(n.attr_ints("pads", {}), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(n.attr_ints("strides", {1, 1}), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(n.attr_floats("scales", {}), (std::vector<float>{2.0f, 3.0f}));
  EXPECT_TRUE(n.has_attr("pads"));
  EXPECT_FALSE(n.has_attr("dilations"));
  try {
    n.attr_int("auto_pad", 0);
    FAIL() << "no Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "node 'conv1' (Conv): attribute 'auto_pad' is not an int");
  }
  EXPECT_THROW(n.attr_ints("group", {}), Error);
}

TEST(GraphHelpers, TensorLookup) {
  Graph g;
  g.name = "g";
  TensorInfo t;
  t.name = "x";
  t.shape = {2, 3};
  g.tensors["x"] = t;
  EXPECT_EQ(g.tensor("x").numel(), 6);
  try {
    g.tensor("y");
    FAIL() << "no Error";
  } catch (const Error& e) { EXPECT_STREQ(e.what(), "graph 'g': unknown tensor 'y'"); }
}

}  // namespace
}  // namespace photon
