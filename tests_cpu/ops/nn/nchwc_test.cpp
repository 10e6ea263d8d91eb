// The channel-blocked NCHWc layout (Note [Channel-blocked layout] in
// libops/ops/nn/conv_utils.h): block_channels / unblock_channels by hand,
// and conv2d, maxpool2d and avgpool2d on NCHWc against the same ops on
// NCHW, with oneDNN and through the NCHW fallback.
#include <cmath>
#include <cstdio>
#include <optional>

#include "blas/conv_dnnl.h"
#include "blas/winograd_conv.h"
#include "nn_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

std::vector<double> wave(int64_t n, double scale, double phase = 0.3) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = scale * std::sin(0.731 * static_cast<double>(i) + phase);
  return v;
}

NDArray run1(const char* op, const OpCall& call) {
  Context ctx;
  const Status s = run_op(op, call, ctx);
  EXPECT_TRUE(s.is_ok()) << op << ": " << s.message();
  return s.is_ok() ? *ctx.output(0) : NDArray();
}

NDArray blocked(const NDArray& x, int64_t b) {
  NDArray xc = x;
  return run1("block_channels", {.in = {&xc}, .i = {b}});
}

NDArray unblocked(const NDArray& x, int64_t c) {
  NDArray xc = x;
  return run1("unblock_channels", {.in = {&xc}, .i = {c}});
}

// Every lane past `channels` of blocked z [N, Cb, ..., b] is 0.
::testing::AssertionResult free_lanes_are_zero(const NDArray& z, int64_t channels) {
  const int64_t b = z.dim(z.rank() - 1), cb = z.dim(1), per_block = z.length() / (z.dim(0) * cb);
  for (int64_t n = 0; n < z.dim(0); ++n)
    for (int64_t i = 0; i < per_block; ++i) {
      const int64_t lane = i % b;
      if ((cb - 1) * b + lane < channels) continue;
      const int64_t at = (n * cb + cb - 1) * per_block + i;
      if (z.get_double(at) != 0)
        return ::testing::AssertionFailure() << "element " << at << " (lane " << lane << ") is " << z.get_double(at);
    }
  return ::testing::AssertionSuccess();
}

struct Im2colOnly {
  Im2colOnly() { blas::set_dnnl_enabled(false); }
  ~Im2colOnly() { blas::set_dnnl_enabled(true); }
};

TEST(BlockChannels, HandComputed) {
  // x [1, 3, 2] (C = 3, two pixels), b = 2: block 0 holds channels 0, 1;
  // block 1 holds channel 2 and a zero lane.
  NDArray x = make(DataType::kFloat32, {1, 3, 2}, {1, 2, 3, 4, 5, 6});
  NDArray z = blocked(x, 2);
  ASSERT_EQ(z.shape(), (Dims{1, 2, 2, 2}));
  EXPECT_TRUE(all_close(z, {1, 3, 2, 4, 5, 0, 6, 0}, 0, 0));
  NDArray back = unblocked(z, 3);
  ASSERT_EQ(back.shape(), (Dims{1, 3, 2}));
  EXPECT_TRUE(all_close(back, {1, 2, 3, 4, 5, 6}, 0, 0));
  // [N, Cb, b] (a global pool's result) back to [N, C].
  NDArray pooled = make(DataType::kFloat64, {2, 2, 2}, {1, 2, 3, 0, 4, 5, 6, 0});
  NDArray flat = unblocked(pooled, 3);
  ASSERT_EQ(flat.shape(), (Dims{2, 3}));
  EXPECT_TRUE(all_close(flat, {1, 2, 3, 4, 5, 6}, 0, 0));
}

TEST(BlockChannels, RoundTripsOverRanksAndBlockSizes) {
  const Dims shapes[] = {{2, 5}, {2, 16, 3}, {1, 19, 4, 5}, {2, 8, 3, 2, 2}, {1, 1, 7, 3}};
  for (const Dims& s : shapes) {
    for (int64_t b : {1, 4, 8, 16}) {
      SCOPED_TRACE(s.str() + " b" + std::to_string(b));
      NDArray x = make(DataType::kFloat32, s, wave(s.product(), 3.0));
      NDArray z = blocked(x, b);
      ASSERT_EQ(z.dim(1), (s[1] + b - 1) / b);
      ASSERT_EQ(z.dim(z.rank() - 1), b);
      EXPECT_TRUE(free_lanes_are_zero(z, s[1]));
      // Element (n, c, p) of x sits at block c / b, pixel p, lane c % b.
      const int64_t pix = s.product() / (s[0] * s[1]);
      for (int64_t n = 0; n < s[0]; ++n)
        for (int64_t c = 0; c < s[1]; ++c)
          for (int64_t p = 0; p < pix; ++p)
            ASSERT_EQ(z.get_double(((n * z.dim(1) + c / b) * pix + p) * b + c % b),
                      x.get_double((n * s[1] + c) * pix + p));
      EXPECT_TRUE(all_close(unblocked(z, s[1]), values(x), 0, 0));
    }
  }
}

TEST(BlockChannels, RejectsBadShapes) {
  NDArray v = make(DataType::kFloat32, {4}, {1, 2, 3, 4});
  Context a;
  Status s = run_op("block_channels", {.in = {&v}, .i = {2}}, a);
  EXPECT_FALSE(s.is_ok());
  EXPECT_TRUE(has_substr(s.message(), "block_channels: x[4] has rank 1")) << s.message();
  // 3 blocks of 4 hold 9 to 12 channels, not 5.
  NDArray z = zeros(DataType::kFloat32, {1, 3, 2, 4});
  Context b;
  s = run_op("unblock_channels", {.in = {&z}, .i = {5}}, b);
  EXPECT_FALSE(s.is_ok());
  EXPECT_TRUE(has_substr(s.message(), "unblock_channels: x[1,3,2,4] does not hold 5 channels")) << s.message();
}

struct BlockedConvCase {
  int64_t n, c, h, w, cout, k, s, p, groups, activation;
  bool bias;
};

// MobileNet and ResNet layers, odd channel counts, and one layer Winograd
// takes (64 -> 64 at 3x3, stride 1).
const BlockedConvCase kBlockedConvCases[] = {
    {1, 3, 17, 19, 32, 3, 2, 1, 1, 2, true},    // a network's first layer
    {2, 32, 9, 9, 24, 1, 1, 0, 1, 0, true},     // 1x1 project to a partial block
    {1, 24, 9, 8, 144, 1, 1, 0, 1, 2, true},    // 1x1 expand from a partial block
    {2, 48, 11, 11, 48, 3, 2, 1, 48, 2, true},  // depthwise, stride 2
    {1, 40, 7, 9, 40, 3, 1, 1, 40, 1, false},   // depthwise over a partial block
    {1, 64, 16, 16, 64, 3, 1, 1, 1, 1, true},   // Winograd's case
    {1, 32, 8, 8, 32, 3, 1, 1, 2, 0, true},     // grouped
};

std::vector<int64_t> conv_args(const BlockedConvCase& c, int64_t format) {
  return {c.k, c.k, c.s, c.s, c.p, c.p, 1, 1, 0, format, 1, c.groups, c.activation};
}

double magnitude_scale(const BlockedConvCase& c, const NDArray& x, const NDArray& w, const NDArray& bias);

// conv2d on NCHWc (block b) against conv2d on NCHW, both with the current
// oneDNN setting.
void expect_blocked_conv_matches(const BlockedConvCase& c, int64_t b) {
  char what[128];
  std::snprintf(what, sizeof what, "n%lld c%lld->%lld %lldx%lld k%lld s%lld g%lld act%lld b%lld",
                static_cast<long long>(c.n), static_cast<long long>(c.c), static_cast<long long>(c.cout),
                static_cast<long long>(c.h), static_cast<long long>(c.w), static_cast<long long>(c.k),
                static_cast<long long>(c.s), static_cast<long long>(c.groups), static_cast<long long>(c.activation),
                static_cast<long long>(b));
  SCOPED_TRACE(what);
  NDArray x = make(DataType::kFloat32, {c.n, c.c, c.h, c.w}, wave(c.n * c.c * c.h * c.w, 2.0));
  NDArray w = make(DataType::kFloat32, {c.cout, c.c / c.groups, c.k, c.k},
                   wave(c.cout * c.c / c.groups * c.k * c.k, 0.3, 1.1));
  NDArray bias = make(DataType::kFloat32, {c.cout}, wave(c.cout, 0.5, 2.0));
  std::vector<NDArray*> in = {&x, &w};
  if (c.bias) in.push_back(&bias);
  const NDArray want = run1("conv2d", {.in = in, .i = conv_args(c, 0)});
  NDArray xb = blocked(x, b);
  in[0] = &xb;
  const NDArray zb = run1("conv2d", {.in = in, .i = conv_args(c, 2)});
  ASSERT_FALSE(zb.is_null());
  ASSERT_EQ(zb.shape(), (Dims{c.n, (c.cout + b - 1) / b, want.dim(2), want.dim(3), b}));
  EXPECT_TRUE(free_lanes_are_zero(zb, c.cout));
  const std::vector<double> got = values(unblocked(zb, c.cout)), ref = values(want);
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::fabs(got[i] - ref[i]));
  EXPECT_LE(worst, 2e-6 * magnitude_scale(c, x, w, bias));
}

// The largest sum of the terms' magnitudes over c's outputs (the
// convolution of |x| with |w|, plus |bias|): what rounding errors, of the
// direct sums and of Winograd's, scale with.
double magnitude_scale(const BlockedConvCase& c, const NDArray& x, const NDArray& w, const NDArray& bias) {
  auto absolute = [](const NDArray& a) {
    std::vector<double> v = values(a);
    for (double& e : v) e = std::fabs(e);
    return make(DataType::kFloat32, a.shape(), v);
  };
  NDArray xa = absolute(x), wa = absolute(w), ba = absolute(bias);
  std::vector<NDArray*> in = {&xa, &wa};
  if (c.bias) in.push_back(&ba);
  std::vector<int64_t> args = conv_args(c, 0);
  args.back() = 0;  // no activation: relu6 would clamp the scale
  double scale = 0;
  for (double v : values(run1("conv2d", {.in = in, .i = args}))) scale = std::max(scale, v);
  return scale;
}

TEST(Conv2dNchwc, MatchesNchwWithOneDnn) {
  if (!blas::dnnl_enabled()) GTEST_SKIP() << "built without oneDNN, or LIBOPS_DNNL=0";
  for (const BlockedConvCase& c : kBlockedConvCases)
    for (int64_t b : {8, 16}) expect_blocked_conv_matches(c, b);
}

// Without oneDNN (and for block sizes it has no layout for) the call runs
// on NCHW copies.
TEST(Conv2dNchwc, MatchesNchwThroughTheFallback) {
  for (const BlockedConvCase& c : kBlockedConvCases) expect_blocked_conv_matches(c, 4);
  Im2colOnly off;
  for (const BlockedConvCase& c : kBlockedConvCases) expect_blocked_conv_matches(c, 16);
}

// data_format 2 with an NCHW x and i arg 13 (lanes): a first layer's
// image goes in as it is and comes out NCHWc.
TEST(Conv2dNchwc, TakesAnNchwImageForTheFirstLayer) {
  for (bool dnnl : {true, false}) {
    std::optional<Im2colOnly> off;
    if (!dnnl) off.emplace();
    for (int64_t b : {8, 16}) {
      SCOPED_TRACE(std::string(dnnl ? "oneDNN" : "fallback") + " b" + std::to_string(b));
      NDArray x = make(DataType::kFloat32, {2, 3, 15, 13}, wave(2 * 3 * 15 * 13, 2.0));
      NDArray w = make(DataType::kFloat32, {20, 3, 3, 3}, wave(20 * 27, 0.3, 1.1));
      NDArray bias = make(DataType::kFloat32, {20}, wave(20, 0.5, 2.0));
      std::vector<int64_t> args{3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 1, 1, 2};
      const NDArray want = run1("conv2d", {.in = {&x, &w, &bias}, .i = args});
      args[9] = 2;
      args.push_back(b);
      const NDArray zb = run1("conv2d", {.in = {&x, &w, &bias}, .i = args});
      ASSERT_EQ(zb.shape(), (Dims{2, (20 + b - 1) / b, 8, 7, b}));
      EXPECT_TRUE(free_lanes_are_zero(zb, 20));
      EXPECT_TRUE(all_close(unblocked(zb, 20), values(want), 1e-5, 1e-5));
    }
  }
}

// A NaN stays in the outputs whose windows cover it, activation or not.
TEST(Conv2dNchwc, KeepsNan) {
  BlockedConvCase c{1, 16, 6, 6, 20, 3, 1, 1, 1, 2, true};
  std::vector<double> xv = wave(16 * 36, 2.0);
  xv[5 * 36 + 14] = std::nan("");  // channel 5, pixel (2, 2)
  NDArray x = make(DataType::kFloat32, {1, 16, 6, 6}, xv);
  NDArray w = make(DataType::kFloat32, {20, 16, 3, 3}, wave(20 * 16 * 9, 0.3, 1.1));
  NDArray bias = make(DataType::kFloat32, {20}, wave(20, 0.5, 2.0));
  NDArray xb = blocked(x, 16);
  const NDArray z = unblocked(run1("conv2d", {.in = {&xb, &w, &bias}, .i = conv_args(c, 2)}), 20);
  for (int64_t o = 0; o < 20; ++o)
    for (int64_t i = 0; i < 6; ++i)
      for (int64_t j = 0; j < 6; ++j) {
        const bool covered = std::abs(i - 2) <= 1 && std::abs(j - 2) <= 1;
        EXPECT_EQ(std::isnan(z.get_double((o * 6 + i) * 6 + j)), covered) << o << " " << i << " " << j;
      }
}

struct WinogradOff {
  WinogradOff() { blas::set_winograd_enabled(false); }
  ~WinogradOff() { blas::set_winograd_enabled(true); }
};

// Note [Own Winograd convolution]: in 8-lane blocks a 3x3 stride-1 layer
// with enough tiles runs libops' Winograd kernel (with the residual input
// and the activation), agrees with the direct path within the bound of the
// sums' magnitudes (and differs from it: it ran), and leaves a NaN, an
// infinity or values whose transforms could overflow to the direct path.
TEST(Conv2dNchwc, OwnWinogradAgreesWithDirectAndKeepsNanLocal) {
  if (!blas::winograd_enabled()) GTEST_SKIP() << "LIBOPS_WINOGRAD=0";
  if (!blas::WinogradConv3x3::supported()) GTEST_SKIP() << "needs AVX2 and FMA";
  // Partial blocks both ways; 2 x 64 tiles, enough for weights that are not
  // a graph constant (transformed on every call).
  const int64_t n = 2, c = 20, h = 31, cout = 36;
  NDArray w = make(DataType::kFloat32, {cout, c, 3, 3}, wave(cout * c * 9, 0.3, 1.1));
  NDArray bias = make(DataType::kFloat32, {cout}, wave(cout, 0.5, 2.0));
  NDArray r = blocked(make(DataType::kFloat32, {n, cout, h, h}, wave(n * cout * h * h, 1.5, 0.7)), 8);
  auto run = [&](const std::vector<double>& xv, bool winograd) {
    std::optional<WinogradOff> off;
    if (!winograd) off.emplace();
    NDArray xb = blocked(make(DataType::kFloat32, {n, c, h, h}, xv), 8);
    const BlockedConvCase cc{n, c, h, h, cout, 3, 1, 1, 1, 1, true};
    const NDArray z = run1("conv2d", {.in = {&xb, &w, &bias, &r}, .i = conv_args(cc, 2)});
    EXPECT_TRUE(free_lanes_are_zero(z, cout));
    return values(z);
  };
  const std::vector<double> xv = wave(n * c * h * h, 2.0);
  const std::vector<double> wino = run(xv, true), direct = run(xv, false);
  ASSERT_EQ(wino.size(), direct.size());
  double worst = 0, peak = 0;
  for (size_t i = 0; i < wino.size(); ++i) {
    worst = std::max(worst, std::fabs(wino[i] - direct[i]));
    peak = std::max(peak, std::fabs(direct[i]));
  }
  EXPECT_GT(worst, 0.0);  // rounded otherwise: Winograd ran
  // |x| <= 2, |w| <= 0.3, 180 taps, |b| <= 0.5, |r| <= 1.5: sums of
  // magnitudes up to 110.
  EXPECT_LE(worst, 2e-6 * 110);
  EXPECT_GT(peak, 1.0);
  // A NaN and an infinity reach only the outputs whose windows cover them.
  std::vector<double> bad = xv;
  bad[static_cast<size_t>((1 * c + 3) * h * h + 5 * h + 9)] = std::nan("");
  bad[static_cast<size_t>((0 * c + 17) * h * h + 12 * h + 2)] = INFINITY;
  const std::vector<double> got = run(bad, true), want = run(bad, false);
  int non_finite = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    non_finite += !std::isfinite(want[i]);
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got[i])) << "output " << i;
    else EXPECT_EQ(got[i], want[i]) << "output " << i;  // the same direct path
  }
  EXPECT_GT(non_finite, 0);
  // |x| up to 1e35: the transforms could overflow, so the direct sums run.
  std::vector<double> big = xv;
  for (double& v : big) v *= 5e34;
  const std::vector<double> got_big = run(big, true), want_big = run(big, false);
  for (size_t i = 0; i < want_big.size(); ++i) {
    ASSERT_TRUE(std::isfinite(want_big[i])) << "output " << i;
    EXPECT_EQ(got_big[i], want_big[i]) << "output " << i;
  }
}

TEST(Conv2dNchwc, RejectsBlocksThatDoNotMatchTheWeights) {
  NDArray x = zeros(DataType::kFloat32, {1, 2, 5, 5, 16});  // 17 to 32 channels
  NDArray w = zeros(DataType::kFloat32, {8, 16, 3, 3});
  Context ctx;
  const Status s = run_op("conv2d", {.in = {&x, &w}, .i = {3, 3, 1, 1, 0, 0, 1, 1, 0, 2}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_TRUE(has_substr(s.message(),
                         "conv2d: channel mismatch with x[1,2,5,5,16] (NCHWc, 2 blocks of 16 channels) and "
                         "weights[8,16,3,3] ([Cout, Cin, kH, kW]): the weights expect 16 input channels, which fill "
                         "1 blocks"))
      << s.message();
  NDArray x4 = zeros(DataType::kFloat32, {1, 16, 5, 5});
  Context ctx4;
  const Status s4 = run_op("conv2d", {.in = {&x4, &w}, .i = {3, 3, 1, 1, 0, 0, 1, 1, 0, 2}}, ctx4);
  EXPECT_TRUE(has_substr(s4.message(),
                         "x[1,16,5,5] is NCHW with data_format 2 (NCHWc): the output's lanes (i arg 13) must be given"))
      << s4.message();
  NDArray x3 = zeros(DataType::kFloat32, {1, 5, 5});
  Context ctx3;
  const Status s3 = run_op("conv2d", {.in = {&x3, &w}, .i = {3, 3, 1, 1, 0, 0, 1, 1, 0, 2}}, ctx3);
  EXPECT_TRUE(has_substr(s3.message(), "x[1,5,5] has rank 3: it must be rank 5, [N, C / b, H, W, b] (NCHWc)"))
      << s3.message();
}

// deconv2d on NCHWc against deconv2d on NCHW: U-Net's 2x2/2 upsampling,
// a 3x3 with padding, partial blocks in and out; with oneDNN, through the
// fallback, and with output padding (which oneDNN does not take).
TEST(Deconv2dNchwc, MatchesNchw) {
  struct Case {
    int64_t n, c, h, w, cout, k, s, p, op;
  };
  const Case cases[] = {{1, 32, 8, 7, 16, 2, 2, 0, 0}, {2, 20, 5, 6, 24, 3, 1, 1, 0}, {1, 16, 5, 5, 8, 3, 2, 1, 1}};
  for (bool dnnl : {true, false}) {
    std::optional<Im2colOnly> off;
    if (!dnnl) off.emplace();
    for (const Case& c : cases) {
      SCOPED_TRACE(testing::Message() << "c" << c.c << "->" << c.cout << " k" << c.k << " s" << c.s << " op" << c.op
                                      << (dnnl ? " oneDNN" : " fallback"));
      NDArray x = make(DataType::kFloat32, {c.n, c.c, c.h, c.w}, wave(c.n * c.c * c.h * c.w, 2.0));
      NDArray w = make(DataType::kFloat32, {c.c, c.cout, c.k, c.k}, wave(c.c * c.cout * c.k * c.k, 0.3, 1.1));
      NDArray bias = make(DataType::kFloat32, {c.cout}, wave(c.cout, 0.5, 2.0));
      std::vector<int64_t> args{c.k, c.k, c.s, c.s, c.p, c.p, 1, 1, 0, 0, 1, c.op, c.op};
      const NDArray want = run1("deconv2d", {.in = {&x, &w, &bias}, .i = args});
      NDArray xb = blocked(x, 16);
      args[9] = 2;
      const NDArray zb = run1("deconv2d", {.in = {&xb, &w, &bias}, .i = args});
      ASSERT_FALSE(zb.is_null());
      ASSERT_EQ(zb.shape(), (Dims{c.n, (c.cout + 15) / 16, want.dim(2), want.dim(3), 16}));
      EXPECT_TRUE(free_lanes_are_zero(zb, c.cout));
      EXPECT_TRUE(all_close(unblocked(zb, c.cout), values(want), 1e-5, 1e-5));
    }
  }
}

// Pooling an NCHWc value pools each lane: the NCHW result, blocked, with
// zeros kept in the free lanes.
TEST(PoolNchwc, MatchesNchw) {
  struct Case {
    const char* op;
    int64_t k, s, p, flag;
  };
  const Case cases[] = {{"maxpool2d", 3, 2, 1, 0}, {"avgpool2d", 3, 2, 1, 0}, {"avgpool2d", 3, 1, 1, 1},
                        {"maxpool2d", 2, 2, 0, 0}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.op) + " k" + std::to_string(c.k));
    std::vector<double> xv = wave(2 * 20 * 9 * 10, 3.0);
    xv[17] = std::nan("");
    NDArray x = make(DataType::kFloat32, {2, 20, 9, 10}, xv);
    const std::vector<int64_t> plain{c.k, c.k, c.s, c.s, c.p, c.p, 1, 1, 0, c.flag, 0};
    std::vector<int64_t> nchwc = plain;
    nchwc[10] = 2;
    const NDArray want = run1(c.op, {.in = {&x}, .i = plain});
    NDArray xb = blocked(x, 16);
    const NDArray zb = run1(c.op, {.in = {&xb}, .i = nchwc});
    ASSERT_EQ(zb.shape(), (Dims{2, 2, want.dim(2), want.dim(3), 16}));
    EXPECT_TRUE(free_lanes_are_zero(zb, 20));
    EXPECT_TRUE(all_close(unblocked(zb, 20), values(want), 1e-6, 1e-6));
  }
}

}  // namespace
