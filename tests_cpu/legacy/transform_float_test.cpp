// The transform_float table: every op against the goldens of
// tools/gen_goldens_transform.py, integer inputs computed in the output's
// float type, and validation errors.
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "libops/legacy/ops/transform_float_ops.h"
#include "transform_test_util.h"

using namespace libops;
using namespace libops::test;
namespace tr = libops::test::transform;
using legacy::TransformFloatOp;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

const std::vector<std::string> kCases = {"sqrt", "rsqrt", "cbrt"};

// The C library's sqrt is exact; 1 / sqrt and cbrt are within 1 ulp.
constexpr tr::Tolerance kTol32{2.5e-7, FLT_MIN}, kTol64{4.5e-16, DBL_MIN};

class TransformFloatGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(TransformFloatGolden, EveryFloatDtypeMatchesReference) {
  const std::string& op = GetParam();
  for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16})
    EXPECT_TRUE(tr::check_golden(OPS_TRANSFORM_FLOAT, "float", op, t, t, t == DataType::kFloat64 ? kTol64 : kTol32));
}

// float64 in, float32 out: computed in double, rounded once on store.
TEST_P(TransformFloatGolden, Float64InputIntoFloat32Output) {
  EXPECT_TRUE(tr::check_golden(OPS_TRANSFORM_FLOAT, "float", GetParam(), DataType::kFloat64, DataType::kFloat32,
                               {0, FLT_MIN}));
}

TEST_P(TransformFloatGolden, StridedTransposedInputIntoFortranOutput) {
  for (DataType t : {DataType::kFloat32, DataType::kFloat16})
    EXPECT_TRUE(tr::check_strided_golden(OPS_TRANSFORM_FLOAT, "float", GetParam(), t, t, kTol32));
}

INSTANTIATE_TEST_SUITE_P(AllOps, TransformFloatGolden, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(TransformFloatTable, CasesCoverEveryOpAndNamesAreUnique) {
  tr::expect_cases_match_table(OPS_TRANSFORM_FLOAT, LIBOPS_TRANSFORM_FLOAT_COUNT, kCases);
  EXPECT_EQ(static_cast<int>(TransformFloatOp::sqrt), 0);
}

// ---- integer and bool inputs ----

TEST(TransformFloat, IntegerInputsComputeInTheOutputFloatType) {
  NDArray x = make(DataType::kInt32, {6}, {0, 1, 4, 9, 2, -4});
  NDArray z32 = zeros(DataType::kFloat32, {6}), z64 = zeros(DataType::kFloat64, {6});
  ASSERT_OK(tr::run(OPS_TRANSFORM_FLOAT, static_cast<int>(TransformFloatOp::sqrt), x, z32));
  EXPECT_TRUE(all_close(z32, {0, 1, 2, 3, static_cast<float>(std::sqrt(2.0)), NAN}, 0, 0));
  ASSERT_OK(tr::run(OPS_TRANSFORM_FLOAT, static_cast<int>(TransformFloatOp::sqrt), x, z64));
  EXPECT_TRUE(all_close(z64, {0, 1, 2, 3, std::sqrt(2.0), NAN}, 0, 0));
  ASSERT_OK(tr::run(OPS_TRANSFORM_FLOAT, static_cast<int>(TransformFloatOp::rsqrt), x, z64));
  EXPECT_TRUE(all_close(z64, {kInf, 1, 0.5, 1.0 / 3, 1 / std::sqrt(2.0), NAN}, 2.5e-16, 0));
  ASSERT_OK(tr::run(OPS_TRANSFORM_FLOAT, static_cast<int>(TransformFloatOp::cbrt), x, z64));
  EXPECT_TRUE(all_close(z64, {0, 1, std::cbrt(4.0), std::cbrt(9.0), std::cbrt(2.0), -std::cbrt(4.0)}, 4.5e-16, 0));
}

TEST(TransformFloat, WideIntegersIntoFloat64AreExact) {
  // 2^52 + 1 is exact in double (and not in float): sqrt sees the exact value.
  const double big = 4503599627370497.0;  // 2^52 + 1
  NDArray x = zeros(DataType::kInt64, {2});
  x.data_as<int64_t>()[0] = 4503599627370497LL;
  x.data_as<int64_t>()[1] = 1LL << 62;
  NDArray z = zeros(DataType::kFloat64, {2});
  ASSERT_OK(tr::run(OPS_TRANSFORM_FLOAT, static_cast<int>(TransformFloatOp::sqrt), x, z));
  EXPECT_EQ(z.get_double(0), std::sqrt(big));
  EXPECT_EQ(z.get_double(1), 2147483648.0);
}

TEST(TransformFloat, UnsignedAndBoolInputs) {
  NDArray u = make(DataType::kUInt8, {3}, {0, 16, 255}), z = zeros(DataType::kFloat16, {3});
  ASSERT_OK(tr::run(OPS_TRANSFORM_FLOAT, static_cast<int>(TransformFloatOp::sqrt), u, z));
  // sqrt(255) = 15.97 rounds to float16 15.9688.
  EXPECT_TRUE(all_close(z, {0, 4, 15.96875}, 0, 0));
  NDArray b = make(DataType::kBool, {2}, {0, 1}), zb = zeros(DataType::kFloat32, {2});
  ASSERT_OK(tr::run(OPS_TRANSFORM_FLOAT, static_cast<int>(TransformFloatOp::rsqrt), b, zb));
  EXPECT_TRUE(all_close(zb, {kInf, 1}, 0, 0));
}

// ---- validation ----

TEST(TransformFloat, IntegerOutputIsRejected) {
  NDArray x = make(DataType::kInt32, {2}, {1, 4}), z = zeros(DataType::kInt32, {2});
  Status s = tr::run(OPS_TRANSFORM_FLOAT, static_cast<int>(TransformFloatOp::cbrt), x, z);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), "cbrt: output z has dtype int32; expected a float dtype");
}

TEST(TransformFloat, ShapeMismatchUnknownNumberAndEmpty) {
  NDArray x = make(DataType::kFloat32, {2, 2}, iota(4)), z = zeros(DataType::kFloat32, {4});
  Status s = tr::run(OPS_TRANSFORM_FLOAT, static_cast<int>(TransformFloatOp::rsqrt), x, z);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "rsqrt: input x[2,2] does not match output z[4]");
  s = tr::run(OPS_TRANSFORM_FLOAT, 77, x, x);
  EXPECT_EQ(s.code(), StatusCode::kUnknownOp);
  EXPECT_EQ(s.message(), "legacy transform_float: no op number 77");
  NDArray e = zeros(DataType::kInt16, {0}), ez = zeros(DataType::kFloat32, {0});
  EXPECT_OK(tr::run(OPS_TRANSFORM_FLOAT, static_cast<int>(TransformFloatOp::sqrt), e, ez));
}

}  // namespace
