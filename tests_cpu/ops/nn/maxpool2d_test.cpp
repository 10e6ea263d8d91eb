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

// NHWC float32 with whole runs of 16 channels takes the AVX-512 kernel of
// Note [Pooling in lanes of 16] where the CPU has it: pixels in groups of
// four, a NaN check per input row, and one max instruction a tap on rows
// without NaN; with 8 channels (NCHWc's blocks on AVX2), Note [Pooling in
// lanes of 8]. Against a plain loop in double, with NaNs at a corner, in
// the middle and at the far edge, in different runs of 16 or lanes of 8.
class Maxpool2dLanes : public ::testing::TestWithParam<int64_t> {};

TEST_P(Maxpool2dLanes, NhwcMatchesAPlainLoopWithNaNAnywhere) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int64_t n = 2, h = 9, w = 13, c = GetParam();
  std::vector<double> v(static_cast<size_t>(n * h * w * c));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)) * 5.0);
  auto at = [&](int64_t b, int64_t y, int64_t xx, int64_t ch) { return ((b * h + y) * w + xx) * c + ch; };
  v[static_cast<size_t>(at(0, 0, 0, 3))] = nan;
  v[static_cast<size_t>(at(0, 4, 6, (c / 2) + 1))] = nan;
  v[static_cast<size_t>(at(1, 8, 12, c - 1))] = nan;
  NDArray x = make(DataType::kFloat32, {n, h, w, c}, v);
  struct Case {
    int64_t k, s, p, d;
  };
  for (const Case& k : {Case{3, 2, 1, 1}, Case{3, 1, 1, 1}, Case{2, 2, 0, 1}, Case{3, 1, 2, 2}, Case{5, 3, 2, 1}}) {
    SCOPED_TRACE("k" + std::to_string(k.k) + " s" + std::to_string(k.s) + " p" + std::to_string(k.p) + " d" +
                 std::to_string(k.d));
    const int64_t eff = (k.k - 1) * k.d + 1, oh = (h + 2 * k.p - eff) / k.s + 1, ow = (w + 2 * k.p - eff) / k.s + 1;
    std::vector<double> want;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox)
          for (int64_t ch = 0; ch < c; ++ch) {
            double m = -std::numeric_limits<double>::infinity();
            for (int64_t ky = 0; ky < k.k; ++ky)
              for (int64_t kx = 0; kx < k.k; ++kx) {
                const int64_t y = oy * k.s - k.p + ky * k.d, xx = ox * k.s - k.p + kx * k.d;
                if (y < 0 || y >= h || xx < 0 || xx >= w) continue;
                const double t = v[static_cast<size_t>(at(b, y, xx, ch))];
                if (std::isnan(t) || std::isnan(m)) m = nan;
                else m = std::max(m, t);
              }
            want.push_back(m);
          }
    Context ctx;
    ASSERT_OK(run_op("maxpool2d", {.in = {&x}, .i = window(k.k, k.s, k.p, k.d, 0, 1)}, ctx));
    ASSERT_EQ(ctx.output(0)->shape(), (Dims{n, oh, ow, c}));
    EXPECT_TRUE(all_close(*ctx.output(0), want, 0, 0));
  }
}

INSTANTIATE_TEST_SUITE_P(Channels, Maxpool2dLanes, ::testing::Values(32, 8));

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
