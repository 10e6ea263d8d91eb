// softmax against numpy goldens along several axes (rows with values near
// 1000 included), strided and in-place runs, float16, and errors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "golden_util.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// Sums of z along its last axis.
std::vector<double> row_sums(const NDArray& z) {
  std::vector<double> v = values(z), sums;
  const int64_t len = z.dim(z.rank() - 1);
  for (size_t i = 0; i < v.size(); i += static_cast<size_t>(len)) {
    double s = 0;
    for (int64_t j = 0; j < len; ++j) s += v[i + static_cast<size_t>(j)];
    sums.push_back(s);
  }
  return sums;
}

}  // namespace

TEST(SoftmaxOp, LastAxisMatchesNumpyWithoutOverflow) {
  NDArray x = load_golden("custom_ops/softmax_x.npy");  // [3,5]; row 2 holds values near 1000
  NDArray want = load_golden("custom_ops/softmax_last_z.npy");
  Context ctx;
  ASSERT_OK(run_op("softmax", {.in = {&x}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), values(want), 1e-5, 1e-6));
  EXPECT_TRUE(all_close(row_sums(*ctx.output(0)), {1, 1, 1}, 1e-5, 1e-5));
  for (double v : values(*ctx.output(0))) EXPECT_TRUE(std::isfinite(v));
}

TEST(SoftmaxOp, FirstAxisAndThreeDimensional) {
  NDArray x = load_golden("custom_ops/softmax_x.npy");
  NDArray want = load_golden("custom_ops/softmax_axis0_z.npy");
  Context ctx;
  ASSERT_OK(run_op("softmax", {.in = {&x}, .i = {0}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), values(want), 1e-5, 1e-6));

  NDArray x3 = load_golden("custom_ops/softmax_3d_x.npy");  // float64 [2,3,4]
  NDArray want3 = load_golden("custom_ops/softmax_3d_axis1_z.npy");
  Context ctx3;
  ASSERT_OK(run_op("softmax", {.in = {&x3}, .i = {-2}}, ctx3));
  EXPECT_EQ(ctx3.output(0)->dtype(), DataType::kFloat64);
  EXPECT_TRUE(all_close(*ctx3.output(0), values(want3), 1e-12, 1e-14));
}

TEST(SoftmaxOp, StridedInputAndInPlace) {
  // The transpose of x, softmax along axis 0, equals softmax(x) along -1 transposed.
  NDArray x = load_golden("custom_ops/softmax_x.npy"), xt;
  NDArray want = load_golden("custom_ops/softmax_last_z.npy"), want_t, want_td;
  ASSERT_OK(x.permute({1, 0}, xt));
  ASSERT_OK(want.permute({1, 0}, want_t));
  ASSERT_OK(want_t.dup('c', want_td));
  Context ctx;
  ASSERT_OK(run_op("softmax", {.in = {&xt}, .i = {0}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), values(want_td), 1e-5, 1e-6));

  NDArray y;
  ASSERT_OK(x.dup('c', y));
  Context ctx2;
  ASSERT_OK(run_op("softmax", {.in = {&y}, .i = {1}, .inplace = true}, ctx2));
  EXPECT_TRUE(all_close(y, values(want), 1e-5, 1e-6));
}

TEST(SoftmaxOp, ManyInterleavedRowsMatchContiguousRows) {
  // Softmax along axis 0 of a [7,40] array handles its 40 columns in groups
  // (16, 16, 8) loaded side by side; it must equal softmax along the last
  // axis of the transposed copy, done row by row. Column 5 holds a NaN.
  std::vector<double> v;
  for (int i = 0; i < 7 * 40; ++i) v.push_back(std::sin(0.37 * i) * 4 + (i % 40 == 3 ? 900 : 0));
  v[2 * 40 + 5] = std::nan("");
  NDArray x = make(DataType::kFloat32, {7, 40}, v), xt, xtc;
  ASSERT_OK(x.permute({1, 0}, xt));
  ASSERT_OK(xt.dup('c', xtc));
  Context by_col, by_row;
  ASSERT_OK(run_op("softmax", {.in = {&x}, .i = {0}}, by_col));
  ASSERT_OK(run_op("softmax", {.in = {&xtc}, .i = {-1}}, by_row));
  NDArray rows_t;
  ASSERT_OK(by_row.output(0)->permute({1, 0}, rows_t));
  std::vector<double> got = values(*by_col.output(0)), want = values(rows_t);
  EXPECT_TRUE(all_close(got, want, 1e-6, 1e-7));
  for (int i = 0; i < 7; ++i) EXPECT_TRUE(std::isnan(got[static_cast<size_t>(i * 40 + 5)])) << i;
  EXPECT_FALSE(std::isnan(got[4]));
}

TEST(SoftmaxOp, LongRowsInLanesAndTheirNaNRules) {
  // Rows longer than the lanes of the max and the sum (16), with leftovers,
  // against the definition in long double. Row 1 of each shape holds a NaN
  // past the first lanes, row 2 a +inf, row 3 only -inf, row 5 a NaN as its
  // last element, row 6 one in the second block of 32 of the float32 max
  // (row_max_f32_avx2, which may drop it from the max; the sum still makes
  // the row NaN): all NaN (Note [Softmax NaNs]); the others stay
  // finite. float32 and float64 rows are read in place, float16 ones
  // through the staging buffer.
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t len : {16, 37, 64, 1003})
    for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16}) {
      const int64_t rows = 7;
      std::vector<double> v;
      for (int64_t i = 0; i < rows * len; ++i) v.push_back(std::sin(0.61 * static_cast<double>(i)) * 6 + 990);
      v[static_cast<size_t>(1 * len + 20 % len)] = std::nan("");
      v[static_cast<size_t>(2 * len + len - 1)] = inf;
      for (int64_t i = 0; i < len; ++i) v[static_cast<size_t>(3 * len + i)] = -inf;
      v[static_cast<size_t>(5 * len + len - 1)] = std::nan("");
      v[static_cast<size_t>(6 * len + 33 % len)] = std::nan("");
      NDArray x = make(t, {rows, len}, v);
      const std::vector<double> xv = values(x);  // as rounded to t
      Context ctx;
      ASSERT_OK(run_op("softmax", {.in = {&x}}, ctx));
      const std::vector<double> got = values(*ctx.output(0));
      const std::string what = std::string(dtype_name(t)) + ", length " + std::to_string(len);
      for (int64_t r : {1, 2, 3, 5, 6})
        for (int64_t i = 0; i < len; ++i)
          ASSERT_TRUE(std::isnan(got[static_cast<size_t>(r * len + i)])) << what << ", row " << r << ", " << i;
      // Relative, plus half the subnormal step of float16 for its tiny values.
      const double tol = t == DataType::kFloat16 ? 2e-3 : t == DataType::kFloat32 ? 2e-6 : 1e-13;
      const double atol = t == DataType::kFloat16 ? 3e-8 : 0.0;
      for (int64_t r : {0, 4}) {
        const double* row = xv.data() + r * len;
        long double mx = row[0], sum = 0;
        for (int64_t i = 0; i < len; ++i) mx = std::max<long double>(mx, row[i]);
        for (int64_t i = 0; i < len; ++i) sum += std::exp(static_cast<long double>(row[i]) - mx);
        for (int64_t i = 0; i < len; ++i) {
          const double want = static_cast<double>(std::exp(static_cast<long double>(row[i]) - mx) / sum);
          ASSERT_NEAR(got[static_cast<size_t>(r * len + i)], want, tol * want + atol)
              << what << ", row " << r << ", " << i;
        }
      }
    }
}

TEST(SoftmaxOp, Float16) {
  NDArray x = make(DataType::kFloat16, {2, 3}, {1, 2, 3, -1, 0, 1000});
  Context ctx;
  ASSERT_OK(run_op("softmax", {.in = {&x}}, ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), DataType::kFloat16);
  const double e1 = std::exp(-1.0), e2 = std::exp(-2.0), s = 1 + e1 + e2;
  EXPECT_TRUE(all_close(*ctx.output(0), {e2 / s, e1 / s, 1 / s, 0, 0, 1}, 2e-3, 1e-4));
}

TEST(SoftmaxOp, RejectsBadAxisAndDtype) {
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  Context ctx;
  Status s = run_op("softmax", {.in = {&x}, .i = {2}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "softmax: axis (i arg 0) is 2: it must be an axis of input 0 (x) [2,3], in [-2, 1]");
  NDArray xi = make(DataType::kInt32, {3}, {1, 2, 3});
  Context ctx2;
  s = run_op("softmax", {.in = {&xi}}, ctx2);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(),
            "softmax: unsupported dtype int32 for input 0 [3]; supported: float16, bfloat16, float32, float64");
  NDArray sc = make(DataType::kFloat32, {}, {1});
  Context ctx3;
  s = run_op("softmax", {.in = {&sc}}, ctx3);
  EXPECT_EQ(s.message(), "softmax: axis (i arg 0) is -1, but input 0 (x) is a scalar, which has no axes");
}
