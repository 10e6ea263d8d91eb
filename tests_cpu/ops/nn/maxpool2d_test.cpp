// maxpool2d against numpy goldens (tools/gen_goldens_nn.py), hand values,
// NaN, empty batches and argument errors.
#include <cmath>
#include <limits>

#include "nn_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// Mirrors POOL_CASES / POOL_NHWC / POOL_WIDE_CASES / POOL_CEIL_CASES (max
// rows) in tools/gen_goldens_nn.py.
const char* const kMaxCases[] = {"max_k2s2",        "max_k3s1p1",      "max_same_k3s2",     "max_dilation2",
                                 "max_rect",        "nhwc_max_k3s1p1", "nhwc_max_same_k3s2", "nhwc_max_rect",
                                 "max_wide_k3s2p1", "max_wide_k3s3p1", "max_ceil_k3s2",      "max_ceil_last_window_dropped",
                                 "nhwc_max_ceil_k3s2"};

class Maxpool2dGolden : public ::testing::TestWithParam<std::tuple<const char*, DataType>> {};

TEST_P(Maxpool2dGolden, MatchesNumpy) {
  const auto [name, dtype] = GetParam();
  const std::string prefix = std::string("maxpool2d_") + name;
  NDArray x = nn_golden(prefix, "x", dtype);
  NDArray want = nn_golden(prefix, "z");
  Context ctx;
  ASSERT_OK(run_op("maxpool2d", {.in = {&x}, .i = nn_golden_ints(prefix, "iargs")}, ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), dtype);
  EXPECT_EQ(ctx.output(0)->shape(), want.shape());
  // A maximum is one of the inputs: exact in every dtype.
  EXPECT_TRUE(all_close(*ctx.output(0), values(cast_to(cast_to(want, dtype), DataType::kFloat64)), 0, 0));
}

INSTANTIATE_TEST_SUITE_P(Cases, Maxpool2dGolden,
                         ::testing::Combine(::testing::ValuesIn(kMaxCases),
                                            ::testing::Values(DataType::kFloat64, DataType::kFloat32,
                                                              DataType::kFloat16)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param)) + "_" + dtype_name(std::get<1>(info.param));
                         });

// The i args of a square window.
std::vector<int64_t> window(int64_t k, int64_t s, int64_t p, int64_t d, int64_t same, int64_t format = 0) {
  return {k, k, s, s, p, p, d, d, same, 0, format};
}

TEST(Maxpool2dOp, HandComputedWithPadding) {
  // 3x3 image, 2x2 windows, stride 1, padding 1: 4x4 outputs; padding
  // never wins even where every real value is negative.
  NDArray x = make(DataType::kFloat64, {1, 1, 3, 3}, {-1, -2, -3, -4, -5, -6, -7, -8, -9});
  Context ctx;
  ASSERT_OK(run_op("maxpool2d", {.in = {&x}, .i = window(2, 1, 1, 1, 0)}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{1, 1, 4, 4}));
  EXPECT_TRUE(all_close(*ctx.output(0), {-1, -1, -2, -3, -1, -1, -2, -3, -4, -4, -5, -6, -7, -7, -8, -9}));
}

TEST(Maxpool2dOp, NaNPropagatesInItsWindowsOnly) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int64_t format : {0, 1}) {
    // 4x4 single-channel image (the same memory in NCHW and NHWC).
    const Dims shape = format == 0 ? Dims{1, 1, 4, 4} : Dims{1, 4, 4, 1};
    std::vector<double> v = iota(16);
    v[5] = nan;  // row 1, col 1: inside the top-left 2x2 window only
    NDArray x = make(DataType::kFloat32, shape, v);
    Context ctx;
    ASSERT_OK(run_op("maxpool2d", {.in = {&x}, .i = window(2, 2, 0, 1, 0, format)}, ctx));
    EXPECT_TRUE(all_close(*ctx.output(0), {nan, 7, 13, 15})) << "format " << format;
  }
}

TEST(Maxpool2dOp, EmptyBatchGivesEmptyOutput) {
  NDArray x = zeros(DataType::kFloat32, {0, 3, 6, 6});
  Context ctx;
  ASSERT_OK(run_op("maxpool2d", {.in = {&x}, .i = window(2, 2, 0, 1, 0)}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{0, 3, 3, 3}));
}

TEST(Maxpool2dOp, RejectsBadArguments) {
  NDArray x = make(DataType::kFloat32, {2, 3, 5, 5}, iota(150));
  Context c1;
  Status s = run_op("maxpool2d", {.in = {&x}, .i = window(2, 0, 0, 1, 0)}, c1);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "maxpool2d: i arg 2 (sH) is 0: it must be in [1, 2147483647]");
  Context c2;
  s = run_op("maxpool2d", {.in = {&x}, .i = window(6, 1, 0, 1, 0)}, c2);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "maxpool2d: kernel larger than the padded input with x[2,3,5,5] (NCHW): padded height 5 + 2*0 = 5 < "
            "dilated kernel height (6 - 1) * 1 + 1 = 6");
  Context c3;
  s = run_op("maxpool2d", {.in = {&x}, .i = window(2, 1, 2, 1, 0)}, c3);
  EXPECT_EQ(s.message(),
            "maxpool2d: padding too large with x[2,3,5,5], kernel 2x2, dilation 1x1, padding 2x2: padding must be "
            "smaller than the dilated kernel 2x2");
  Context c4;
  s = run_op("maxpool2d", {.in = {&x}, .i = window(2, 1, 0, 1, 0, 3)}, c4);
  EXPECT_TRUE(has_substr(s.message(), "i arg 10 (data_format) is 3: it must be 0 (NCHW), 1 (NHWC) or 2 (NCHWc"));
  NDArray x3 = make(DataType::kFloat32, {3, 5, 5}, iota(75));
  Context c5;
  s = run_op("maxpool2d", {.in = {&x3}, .i = window(2, 1, 0, 1, 0, 1)}, c5);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "maxpool2d: x[3,5,5] has rank 3: it must be rank 4 ([N, H, W, C])");
}

}  // namespace
