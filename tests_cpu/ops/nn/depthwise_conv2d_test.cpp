// depthwise_conv2d against numpy goldens (tools/gen_goldens_nn.py,
// GROUPED_CASES with groups = channels), its three weight formats, a
// hand-computed case and its errors.
#include <cmath>
#include <optional>

#include "blas/conv_dnnl.h"
#include "libops/core/parallel.h"
#include "libops/ops/nn/depthwise.h"
#include "nn_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// The GROUPED_CASES whose groups equal the channels.
const char* const kDepthwiseCases[] = {"depthwise", "depthwise_mult2_same_s2", "depthwise_dilated"};

struct Im2colOnly {
  Im2colOnly() { blas::set_dnnl_enabled(false); }
  ~Im2colOnly() { blas::set_dnnl_enabled(true); }
};

// x in NCHWc with 16 lanes (Note [Channel-blocked layout]).
NDArray blocked(const NDArray& x) {
  Context ctx;
  NDArray xc = x;
  const Status s = run_op("block_channels", {.in = {&xc}, .i = {16}}, ctx);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return s.is_ok() ? *ctx.output(0) : NDArray();
}

// Weights [C, 1, kH, kW] and a bias [C] for the kernel tests, of both
// signs.
NDArray depthwise_weights(int64_t c, int64_t kh, int64_t kw) {
  std::vector<double> wv(static_cast<size_t>(kh * kw * c));
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = 1.7 * std::cos(0.37 * static_cast<double>(i));
  return make(DataType::kFloat32, {c, 1, kh, kw}, wv);
}
NDArray depthwise_bias(int64_t c) {
  std::vector<double> bv(static_cast<size_t>(c));
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = 0.5 * static_cast<double>(i % 5) - 1.0;
  return make(DataType::kFloat32, {c}, bv);
}

// got against want within 1e-5 relative, NaN where want is NaN; returns
// how many of want are NaN.
int expect_close_keeping_nan(const std::vector<double>& got, const std::vector<double>& want) {
  EXPECT_EQ(got.size(), want.size());
  int nans = 0;
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      ++nans;
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-5 * (1.0 + std::fabs(want[i]))) << "at " << i;
    }
  }
  return nans;
}

class DepthwiseGolden : public ::testing::TestWithParam<std::tuple<const char*, DataType, bool>> {};

TEST_P(DepthwiseGolden, MatchesNumpy) {
  const auto [name, dtype, dnnl] = GetParam();
  std::optional<Im2colOnly> im2col;
  if (!dnnl) im2col.emplace();
  expect_conv_golden("depthwise_conv2d", name, dtype);
}

INSTANTIATE_TEST_SUITE_P(Cases, DepthwiseGolden,
                         ::testing::Combine(::testing::ValuesIn(kDepthwiseCases),
                                            ::testing::Values(DataType::kFloat64, DataType::kFloat32),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param)) + "_" +
                                  dtype_name(std::get<1>(info.param)) +
                                  (std::get<2>(info.param) ? "_dnnl" : "_im2col");
                         });

// Two channels, multiplier 2, a 1x2 kernel, NHWC: output channel c*2 + m
// is channel c under filter m (weights [kH, kW, C, mult]).
TEST(DepthwiseConv2dOp, HandComputedChannelOrder) {
  // x [1, 1, 3, 2]: pixels (c0, c1) = (1, 10), (2, 20), (3, 30).
  NDArray x = make(DataType::kFloat32, {1, 1, 3, 2}, {1, 10, 2, 20, 3, 30});
  // w[0, kw, c, m]: c0 filters (1, 0) and (0, 1) along kw; c1 filters (1, 1) and (2, -1).
  NDArray w = make(DataType::kFloat32, {1, 2, 2, 2}, {1, 0, 1, 2, /* kw 1: */ 0, 1, 1, -1});
  Context ctx;
  ASSERT_OK(run_op("depthwise_conv2d", {.in = {&x, &w}, .i = {1, 2, 1, 1, 0, 0, 1, 1, 0, 1}}, ctx));
  ASSERT_EQ(ctx.output(0)->shape(), (Dims{1, 1, 2, 4}));
  // Window 0 reads pixels 0 and 1: c0 -> (1, 2), c1 -> (10, 20).
  //   ch0 = 1*1 + 0*2 = 1, ch1 = 0*1 + 1*2 = 2, ch2 = 10 + 20 = 30, ch3 = 2*10 - 20 = 0.
  // Window 1 reads pixels 1 and 2: ch0 = 2, ch1 = 3, ch2 = 50, ch3 = 10.
  EXPECT_TRUE(all_close(*ctx.output(0), {1, 2, 30, 0, 2, 3, 50, 10}, 0, 0));
}

// weights_format 1 ([mult, C, kH, kW]) and 2 ([mult, kH, kW, C]) laid out
// from the golden's [kH, kW, C, mult] give the golden output.
TEST(DepthwiseConv2dOp, TakesEveryWeightFormat) {
  const std::string name = "depthwise_conv2d_depthwise_mult2_same_s2";
  NDArray x = nn_golden(name, "x"), w = nn_golden(name, "w"), b = nn_golden(name, "b");
  NDArray want = nn_golden(name, "z");
  std::vector<int64_t> args = nn_golden_ints(name, "iargs");
  const struct { int64_t format; Dims perm; } formats[] = {{1, Dims{3, 2, 0, 1}}, {2, Dims{3, 0, 1, 2}}};
  for (const auto& f : formats) {
    NDArray view, dense;
    ASSERT_OK(w.permute(f.perm, view));
    ASSERT_OK(view.dup('c', dense));
    args[10] = f.format;
    Context ctx;
    ASSERT_OK(run_op("depthwise_conv2d", {.in = {&x, &dense, &b}, .i = args}, ctx));
    EXPECT_TRUE(all_close(*ctx.output(0), values(want), 1e-10, 1e-10)) << "weights_format " << f.format;
  }
}

TEST(DepthwiseConv2dOp, RejectsChannelMismatchAndNoChannels) {
  NDArray x = make(DataType::kFloat32, {1, 3, 5, 5}, iota(75));
  NDArray w = make(DataType::kFloat32, {3, 3, 2, 1}, iota(18));
  Context ctx;
  Status s = run_op("depthwise_conv2d", {.in = {&x, &w}, .i = {3, 3, 1, 1, 0, 0, 1, 1, 0}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "depthwise_conv2d: channel mismatch with x[1,3,5,5] (NCHW) and weights[3,3,2,1]: x has 3 channels, "
            "weights [kH, kW, C, mult] expect 2");
  NDArray empty = make(DataType::kFloat32, {1, 0, 5, 5}, {});
  NDArray w0 = make(DataType::kFloat32, {3, 3, 0, 1}, {});
  Context ctx2;
  s = run_op("depthwise_conv2d", {.in = {&empty, &w0}, .i = {3, 3, 1, 1, 0, 0, 1, 1, 0}}, ctx2);
  EXPECT_EQ(s.message(), "depthwise_conv2d: x[1,0,5,5] (NCHW) has no channels: a depthwise convolution needs at "
                         "least one");
}


// Note [Depthwise NHWC kernel], Note [Depthwise NCHW kernel]: float32
// with one filter per channel (conv2d with groups = C, and so
// depthwise_conv2d with multiplier 1) runs libops' own kernels (NHWC where
// oneDNN does not take it, NCHW always); here (oneDNN off) against the
// im2col path (the kernels off too) on the same conv2d calls, in both
// layouts: channel counts around the 16-lane blocks, widths around the
// 4-output tiles, strides, dilation, explicit and SAME padding, kernels
// other than 3x3, a batch of 2, with and without bias, each activation,
// and a NaN, which the activation must keep.
TEST(DepthwiseConv2dOp, OwnKernelsMatchIm2col) {
  struct Case {
    int64_t c, h, w, kh, kw, s, p, d, same;
  };
  const Case cases[] = {
      {16, 9, 9, 3, 3, 1, 1, 1, 0},  {32, 7, 12, 3, 3, 2, 1, 1, 0}, {40, 8, 5, 3, 3, 1, 1, 1, 0},
      {3, 6, 7, 3, 3, 1, 0, 1, 0},   {1, 5, 5, 3, 3, 1, 1, 1, 0},   {48, 11, 13, 5, 5, 1, 2, 1, 0},
      {24, 10, 10, 3, 3, 1, 0, 2, 0}, {17, 9, 14, 3, 3, 2, 0, 1, 1}, {16, 4, 3, 3, 1, 1, 1, 1, 0},
      {64, 3, 3, 3, 3, 1, 1, 1, 0},  {16, 12, 12, 7, 7, 2, 3, 1, 0}, {20, 13, 13, 3, 3, 3, 1, 1, 0},
      // Rows of 16 outputs and more: the NCHW kernel's vector blocks, the
      // last one overlapping, at strides 1, 2 and 3, with dilation.
      {8, 6, 40, 3, 3, 1, 1, 1, 0},  {8, 5, 45, 3, 3, 2, 1, 1, 0},  {4, 5, 70, 3, 3, 3, 1, 1, 0},
      {6, 6, 37, 5, 5, 1, 2, 2, 0},  {5, 3, 35, 3, 3, 2, 0, 1, 0},  {3, 4, 34, 3, 3, 2, 1, 1, 1},
  };
  for (const Case& c : cases)
    for (bool nchw : {false, true})
      for (bool bias : {false, true})
        for (int64_t act : {0, 1, 2}) {
          SCOPED_TRACE(testing::Message() << "c" << c.c << " " << c.h << "x" << c.w << " k" << c.kh << "x" << c.kw
                                          << " s" << c.s << " p" << c.p << " d" << c.d << " same " << c.same
                                          << (bias ? " bias" : "") << " activation " << act
                                          << (nchw ? " NCHW" : " NHWC"));
          std::vector<double> xv(static_cast<size_t>(2 * c.h * c.w * c.c));
          for (size_t i = 0; i < xv.size(); ++i) xv[i] = 3.0 * std::sin(0.61 * static_cast<double>(i) + 0.2);
          xv[xv.size() / 2] = std::nan("");
          NDArray x = make(DataType::kFloat32, nchw ? Dims{2, c.c, c.h, c.w} : Dims{2, c.h, c.w, c.c}, xv);
          NDArray w = depthwise_weights(c.c, c.kh, c.kw), b = depthwise_bias(c.c);
          std::vector<NDArray*> in = {&x, &w};
          if (bias) in.push_back(&b);
          // The layout, weights [C, 1, kH, kW], groups = C, the activation.
          const std::vector<int64_t> iargs = {c.kh, c.kw, c.s, c.s, c.p, c.p, c.d, c.d, c.same, nchw ? 0 : 1, 1, c.c,
                                              act};
          Context own, ref;
          Im2colOnly no_dnnl;
          ASSERT_OK(run_op("conv2d", {.in = in, .i = iargs}, own));
          {
            ops::nn::set_depthwise_kernel_enabled(false);
            const Status st = run_op("conv2d", {.in = in, .i = iargs}, ref);
            ops::nn::set_depthwise_kernel_enabled(true);
            ASSERT_OK(st);
          }
          ASSERT_EQ(own.output(0)->shape(), ref.output(0)->shape());
          // The NaN reached some outputs, through each activation.
          EXPECT_GT(expect_close_keeping_nan(values(*own.output(0)), values(*ref.output(0))), 0);
        }
}

// The NCHWc kernel (Note [Depthwise NCHWc kernel]) against im2col on the
// NCHW image of the same calls: channel counts around the 16-lane blocks
// (the last block's free lanes must come out 0), rows whose width is and
// is not a multiple of the 4-output tiles, the 3x3 windows with their
// stride at compile time (1 and 2) and the general loop (5x5, dilation,
// stride 3, a 3x3 with unequal strides), SAME and explicit padding,
// images smaller than the window, each activation with a NaN in x, and a
// residual, which the activation must follow.
TEST(DepthwiseConv2dOp, BlockedKernelMatchesIm2colOnFourThreads) {
  struct Case {
    int64_t c, h, w, kh, kw, sh, sw, p, d, same;
  };
  const Case cases[] = {
      {16, 9, 9, 3, 3, 1, 1, 1, 1, 0},   {32, 7, 12, 3, 3, 2, 2, 1, 1, 0}, {40, 8, 5, 3, 3, 1, 1, 1, 1, 0},
      {3, 6, 7, 3, 3, 1, 1, 0, 1, 0},    {17, 9, 14, 3, 3, 2, 2, 0, 1, 1}, {48, 11, 13, 5, 5, 1, 1, 2, 1, 0},
      {24, 10, 10, 3, 3, 1, 1, 0, 2, 0}, {20, 13, 13, 3, 3, 3, 3, 1, 1, 0}, {16, 2, 2, 3, 3, 1, 1, 1, 1, 0},
      {16, 12, 19, 3, 3, 2, 1, 1, 1, 0}, {33, 14, 15, 3, 3, 2, 2, 1, 1, 1}, {16, 1, 1, 3, 3, 2, 2, 1, 1, 0},
      // Enough rows to split between 4 threads, mid-plane.
      {48, 37, 41, 3, 3, 1, 1, 1, 1, 0}, {40, 45, 43, 3, 3, 2, 2, 1, 1, 0},
  };
  constexpr int64_t kLanes = 16;
  struct FourThreads {
    FourThreads() { set_num_threads(4); }
    ~FourThreads() { set_num_threads(0); }
  } threads;
  for (const Case& c : cases)
    for (bool bias : {false, true})
      for (bool residual : {false, true})
        for (int64_t act : {0, 1, 2}) {
          SCOPED_TRACE(testing::Message() << "c" << c.c << " " << c.h << "x" << c.w << " k" << c.kh << "x" << c.kw
                                          << " s" << c.sh << "," << c.sw << " p" << c.p << " d" << c.d << " same "
                                          << c.same << (bias ? " bias" : "") << (residual ? " residual" : "")
                                          << " activation " << act);
          std::vector<double> xv(static_cast<size_t>(2 * c.h * c.w * c.c));
          for (size_t i = 0; i < xv.size(); ++i) xv[i] = 3.0 * std::sin(0.61 * static_cast<double>(i) + 0.2);
          xv[xv.size() / 2] = std::nan("");
          NDArray x = make(DataType::kFloat32, {2, c.c, c.h, c.w}, xv);
          NDArray w = depthwise_weights(c.c, c.kh, c.kw), b = depthwise_bias(c.c);
          // The reference in NCHW, through im2col.
          std::vector<int64_t> iargs = {c.kh, c.kw, c.sh, c.sw, c.p, c.p, c.d, c.d, c.same, 0, 1, c.c, act};
          Im2colOnly no_dnnl;
          Context plain;
          ops::nn::set_depthwise_kernel_enabled(false);
          const Status st = run_op("conv2d", {.in = {&x, &w}, .i = iargs}, plain);
          ops::nn::set_depthwise_kernel_enabled(true);
          ASSERT_OK(st);
          NDArray r = *plain.output(0);  // the residual: any values in z's shape
          std::vector<double> rv = values(r);
          for (size_t i = 0; i < rv.size(); ++i) rv[i] = std::isnan(rv[i]) ? 0.25 : 0.3 - 0.1 * rv[i];
          r = make(DataType::kFloat32, r.shape(), rv);
          // With a residual and no bias, conv2d's bias slot takes zeros.
          NDArray zero = make(DataType::kFloat32, {c.c}, std::vector<double>(static_cast<size_t>(c.c), 0.0));
          std::vector<NDArray*> ref_in = {&x, &w};
          if (bias) ref_in.push_back(&b);
          else if (residual) ref_in.push_back(&zero);
          if (residual) ref_in.push_back(&r);
          Context ref;
          ops::nn::set_depthwise_kernel_enabled(false);
          const Status st_ref = run_op("conv2d", {.in = ref_in, .i = iargs}, ref);
          ops::nn::set_depthwise_kernel_enabled(true);
          ASSERT_OK(st_ref);
          // The same call in NCHWc.
          NDArray xb = blocked(x);
          NDArray rb = residual ? blocked(r) : NDArray();
          std::vector<NDArray*> own_in = ref_in;
          own_in[0] = &xb;
          if (residual) own_in.back() = &rb;
          iargs[9] = 2;
          Context own;
          ASSERT_OK(run_op("conv2d", {.in = own_in, .i = iargs}, own));
          const NDArray& zb = *own.output(0);
          ASSERT_EQ(zb.dim(4), kLanes);
          // The free lanes of the last block hold zeros.
          const int64_t blocks = zb.dim(1), per_block = zb.dim(2) * zb.dim(3) * kLanes;
          for (int64_t n = 0; n < 2; ++n)
            for (int64_t i = 0; i < per_block; ++i)
              if ((blocks - 1) * kLanes + i % kLanes >= c.c) {
                ASSERT_EQ(zb.get_double((n * blocks + blocks - 1) * per_block + i), 0.0) << "free lane at " << i;
              }
          Context back;
          NDArray zc = zb;
          ASSERT_OK(run_op("unblock_channels", {.in = {&zc}, .i = {c.c}}, back));
          ASSERT_EQ(back.output(0)->shape(), ref.output(0)->shape());
          EXPECT_GT(expect_close_keeping_nan(values(*back.output(0)), values(*ref.output(0))), 0);
        }
}

}  // namespace
