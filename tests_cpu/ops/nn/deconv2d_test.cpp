// deconv2d against numpy goldens (tools/gen_goldens_nn.py, DECONV_CASES),
// a hand-computed case, its weight formats and its errors.
#include <optional>

#include "blas/conv_dnnl.h"
#include "nn_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// Mirrors DECONV_CASES / DECONV_NHWC.
const char* const kDeconvCases[] = {"basic",     "k2_stride2",      "k3_stride2_pad1_outpad1",      "dilation2",
                                    "same_stride2", "rect",         "pointwise",                    "nhwc_k2_stride2",
                                    "nhwc_k3_stride2_pad1_outpad1", "nhwc_rect"};

struct OwnPathOnly {
  OwnPathOnly() { blas::set_dnnl_enabled(false); }
  ~OwnPathOnly() { blas::set_dnnl_enabled(true); }
};

// Each case with oneDNN (float32, where built in) and with the own path.
class Deconv2dGolden : public ::testing::TestWithParam<std::tuple<const char*, DataType, bool>> {};

TEST_P(Deconv2dGolden, MatchesNumpy) {
  const auto [name, dtype, dnnl] = GetParam();
  std::optional<OwnPathOnly> own;
  if (!dnnl) own.emplace();
  expect_conv_golden("deconv2d", name, dtype);
}

INSTANTIATE_TEST_SUITE_P(Cases, Deconv2dGolden,
                         ::testing::Combine(::testing::ValuesIn(kDeconvCases),
                                            ::testing::Values(DataType::kFloat64, DataType::kFloat32,
                                                              DataType::kFloat16),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param)) + "_" +
                                  dtype_name(std::get<1>(info.param)) + (std::get<2>(info.param) ? "_dnnl" : "_own");
                         });

// One channel, a 2x2 kernel, stride 2: each input pixel stamps the kernel,
// scaled, onto its own 2x2 block of the output.
TEST(Deconv2dOp, HandComputedStamps) {
  NDArray x = make(DataType::kFloat64, {1, 1, 1, 2}, {1, 10});
  NDArray w = make(DataType::kFloat64, {1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray b = make(DataType::kFloat64, {1}, {0.5});
  Context ctx;
  ASSERT_OK(run_op("deconv2d", {.in = {&x, &w, &b}, .i = {2, 2, 2, 2, 0, 0, 1, 1, 0}}, ctx));
  ASSERT_EQ(ctx.output(0)->shape(), (Dims{1, 1, 2, 4}));
  EXPECT_TRUE(all_close(*ctx.output(0), {1.5, 2.5, 10.5, 20.5, 3.5, 4.5, 30.5, 40.5}, 0, 0));
  // Output padding adds a row and a column that only the bias reaches.
  Context padded;
  ASSERT_OK(run_op("deconv2d", {.in = {&x, &w, &b}, .i = {2, 2, 2, 2, 0, 0, 1, 1, 0, 0, 1, 1, 1}}, padded));
  ASSERT_EQ(padded.output(0)->shape(), (Dims{1, 1, 3, 5}));
  EXPECT_TRUE(all_close(*padded.output(0),
                        {1.5, 2.5, 10.5, 20.5, 0.5, 3.5, 4.5, 30.5, 40.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, 0, 0));
}

// weights_format 0 ([kH, kW, Cout, Cin]) and 2 ([Cin, kH, kW, Cout]) laid
// out from the golden's [Cin, Cout, kH, kW] give the golden output.
TEST(Deconv2dOp, TakesEveryWeightFormat) {
  for (const char* name : {"deconv2d_rect", "deconv2d_nhwc_rect"}) {
    SCOPED_TRACE(name);
    NDArray x = nn_golden(name, "x"), w = nn_golden(name, "w"), b = nn_golden(name, "b");
    NDArray want = nn_golden(name, "z");
    std::vector<int64_t> args = nn_golden_ints(name, "iargs");
    const struct { int64_t format; Dims perm; } formats[] = {{0, Dims{2, 3, 1, 0}}, {2, Dims{0, 2, 3, 1}}};
    for (const auto& f : formats) {
      NDArray view, dense;
      ASSERT_OK(w.permute(f.perm, view));
      ASSERT_OK(view.dup('c', dense));
      args[10] = f.format;
      Context ctx;
      ASSERT_OK(run_op("deconv2d", {.in = {&x, &dense, &b}, .i = args}, ctx));
      EXPECT_TRUE(all_close(*ctx.output(0), values(want), 1e-10, 1e-10)) << "weights_format " << f.format;
    }
  }
}

TEST(Deconv2dOp, RejectsMismatchesAndLargeOutputPadding) {
  NDArray x = make(DataType::kFloat32, {1, 3, 4, 4}, iota(48));
  NDArray w = make(DataType::kFloat32, {2, 5, 3, 3}, iota(90));
  Context ctx;
  Status s = run_op("deconv2d", {.in = {&x, &w}, .i = {3, 3, 1, 1, 0, 0, 1, 1, 0}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "deconv2d: channel mismatch with x[1,3,4,4] (NCHW) and weights[2,5,3,3]: x has 3 input channels, weights "
            "[Cin, Cout, kH, kW] expect 2");
  NDArray w3 = make(DataType::kFloat32, {3, 5, 3, 3}, iota(135));
  Context ctx2;
  s = run_op("deconv2d", {.in = {&x, &w3}, .i = {3, 3, 2, 2, 0, 0, 1, 1, 0, 0, 1, 2, 0}}, ctx2);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "deconv2d: output padding 2 along the height with x[1,3,4,4]: it must be below the stride 2 or the "
            "dilation 1");
}

}  // namespace
