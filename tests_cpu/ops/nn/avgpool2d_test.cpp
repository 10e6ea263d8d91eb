// avgpool2d against numpy goldens (tools/gen_goldens_nn.py), hand values for
// both padding divisors, 8-channel NHWC against a plain loop, empty batches
// and argument errors.
#include <string>

#include "nn_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// Mirrors POOL_CASES / POOL_NHWC / POOL_WIDE_CASES / POOL_CEIL_CASES (avg
// rows) in tools/gen_goldens_nn.py.
const char* const kAvgCases[] = {"avg_k2s2",        "avg_k3s1p1",         "avg_k3s1p1_incpad",
                                 "avg_same_k3s2",   "avg_same_k3s2_incpad", "avg_dilation2",
                                 "avg_rect",        "nhwc_avg_k3s1p1",    "nhwc_avg_same_k3s2_incpad",
                                 "nhwc_avg_rect",   "avg_wide_k3s2p1",    "avg_wide_k3s3p1",
                                 "avg_ceil_k2s2",   "avg_ceil_k3s2p1_incpad", "avg_ceil_rect_incpad",
                                 "nhwc_avg_ceil_k3s2p1_incpad"};

class Avgpool2dGolden : public ::testing::TestWithParam<std::tuple<const char*, DataType>> {};

TEST_P(Avgpool2dGolden, MatchesNumpy) {
  const auto [name, dtype] = GetParam();
  const std::string prefix = std::string("avgpool2d_") + name;
  NDArray x = nn_golden(prefix, "x", dtype);
  NDArray want = nn_golden(prefix, "z");
  Context ctx;
  ASSERT_OK(run_op("avgpool2d", {.in = {&x}, .i = nn_golden_ints(prefix, "iargs")}, ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), dtype);
  EXPECT_EQ(ctx.output(0)->shape(), want.shape());
  const double tol = golden_tolerance(dtype);
  EXPECT_TRUE(all_close(*ctx.output(0), values(want), tol, tol));
}

INSTANTIATE_TEST_SUITE_P(Cases, Avgpool2dGolden,
                         ::testing::Combine(::testing::ValuesIn(kAvgCases),
                                            ::testing::Values(DataType::kFloat64, DataType::kFloat32,
                                                              DataType::kBFloat16)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param)) + "_" + dtype_name(std::get<1>(info.param));
                         });

// The i args of a square window.
std::vector<int64_t> window(int64_t k, int64_t s, int64_t p, int64_t include_pad, int64_t format = 0) {
  return {k, k, s, s, p, p, 1, 1, 0, include_pad, format};
}

TEST(Avgpool2dOp, PaddingDivisorByHand) {
  // 2x2 image [[1, 2], [3, 4]], 2x2 windows, stride 1, padding 1: 3x3
  // outputs. The corner windows hold one real value.
  NDArray x = make(DataType::kFloat64, {1, 1, 2, 2}, {1, 2, 3, 4});
  Context excl;
  ASSERT_OK(run_op("avgpool2d", {.in = {&x}, .i = window(2, 1, 1, 0)}, excl));
  EXPECT_TRUE(all_close(*excl.output(0), {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}));
  Context incl;
  ASSERT_OK(run_op("avgpool2d", {.in = {&x}, .i = window(2, 1, 1, 1)}, incl));
  EXPECT_TRUE(all_close(*incl.output(0), {0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1}));
}

TEST(Avgpool2dOp, DefaultExcludesPadding) {
  NDArray x = make(DataType::kFloat32, {1, 1, 2, 2}, {1, 2, 3, 4});
  Context ctx;  // only the 9 window args: no count_include_pad, NCHW
  ASSERT_OK(run_op("avgpool2d", {.in = {&x}, .i = {2, 2, 1, 1, 1, 1, 1, 1, 0}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}));
}

// NHWC with 8 channels (NCHWc's blocks on AVX2) pools in lanes (Note
// [Pooling in lanes of 8] in conv_utils.h): against a plain loop in double,
// padding counted or not, windows cut by the edges, float32 and float64.
TEST(Avgpool2dOp, NhwcLanesOf8MatchAPlainLoop) {
  const int64_t n = 2, h = 7, w = 11, c = 8;
  std::vector<double> v(static_cast<size_t>(n * h * w * c));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::sin(0.41 * static_cast<double>(i)) * 3.0);
  for (DataType dt : {DataType::kFloat32, DataType::kFloat64}) {
    NDArray x = make(dt, {n, h, w, c}, v);
    for (int64_t k : {2, 3})
      for (int64_t include_pad : {0, 1}) {
        const int64_t s = 2, p = 1;
        SCOPED_TRACE(std::string(dtype_name(dt)) + " k" + std::to_string(k) + " include_pad " +
                     std::to_string(include_pad));
        const int64_t oh = (h + 2 * p - k) / s + 1, ow = (w + 2 * p - k) / s + 1;
        std::vector<double> want;
        for (int64_t b = 0; b < n; ++b)
          for (int64_t oy = 0; oy < oh; ++oy)
            for (int64_t ox = 0; ox < ow; ++ox)
              for (int64_t ch = 0; ch < c; ++ch) {
                double sum = 0;
                int64_t taps = 0;
                for (int64_t ky = 0; ky < k; ++ky)
                  for (int64_t kx = 0; kx < k; ++kx) {
                    const int64_t y = oy * s - p + ky, xx = ox * s - p + kx;
                    if (y < 0 || y >= h || xx < 0 || xx >= w) continue;
                    sum += v[static_cast<size_t>(((b * h + y) * w + xx) * c + ch)];
                    ++taps;
                  }
                want.push_back(sum / static_cast<double>(include_pad ? k * k : taps));
              }
        Context ctx;
        ASSERT_OK(run_op("avgpool2d", {.in = {&x}, .i = window(k, s, p, include_pad, 1)}, ctx));
        ASSERT_EQ(ctx.output(0)->shape(), (Dims{n, oh, ow, c}));
        EXPECT_TRUE(all_close(*ctx.output(0), want, dt == DataType::kFloat32 ? 1e-6 : 1e-12, 1e-6));
      }
  }
}

TEST(Avgpool2dOp, EmptyBatchGivesEmptyOutput) {
  NDArray x = zeros(DataType::kFloat64, {0, 6, 6, 3});
  Context ctx;
  ASSERT_OK(run_op("avgpool2d", {.in = {&x}, .i = window(2, 2, 0, 0, 1)}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{0, 3, 3, 3}));
}

TEST(Avgpool2dOp, RejectsBadArguments) {
  NDArray x = make(DataType::kFloat32, {1, 2, 4, 4}, iota(32));
  Context c1;
  Status s = run_op("avgpool2d", {.in = {&x}, .i = window(2, 1, 0, 2)}, c1);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "avgpool2d: i arg 9 (count_include_pad) is 2: it must be 0 or 1");
  Context c2;
  s = run_op("avgpool2d", {.in = {&x}, .i = window(2, -1, 0, 0)}, c2);
  EXPECT_EQ(s.message(), "avgpool2d: i arg 2 (sH) is -1: it must be in [1, 2147483647]");
  Context c3;
  s = run_op("avgpool2d", {.in = {&x}, .i = window(5, 1, 0, 0)}, c3);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_TRUE(has_substr(s.message(), "avgpool2d: kernel larger than the padded input with x[1,2,4,4] (NCHW)"));
  NDArray xi = make(DataType::kInt32, {1, 1, 2, 2}, {1, 2, 3, 4});
  Context c4;
  s = run_op("avgpool2d", {.in = {&xi}, .i = window(2, 1, 0, 0)}, c4);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
}

}  // namespace
