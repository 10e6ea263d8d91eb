// REDUCE_BOOL (bool z): any, all, is_finite, is_inf_or_nan, is_nan, is_inf,
// is_positive, is_negative.
#include <limits>

#include "legacy/reduce_test_util.h"

using namespace libops;
using namespace libops::test;
using namespace libops::test::reduce;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Row results of `op` over axis 1 of `x`, as 0/1.
std::vector<double> rows_of(const char* op, const NDArray& x) {
  NDArray z = make_z(DataType::kBool, {x.dim(0)});
  Status s = run_reduce(OPS_REDUCE_BOOL, op_num(OPS_REDUCE_BOOL, op), x, nullptr, z, {1});
  EXPECT_TRUE(s.is_ok()) << s.message();
  return values(z);
}

}  // namespace

TEST(ReduceBool, EveryOpMatchesNumpyGoldens) { expect_group_goldens(OPS_REDUCE_BOOL); }

TEST(ReduceBool, SpecialValuesRowByRow) {
  // Rows: all finite positive; contains NaN; contains -inf; contains +inf and
  // zero; all negative; NaN only.
  NDArray x = make(DataType::kFloat64, {6, 3},
                   {1, 2, 3, 1, kNan, 2, -1, -kInf, -2, kInf, 0, 1, -1, -2, -3, kNan, kNan, kNan});
  EXPECT_TRUE(all_close(rows_of("any", x), {1, 1, 1, 1, 1, 1}));  // NaN != 0
  EXPECT_TRUE(all_close(rows_of("all", x), {1, 1, 1, 0, 1, 1}));
  EXPECT_TRUE(all_close(rows_of("is_finite", x), {1, 0, 0, 0, 1, 0}));
  EXPECT_TRUE(all_close(rows_of("is_inf_or_nan", x), {0, 1, 1, 1, 0, 1}));
  EXPECT_TRUE(all_close(rows_of("is_nan", x), {0, 1, 0, 0, 0, 1}));
  EXPECT_TRUE(all_close(rows_of("is_inf", x), {0, 0, 1, 1, 0, 0}));
  EXPECT_TRUE(all_close(rows_of("is_positive", x), {1, 0, 0, 0, 0, 0}));  // NaN is not > 0
  EXPECT_TRUE(all_close(rows_of("is_negative", x), {0, 0, 1, 0, 1, 0}));
  // The same through the kept-inner path (F-order memory).
  NDArray t = transposed_view(x);
  EXPECT_TRUE(all_close(rows_of("is_inf", t), {0, 0, 1, 1, 0, 0}));
  EXPECT_TRUE(all_close(rows_of("all", t), {1, 1, 1, 0, 1, 1}));
}

TEST(ReduceBool, IntegerAndBoolInputs) {
  NDArray i = make(DataType::kUInt8, {2, 3}, {0, 5, 0, 1, 2, 3});
  EXPECT_TRUE(all_close(rows_of("any", i), {1, 1}));
  EXPECT_TRUE(all_close(rows_of("all", i), {0, 1}));
  EXPECT_TRUE(all_close(rows_of("is_finite", i), {1, 1}));
  EXPECT_TRUE(all_close(rows_of("is_inf_or_nan", i), {0, 0}));
  EXPECT_TRUE(all_close(rows_of("is_negative", i), {0, 0}));
  EXPECT_TRUE(all_close(rows_of("is_positive", i), {0, 1}));
  NDArray b = make(DataType::kBool, {2, 2}, {0, 0, 1, 1});
  EXPECT_TRUE(all_close(rows_of("any", b), {0, 1}));
  EXPECT_TRUE(all_close(rows_of("all", b), {0, 1}));
}

TEST(ReduceBool, EmptyReductions) {
  NDArray x = make(DataType::kFloat32, {2, 0}, {});
  EXPECT_TRUE(all_close(rows_of("any", x), {0, 0}));
  EXPECT_TRUE(all_close(rows_of("all", x), {1, 1}));
  EXPECT_TRUE(all_close(rows_of("is_finite", x), {1, 1}));
  EXPECT_TRUE(all_close(rows_of("is_inf_or_nan", x), {0, 0}));
  EXPECT_TRUE(all_close(rows_of("is_nan", x), {0, 0}));
  EXPECT_TRUE(all_close(rows_of("is_inf", x), {0, 0}));
  EXPECT_TRUE(all_close(rows_of("is_positive", x), {1, 1}));
  EXPECT_TRUE(all_close(rows_of("is_negative", x), {1, 1}));
}
