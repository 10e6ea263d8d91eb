// The transform_any table (assign: a copy with conversion between any two
// dtypes), checked by hand against the conversion rules of loops/convert.h.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "libops/legacy/ops/transform_any_ops.h"
#include "transform_test_util.h"

using namespace libops;
using namespace libops::test;
namespace tr = libops::test::transform;
using legacy::TransformAnyOp;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> assign(DataType from, DataType to, const std::vector<double>& v) {
  NDArray x = make(from, {static_cast<int64_t>(v.size())}, v), z = zeros(to, x.shape());
  Status s = tr::run(OPS_TRANSFORM_ANY, static_cast<int>(TransformAnyOp::assign), x, z);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return values(z);
}

TEST(TransformAnyTable, ListsAssignOnly) {
  tr::expect_cases_match_table(OPS_TRANSFORM_ANY, LIBOPS_TRANSFORM_ANY_COUNT, {"assign"});
  EXPECT_EQ(static_cast<int>(TransformAnyOp::assign), 0);
}

TEST(TransformAny, FloatToIntegerTruncatesSaturatesAndMapsNaNToZero) {
  EXPECT_EQ(assign(DataType::kFloat32, DataType::kInt8, {-1.9, 1.9, 300, -300, kNaN, kInf, -kInf}),
            (std::vector<double>{-1, 1, 127, -128, 0, 127, -128}));
  EXPECT_EQ(assign(DataType::kFloat64, DataType::kUInt16, {-5, 65535.9, 1e9, 7.5}),
            (std::vector<double>{0, 65535, 65535, 7}));
}

TEST(TransformAny, IntegerToFloatAndHalfRounding) {
  // 2049 is not a float16: ties to even gives 2048; 1e5 overflows to inf.
  EXPECT_EQ(assign(DataType::kInt32, DataType::kFloat16, {2049, 2051, -3, 100000}),
            (std::vector<double>{2048, 2052, -3, kInf}));
  // bfloat16 keeps 8 significant bits: 257 -> 256, 259 -> 260, 1e38 -> 0x1.2cp+126.
  EXPECT_EQ(assign(DataType::kFloat64, DataType::kBFloat16, {257, 259, -0.5, 1e38}),
            (std::vector<double>{256, 260, -0.5, 0x1.2cp+126}));
}

TEST(TransformAny, BoolIsNonZero) {
  EXPECT_EQ(assign(DataType::kFloat32, DataType::kBool, {0, -0.0, 0.25, kNaN, -3}),
            (std::vector<double>{0, 0, 1, 1, 1}));
  EXPECT_EQ(assign(DataType::kBool, DataType::kFloat64, {1, 0}), (std::vector<double>{1, 0}));
}

TEST(TransformAny, IntegerNarrowingWraps) {
  EXPECT_EQ(assign(DataType::kInt32, DataType::kInt8, {200, -129, 5}), (std::vector<double>{-56, 127, 5}));
  EXPECT_EQ(assign(DataType::kInt64, DataType::kUInt8, {256, -1, 77}), (std::vector<double>{0, 255, 77}));
}

TEST(TransformAny, StridedTransposedInputIntoFortranOutput) {
  std::vector<double> in;
  for (int i = 0; i < 20; ++i) in.push_back(i * 1.75 - 12.25);
  tr::StridedInput s = tr::strided_transposed(DataType::kFloat32, in);
  NDArray z;
  ASSERT_OK(NDArray::zeros(DataType::kInt16, {4, 5}, 'f', z));
  ASSERT_OK(tr::run(OPS_TRANSFORM_ANY, 0, s.x, z));
  std::vector<double> want;
  for (double v : in) want.push_back(std::trunc(v));
  EXPECT_EQ(values(z), want);
}

TEST(TransformAny, ValidationErrors) {
  NDArray x = make(DataType::kFloat32, {2, 2}, iota(4)), z = zeros(DataType::kInt32, {2, 3});
  Status s = tr::run(OPS_TRANSFORM_ANY, 0, x, z);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "assign: input x[2,2] does not match output z[2,3]");
  s = tr::run(OPS_TRANSFORM_ANY, 1, x, x);
  EXPECT_EQ(s.code(), StatusCode::kUnknownOp);
  EXPECT_EQ(s.message(), "legacy transform_any: no op number 1");
  NDArray e = zeros(DataType::kUInt64, {0}), ez = zeros(DataType::kFloat16, {0});
  EXPECT_OK(tr::run(OPS_TRANSFORM_ANY, 0, e, ez));
}

}  // namespace
