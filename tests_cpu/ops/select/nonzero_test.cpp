// argwhere, nonzero and where(cond) beyond the numpy goldens (selection
// manifest): what counts as nonzero in dtypes numpy has no golden for,
// strided views, inputs that span several chunks of the CPU kernel, where's
// arity, and a shape function that needs the data.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "op_test_util.h"

namespace libops {
namespace {

using test::make;
using test::values;

TEST(Nonzero, NanIsNonzeroNegativeZeroIsNot) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (DataType t : {DataType::kFloat32, DataType::kBFloat16, DataType::kFloat16, DataType::kFloat64}) {
    SCOPED_TRACE(dtype_name(t));
    NDArray x = make(t, {2, 3}, {-0.0, nan, 0.0, 0.5, 0.0, -1e-3});
    Context a, n;
    ASSERT_OK(test::run_op("argwhere", {.in = {&x}}, a));
    EXPECT_EQ(a.output(0)->shape(), (Dims{3, 2}));
    EXPECT_EQ(values(*a.output(0)), (std::vector<double>{0, 1, 1, 0, 1, 2}));
    ASSERT_OK(test::run_op("nonzero", {.in = {&x}}, n));
    EXPECT_EQ(n.output(0)->shape(), (Dims{2, 3}));
    EXPECT_EQ(values(*n.output(0)), (std::vector<double>{0, 1, 1, 1, 0, 2}));
  }
}

// The CPU kernel works in chunks of 65536 flags: nonzeros on both sides of
// the boundaries, and a chunk with none.
TEST(Nonzero, AcrossChunks) {
  const int64_t rows = 5, cols = 65537;
  std::vector<double> v(static_cast<size_t>(rows * cols), 0.0);
  std::vector<double> want;
  for (int64_t flat : {int64_t{0}, int64_t{65535}, int64_t{65536}, int64_t{65537}, int64_t{131071},
                       int64_t{262144}, rows * cols - 1}) {
    v[static_cast<size_t>(flat)] = 1.0;
    want.push_back(static_cast<double>(flat / cols));
    want.push_back(static_cast<double>(flat % cols));
  }
  NDArray x = make(DataType::kUInt8, {rows, cols}, v);
  Context ctx;
  ASSERT_OK(test::run_op("argwhere", {.in = {&x}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{7, 2}));
  EXPECT_EQ(values(*ctx.output(0)), want);
}

// Coordinates follow x's logical indices, whatever its strides.
TEST(Nonzero, StridedViewsGiveTheDenseCopysResults) {
  NDArray base = make(DataType::kInt32, {2, 3, 4}, {0, 1, 0, 2, 3, 0, 0, 0, 4, 0, 5, 6,
                                                    0, 0, 7, 0, 8, 9, 0, 0, 0, 1, 0, 2});
  NDArray p, stepped, flipped;
  ASSERT_OK(base.permute({2, 0, 1}, p));
  ASSERT_OK(base.slice(2, 0, 4, 3, stepped));
  ASSERT_OK(base.flip(1, flipped));
  for (const NDArray* view : {&p, &stepped, &flipped}) {
    SCOPED_TRACE(view->shape().str());
    NDArray dense;
    ASSERT_OK(view->dup('c', dense));
    for (const char* op : {"argwhere", "nonzero", "where"}) {
      Context a, b;
      ASSERT_OK(test::run_op(op, {.in = {const_cast<NDArray*>(view)}}, a));
      ASSERT_OK(test::run_op(op, {.in = {&dense}}, b));
      EXPECT_EQ(a.output(0)->shape(), b.output(0)->shape()) << op;
      EXPECT_EQ(values(*a.output(0)), values(*b.output(0))) << op;
    }
  }
}

// where takes cond alone (argwhere) or cond, x and y; two is neither.
TEST(Nonzero, WhereTakesOneOrThreeInputs) {
  NDArray c = make(DataType::kBool, {2}, {1, 0});
  NDArray x = make(DataType::kFloat32, {2}, {5, 6});
  NDArray y = make(DataType::kFloat32, {2}, {7, 8});
  Context one, three, two;
  ASSERT_OK(test::run_op("where", {.in = {&c}}, one));
  EXPECT_EQ(one.output(0)->dtype(), DataType::kInt64);
  EXPECT_EQ(one.output(0)->shape(), (Dims{1, 1}));
  ASSERT_OK(test::run_op("where", {.in = {&c, &x, &y}}, three));
  EXPECT_EQ(values(*three.output(0)), (std::vector<double>{5, 8}));
  const Status s = test::run_op("where", {.in = {&c, &x}}, two);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "where: 2 inputs (cond bool[2], x float32[2]): give cond alone (its nonzero coordinates) or cond, x and y");
}

TEST(Nonzero, ShapeNeedsTheValues) {
  for (const char* name : {"argwhere", "nonzero", "where"}) {
    SCOPED_TRACE(name);
    DeclarableOp* op = OpRegistry::instance().find(name);
    ASSERT_NE(op, nullptr);
    NDArray x = NDArray::shape_only(TensorShape{DataType::kInt32, Dims{4, 2}, 'c'});
    Context ctx;
    ctx.add_input(&x);
    ShapeList shapes;
    const Status s = op->infer_shapes(ctx, shapes);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    const std::string input = std::string(name) == "where" ? "cond" : "x";
    EXPECT_EQ(s.message(), std::string(name) + ": " + input +
                               " int32[4,2]: its values are not known yet (the output size depends on them)");
    NDArray empty = NDArray::shape_only(TensorShape{DataType::kInt32, Dims{3, 0, 2}, 'c'});
    Context ectx;
    ectx.add_input(&empty);
    ASSERT_OK(op->infer_shapes(ectx, shapes));
    ASSERT_EQ(shapes.size(), 1u);
    EXPECT_EQ(shapes[0].dims, std::string(name) == "nonzero" ? (Dims{3, 0}) : (Dims{0, 3}));
  }
}

}  // namespace
}  // namespace libops
