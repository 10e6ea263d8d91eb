// The libnd4j-convention ops beyond their goldens (tests_cpu/golden/libnd4j,
// tools/gen_goldens_libnd4j.py): the errors and their messages, and facts a
// golden states only implicitly.
#include <limits>
#include <utility>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

TEST(Libnd4jOps, ColourOpsNeedThreeChannels) {
  NDArray four = zeros(DataType::kFloat32, {2, 4});
  Context c1;
  EXPECT_EQ(run_op("rgb_to_yuv", {.in = {&four}}, c1).message(),
            "rgb_to_yuv: images[2,4] have 4 channels along dim_c = 1: RGB needs 3");
  Context c2;
  EXPECT_EQ(run_op("hsv_to_rgb", {.in = {&four}, .i = {0}}, c2).message(),
            "hsv_to_rgb: images[2,4] have 2 channels along dim_c = 0: HSV needs 3");
  Context c3;
  EXPECT_EQ(run_op("rgb_to_grs", {.in = {&four}}, c3).message(),
            "rgb_to_grs: images[2,4] have 4 channels along dim_c = 1: RGB needs 3");
  NDArray rgb = zeros(DataType::kFloat32, {2, 3});
  Context c4;
  EXPECT_EQ(run_op("yiq_to_rgb", {.in = {&rgb}, .i = {2}}, c4).message(),
            "yiq_to_rgb: dim_c (i arg 0) is 2: it must be an axis of input 0 (images) [2,3], in [-2, 1]");
  NDArray ints = zeros(DataType::kInt32, {2, 3});
  Context c5;
  EXPECT_FALSE(run_op("rgb_to_hsv", {.in = {&ints}}, c5).is_ok());  // HSV of integers: refused
  Context c6;
  ASSERT_OK(run_op("rgb_to_grs", {.in = {&ints}}, c6));  // grayscale takes integers, as libnd4j's
  EXPECT_EQ(c6.output(0)->shape(), (Dims{2, 1}));
  EXPECT_EQ(c6.output(0)->dtype(), DataType::kInt32);
}

// Each conversion undone by its inverse, the channel axis in the middle.
// TensorFlow's YIQ kernels are inverses of each other only to about 1e-4
// (their product differs from the identity by up to 6e-5).
TEST(Libnd4jOps, ColourRoundTrips) {
  NDArray x = make(DataType::kFloat64, {2, 3, 2}, {0.1, 0.9, 0.5, 0.2, 0.3, 0.3, 0.8, 0.05, 0.6, 0.6, 0.25, 1.0});
  for (auto [there, back] : {std::pair{"rgb_to_yuv", "yuv_to_rgb"}, std::pair{"rgb_to_yiq", "yiq_to_rgb"},
                             std::pair{"rgb_to_hsv", "hsv_to_rgb"}}) {
    SCOPED_TRACE(there);
    Context c1, c2;
    ASSERT_OK(run_op(there, {.in = {&x}, .i = {1}}, c1));
    ASSERT_OK(run_op(back, {.in = {c1.output(0)}, .i = {1}}, c2));
    EXPECT_TRUE(all_close(*c2.output(0), values(x), 0, 1e-4));
  }
}

TEST(Libnd4jOps, SizeAtNeedsAnAxis) {
  NDArray x = zeros(DataType::kFloat32, {2, 3});
  Context ctx;
  EXPECT_EQ(run_op("size_at", {.in = {&x}, .i = {2}}, ctx).message(),
            "size_at: dim (i arg 0) is 2: it must be an axis of input 0 (x) [2,3], in [-2, 1]");
}

TEST(Libnd4jOps, InvertPermutationNamesTheBadValue) {
  NDArray out_of_range = make(DataType::kInt32, {3}, {0, 3, 1});
  Context c1;
  EXPECT_EQ(run_op("invert_permutation", {.in = {&out_of_range}}, c1).message(),
            "invert_permutation: x[1] = 3 is not in [0, 3): x must hold each of 0..2 once");
  NDArray negative = make(DataType::kInt64, {2}, {-1, 0});
  Context c2;
  EXPECT_EQ(run_op("invert_permutation", {.in = {&negative}}, c2).message(),
            "invert_permutation: x[0] = -1 is not in [0, 2): x must hold each of 0..1 once");
  NDArray repeated = make(DataType::kInt64, {4}, {1, 0, 3, 1});
  Context c3;
  EXPECT_EQ(run_op("invert_permutation", {.in = {&repeated}}, c3).message(),
            "invert_permutation: x[3] = 1 repeats x[0]: x must hold each of 0..3 once");
  NDArray matrix = make(DataType::kInt32, {2, 2}, {0, 1, 1, 0});
  Context c4;
  EXPECT_EQ(run_op("invert_permutation", {.in = {&matrix}}, c4).message(),
            "invert_permutation: x[2,2] is not a vector: give [N] (or libnd4j's [1, N] or [N, 1])");
}

TEST(Libnd4jOps, TriAndMeshgridErrors) {
  Context c1;
  EXPECT_EQ(run_op("tri", {.i = {2, 2}, .d = {DataType::kBool}}, c1).message(),
            "tri: dtype bool is not numeric: tri gives a matrix of 0s and 1s");
  NDArray f = zeros(DataType::kFloat32, {2});
  NDArray i = zeros(DataType::kInt32, {2});
  Context c2;
  EXPECT_FALSE(run_op("meshgrid", {.in = {&f, &i}}, c2).is_ok());  // one dtype for all inputs
}

// libnd4j's blas.h: z = a * x + y with inputs (x, y); a * y + x would give 21, 42.
TEST(Libnd4jOps, AxpyScalesTheFirstInput) {
  NDArray x = make(DataType::kFloat32, {2}, {1, 2});
  NDArray y = make(DataType::kFloat32, {2}, {10, 20});
  Context ctx;
  ASSERT_OK(run_op("axpy", {.in = {&x, &y}, .t = {2.0}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {12, 24}));
  NDArray other = zeros(DataType::kFloat32, {3});
  Context bad;
  EXPECT_EQ(run_op("axpy", {.in = {&x, &other}}, bad).message(),
            "axpy: x[2] and y[3] differ in shape: axpy needs one shape");
}

TEST(Libnd4jOps, StandardizeNeedsAxes) {
  NDArray x = zeros(DataType::kFloat32, {2, 3});
  Context c1;
  EXPECT_EQ(run_op("standardize", {.in = {&x}}, c1).message(),
            "standardize: no axes: give the axes to standardize over as i args or as input 1");
  NDArray axes = make(DataType::kInt64, {2}, {1, -1});
  Context c2;
  EXPECT_EQ(run_op("standardize", {.in = {&x, &axes}}, c2).message(),
            "standardize: axes (input 1) names axis 1 twice (values 0 and 1)");
}

TEST(Libnd4jOps, MergeErrorsAndAllNan) {
  NDArray a = zeros(DataType::kFloat32, {2, 3});
  NDArray b = zeros(DataType::kFloat32, {3, 2});
  Context c1;
  EXPECT_EQ(run_op("mergeadd", {.in = {&a, &a, &b}}, c1).message(),
            "mergeadd: input 2[3,2] differs in shape from input 0[2,3]: the inputs must have one shape");
  Context c2;
  EXPECT_EQ(run_op("mergemaxindex", {.in = {&a, &a}, .d = {DataType::kFloat32}}, c2).message(),
            "mergemaxindex: dtype float32 is not an integer dtype: the result holds input indices");
  NDArray ints = zeros(DataType::kInt32, {2, 3});
  Context c3;
  EXPECT_FALSE(run_op("mergeavg", {.in = {&ints, &ints}}, c3).is_ok());  // an integer mean: refused
  // No input wins where every one is NaN: index 0, as libnd4j's scan.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  NDArray n1 = make(DataType::kFloat64, {2}, {nan, 1});
  NDArray n2 = make(DataType::kFloat64, {2}, {nan, 2});
  Context c4;
  ASSERT_OK(run_op("mergemaxindex", {.in = {&n1, &n2}}, c4));
  EXPECT_EQ(c4.output(0)->dtype(), DataType::kInt32);
  EXPECT_TRUE(all_close(*c4.output(0), {0, 1}));
}

}  // namespace
