// Reductions as roots of expressions (Note [Reductions] in
// libops/expr/expr.h): values against sums worked out here in double, over
// inner, outer and middle axes, broadcast and strided leaves, keep_dims,
// integer and float compute types, NaN, empty ranges, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "libops/expr/expr.h"
#include "op_test_util.h"

namespace libops {
namespace {

using namespace libops::expr;
using test::make;
using test::zeros;

std::vector<double> ramp(int64_t n, double scale, double shift) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(0.7 * double(i)) * scale + shift;
  return v;
}

// The reference: reduce f(x[i, j, k]) over the given axes of a [2, 3, 4]
// array, in double.
std::vector<double> reference(const std::vector<double>& x, bool r0, bool r1, bool r2, int kind,
                              double (*f)(double)) {
  const int e0 = r0 ? 1 : 2, e1 = r1 ? 1 : 3, e2 = r2 ? 1 : 4;
  std::vector<double> acc(static_cast<size_t>(e0 * e1 * e2),
                          kind == 2 ? -INFINITY : kind == 3 ? INFINITY : 0.0);
  std::vector<int> count(acc.size(), 0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        const size_t o = static_cast<size_t>(((r0 ? 0 : i) * e1 + (r1 ? 0 : j)) * e2 + (r2 ? 0 : k));
        const double v = f(x[static_cast<size_t>((i * 3 + j) * 4 + k)]);
        if (kind == 2) acc[o] = std::max(acc[o], v);
        else if (kind == 3) acc[o] = std::min(acc[o], v);
        else acc[o] += v;
        ++count[o];
      }
  if (kind == 1)
    for (size_t o = 0; o < acc.size(); ++o) acc[o] /= count[o];
  return acc;
}

double square_plus_one(double v) { return v * v + 1.0; }

TEST(ExprReduce, EveryKindOverEveryAxisSetWithAPrologue) {
  const std::vector<double> xv = ramp(24, 3.0, 0.5);
  NDArray x = make(DataType::kFloat64, {2, 3, 4}, xv);
  for (int mask = 1; mask < 8; ++mask) {
    const bool r0 = mask & 1, r1 = mask & 2, r2 = mask & 4;
    Dims axes;
    if (r0) axes.push_back(0);
    if (r1) axes.push_back(1);
    if (r2) axes.push_back(-1);  // negative counts from the end
    const Dims kept{r0 ? 1 : 2, r1 ? 1 : 3, r2 ? 1 : 4};
    for (int kind = 0; kind < 4; ++kind) {
      SCOPED_TRACE(testing::Message() << "axes " << axes.str() << " kind " << kind);
      NDArray z = zeros(DataType::kFloat64, kept);  // keep_dims form
      auto e = in(x) * in(x) + 1.0;
      Status s = kind == 0   ? (out(z) = sum(e, axes)).run()
                 : kind == 1 ? (out(z) = mean(e, axes)).run()
                 : kind == 2 ? (out(z) = amax(e, axes)).run()
                             : (out(z) = amin(e, axes)).run();
      ASSERT_OK(s);
      EXPECT_TRUE(test::all_close(z, reference(xv, r0, r1, r2, kind, square_plus_one), 1e-12, 1e-12));
    }
  }
}

TEST(ExprReduce, DroppedAxesBroadcastLeavesAndFloat32) {
  // sum over axis 1 of (x - mu)^2 with mu[2, 1, 4] broadcast: a variance's
  // numerator, float32, no temporary for the differences.
  const std::vector<double> xv = ramp(24, 2.0, 1.0);
  NDArray x = make(DataType::kFloat32, {2, 3, 4}, xv);
  std::vector<double> mu(8, 0.0);
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k) {
      for (int j = 0; j < 3; ++j) mu[static_cast<size_t>(i * 4 + k)] += xv[static_cast<size_t>((i * 3 + j) * 4 + k)];
      mu[static_cast<size_t>(i * 4 + k)] /= 3;
    }
  NDArray m = make(DataType::kFloat32, {2, 1, 4}, mu);
  NDArray z = zeros(DataType::kFloat32, {2, 4});
  auto d = in(x) - in(m);
  ASSERT_OK((out(z) = sum(d * d, {1})).run());
  std::vector<double> want(8, 0.0);
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 3; ++j) {
        // float32 inputs and differences, as the compute type rounds them
        const float xf = static_cast<float>(xv[static_cast<size_t>((i * 3 + j) * 4 + k)]);
        const float df = xf - static_cast<float>(mu[static_cast<size_t>(i * 4 + k)]);
        want[static_cast<size_t>(i * 4 + k)] += double(df * df);
      }
  EXPECT_TRUE(test::all_close(z, want, 1e-6, 1e-6));
}

TEST(ExprReduce, StridedLeafAndEveryAxisToAScalar) {
  // x^T read through a permuted view; every axis (none given).
  const std::vector<double> xv = ramp(12, 1.5, 0.0);
  NDArray x = make(DataType::kFloat64, {3, 4}, xv);
  NDArray xt;
  ASSERT_OK(x.permute({1, 0}, xt));
  NDArray total = zeros(DataType::kFloat64, {});
  ASSERT_OK((out(total) = sum(abs(in(xt)))).run());
  double want = 0;
  for (double v : xv) want += std::fabs(v);
  EXPECT_TRUE(test::all_close(total, {want}, 1e-12, 0));
  // Row maxima of x^T (the columns of x).
  NDArray colmax = zeros(DataType::kFloat64, {4});
  ASSERT_OK((out(colmax) = amax(in(xt), {1})).run());
  std::vector<double> cm(4, -INFINITY);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) cm[static_cast<size_t>(j)] = std::max(cm[static_cast<size_t>(j)], xv[static_cast<size_t>(i * 4 + j)]);
  EXPECT_TRUE(test::all_close(colmax, cm, 0, 0));
}

TEST(ExprReduce, IntegersSumExactlyAndMeansInFloat) {
  // int32 values whose sum passes int32: the sum accumulates in int64.
  NDArray x = make(DataType::kInt32, {2, 3}, {2000000000, 2000000000, 1, -5, 7, 9});
  NDArray s = zeros(DataType::kInt64, {2});
  ASSERT_OK((out(s) = sum(in(x), {1})).run());
  EXPECT_TRUE(test::all_close(s, {4000000001.0, 11.0}, 0, 0));
  NDArray m = zeros(DataType::kFloat64, {2});
  ASSERT_OK((out(m) = mean(in(x) - 1, {1})).run());
  EXPECT_TRUE(test::all_close(m, {4000000001.0 / 3 - 1, 11.0 / 3 - 1}, 1e-12, 0));
}

TEST(ExprReduce, NanWinsAndEmptyRanges) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  NDArray x = make(DataType::kFloat32, {2, 3}, {1, nan, 3, 4, 5, 6});
  NDArray z = zeros(DataType::kFloat32, {2});
  ASSERT_OK((out(z) = amax(in(x), {1})).run());
  EXPECT_TRUE(test::all_close(z, {nan, 6}, 0, 0));
  ASSERT_OK((out(z) = amin(in(x), {1})).run());
  EXPECT_TRUE(test::all_close(z, {nan, 4}, 0, 0));
  NDArray empty = zeros(DataType::kFloat32, {2, 0});
  ASSERT_OK((out(z) = sum(in(empty), {1})).run());
  EXPECT_TRUE(test::all_close(z, {0, 0}, 0, 0));
  ASSERT_OK((out(z) = mean(in(empty), {1})).run());
  EXPECT_TRUE(test::all_close(z, {nan, nan}, 0, 0));
  Status s = (out(z) = amax(in(empty), {1})).run();
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_NE(s.message().find("the maximum of no elements"), std::string::npos) << s.message();
}

TEST(ExprReduce, ManyOutputsOverThreadsEqualOneByOne) {
  // 4096 rows of 300: each output element whole in one thread's range.
  const int64_t rows = 4096, cols = 300;
  std::vector<double> v(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.01 * double(i));
  NDArray x = make(DataType::kFloat32, {rows, cols}, v);
  NDArray z = zeros(DataType::kFloat64, {rows});
  ASSERT_OK((out(z) = sum(in(x) * 2.f, {1})).run());
  std::vector<double> want(static_cast<size_t>(rows), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      want[static_cast<size_t>(r)] += double(static_cast<float>(v[static_cast<size_t>(r * cols + c)]) * 2.f);
  EXPECT_TRUE(test::all_close(z, want, 1e-12, 1e-12));
}

// Few outputs of many values (Note [Reductions]): a sum of all 600K values,
// and 3 means, maxima (one NaN) over 200K each, cut into pieces reduced in
// parallel; the same bits at one thread and at two, and the sums equal to
// double sums worked out here.
TEST(ExprReduce, FewLongOutputsSplitOverThreadsTheSameAtAnyThreadCount) {
  const int64_t rows = 3, cols = 200000;
  std::vector<double> v(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.001 * double(i)) * 3.0;
  v[300001] = std::numeric_limits<double>::quiet_NaN();
  NDArray x = make(DataType::kFloat32, {rows, cols}, v);
  std::vector<double> total(2), rows_mean(2 * rows), rows_max(2 * rows);
  const int saved = get_num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    NDArray all = zeros(DataType::kFloat64, {}), m = zeros(DataType::kFloat64, {rows});
    NDArray mx = zeros(DataType::kFloat32, {rows});
    ASSERT_OK((out(all) = sum(where(is_nan(in(x)), 0.f, in(x)))).run());
    ASSERT_OK((out(m) = mean(in(x), {1})).run());
    ASSERT_OK((out(mx) = amax(in(x), {1})).run());
    total[threads - 1] = all.get_double(0);
    for (int64_t r = 0; r < rows; ++r) {
      rows_mean[(threads - 1) * rows + r] = m.get_double(r);
      rows_max[(threads - 1) * rows + r] = mx.get_double(r);
    }
  }
  set_num_threads(saved);
  double want = 0, row0 = 0;
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isnan(v[i])) want += double(static_cast<float>(v[i]));
  for (int64_t c = 0; c < cols; ++c) row0 += double(static_cast<float>(v[static_cast<size_t>(c)]));
  EXPECT_NEAR(total[0], want, 1e-9 * std::fabs(want) + 1e-9);
  EXPECT_EQ(total[0], total[1]);
  EXPECT_NEAR(rows_mean[0], row0 / cols, 1e-12);
  EXPECT_TRUE(std::isnan(rows_mean[1])) << "row 1 holds the NaN";
  EXPECT_TRUE(std::isnan(rows_max[1]));
  for (int64_t r : {0, 2}) {
    EXPECT_EQ(rows_mean[r], rows_mean[rows + r]);
    EXPECT_EQ(rows_max[r], rows_max[rows + r]);
    EXPECT_NEAR(rows_max[r], 3.0, 1e-6);
  }
}

TEST(ExprReduce, ErrorsNameTheExpression) {
  NDArray x = make(DataType::kFloat32, {2, 3}, ramp(6, 1, 0));
  NDArray y = make(DataType::kFloat32, {4}, ramp(4, 1, 0));
  NDArray z = zeros(DataType::kFloat32, {3});
  Status s = (out(z) = sum(in(x), {1})).run();
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_NE(s.message().find("expression float32[3] = sum(float32[2,3], [1]): the output is [3]; reducing [2,3] over "
                             "axes [1] gives [2] (or [2,1])"),
            std::string::npos)
      << s.message();
  s = (out(z) = sum(in(x) + in(y), {0})).run();
  EXPECT_EQ(s.code(), StatusCode::kShape) << s.message();
  s = (out(z) = sum(in(x), {2})).run();
  EXPECT_NE(s.code(), StatusCode::kOk);
  EXPECT_EQ((out(z) = sum(in(x), {0})).str(), "float32[3] = sum(float32[2,3], [0])");
}

}  // namespace
}  // namespace libops
