// clip_by_norm and clip_by_avg_norm beyond their goldens (tests_cpu/golden/
// shape_ops): values by hand, and the one formula (Note [Op formulas]) run
// both ways on the CPU, as an expression and as the nested ops other
// devices run, for each float dtype and set of axes.
#include <cmath>

#include "libops/ops/formula.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// Rows [3, 4] (norm 5), [0, 0] (norm 0: stays) and [0.3, 0.4] (norm 0.5,
// under the clip): clip 1 over axis 1 scales the first row by 1/5 only.
// The average form over all of x: norm 5 over 6 elements, 0.8333 < 1.
TEST(ClipByNorm, ByHand) {
  NDArray x = make(DataType::kFloat64, {3, 2}, {3, 4, 0, 0, 0.3, 0.4});
  Context rows, avg;
  ASSERT_OK(run_op("clip_by_norm", {.in = {&x}, .t = {1.0}, .i = {1}}, rows));
  EXPECT_TRUE(all_close(*rows.output(0), {0.6, 0.8, 0, 0, 0.3, 0.4}, 1e-15, 1e-15));
  ASSERT_OK(run_op("clip_by_avg_norm", {.in = {&x}, .t = {0.5}}, avg));
  const double norm = std::sqrt(9 + 16 + 0.09 + 0.16) / 6, f = 0.5 / norm;
  EXPECT_TRUE(all_close(*avg.output(0), {3 * f, 4 * f, 0, 0, 0.3 * f, 0.4 * f}, 1e-15, 1e-15));
}

TEST(ClipByNorm, TheExpressionAndTheNestedOpsAgree) {
  const int64_t n = 4 * 5 * 6;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(0.7 * static_cast<double>(i)) * (1 + i % 4);
  for (const char* op : {"clip_by_norm", "clip_by_avg_norm"})
    for (DataType dt : {DataType::kFloat64, DataType::kFloat32, DataType::kFloat16})
      for (const std::vector<int64_t>& axes : {std::vector<int64_t>{}, {1}, {0, 2}}) {
        SCOPED_TRACE(testing::Message() << op << " " << dtype_name(dt) << " axes " << axes.size());
        NDArray x = make(dt, {4, 5, 6}, v);
        Context by_expression, by_nested;
        ASSERT_OK(run_op(op, {.in = {&x}, .t = {0.75}, .i = axes}, by_expression));
        ops::formulas_as_nested_ops = true;
        const Status nested = run_op(op, {.in = {&x}, .t = {0.75}, .i = axes}, by_nested);
        ops::formulas_as_nested_ops = false;
        ASSERT_OK(nested);
        const double tol = dt == DataType::kFloat64 ? 1e-14 : dt == DataType::kFloat32 ? 1e-6 : 2e-3;
        EXPECT_TRUE(all_close(*by_expression.output(0), values(*by_nested.output(0)), tol, tol));
      }
}

}  // namespace
