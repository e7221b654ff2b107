// The vector-op table (isa/vector_ops.h) against the op ranges of docs/command-stream.md
// ("Vector (0x40)") and the codec: every byte value either has exactly one row or is rejected.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "base/error.h"
#include "isa/vector_ops.h"

namespace photon::pcs {
namespace {

// docs/command-stream.md: 0..11 unary, 16..22 binary, 32..36 scalar, 48 softmax, 49 layer_norm,
// 50..52 reduce, 64..65 pooling, 66 im2col, 67 transpose; everything else is rejected.
bool documented(int op, VectorClass& cls) {
  if (op <= 11)
    cls = VectorClass::Unary;
  else if (op >= 16 && op <= 22)
    cls = VectorClass::Binary;
  else if (op >= 32 && op <= 36)
    cls = VectorClass::Scalar;
  else if (op == 48)
    cls = VectorClass::Softmax;
  else if (op == 49)
    cls = VectorClass::LayerNorm;
  else if (op >= 50 && op <= 52)
    cls = VectorClass::Reduce;
  else if (op == 64 || op == 65)
    cls = VectorClass::Pool;
  else if (op == 66)
    cls = VectorClass::Im2col;
  else if (op == 67)
    cls = VectorClass::Transpose;
  else
    return false;
  return true;
}

TEST(VectorOps, EveryByteValueHasTheDocumentedClassOrIsRejected) {
  for (int op = 0; op < 256; ++op) {
    VectorClass want{};
    const bool defined = documented(op, want);
    const VectorOpInfo* row = vector_op_info(static_cast<uint8_t>(op));
    ASSERT_EQ(row != nullptr, defined) << "op " << op;
    Vector v;
    v.op = static_cast<uint8_t>(op);
    if (!defined) {
      EXPECT_THROW(validate(make_vector(v)), Error) << "op " << op;
      continue;
    }
    EXPECT_EQ(row->op, op);
    EXPECT_EQ(row->cls, want) << row->name;
    EXPECT_NO_THROW(validate(make_vector(v))) << row->name;
  }
}

TEST(VectorOps, RowsAreInOpcodeOrderWithUniqueSpellings) {
  std::set<std::string> names;
  int last = -1;
  for (const auto& row : vector_ops()) {
    EXPECT_GT(row.op, last) << row.name;
    last = row.op;
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_EQ(vector_op_by_name(row.name), &row);
    EXPECT_EQ(vector_op_info(row.op), &row);
  }
  EXPECT_EQ(vector_op_by_name("swish"), nullptr);
}

// models/vector/README.md "Timing": exp/erf/tanh/sigmoid/gelu/silu/pow use the special-function
// unit; sqrt, recip and the rest do not.
TEST(VectorOps, TranscendentalOpsAreTheOnesTheTimingModelNames) {
  const std::set<std::string> want = {"gelu", "silu", "sigmoid", "tanh", "erf", "exp", "pow", "pow_scalar"};
  std::set<std::string> got;
  for (const auto& row : vector_ops())
    if (row.transcendental) got.insert(row.name);
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace photon::pcs
