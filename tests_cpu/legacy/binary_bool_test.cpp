// The binary_bool table (SCALAR_BOOL / PAIRWISE_BOOL / BROADCAST_BOOL): every
// predicate against the numpy goldens, the eps parameter, and dtype rules.
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "binary_test_util.h"
#include "libops/legacy/ops/binary_bool_ops.h"

using namespace libops;
using namespace libops::test;
using legacy::BinaryBoolOp;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

constexpr const char* kOps[] = {"equals",        "less_than",      "greater_than", "less_or_equal",
                                "greater_or_equal", "not_equals",  "equals_with_eps", "logical_and",
                                "logical_or",    "logical_xor"};

class BinaryBoolGoldenTest : public ::testing::TestWithParam<const char*> {};

TEST_P(BinaryBoolGoldenTest, Float32) {
  const std::string name = GetParam();
  EXPECT_TRUE(check_binary_golden(OPS_PAIRWISE_BOOL, GetParam(), "bool_" + name + "_f32", DataType::kFloat32,
                                  DataType::kBool, 0, 0));
}

TEST_P(BinaryBoolGoldenTest, Float64) {
  const std::string name = GetParam();
  EXPECT_TRUE(check_binary_golden(OPS_PAIRWISE_BOOL, GetParam(), "bool_" + name + "_f32", DataType::kFloat64,
                                  DataType::kBool, 0, 0));
}

TEST_P(BinaryBoolGoldenTest, Int32) {
  const std::string name = GetParam();
  EXPECT_TRUE(check_binary_golden(OPS_PAIRWISE_BOOL, GetParam(), "bool_" + name + "_i32", DataType::kInt32,
                                  DataType::kBool, 0, 0));
}

INSTANTIATE_TEST_SUITE_P(AllOps, BinaryBoolGoldenTest, ::testing::ValuesIn(kOps),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST(BinaryBoolTable, EveryOpHasAGoldenCase) {
  const legacy::LegacyOpInfo* ops = nullptr;
  const int n = legacy::list_ops(OPS_SCALAR_BOOL, &ops);
  std::set<std::string> table, cases(std::begin(kOps), std::end(kOps));
  for (int i = 0; i < n; ++i) table.insert(ops[i].name);
  EXPECT_EQ(table, cases);
  EXPECT_EQ(n, LIBOPS_BINARY_BOOL_COUNT);
  EXPECT_EQ(static_cast<int>(BinaryBoolOp::equals), 0);
  EXPECT_EQ(static_cast<int>(BinaryBoolOp::less_than), 1);
  EXPECT_EQ(static_cast<int>(BinaryBoolOp::logical_xor), 9);
}

std::vector<double> run_b(BinaryBoolOp op, DataType t, const std::vector<double>& xs, const std::vector<double>& ys,
                          const std::vector<double>& extra = {}) {
  const Dims shape{static_cast<int64_t>(xs.size())};
  NDArray x = make(t, shape, xs), y = make(t, shape, ys), z = zeros(DataType::kBool, shape);
  Status s = run_legacy(OPS_PAIRWISE_BOOL, static_cast<int>(op), x, y, z, extra);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return values(z);
}

TEST(BinaryBoolEps, EpsComesFromExtraParams) {
  const std::vector<double> x{1.0, 1.0, 1.0, 5, kInf};
  const std::vector<double> y{1.05, 1.2, 0.5, 5, kInf};
  EXPECT_EQ(run_b(BinaryBoolOp::equals_with_eps, DataType::kFloat64, x, y, {0.1}),
            (std::vector<double>{1, 0, 0, 1, 1}));
  EXPECT_EQ(run_b(BinaryBoolOp::equals_with_eps, DataType::kFloat64, x, y, {0.6}),
            (std::vector<double>{1, 1, 1, 1, 1}));
  // Default eps 1e-5.
  EXPECT_EQ(run_b(BinaryBoolOp::equals_with_eps, DataType::kFloat64, {1, 1}, {1 + 5e-6, 1 + 5e-5}),
            (std::vector<double>{1, 0}));
  // Integers: exact distance, no overflow at the limits.
  EXPECT_EQ(run_b(BinaryBoolOp::equals_with_eps, DataType::kInt32, {-2147483648.0, 10, 10}, {2147483647.0, 12, 13},
                  {2}),
            (std::vector<double>{0, 1, 0}));
  // The scalar group reads eps the same way.
  NDArray xs = make(DataType::kFloat32, {3}, {0.9, 1.0, 1.3});
  NDArray s = make(DataType::kFloat32, {}, {1.0});
  NDArray z = zeros(DataType::kBool, {3});
  ASSERT_OK(run_legacy(OPS_SCALAR_BOOL, static_cast<int>(BinaryBoolOp::equals_with_eps), xs, s, z, {0.25}));
  EXPECT_EQ(values(z), (std::vector<double>{1, 1, 0}));
}

TEST(BinaryBoolDtypes, MixedAndHalfInputsCompareInTheCommonType) {
  // int32 2 vs float32 2.5 compares as float (not truncated to 2 == 2).
  NDArray xi = make(DataType::kInt32, {3}, {2, 3, -1});
  NDArray yf = make(DataType::kFloat32, {3}, {2.5, 3, -1.5});
  NDArray z = zeros(DataType::kBool, {3});
  ASSERT_OK(run_legacy(OPS_PAIRWISE_BOOL, static_cast<int>(BinaryBoolOp::equals), xi, yf, z));
  EXPECT_EQ(values(z), (std::vector<double>{0, 1, 0}));
  ASSERT_OK(run_legacy(OPS_PAIRWISE_BOOL, static_cast<int>(BinaryBoolOp::greater_than), xi, yf, z));
  EXPECT_EQ(values(z), (std::vector<double>{0, 0, 1}));
  // float16 vs bfloat16 computes in float32.
  NDArray h = make(DataType::kFloat16, {2}, {0.5, -2});
  NDArray b = make(DataType::kBFloat16, {2}, {0.5, 2});
  NDArray z2 = zeros(DataType::kBool, {2});
  ASSERT_OK(run_legacy(OPS_PAIRWISE_BOOL, static_cast<int>(BinaryBoolOp::not_equals), h, b, z2));
  EXPECT_EQ(values(z2), (std::vector<double>{0, 1}));
  // bool inputs.
  NDArray bools = make(DataType::kBool, {4}, {1, 0, 1, 0});
  NDArray bools2 = make(DataType::kBool, {4}, {1, 1, 0, 0});
  NDArray z4 = zeros(DataType::kBool, {4});
  ASSERT_OK(run_legacy(OPS_PAIRWISE_BOOL, static_cast<int>(BinaryBoolOp::logical_xor), bools, bools2, z4));
  EXPECT_EQ(values(z4), (std::vector<double>{0, 1, 1, 0}));
  // uint64 with int64 compares as int64 (Note [Type promotion]).
  NDArray u = make(DataType::kUInt64, {2}, {5, 7});
  NDArray i = make(DataType::kInt64, {2}, {-1, 7});
  ASSERT_OK(run_legacy(OPS_PAIRWISE_BOOL, static_cast<int>(BinaryBoolOp::greater_than), u, i, z2));
  EXPECT_EQ(values(z2), (std::vector<double>{1, 0}));
}

TEST(BinaryBoolDtypes, OutputMustBeBool) {
  NDArray x = make(DataType::kFloat32, {2}, {1, 2});
  NDArray z = zeros(DataType::kFloat32, {2});
  Status s = run_legacy(OPS_PAIRWISE_BOOL, static_cast<int>(BinaryBoolOp::less_than), x, x, z);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), "less_than: output z has dtype float32; expected bool");
}

TEST(BinaryBoolNaN, NaNIsUnorderedAndTruthy) {
  const std::vector<double> x{kNaN, kNaN, 1};
  const std::vector<double> y{kNaN, 1, kNaN};
  EXPECT_EQ(run_b(BinaryBoolOp::equals, DataType::kFloat32, x, y), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(run_b(BinaryBoolOp::not_equals, DataType::kFloat32, x, y), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(run_b(BinaryBoolOp::greater_or_equal, DataType::kFloat32, x, y), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(run_b(BinaryBoolOp::logical_and, DataType::kFloat32, x, y), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(run_b(BinaryBoolOp::equals_with_eps, DataType::kFloat32, x, y, {1e300}), (std::vector<double>{0, 0, 0}));
}

}  // namespace
