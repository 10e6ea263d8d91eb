// The transform_bool table: every predicate against the goldens of
// tools/gen_goldens_transform.py for each float dtype, integer and bool
// inputs by hand, and validation errors.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "libops/legacy/ops/transform_bool_ops.h"
#include "transform_test_util.h"

using namespace libops;
using namespace libops::test;
namespace tr = libops::test::transform;
using legacy::TransformBoolOp;

namespace {

const std::vector<std::string> kCases = {"is_nan",      "is_inf",  "is_finite",   "is_inf_or_nan",   "is_positive",
                                         "is_negative", "is_zero", "logical_not", "is_integer_value"};

class TransformBoolGolden : public ::testing::TestWithParam<std::string> {};

// The goldens' rows 2 and 3 hold the predicate at the float16/bfloat16
// rounding of each input (1e30 is infinite in float16, 0.49999997 is 0.5).
TEST_P(TransformBoolGolden, EveryFloatDtypeMatchesReference) {
  for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16})
    EXPECT_TRUE(tr::check_golden(OPS_TRANSFORM_BOOL, "bool", GetParam(), t, DataType::kBool, {0, 0}));
}

TEST_P(TransformBoolGolden, StridedTransposedInputIntoFortranOutput) {
  for (DataType t : {DataType::kFloat32, DataType::kFloat16})
    EXPECT_TRUE(tr::check_strided_golden(OPS_TRANSFORM_BOOL, "bool", GetParam(), t, DataType::kBool, {0, 0}));
}

INSTANTIATE_TEST_SUITE_P(AllOps, TransformBoolGolden, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(TransformBoolTable, CasesCoverEveryOpAndNamesAreUnique) {
  tr::expect_cases_match_table(OPS_TRANSFORM_BOOL, LIBOPS_TRANSFORM_BOOL_COUNT, kCases);
  EXPECT_EQ(static_cast<int>(TransformBoolOp::is_nan), 0);
}

// z for every op of the table on x, in table order.
std::vector<std::vector<double>> all_predicates(const NDArray& x) {
  std::vector<std::vector<double>> out;
  for (const std::string& name : kCases) {
    NDArray z = zeros(DataType::kBool, x.shape());
    Status s = tr::run(OPS_TRANSFORM_BOOL, tr::number(OPS_TRANSFORM_BOOL, name), x, z);
    EXPECT_TRUE(s.is_ok()) << name << ": " << s.message();
    out.push_back(values(z));
  }
  return out;
}

TEST(TransformBool, IntegerInputs) {
  // Rows follow kCases: is_nan, is_inf, is_finite, is_inf_or_nan, is_positive,
  // is_negative, is_zero, logical_not, is_integer_value.
  const std::vector<std::vector<double>> want = {
      {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 1, 1, 1}, {0, 0, 0, 0}, {0, 0, 1, 1},
      {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 1, 0, 0}, {1, 1, 1, 1}};
  for (DataType t : {DataType::kInt8, DataType::kInt32, DataType::kInt64}) {
    SCOPED_TRACE(dtype_name(t));
    EXPECT_EQ(all_predicates(make(t, {4}, {-5, 0, 3, 100})), want);
  }
  // uint64 beyond int64: positive, never negative.
  NDArray u = zeros(DataType::kUInt64, {2});
  u.data_as<uint64_t>()[0] = std::numeric_limits<uint64_t>::max();
  u.data_as<uint64_t>()[1] = 0;
  const auto got = all_predicates(u);
  EXPECT_EQ(got[4], (std::vector<double>{1, 0}));  // is_positive
  EXPECT_EQ(got[5], (std::vector<double>{0, 0}));  // is_negative
  EXPECT_EQ(got[6], (std::vector<double>{0, 1}));  // is_zero
}

TEST(TransformBool, BoolInput) {
  const auto got = all_predicates(make(DataType::kBool, {2}, {0, 1}));
  EXPECT_EQ(got[4], (std::vector<double>{0, 1}));  // is_positive
  EXPECT_EQ(got[7], (std::vector<double>{1, 0}));  // logical_not
}

TEST(TransformBool, NegativeZeroIsZeroAndNotNegative) {
  const auto got = all_predicates(make(DataType::kFloat32, {1}, {-0.0}));
  EXPECT_EQ(got[5], (std::vector<double>{0}));  // is_negative
  EXPECT_EQ(got[6], (std::vector<double>{1}));  // is_zero
}

// ---- validation ----

TEST(TransformBool, OutputMustBeBool) {
  NDArray x = make(DataType::kFloat32, {2}, {1, 2}), z = zeros(DataType::kUInt8, {2});
  Status s = tr::run(OPS_TRANSFORM_BOOL, static_cast<int>(TransformBoolOp::is_inf), x, z);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), "is_inf: output z has dtype uint8; expected bool");
}

TEST(TransformBool, ShapeMismatchUnknownNumberAndEmpty) {
  NDArray x = make(DataType::kFloat32, {3}, iota(3)), z = zeros(DataType::kBool, {2, 3}), bad = zeros(DataType::kBool, {2});
  // x broadcasts to z [2, 3]; z [2] does not fit.
  EXPECT_OK(tr::run(OPS_TRANSFORM_BOOL, static_cast<int>(TransformBoolOp::is_zero), x, z));
  EXPECT_EQ(values(z), (std::vector<double>{1, 0, 0, 1, 0, 0}));
  Status s = tr::run(OPS_TRANSFORM_BOOL, static_cast<int>(TransformBoolOp::is_zero), x, bad);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "is_zero: input x[3] does not match output z[2]");
  s = tr::run(OPS_TRANSFORM_BOOL, -3, x, z);
  EXPECT_EQ(s.code(), StatusCode::kUnknownOp);
  EXPECT_EQ(s.message(), "legacy transform_bool: no op number -3");
  NDArray e = zeros(DataType::kFloat64, {2, 0}), ez = zeros(DataType::kBool, {2, 0});
  EXPECT_OK(tr::run(OPS_TRANSFORM_BOOL, static_cast<int>(TransformBoolOp::is_nan), e, ez));
}

}  // namespace
