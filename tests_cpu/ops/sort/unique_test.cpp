// unique, unique_with_counts and unique_all beyond the numpy goldens
// (selection manifest): which of equal values is given back (the sign of
// zero, a NaN's payload), dtypes numpy has no golden for, strided views,
// TF's first-occurrence order, and a shape function that needs the data.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "op_test_util.h"

namespace libops {
namespace {

using test::make;
using test::values;

std::vector<double> ints(std::initializer_list<double> v) { return v; }

uint64_t bits_of(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

double nan_with_payload(uint64_t payload) {
  const uint64_t b = 0x7FF8000000000000ull | payload;
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// Note [Unique values]: -0.0 and +0.0 are one value, NaNs are one value,
// and each comes back as its first occurrence, bits and all.
TEST(Unique, EqualValuesComeBackAsTheirFirstOccurrence) {
  const double nan_a = nan_with_payload(0x1234), nan_b = nan_with_payload(0x55);
  NDArray x = make(DataType::kFloat64, {7}, {-0.0, 1.0, nan_a, 0.0, nan_b, 1.0, -0.0});
  for (bool sorted : {true, false}) {
    SCOPED_TRACE(sorted ? "sorted" : "first occurrence");
    Context ctx;
    ASSERT_OK(test::run_op("unique_all", {.in = {&x}, .b = {sorted, true}}, ctx));
    const NDArray& v = *ctx.output(0);
    ASSERT_EQ(v.shape(), Dims{3});
    // Ascending: -0.0 (for both zeros), 1, NaN; by first occurrence the same here.
    EXPECT_TRUE(std::signbit(v.get_double(0)));
    EXPECT_EQ(v.get_double(1), 1.0);
    EXPECT_EQ(bits_of(v.get_double(2)), bits_of(nan_a));
    EXPECT_EQ(values(*ctx.output(1)), ints({0, 1, 2}));
    EXPECT_EQ(values(*ctx.output(2)), ints({0, 1, 2, 0, 2, 1, 0}));
    EXPECT_EQ(values(*ctx.output(3)), ints({3, 2, 2}));
  }
  NDArray y = make(DataType::kFloat32, {3}, {0.0, -0.0, 2.0});
  Context ctx;
  ASSERT_OK(test::run_op("unique", {.in = {&y}}, ctx));
  ASSERT_EQ(ctx.output(0)->length(), 2);
  EXPECT_FALSE(std::signbit(ctx.output(0)->get_double(0)));  // +0.0 came first
}

TEST(Unique, NansApartAreEachTheirOwnValueInOrder) {
  const double nan_a = nan_with_payload(1), nan_b = nan_with_payload(2);
  NDArray x = make(DataType::kFloat64, {4}, {nan_a, 3.0, nan_b, 3.0});
  Context ctx;
  ASSERT_OK(test::run_op("unique_with_counts", {.in = {&x}, .b = {true, false}}, ctx));
  ASSERT_EQ(ctx.output(0)->shape(), Dims{3});
  EXPECT_EQ(ctx.output(0)->get_double(0), 3.0);
  EXPECT_EQ(bits_of(ctx.output(0)->get_double(1)), bits_of(nan_a));
  EXPECT_EQ(bits_of(ctx.output(0)->get_double(2)), bits_of(nan_b));
  EXPECT_EQ(values(*ctx.output(1)), ints({1, 0, 2, 0}));
  EXPECT_EQ(values(*ctx.output(2)), ints({2, 1, 1}));
}

// TF's documented example of unique: values in order of first occurrence.
TEST(Unique, UnsortedIsTfsOrder) {
  NDArray x = make(DataType::kInt32, {9}, {1, 1, 2, 4, 4, 4, 7, 8, 8});
  Context ctx;
  ASSERT_OK(test::run_op("unique", {.in = {&x}, .b = {false}}, ctx));
  EXPECT_EQ(values(*ctx.output(0)), ints({1, 2, 4, 7, 8}));
  EXPECT_EQ(values(*ctx.output(1)), ints({0, 0, 1, 2, 2, 2, 3, 4, 4}));
  NDArray y = make(DataType::kInt32, {6}, {5, -1, 5, 3, -1, 0});
  Context sorted, unsorted;
  ASSERT_OK(test::run_op("unique_with_counts", {.in = {&y}}, sorted));
  EXPECT_EQ(values(*sorted.output(0)), ints({-1, 0, 3, 5}));
  EXPECT_EQ(values(*sorted.output(1)), ints({3, 0, 3, 2, 0, 1}));
  EXPECT_EQ(values(*sorted.output(2)), ints({2, 1, 1, 2}));
  ASSERT_OK(test::run_op("unique_with_counts", {.in = {&y}, .b = {false}}, unsorted));
  EXPECT_EQ(values(*unsorted.output(0)), ints({5, -1, 3, 0}));
  EXPECT_EQ(values(*unsorted.output(1)), ints({0, 1, 0, 2, 1, 3}));
  EXPECT_EQ(values(*unsorted.output(2)), ints({2, 2, 1, 1}));
}

// Dtypes the numpy goldens do not cover: bfloat16 (staged as float32 keys),
// int8 at its limits, bool.
TEST(Unique, NarrowDtypesKeepTheirDtype) {
  struct Case {
    DataType t;
    std::vector<double> x, want_values, want_inverse;
  } cases[] = {
      {DataType::kBFloat16, {1.5, -2, 1.5, 0, -0.0}, {-2, 0, 1.5}, {2, 0, 2, 1, 1}},
      {DataType::kInt8, {-128, 127, -128, 0}, {-128, 0, 127}, {0, 2, 0, 1}},
      {DataType::kUInt16, {65535, 0, 65535}, {0, 65535}, {1, 0, 1}},
      {DataType::kBool, {1, 1, 1}, {1}, {0, 0, 0}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(dtype_name(c.t));
    NDArray x = make(c.t, {static_cast<int64_t>(c.x.size())}, c.x);
    Context ctx;
    ASSERT_OK(test::run_op("unique", {.in = {&x}}, ctx));
    EXPECT_EQ(ctx.output(0)->dtype(), c.t);
    EXPECT_EQ(values(*ctx.output(0)), c.want_values);
    EXPECT_EQ(values(*ctx.output(1)), c.want_inverse);
  }
}

// x is flattened in C order of its logical indices, whatever its strides.
TEST(Unique, StridedViewsGiveTheDenseCopysResults) {
  NDArray base = make(DataType::kFloat32, {4, 6}, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8,
                                                   9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4});
  NDArray t, stepped, flipped;
  ASSERT_OK(base.permute({1, 0}, t));
  ASSERT_OK(base.slice(1, 1, 6, 2, stepped));
  ASSERT_OK(base.flip(0, flipped));
  for (const NDArray* view : {&t, &stepped, &flipped}) {
    SCOPED_TRACE(view->shape().str());
    NDArray dense;
    ASSERT_OK(view->dup('c', dense));
    for (bool sorted : {true, false}) {
      Context a, b;
      ASSERT_OK(test::run_op("unique_all", {.in = {const_cast<NDArray*>(view)}, .b = {sorted}}, a));
      ASSERT_OK(test::run_op("unique_all", {.in = {&dense}, .b = {sorted}}, b));
      for (int k = 0; k < 4; ++k) {
        EXPECT_EQ(a.output(k)->shape(), b.output(k)->shape()) << "output " << k;
        EXPECT_EQ(values(*a.output(k)), values(*b.output(k))) << "output " << k;
      }
    }
  }
}

// The output size is the data's: shape inference without values says so
// (the graph planner then infers at run time), except for an empty x.
TEST(Unique, ShapeNeedsTheValues) {
  DeclarableOp* op = OpRegistry::instance().find("unique_with_counts");
  ASSERT_NE(op, nullptr);
  NDArray x = NDArray::shape_only(TensorShape{DataType::kFloat32, Dims{2, 3}, 'c'});
  Context ctx;
  ctx.add_input(&x);
  ShapeList shapes;
  const Status s = op->infer_shapes(ctx, shapes);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "unique_with_counts: x float32[2,3]: its values are not known yet (the output size depends on them)");
  NDArray empty = NDArray::shape_only(TensorShape{DataType::kInt32, Dims{0, 4}, 'c'});
  Context ectx;
  ectx.add_input(&empty);
  ASSERT_OK(op->infer_shapes(ectx, shapes));
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes[0].dims, Dims{0});
  EXPECT_EQ(shapes[1].dims, (Dims{0, 4}));
  EXPECT_EQ(shapes[2].dims, Dims{0});
}

// Outputs the caller supplies: the counted shapes, in any layout.
TEST(Unique, WritesIntoSuppliedOutputs) {
  NDArray x = make(DataType::kInt64, {2, 2}, {7, 3, 7, 7});
  NDArray values_out = test::zeros(DataType::kInt64, {2});
  NDArray inverse_f;
  ASSERT_OK(NDArray::create(DataType::kInt64, {2, 2}, 'f', inverse_f));
  Context ctx;
  ASSERT_OK(test::run_op("unique", {.in = {&x}, .out = {&values_out, &inverse_f}}, ctx));
  EXPECT_EQ(values(values_out), ints({3, 7}));
  EXPECT_EQ(values(inverse_f), ints({1, 0, 1, 1}));
  NDArray wrong = test::zeros(DataType::kInt64, {3});
  Context bad;
  const Status s = test::run_op("unique", {.in = {&x}, .out = {&wrong, &inverse_f}}, bad);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_NE(s.message().find("unique: output 0 is int64[3] but the op produces"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace libops
