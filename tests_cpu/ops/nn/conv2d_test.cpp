// conv2d against numpy goldens (tools/gen_goldens_nn.py), hand values, views,
// empty batches and argument errors.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "blas/conv_dnnl.h"
#include "libops/core/cpu_isa.h"
#include "nn_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

struct ConvCase {
  const char* name;
  bool bias;
};
void PrintTo(const ConvCase& c, std::ostream* os) { *os << c.name; }

// Mirrors CONV_CASES / CONV_NHWC in tools/gen_goldens_nn.py.
const ConvCase kConvCases[] = {
    {"basic", true},         {"pad1_stride2", true},       {"same_stride2", true},
    {"k2_stride2", false},   {"dilation2", true},          {"same_dilation2", false},
    {"rect", true},          {"pointwise", true},          {"nhwc_pad1_stride2", true},
    {"nhwc_same_stride2", true}, {"nhwc_dilation2", true}, {"nhwc_rect", true},
    {"nhwc_pointwise", true},
    // libnd4j's NHWC calls: [kH, kW, Cin, Cout] weights, weights_format left out.
    {"nhwc_hwio_default_pad1_stride2", true}, {"nhwc_hwio_default_same_stride2", true},
    {"nhwc_hwio_default_dilation2", true}, {"nhwc_hwio_default_rect", true}, {"nhwc_hwio_default_pointwise", true},
    // GROUPED_CASES / GROUPED_NHWC (Note [Grouped convolution]).
    {"groups2", true},       {"groups3_stride2", false},   {"depthwise", true},
    {"depthwise_mult2_same_s2", true}, {"depthwise_dilated", false}, {"groups2_pointwise", true},
    {"nhwc_groups2", true},  {"nhwc_depthwise_mult2_same_s2", true}, {"nhwc_groups2_pointwise", true},
};

// Turns oneDNN off for a scope (Note [oneDNN convolution]); the default
// comes back after it.
struct Im2colOnly {
  Im2colOnly() { blas::set_dnnl_enabled(false); }
  ~Im2colOnly() { blas::set_dnnl_enabled(true); }
};

// Each case with oneDNN (where built in) and with the im2col path.
class Conv2dGolden : public ::testing::TestWithParam<std::tuple<ConvCase, DataType, bool>> {};

TEST_P(Conv2dGolden, MatchesNumpy) {
  const auto [c, dtype, dnnl] = GetParam();
  std::optional<Im2colOnly> im2col;
  if (!dnnl) im2col.emplace();
  expect_conv_golden("conv2d", c.name, dtype);
}

INSTANTIATE_TEST_SUITE_P(Cases, Conv2dGolden,
                         ::testing::Combine(::testing::ValuesIn(kConvCases),
                                            ::testing::Values(DataType::kFloat64, DataType::kFloat32),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param).name) + "_" +
                                  dtype_name(std::get<1>(info.param)) +
                                  (std::get<2>(info.param) ? "_dnnl" : "_im2col");
                         });

// The i args of a square window.
std::vector<int64_t> window(int64_t k, int64_t s, int64_t p, int64_t d, int64_t same, int64_t format = 0) {
  return {k, k, s, s, p, p, d, d, same, format};
}

// window() with weights_format 1 said outright: the weights these tests make
// are [Cout, Cin, kH, kW], and NHWC's default is [kH, kW, Cin, Cout].
std::vector<int64_t> window_oihw(int64_t k, int64_t s, int64_t p, int64_t d, int64_t same, int64_t format) {
  std::vector<int64_t> v = window(k, s, p, d, same, format);
  v.push_back(1);
  return v;
}

TEST(Conv2dOp, HandComputedSumsOfWindows) {
  // x = 0..15 as one 4x4 image; a 2x2 kernel [[1, 10], [100, 1000]], stride
  // 2: each output is x[r][c] + 10 x[r][c+1] + 100 x[r+1][c] + 1000 x[r+1][c+1].
  NDArray x = make(DataType::kFloat32, {1, 1, 4, 4}, iota(16));
  NDArray w = make(DataType::kFloat32, {1, 1, 2, 2}, {1, 10, 100, 1000});
  NDArray b = make(DataType::kFloat32, {1}, {0.5});
  Context ctx;
  ASSERT_OK(run_op("conv2d", {.in = {&x, &w, &b}, .i = window(2, 2, 0, 1, 0)}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{1, 1, 2, 2}));
  auto at = [](double r, double c) { return 4 * r + c; };
  auto win = [&](double r, double c) {
    return at(r, c) + 10 * at(r, c + 1) + 100 * at(r + 1, c) + 1000 * at(r + 1, c + 1) + 0.5;
  };
  EXPECT_TRUE(all_close(*ctx.output(0), {win(0, 0), win(0, 2), win(2, 0), win(2, 2)}));
}

TEST(Conv2dOp, KernelSizeZeroIsTakenFromWeights) {
  const std::string prefix = "conv2d_basic";
  NDArray x = nn_golden(prefix, "x"), w = nn_golden(prefix, "w"), b = nn_golden(prefix, "b");
  std::vector<int64_t> args = nn_golden_ints(prefix, "iargs");
  args[0] = args[1] = 0;
  Context ctx;
  ASSERT_OK(run_op("conv2d", {.in = {&x, &w, &b}, .i = args}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), values(nn_golden(prefix, "z")), 1e-10, 1e-10));
}

TEST(Conv2dOp, Float16AndBFloat16ComputeInFloat) {
  const std::string prefix = "conv2d_same_stride2";
  for (DataType dt : {DataType::kFloat16, DataType::kBFloat16}) {
    NDArray x = nn_golden(prefix, "x", dt), w = nn_golden(prefix, "w", dt), b = nn_golden(prefix, "b", dt);
    Context ctx;
    ASSERT_OK(run_op("conv2d", {.in = {&x, &w, &b}, .i = nn_golden_ints(prefix, "iargs")}, ctx));
    EXPECT_EQ(ctx.output(0)->dtype(), dt);
    // bfloat16 keeps 8 bits: inputs alone are off by up to 2^-8 relative.
    EXPECT_TRUE(all_close(*ctx.output(0), values(nn_golden(prefix, "z")), 5e-2, 8e-2)) << dtype_name(dt);
  }
}

TEST(Conv2dOp, StridedViewsInAndOut) {
  // The NHWC golden input seen as NCHW through a permuted view (not dense),
  // written into an output that is itself a permuted view.
  NDArray x_nhwc = nn_golden("conv2d_nhwc_pad1_stride2", "x");
  NDArray x;
  ASSERT_OK(x_nhwc.permute({0, 3, 1, 2}, x));
  ASSERT_FALSE(x.is_c_contiguous());
  NDArray w = nn_golden("conv2d_pad1_stride2", "w"), b = nn_golden("conv2d_pad1_stride2", "b");
  NDArray want = nn_golden("conv2d_pad1_stride2", "z");
  NDArray z_store = zeros(DataType::kFloat64, {2, 4, 4, 4});  // [N, oH, oW, Cout]
  NDArray z;
  ASSERT_OK(z_store.permute({0, 3, 1, 2}, z));
  Context ctx;
  ASSERT_OK(
      run_op("conv2d", {.in = {&x, &w, &b}, .out = {&z}, .i = nn_golden_ints("conv2d_pad1_stride2", "iargs")}, ctx));
  EXPECT_TRUE(all_close(z, values(want), 1e-10, 1e-10));
}

TEST(Conv2dOp, EmptyBatchGivesEmptyOutput) {
  NDArray x = zeros(DataType::kFloat32, {0, 3, 5, 5});
  NDArray w = make(DataType::kFloat32, {4, 3, 3, 3}, iota(108, 0.01));
  for (int64_t format : {0, 1}) {
    NDArray xf = format == 0 ? x : zeros(DataType::kFloat32, {0, 5, 5, 3});
    Context ctx;
    ASSERT_OK(run_op("conv2d", {.in = {&xf, &w}, .i = window_oihw(3, 1, 1, 1, 0, format)}, ctx));
    EXPECT_EQ(ctx.output(0)->shape(), format == 0 ? (Dims{0, 4, 5, 5}) : (Dims{0, 5, 5, 4}));
  }
}

TEST(Conv2dOp, ZeroInputChannelsGiveTheBias) {
  NDArray x = zeros(DataType::kFloat64, {1, 0, 2, 2});
  NDArray w = zeros(DataType::kFloat64, {2, 0, 1, 1});
  NDArray b = make(DataType::kFloat64, {2}, {1.5, -2});
  Context ctx;
  ASSERT_OK(run_op("conv2d", {.in = {&x, &w, &b}, .i = window(1, 1, 0, 1, 0)}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {1.5, 1.5, 1.5, 1.5, -2, -2, -2, -2}));
}

// ---- errors ----

Status conv_error(const Dims& xs, const Dims& ws, const std::vector<int64_t>& args, DataType wdt = DataType::kFloat32,
                  const Dims* bs = nullptr) {
  NDArray x = make(DataType::kFloat32, xs, iota(xs.product()));
  NDArray w = make(wdt, ws, iota(ws.product()));
  NDArray b = bs ? make(DataType::kFloat32, *bs, iota(bs->product())) : NDArray();
  std::vector<NDArray*> in = {&x, &w};
  if (bs) in.push_back(&b);
  Context ctx;
  return run_op("conv2d", {.in = in, .i = args}, ctx);
}

TEST(Conv2dOp, RejectsChannelMismatch) {
  Status s = conv_error({2, 3, 5, 5}, {4, 2, 3, 3}, window(3, 1, 0, 1, 0));
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "conv2d: channel mismatch with x[2,3,5,5] (NCHW) and weights[4,2,3,3]: x has 3 input channels, weights "
            "[Cout, Cin, kH, kW] expect 2");
  // NHWC reads the channels from the last dim.
  s = conv_error({2, 5, 5, 3}, {4, 5, 3, 3}, window_oihw(3, 1, 0, 1, 0, 1));
  EXPECT_TRUE(has_substr(s.message(), "x[2,5,5,3] (NHWC) and weights[4,5,3,3]: x has 3 input channels"));
}

// activation (i arg 12) clamps the golden output as relu and relu6 do,
// with oneDNN (a post-op) and with im2col; NaN stays NaN in both.
TEST(Conv2dOp, FusedActivationClampsAndKeepsNan) {
  for (bool dnnl : {true, false}) {
    std::optional<Im2colOnly> im2col;
    if (!dnnl) im2col.emplace();
    for (const char* name : {"conv2d_pad1_stride2", "conv2d_nhwc_pad1_stride2"})
      for (int64_t act : {1, 2}) {
        SCOPED_TRACE(testing::Message() << name << " activation " << act << (dnnl ? " oneDNN" : " im2col"));
        NDArray x = nn_golden(name, "x", DataType::kFloat32), w = nn_golden(name, "w", DataType::kFloat32);
        NDArray b = nn_golden(name, "b", DataType::kFloat32);
        // Scaled so that some outputs pass 6.
        NDArray w4;
        ASSERT_OK(NDArray::create(DataType::kFloat32, w.shape(), 'c', w4));
        for (int64_t i = 0; i < w.length(); ++i) w4.set_double(i, 4.0 * w.get_double(i));
        std::vector<double> want = values(nn_golden(name, "z"));
        // z scales with w (the bias does not): recompute it as 4 * (z - b) + b per channel.
        const bool nhwc = std::string(name).find("nhwc") != std::string::npos;
        NDArray zshape = nn_golden(name, "z");
        const int64_t cout = b.length(), inner = nhwc ? 1 : zshape.dim(2) * zshape.dim(3);
        int above6 = 0;
        for (size_t i = 0; i < want.size(); ++i) {
          const int64_t c = nhwc ? static_cast<int64_t>(i) % cout : (static_cast<int64_t>(i) / inner) % cout;
          const double bc = b.get_double(c), v = 4.0 * (want[i] - bc) + bc;
          above6 += v > 6;
          want[i] = v < 0 ? 0 : (act == 2 && v > 6 ? 6 : v);
        }
        EXPECT_GT(above6, 0);
        std::vector<int64_t> args = nn_golden_ints(name, "iargs");
        args.resize(10, 0);
        args.push_back(1);    // weights_format
        args.push_back(1);    // groups
        args.push_back(act);  // activation
        Context ctx;
        ASSERT_OK(run_op("conv2d", {.in = {&x, &w4, &b}, .i = args}, ctx));
        EXPECT_TRUE(all_close(*ctx.output(0), want, 1e-4, 1e-4));
        // A NaN in x reaches every output whose window covers it.
        x.set_double(0, std::nan(""));
        Context with_nan;
        ASSERT_OK(run_op("conv2d", {.in = {&x, &w4, &b}, .i = args}, with_nan));
        EXPECT_TRUE(std::isnan(with_nan.output(0)->get_double(0)));
      }
  }
}

// Grouped weights hold Cin / groups channels; groups must divide Cin and Cout.
TEST(Conv2dOp, RejectsGroupsThatDoNotFit) {
  std::vector<int64_t> args = window(3, 1, 1, 1, 0);
  args.push_back(1);
  args.push_back(2);  // groups
  Status s = conv_error({1, 4, 5, 5}, {6, 4, 3, 3}, args);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "conv2d: channel mismatch with x[1,4,5,5] (NCHW) and weights[6,4,3,3]: x has 4 input channels, 2 per "
            "group of 2, weights [Cout, Cin, kH, kW] expect 4");
  s = conv_error({1, 4, 5, 5}, {5, 2, 3, 3}, args);
  EXPECT_EQ(s.message(),
            "conv2d: groups = 2 must divide both the 4 input channels of x[1,4,5,5] (NCHW) and the 5 filters of "
            "weights[5,2,3,3] ([Cout, Cin, kH, kW])");
  args.back() = 0;
  s = conv_error({1, 4, 5, 5}, {4, 4, 3, 3}, args);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(has_substr(s.message(), "conv2d: i arg 11 (groups) is 0")) << s.message();
}

TEST(Conv2dOp, RejectsKernelLargerThanPaddedInput) {
  Status s = conv_error({1, 1, 2, 4}, {1, 1, 3, 3}, window(3, 1, 0, 1, 0));
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "conv2d: kernel larger than the padded input with x[1,1,2,4] (NCHW): padded height 2 + 2*0 = 2 < "
            "dilated kernel height (3 - 1) * 1 + 1 = 3");
  // Dilation counts: a 2x2 kernel with dilation 3 spans 4 columns.
  s = conv_error({1, 1, 5, 3}, {1, 1, 2, 2}, window(2, 1, 0, 3, 0));
  EXPECT_TRUE(has_substr(s.message(), "padded width 3 + 2*0 = 3 < dilated kernel width (2 - 1) * 3 + 1 = 4"));
}

TEST(Conv2dOp, RejectsBadWindowArgs) {
  Status s = conv_error({1, 1, 5, 5}, {1, 1, 3, 3}, window(3, 0, 0, 1, 0));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "conv2d: i arg 2 (sH) is 0: it must be in [1, 2147483647]");
  s = conv_error({1, 1, 5, 5}, {1, 1, 3, 3}, window(3, 1, -1, 1, 0));
  EXPECT_TRUE(has_substr(s.message(), "i arg 4 (pH) is -1"));
  s = conv_error({1, 1, 5, 5}, {1, 1, 3, 3}, window(3, 1, 0, 0, 0));
  EXPECT_TRUE(has_substr(s.message(), "i arg 6 (dH) is 0"));
  s = conv_error({1, 1, 5, 5}, {1, 1, 3, 3}, window(3, 1, 0, 1, 2));
  EXPECT_TRUE(has_substr(s.message(), "i arg 8 (same_mode) is 2: it must be 0 (explicit) or 1 (SAME)"));
  s = conv_error({1, 1, 5, 5}, {1, 1, 3, 3}, window(3, 1, 0, 1, 0, 3));
  EXPECT_TRUE(has_substr(s.message(), "i arg 9 (data_format) is 3: it must be 0 (NCHW), 1 (NHWC) or 2 (NCHWc"));
  s = conv_error({1, 1, 5, 5}, {1, 1, 3, 3}, {3, 3, 1, 1, 0, 0, 1, 1});
  EXPECT_TRUE(has_substr(s.message(), "conv2d: missing i arg 8 (same_mode: padding mode); conv2d needs 9 integer (i) args"));
}

TEST(Conv2dOp, RejectsKernelArgsThatDisagreeWithWeights) {
  Status s = conv_error({1, 1, 5, 5}, {1, 1, 3, 3}, window(2, 1, 0, 1, 0));
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_TRUE(has_substr(s.message(), "kernel size mismatch with kH=2, kW=2 and weights[1,1,3,3]"));
}

// libnd4j's weight formats: 0 = [kH, kW, Cin, Cout], 2 = [Cout, kH, kW, Cin].
// The golden weights ([Cout, Cin, kH, kW]) laid out densely in each format
// must give the golden output, for both data formats.
TEST(Conv2dOp, TakesLibnd4jWeightFormats) {
  for (const char* name : {"conv2d_pad1_stride2", "conv2d_nhwc_pad1_stride2"}) {
    SCOPED_TRACE(name);
    NDArray x = nn_golden(name, "x"), w = nn_golden(name, "w"), b = nn_golden(name, "b");
    NDArray want = nn_golden(name, "z");
    std::vector<int64_t> args = nn_golden_ints(name, "iargs");
    args.resize(10, 0);
    const struct { int64_t format; Dims perm; } formats[] = {{0, Dims{2, 3, 1, 0}}, {2, Dims{0, 2, 3, 1}}};
    for (const auto& f : formats) {
      NDArray view, dense;
      ASSERT_OK(w.permute(f.perm, view));
      ASSERT_OK(view.dup('c', dense));
      std::vector<int64_t> with_format = args;
      with_format.push_back(f.format);
      Context ctx;
      ASSERT_OK(run_op("conv2d", {.in = {&x, &dense, &b}, .i = with_format}, ctx));
      EXPECT_TRUE(all_close(*ctx.output(0), values(want), 1e-10, 1e-10)) << "weights_format " << f.format;
    }
  }
  // A mismatch names the weights as given and their format's layout.
  std::vector<int64_t> args = window(3, 1, 0, 1, 0);
  args.push_back(0);
  Status s = conv_error({1, 3, 5, 5}, {3, 3, 2, 4}, args);
  EXPECT_EQ(s.message(),
            "conv2d: channel mismatch with x[1,3,5,5] (NCHW) and weights[3,3,2,4]: x has 3 input channels, weights "
            "[kH, kW, Cin, Cout] expect 2");
  args.back() = 3;
  s = conv_error({1, 3, 5, 5}, {3, 3, 3, 3}, args);
  EXPECT_EQ(s.message(),
            "conv2d: i arg 10 (weights_format) is 3: it must be -1 (0 with NHWC, 1 with NCHW), 0 ([kH, kW, Cin, "
            "Cout]), 1 ([Cout, Cin, kH, kW]) or 2 ([Cout, kH, kW, Cin])");
}

TEST(Conv2dOp, RejectsWrongRanks) {
  Status s = conv_error({3, 5, 5}, {1, 3, 3, 3}, window(3, 1, 0, 1, 0));
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "conv2d: x[3,5,5] has rank 3: it must be rank 4 ([N, C, H, W])");
  s = conv_error({1, 3, 5, 5}, {3, 3, 3}, window(3, 1, 0, 1, 0));
  EXPECT_EQ(s.message(), "conv2d: weights[3,3,3] has rank 3: it must be rank 4 (weights_format 1)");
  const Dims bs{2};
  s = conv_error({1, 3, 5, 5}, {4, 3, 3, 3}, window(3, 1, 0, 1, 0), DataType::kFloat32, &bs);
  EXPECT_EQ(s.message(), "conv2d: bias[2] does not match weights[4,3,3,3] ([Cout, Cin, kH, kW]): bias must be [Cout] = [4]");
}

TEST(Conv2dOp, RejectsMixedAndNonFloatDtypes) {
  Status s = conv_error({1, 3, 5, 5}, {4, 3, 3, 3}, window(3, 1, 0, 1, 0), DataType::kFloat64);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_TRUE(has_substr(s.message(), "conv2d: inputs must share one dtype: input 0 is float32, input 1 is float64"));
  NDArray x = make(DataType::kInt32, {1, 1, 3, 3}, iota(9));
  NDArray w = make(DataType::kInt32, {1, 1, 3, 3}, iota(9));
  Context ctx;
  s = run_op("conv2d", {.in = {&x, &w}, .i = window(3, 1, 0, 1, 0)}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_TRUE(has_substr(s.message(), "unsupported dtype int32"));
}

// oneDNN's convolution against the im2col path on network-sized float32
// cases: ResNet's 7x7/2 stem, 3x3 and strided 3x3, 1x1 shortcuts, dilation,
// SAME padding, odd sizes, NHWC, with and without bias. oneDNN is called
// directly, so a case it refused would fail here rather than quietly run
// the im2col path in both.
// A deterministic spread of values in (-scale, scale).
std::vector<double> ramp(int64_t n, double scale) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = scale * std::sin(0.731 * static_cast<double>(i) + 0.3);
  return v;
}

TEST(Conv2dOp, OneDnnAgreesWithIm2colOnNetworkShapes) {
  if (!blas::dnnl_enabled()) GTEST_SKIP() << "built without oneDNN, or LIBOPS_DNNL=0";
  struct Case {
    int64_t n, c, h, w, cout, k, s, p, d, same;
    bool nhwc, bias;
  };
  const Case cases[] = {
      {1, 3, 64, 64, 16, 7, 2, 3, 1, 0, false, false}, {2, 32, 28, 28, 32, 3, 1, 1, 1, 0, false, true},
      {1, 32, 29, 27, 48, 3, 2, 1, 1, 0, false, false}, {2, 64, 14, 14, 128, 1, 2, 0, 1, 0, false, false},
      {1, 16, 20, 20, 24, 3, 1, 0, 2, 0, false, true},  {1, 24, 17, 17, 24, 3, 2, 0, 1, 1, false, true},
      {2, 32, 15, 15, 40, 3, 1, 1, 1, 0, true, true},   {1, 16, 20, 20, 24, 3, 2, 0, 1, 1, true, false},
      {3, 8, 9, 11, 5, 2, 2, 0, 1, 0, false, true},
  };
  for (const Case& c : cases) {
    char what[96];
    std::snprintf(what, sizeof what, "n%lld c%lld %lldx%lld k%lld s%lld %s", static_cast<long long>(c.n),
                  static_cast<long long>(c.c), static_cast<long long>(c.h), static_cast<long long>(c.w),
                  static_cast<long long>(c.k), static_cast<long long>(c.s), c.nhwc ? "nhwc" : "nchw");
    const Dims xs = c.nhwc ? Dims{c.n, c.h, c.w, c.c} : Dims{c.n, c.c, c.h, c.w};
    NDArray x = make(DataType::kFloat32, xs, ramp(xs.product(), 1.0));
    NDArray w = make(DataType::kFloat32, {c.cout, c.c, c.k, c.k}, ramp(c.cout * c.c * c.k * c.k, 0.2));
    NDArray b = make(DataType::kFloat32, {c.cout}, ramp(c.cout, 0.5));
    std::vector<NDArray*> in = {&x, &w};
    if (c.bias) in.push_back(&b);
    const std::vector<int64_t> iargs = window_oihw(c.k, c.s, c.p, c.d, c.same, c.nhwc ? 1 : 0);
    Context ref;
    {
      Im2colOnly off;
      ASSERT_OK(run_op("conv2d", {.in = in, .i = iargs}, ref));
    }
    const NDArray& want = *ref.output(0);
    // The geometry the op resolved, read back from its output.
    blas::Conv2dGeometry g;
    g.n = c.n, g.c = c.c, g.h = c.h, g.w = c.w, g.cout = c.cout, g.kh = g.kw = c.k, g.sh = g.sw = c.s;
    g.dh = g.dw = c.d, g.nhwc = c.nhwc;
    g.oh = want.dim(c.nhwc ? 1 : 2), g.ow = want.dim(c.nhwc ? 2 : 3);
    const int64_t eh = (c.k - 1) * c.d + 1;
    g.pad_top = c.same ? std::max<int64_t>(0, ((g.oh - 1) * c.s + eh - c.h) / 2) : c.p;
    g.pad_left = c.same ? std::max<int64_t>(0, ((g.ow - 1) * c.s + eh - c.w) / 2) : c.p;
    NDArray z = zeros(DataType::kFloat32, want.shape());
    const Status st = blas::dnnl_conv2d_f32(g, x.data_as<float>(), w.data_as<float>(),
                                            c.bias ? b.data_as<float>() : nullptr, z.data_as<float>(), 2);
    ASSERT_TRUE(st.is_ok()) << what << ": " << st.message();
    double peak = 0, worst = 0;
    for (int64_t i = 0; i < want.length(); ++i) peak = std::max(peak, std::fabs(want.get_double(i)));
    for (int64_t i = 0; i < want.length(); ++i)
      worst = std::max(worst, std::fabs(z.get_double(i) - want.get_double(i)));
    EXPECT_LE(worst, 1e-5 * peak) << what;
  }
}

// Note [NCHW through channel blocks]: NCHW grouped convolutions go through
// oneDNN's channel blocks where its kernels take them (depthwise) and
// through the layout it picks otherwise (groups of 3 or 4 channels, for
// which the blocks find only oneDNN's reference code): oneDNN must run
// each with one of its kernels, with the im2col path's results.
TEST(Conv2dOp, OneDnnTakesNchwGroupedConvolutionsBlockedOrNot) {
  if (!blas::dnnl_enabled()) GTEST_SKIP() << "built without oneDNN, or LIBOPS_DNNL=0";
  struct Case {
    int64_t n, c, h, w, cout, groups, k, s, p, d = 1;
  };
  const Case cases[] = {
      {1, 32, 23, 21, 32, 32, 3, 1, 1}, {2, 40, 18, 17, 40, 40, 3, 2, 1},  // depthwise
      {1, 15, 12, 13, 10, 5, 3, 1, 1},  {2, 12, 9, 10, 12, 3, 3, 2, 0},   // 3 and 4 channels a group
      {1, 32, 20, 20, 32, 32, 3, 1, 2, 2}, {1, 16, 21, 19, 16, 16, 5, 3, 2},
      {1, 32, 20, 20, 64, 32, 3, 1, 1},   {1, 20, 15, 15, 24, 1, 3, 1, 3, 3},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << "c " << c.c << " cout " << c.cout << " groups " << c.groups << " s " << c.s);
    NDArray x = make(DataType::kFloat32, {c.n, c.c, c.h, c.w}, ramp(c.n * c.c * c.h * c.w, 1.0));
    const int64_t cin_g = c.c / c.groups;
    NDArray w = make(DataType::kFloat32, {c.cout, cin_g, c.k, c.k}, ramp(c.cout * cin_g * c.k * c.k, 0.2));
    NDArray b = make(DataType::kFloat32, {c.cout}, ramp(c.cout, 0.5));
    std::vector<int64_t> iargs = window(c.k, c.s, c.p, c.d, 0);
    iargs.insert(iargs.end(), {1, c.groups});  // weights_format 1 (OIHW), groups
    Context ref;
    {
      Im2colOnly off;
      ASSERT_OK(run_op("conv2d", {.in = {&x, &w, &b}, .i = iargs}, ref));
    }
    const NDArray& want = *ref.output(0);
    blas::Conv2dGeometry g;
    g.n = c.n, g.c = c.c, g.h = c.h, g.w = c.w, g.cout = c.cout, g.kh = g.kw = c.k, g.sh = g.sw = c.s;
    g.pad_top = g.pad_left = c.p, g.groups = c.groups, g.dh = g.dw = c.d;
    g.oh = want.dim(2), g.ow = want.dim(3);
    const std::string kernel = blas::dnnl_conv2d_kernel(g, true, 1);
    EXPECT_NE(kernel, "") << "oneDNN refused the case";
    EXPECT_NE(kernel.rfind("ref", 0), 0u) << "oneDNN's reference code, not one of its kernels: " << kernel;
    NDArray z = zeros(DataType::kFloat32, want.shape());
    const Status st = blas::dnnl_conv2d_f32(g, x.data_as<float>(), w.data_as<float>(), b.data_as<float>(),
                                            z.data_as<float>(), 1);
    ASSERT_TRUE(st.is_ok()) << st.message();
    double peak = 0, worst = 0;
    for (int64_t i = 0; i < want.length(); ++i) peak = std::max(peak, std::fabs(want.get_double(i)));
    for (int64_t i = 0; i < want.length(); ++i)
      worst = std::max(worst, std::fabs(z.get_double(i) - want.get_double(i)));
    EXPECT_LE(worst, 1e-5 * peak);
  }
}

// Note [Padding oneDNN cannot take]: pads past half the kernel (an audio
// model's 3x39 kernel with pads 19), where oneDNN has only its reference
// code, run one of its kernels over the image padded first, in NCHW and in
// NHWC, with the im2col path's results. So do pads past half the kernel over
// fewer than 16 channels (padded = true below), where oneDNN would run its
// slow brgconv kernel. On AVX2 machines no case may run oneDNN's im2col
// convolution ("gemm:"), which it picks there for pads of half the kernel
// and more (64 channels with pads 2 and 5 on a 3x3 kernel included).
TEST(Conv2dOp, OneDnnRunsWidePadsOverThePaddedImage) {
  if (!blas::dnnl_enabled()) GTEST_SKIP() << "built without oneDNN, or LIBOPS_DNNL=0";
  struct Case {
    int64_t c, h, w, cout, kh, kw, s, ph, pw, d = 1;
    bool padded = false;
  };
  const Case cases[] = {{8, 12, 50, 8, 3, 39, 1, 1, 19},        {4, 9, 40, 6, 1, 15, 1, 0, 14},
                        {8, 20, 20, 16, 5, 5, 2, 4, 4, 2},      {3, 11, 13, 8, 3, 3, 1, 2, 2},
                        {1, 16, 60, 8, 1, 15, 1, 1, 11, 1, true}, {1, 14, 14, 8, 3, 3, 1, 2, 5, 1, true},
                        {8, 10, 30, 8, 5, 5, 1, 3, 6, 1, true},  {64, 14, 16, 64, 3, 3, 1, 2, 5}};
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << "c " << c.c << " kernel " << c.kh << "x" << c.kw << " pads " << c.ph << ","
                                    << c.pw);
    NDArray x = make(DataType::kFloat32, {1, c.c, c.h, c.w}, ramp(c.c * c.h * c.w, 1.0));
    NDArray w = make(DataType::kFloat32, {c.cout, c.c, c.kh, c.kw}, ramp(c.cout * c.c * c.kh * c.kw, 0.2));
    std::vector<int64_t> iargs = {c.kh, c.kw, c.s, c.s, c.ph, c.pw, c.d, c.d, 0, 0, 1};  // ..., weights OIHW
    Context ref;
    {
      Im2colOnly off;
      ASSERT_OK(run_op("conv2d", {.in = {&x, &w}, .i = iargs}, ref));
    }
    const NDArray& want = *ref.output(0);
    for (bool nhwc : {false, true}) {
      SCOPED_TRACE(nhwc ? "nhwc" : "nchw");
      blas::Conv2dGeometry g;
      g.n = 1, g.c = c.c, g.h = c.h, g.w = c.w, g.cout = c.cout, g.kh = c.kh, g.kw = c.kw, g.sh = g.sw = c.s;
      g.pad_top = c.ph, g.pad_left = c.pw, g.dh = g.dw = c.d, g.oh = want.dim(2), g.ow = want.dim(3), g.nhwc = nhwc;
      const std::string kernel = blas::dnnl_conv2d_kernel(g, false, 1);
      EXPECT_NE(kernel, "");
      EXPECT_NE(kernel.rfind("ref", 0), 0u) << "oneDNN's reference code: " << kernel;
      if (cpu_isa() == CpuIsa::kAvx2) {
        EXPECT_EQ(kernel.find("gemm:"), std::string::npos) << "oneDNN's im2col code: " << kernel;
      }
      if (c.padded) {
        EXPECT_NE(kernel.find("(over the padded image)"), std::string::npos) << kernel;
      }
      NDArray xv, xin, zv, zt;
      ASSERT_OK(x.permute(nhwc ? Dims{0, 2, 3, 1} : Dims{0, 1, 2, 3}, xv));
      ASSERT_OK(xv.dup('c', xin));
      const Dims zshape = nhwc ? Dims{1, want.dim(2), want.dim(3), c.cout} : want.shape();
      NDArray z = zeros(DataType::kFloat32, zshape);
      const Status st = blas::dnnl_conv2d_f32(g, xin.data_as<float>(), w.data_as<float>(), nullptr,
                                              z.data_as<float>(), 1);
      ASSERT_TRUE(st.is_ok()) << st.message();
      ASSERT_OK(z.permute(nhwc ? Dims{0, 3, 1, 2} : Dims{0, 1, 2, 3}, zv));
      ASSERT_OK(zv.dup('c', zt));
      double peak = 0, worst = 0;
      for (int64_t i = 0; i < want.length(); ++i) peak = std::max(peak, std::fabs(want.get_double(i)));
      for (int64_t i = 0; i < want.length(); ++i)
        worst = std::max(worst, std::fabs(zt.get_double(i) - want.get_double(i)));
      EXPECT_LE(worst, 1e-5 * peak);
    }
  }
}

// Note [NCHW pointwise]: an NCHW 1x1 convolution on images of 128 pixels
// or more is one GEMM per image, with oneDNN on as well; bias and
// activation (relu6) follow. Checked against sums in double.
TEST(Conv2dOp, NchwPointwiseIsOneGemmPerImage) {
  const int64_t n = 2, c = 24, h = 12, w = 11, cout = 40;  // 132 pixels
  NDArray x = make(DataType::kFloat32, {n, c, h, w}, ramp(n * c * h * w, 3.0));
  NDArray wt = make(DataType::kFloat32, {cout, c, 1, 1}, ramp(cout * c, 0.5));
  NDArray b = make(DataType::kFloat32, {cout}, ramp(cout, 1.0));
  std::vector<int64_t> args = window(1, 1, 0, 1, 0, 0);
  args.insert(args.end(), {1, 1, 2});  // weights_format, groups, activation relu6
  Context ctx;
  ASSERT_OK(run_op("conv2d", {.in = {&x, &wt, &b}, .i = args}, ctx));
  std::vector<double> want(static_cast<size_t>(n * cout * h * w));
  int clipped = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t o = 0; o < cout; ++o)
      for (int64_t p = 0; p < h * w; ++p) {
        double acc = b.get_double(o);
        for (int64_t k = 0; k < c; ++k) acc += wt.get_double(o * c + k) * x.get_double((i * c + k) * h * w + p);
        clipped += acc < 0 || acc > 6;
        want[static_cast<size_t>((i * cout + o) * h * w + p)] = std::min(std::max(acc, 0.0), 6.0);
      }
  EXPECT_GT(clipped, 0);
  EXPECT_TRUE(all_close(*ctx.output(0), want, 1e-5, 1e-5));
}

// Note [Winograd convolution]: 3x3 stride-1 layers with enough channels
// and pixels run Winograd's algorithm where oneDNN has it for this CPU.
struct WinogradCase {
  int64_t n, c, h, w, cout, p;
  bool nhwc, bias;
  int64_t activation;  // 0 none, 1 relu, 2 relu6
};
const WinogradCase kWinogradCases[] = {
    {2, 16, 32, 32, 32, 1, false, true, 0}, {1, 32, 24, 24, 32, 1, true, true, 1},
    {1, 64, 14, 14, 48, 1, true, false, 2}, {1, 48, 18, 16, 64, 0, false, true, 1},
    {1, 32, 25, 17, 40, 1, true, true, 0},  // odd extents: partial tiles at both edges
};

struct WinogradOff {
  WinogradOff() { blas::set_winograd_enabled(false); }
  ~WinogradOff() { blas::set_winograd_enabled(true); }
};

// The geometry conv2d hands oneDNN for a WinogradCase.
blas::Conv2dGeometry winograd_geometry(const WinogradCase& c) {
  blas::Conv2dGeometry g;
  g.n = c.n, g.c = c.c, g.h = c.h, g.w = c.w, g.cout = c.cout, g.kh = g.kw = 3;
  g.pad_top = g.pad_left = c.p, g.oh = c.h + 2 * c.p - 2, g.ow = c.w + 2 * c.p - 2;
  g.nhwc = c.nhwc, g.winograd = true;
  g.post_op = static_cast<blas::ConvPostOp>(c.activation);
  return g;
}

// conv2d of a WinogradCase with x's values from `xv` (w and b fixed).
std::vector<double> run_winograd_case(const WinogradCase& c, const std::vector<double>& xv) {
  const Dims xs = c.nhwc ? Dims{c.n, c.h, c.w, c.c} : Dims{c.n, c.c, c.h, c.w};
  NDArray x = make(DataType::kFloat32, xs, xv);
  NDArray w = make(DataType::kFloat32, {c.cout, c.c, 3, 3}, ramp(c.cout * c.c * 9, 0.1));
  NDArray b = make(DataType::kFloat32, {c.cout}, ramp(c.cout, 0.5));
  std::vector<NDArray*> in = {&x, &w};
  if (c.bias) in.push_back(&b);
  std::vector<int64_t> args = window(3, 1, c.p, 1, 0, c.nhwc ? 1 : 0);
  args.insert(args.end(), {1, 1, c.activation});  // weights_format, groups, activation
  Context ctx;
  const Status s = run_op("conv2d", {.in = in, .i = args}, ctx);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return s.is_ok() ? values(*ctx.output(0)) : std::vector<double>{};
}

int64_t winograd_x_size(const WinogradCase& c) { return c.n * c.c * c.h * c.w; }

std::string winograd_case_name(const WinogradCase& c) {
  char what[96];
  std::snprintf(what, sizeof what, "n%lld c%lld->%lld %lldx%lld p%lld %s act %lld", static_cast<long long>(c.n),
                static_cast<long long>(c.c), static_cast<long long>(c.cout), static_cast<long long>(c.h),
                static_cast<long long>(c.w), static_cast<long long>(c.p), c.nhwc ? "nhwc" : "nchw",
                static_cast<long long>(c.activation));
  return what;
}

// Whether oneDNN has a Winograd kernel for c on this CPU (AVX-512 ones do).
bool has_winograd_kernel(const WinogradCase& c) {
  return blas::dnnl_conv2d_kernel(winograd_geometry(c), c.bias, 2).find("wino") != std::string::npos;
}

TEST(Conv2dOp, WinogradAgreesWithDirectAndIm2col) {
  if (!blas::dnnl_enabled() || !blas::winograd_enabled()) GTEST_SKIP() << "oneDNN or Winograd turned off";
  int ran = 0;
  for (const WinogradCase& c : kWinogradCases) {
    SCOPED_TRACE(winograd_case_name(c));
    if (!has_winograd_kernel(c)) continue;
    ++ran;
    const std::vector<double> xv = ramp(winograd_x_size(c), 2.0);
    const std::vector<double> wino = run_winograd_case(c, xv);
    std::vector<double> direct, im2col;
    {
      WinogradOff off;
      direct = run_winograd_case(c, xv);
    }
    {
      Im2colOnly off;
      im2col = run_winograd_case(c, xv);
    }
    ASSERT_EQ(wino.size(), im2col.size());
    ASSERT_EQ(direct.size(), im2col.size());
    double peak = 0, worst = 0, from_direct = 0;
    for (size_t i = 0; i < im2col.size(); ++i) {
      peak = std::max(peak, std::fabs(im2col[i]));
      worst = std::max(worst, std::fabs(wino[i] - im2col[i]));
      from_direct = std::max(from_direct, std::fabs(wino[i] - direct[i]));
    }
    EXPECT_LE(worst, 1e-5 * peak);
    // Winograd rounds otherwise than the direct sums: that the results
    // differ at all shows it ran.
    EXPECT_GT(from_direct, 0.0);
  }
  if (ran == 0) GTEST_SKIP() << "oneDNN has no Winograd kernel on this CPU";
}

// A NaN or an infinity in x reaches the outputs whose windows cover it, and
// no others (Winograd would spread it over a whole output tile); values
// whose transforms could overflow give the direct sums.
TEST(Conv2dOp, WinogradKeepsNanLocalAndAvoidsOverflow) {
  if (!blas::dnnl_enabled() || !blas::winograd_enabled()) GTEST_SKIP() << "oneDNN or Winograd turned off";
  for (const WinogradCase& c : kWinogradCases) {
    SCOPED_TRACE(winograd_case_name(c));
    if (!has_winograd_kernel(c)) continue;
    std::vector<double> xv = ramp(winograd_x_size(c), 2.0);
    xv[static_cast<size_t>(winograd_x_size(c) / 2)] = std::nan("");
    xv[static_cast<size_t>(winograd_x_size(c) / 3)] = INFINITY;
    const std::vector<double> got = run_winograd_case(c, xv);
    std::vector<double> want;
    {
      Im2colOnly off;
      want = run_winograd_case(c, xv);
    }
    ASSERT_EQ(got.size(), want.size());
    int non_finite = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      non_finite += !std::isfinite(want[i]);
      if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got[i])) << "output " << i;
      else if (std::isinf(want[i])) EXPECT_EQ(got[i], want[i]) << "output " << i;
      else EXPECT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << "output " << i;
    }
    EXPECT_GT(non_finite, 0);
    // |x| up to 1e35: the direct sums stay finite.
    std::vector<double> big = ramp(winograd_x_size(c), 1e35);
    const std::vector<double> got_big = run_winograd_case(c, big);
    std::vector<double> want_big;
    {
      Im2colOnly off;
      want_big = run_winograd_case(c, big);
    }
    ASSERT_EQ(got_big.size(), want_big.size());
    double peak = 0, worst = 0;
    for (size_t i = 0; i < want_big.size(); ++i) {
      ASSERT_TRUE(std::isfinite(want_big[i]) && std::isfinite(got_big[i])) << "output " << i;
      peak = std::max(peak, std::fabs(want_big[i]));
      worst = std::max(worst, std::fabs(got_big[i] - want_big[i]));
    }
    EXPECT_LE(worst, 1e-5 * peak);
  }
}

// Note [Fused activation]: where the activation runs as oneDNN's post-op
// (stride 1, finite values), it gives what conv2d without activation
// followed by relu or relu6 gives; outputs span both sides of 0 and 6.
TEST(Conv2dOp, FusedActivationMatchesTheSeparatePass) {
  struct Case {
    int64_t c, h, cout, k, groups;
    bool nhwc;
  };
  const Case cases[] = {{16, 12, 48, 1, 1, true}, {8, 11, 16, 3, 1, true}, {24, 10, 24, 3, 24, true},
                        {8, 9, 16, 3, 1, false}};
  for (const Case& c : cases)
    for (int64_t act : {1, 2}) {
      SCOPED_TRACE(testing::Message() << "c" << c.c << " k" << c.k << " groups " << c.groups
                                      << (c.nhwc ? " nhwc" : " nchw") << " activation " << act);
      const Dims xs = c.nhwc ? Dims{2, c.h, c.h, c.c} : Dims{2, c.c, c.h, c.h};
      const int64_t cg = c.c / c.groups;
      NDArray x = make(DataType::kFloat32, xs, ramp(xs.product(), 4.0));
      NDArray w = make(DataType::kFloat32, {c.cout, cg, c.k, c.k}, ramp(c.cout * cg * c.k * c.k, 3.0));
      NDArray b = make(DataType::kFloat32, {c.cout}, ramp(c.cout, 2.0));
      std::vector<int64_t> args = window(c.k, 1, c.k / 2, 1, 0, c.nhwc ? 1 : 0);
      args.push_back(1);  // weights_format
      args.push_back(c.groups);
      Context plain, fused;
      ASSERT_OK(run_op("conv2d", {.in = {&x, &w, &b}, .i = args}, plain));
      args.push_back(act);
      ASSERT_OK(run_op("conv2d", {.in = {&x, &w, &b}, .i = args}, fused));
      std::vector<double> want = values(*plain.output(0));
      int below0 = 0, above6 = 0;
      for (double& v : want) {
        below0 += v < 0, above6 += v > 6;
        v = v < 0 ? 0 : (act == 2 && v > 6 ? 6 : v);
      }
      EXPECT_GT(below0, 0);
      EXPECT_GT(above6, 0);
      EXPECT_TRUE(all_close(*fused.output(0), want, 1e-6, 1e-6));
    }
}

// Where x or w holds a non-finite value, or the sums may overflow, the
// activation runs as its own pass and sees what the convolution made:
// inf * 0 is NaN and stays NaN; an overflow gives inf, or NaN where partial
// sums of both signs overflowed, and the pass treats either as relu / relu6
// do.
TEST(Conv2dOp, FusedActivationKeepsNanFromInfinitiesAndOverflow) {
  const int64_t c = 16, h = 6;
  std::vector<double> wv(static_cast<size_t>(c * c), 0.0);  // [Cout, Cin, 1, 1]
  for (int64_t o = 0; o < c; ++o) wv[static_cast<size_t>(o * c + 1)] = 10, wv[static_cast<size_t>(o * c + 2)] = -10;
  NDArray w = make(DataType::kFloat32, {c, c, 1, 1}, wv);
  for (int64_t act : {1, 2}) {
    SCOPED_TRACE(testing::Message() << "activation " << act);
    std::vector<int64_t> args = window(1, 1, 0, 1, 0, 1);
    args.insert(args.end(), {1, 1, act});
    // inf in channel 0, whose weights are all 0.
    std::vector<double> xv(static_cast<size_t>(h * h * c), 1.0);
    xv[0] = INFINITY;
    NDArray x = make(DataType::kFloat32, {1, h, h, c}, xv);
    Context ctx;
    ASSERT_OK(run_op("conv2d", {.in = {&x, &w}, .i = args}, ctx));
    for (int64_t o = 0; o < c; ++o) EXPECT_TRUE(std::isnan(ctx.output(0)->get_double(o))) << "output " << o;
    EXPECT_EQ(ctx.output(0)->get_double(c), 0.0);  // pixel 1: 10 - 10
    // A NaN weight poisons every output of its filter.
    NDArray ones = make(DataType::kFloat32, {1, h, h, c}, std::vector<double>(static_cast<size_t>(h * h * c), 1.0));
    NDArray wn = make(DataType::kFloat32, {c, c, 1, 1}, wv);
    wn.set_double(0, std::nan(""));
    Context with_nan;
    ASSERT_OK(run_op("conv2d", {.in = {&ones, &wn}, .i = args}, with_nan));
    EXPECT_TRUE(std::isnan(with_nan.output(0)->get_double(0)));
    EXPECT_EQ(with_nan.output(0)->get_double(1), 0.0);
    // Finite values whose products overflow: 10 * 3e38 and -10 * 3e38.
    xv[0] = 1.0, xv[1] = xv[2] = 3e38;
    NDArray big = make(DataType::kFloat32, {1, h, h, c}, xv);
    Context fused, plain;
    ASSERT_OK(run_op("conv2d", {.in = {&big, &w}, .i = args}, fused));
    std::vector<int64_t> no_act(args.begin(), args.end() - 1);
    ASSERT_OK(run_op("conv2d", {.in = {&big, &w}, .i = no_act}, plain));
    for (int64_t o = 0; o < c; ++o) {
      const double v = plain.output(0)->get_double(o), got = fused.output(0)->get_double(o);
      EXPECT_TRUE(!std::isfinite(v)) << "output " << o << ": " << v;
      if (std::isnan(v)) EXPECT_TRUE(std::isnan(got)) << "output " << o;
      else EXPECT_EQ(got, v < 0 ? 0.0 : (act == 2 ? 6.0 : v)) << "output " << o;
    }
  }
}

// The residual input (input 3): relu(conv + bias + r) is conv2d, add and
// relu run one after the other, in every layout, with oneDNN (a binary
// post-op, or Winograd's sum) and without; a NaN in r stays NaN.
TEST(Conv2dOp, ResidualIsAddedBeforeTheActivation) {
  struct Case {
    int64_t c, h, cout, k, groups, format, activation;  // format: 0 NCHW, 1 NHWC, 2 NCHWc (16 lanes)
  };
  const Case cases[] = {
      {32, 9, 32, 3, 1, 2, 1},   {24, 8, 24, 1, 1, 2, 0},  {40, 7, 40, 3, 40, 2, 2}, {64, 16, 64, 3, 1, 2, 1},
      {64, 16, 64, 3, 1, 1, 1},  {16, 6, 20, 3, 1, 1, 2},  {16, 6, 20, 3, 1, 0, 1}, {8, 5, 8, 3, 8, 0, 0},
  };
  for (bool dnnl : {true, false}) {
    std::optional<Im2colOnly> off;
    if (!dnnl) off.emplace();
    for (const Case& c : cases) {
      SCOPED_TRACE(testing::Message() << "c" << c.c << " h" << c.h << " cout" << c.cout << " k" << c.k << " g"
                                      << c.groups << " format" << c.format << " act" << c.activation
                                      << (dnnl ? " oneDNN" : " own"));
      const int64_t n = 2;
      NDArray x = make(DataType::kFloat32, {n, c.c, c.h, c.h}, ramp(n * c.c * c.h * c.h, 2.0));
      NDArray w = make(DataType::kFloat32, {c.cout, c.c / c.groups, c.k, c.k},
                       ramp(c.cout * c.c / c.groups * c.k * c.k, 0.2));
      NDArray b = make(DataType::kFloat32, {c.cout}, ramp(c.cout, 0.5));
      std::vector<double> rv = ramp(n * c.cout * c.h * c.h, 3.0);
      rv[7] = std::nan("");
      NDArray r = make(DataType::kFloat32, {n, c.cout, c.h, c.h}, rv);  // NCHW; laid out as x below
      auto laid_out = [&](const NDArray& a) {
        if (c.format == 0) return a;
        Context ctx;
        NDArray in = a;
        Status st = c.format == 1 ? run_op("permute", {.in = {&in}, .i = {0, 2, 3, 1}}, ctx)
                                  : run_op("block_channels", {.in = {&in}, .i = {16}}, ctx);
        EXPECT_TRUE(st.is_ok()) << st.message();
        NDArray out;
        EXPECT_TRUE(ctx.output(0)->dup('c', out).is_ok());
        return out;
      };
      NDArray xl = laid_out(x), rl = laid_out(r);
      const int64_t pad = c.k / 2;
      std::vector<int64_t> args = {c.k, c.k, 1, 1, pad, pad, 1, 1, 0, c.format, 1, c.groups, 0};
      // The separate ops.
      Context conv;
      ASSERT_OK(run_op("conv2d", {.in = {&xl, &w, &b}, .i = args}, conv));
      Context sum;
      ASSERT_OK(run_op("add", {.in = {conv.output(0), &rl}}, sum));
      std::vector<double> want = values(*sum.output(0));
      for (double& v : want) {
        if (c.activation >= 1 && v < 0) v = 0;
        if (c.activation == 2 && v > 6) v = 6;
      }
      // One call.
      args[12] = c.activation;
      Context fused;
      ASSERT_OK(run_op("conv2d", {.in = {&xl, &w, &b, &rl}, .i = args}, fused));
      EXPECT_TRUE(all_close(*fused.output(0), want, 1e-5, 1e-4));
      // Without the NaN, the activation may run as a post-op.
      rv[7] = 0.25;
      NDArray r2 = make(DataType::kFloat32, {n, c.cout, c.h, c.h}, rv), rl2 = laid_out(r2);
      Context sum2, fused2;
      ASSERT_OK(run_op("add", {.in = {conv.output(0), &rl2}}, sum2));
      std::vector<double> want2 = values(*sum2.output(0));
      for (double& v : want2) {
        if (c.activation >= 1 && v < 0) v = 0;
        if (c.activation == 2 && v > 6) v = 6;
      }
      ASSERT_OK(run_op("conv2d", {.in = {&xl, &w, &b, &rl2}, .i = args}, fused2));
      EXPECT_TRUE(all_close(*fused2.output(0), want2, 1e-5, 1e-4));
      rv[7] = std::nan("");
    }
  }
}

TEST(Conv2dOp, RejectsAResidualOfAnotherShape) {
  NDArray x = zeros(DataType::kFloat32, {1, 2, 5, 5}), w = zeros(DataType::kFloat32, {3, 2, 3, 3});
  NDArray b = zeros(DataType::kFloat32, {3}), r = zeros(DataType::kFloat32, {1, 3, 5, 5});
  Context ctx;
  const Status s = run_op("conv2d", {.in = {&x, &w, &b, &r}, .i = window(3, 1, 0, 1, 0)}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "conv2d: residual[1,3,5,5] must have the output's shape [1,3,3,3] (x[1,2,5,5], weights[3,2,3,3])");
}

}  // namespace
