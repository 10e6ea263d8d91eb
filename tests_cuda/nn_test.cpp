// conv2d, maxpool2d, avgpool2d, batchnorm and softmax on cuda:0 (cuDNN,
// libops/ops/nn/nn_device_cuda.cpp): the numpy golden rows that tests_cpu
// runs, each either matching the golden or refused for the reason its row
// names; then more geometries against the CPU in float32, float16 and
// bfloat16; and the calls cuDNN cannot express, which must be errors that
// move no data rather than silent trips through the host.
#include <cmath>
#include <limits>
#include <string>

#include "cuda_test_util.h"
#include "ops/nn/nn_test_util.h"

namespace libops {
namespace {

using test::make;
using test::values;

// Reasons a row is refused on CUDA (see nn_device_cuda.cpp's usability checks).
constexpr const char* kOddSame = "cuDNN pads both sides of a dim equally";
constexpr const char* kDilatedPool = "cuDNN's pooling has no dilation";
constexpr const char* kNoF64NhwcDeconv = "it has no float64 NHWC transposed convolution";
constexpr const char* kCeilMode = "ceil mode adds a window here";

std::vector<double> ramp(int64_t n, double scale, double phase = 0.2) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = scale * std::cos(0.37 * static_cast<double>(i) + phase);
  return v;
}

// Runs `op` on `d`. On a device the output must be newest there; it is then
// synced back for reading.
Status run_on(Device d, const char* op, const test::OpCall& call, Context& ctx) {
  ctx.set_device(d);
  Status s = test::run_op(op, call, ctx);
  if (!s.is_ok() || d.is_cpu()) return s;
  if (ctx.output(0)->buffer()->sync() != DataBuffer::Sync::kDeviceNewer)
    return Status::error(StatusCode::kInternal, "%s on %s: the output's newest copy is not on the device", op,
                         d.str().c_str());
  return ctx.output(0)->buffer()->sync_to_host();
}

// ---- the golden rows of tests_cpu/ops/nn ----

struct GoldenRow {
  const char* op;
  const char* name;
  const char* refusal;              // null: cuDNN runs it
  const char* f64_refusal = nullptr;  // refused in float64 only
};
void PrintTo(const GoldenRow& r, std::ostream* os) { *os << r.op << "_" << r.name; }

// Mirrors CONV_CASES, POOL_CASES, POOL_WIDE_CASES, GROUPED_CASES,
// DECONV_CASES, POOL_CEIL_CASES and the batchnorm cases of
// tools/gen_goldens_nn.py. SAME rows with an odd total padding (6 rows,
// kernel 3, stride 2: 0 on top, 1 at the bottom) and dilated pooling are
// refused.
const GoldenRow kGoldenRows[] = {
    {"conv2d", "basic", nullptr},
    {"conv2d", "pad1_stride2", nullptr},
    {"conv2d", "same_stride2", nullptr},
    {"conv2d", "k2_stride2", nullptr},
    {"conv2d", "dilation2", nullptr},
    {"conv2d", "same_dilation2", nullptr},
    {"conv2d", "rect", nullptr},
    {"conv2d", "pointwise", nullptr},
    {"conv2d", "nhwc_pad1_stride2", nullptr},
    {"conv2d", "nhwc_same_stride2", nullptr},
    {"conv2d", "nhwc_dilation2", nullptr},
    {"conv2d", "nhwc_rect", nullptr},
    {"conv2d", "nhwc_pointwise", nullptr},
    {"conv2d", "nhwc_hwio_default_rect", nullptr},
    {"conv2d", "nhwc_hwio_default_pointwise", nullptr},
    {"conv2d", "groups2", nullptr},
    {"conv2d", "groups3_stride2", nullptr},
    {"conv2d", "depthwise", nullptr},
    {"conv2d", "depthwise_mult2_same_s2", nullptr},
    {"conv2d", "depthwise_dilated", nullptr},
    {"conv2d", "groups2_pointwise", nullptr},
    {"conv2d", "nhwc_groups2", nullptr},
    {"conv2d", "nhwc_groups2_pointwise", nullptr},
    {"deconv2d", "basic", nullptr},
    {"deconv2d", "k2_stride2", nullptr},
    {"deconv2d", "k3_stride2_pad1_outpad1", nullptr},
    {"deconv2d", "dilation2", nullptr},
    {"deconv2d", "same_stride2", kOddSame},
    {"deconv2d", "rect", nullptr},
    {"deconv2d", "pointwise", nullptr},
    {"deconv2d", "nhwc_k2_stride2", nullptr, kNoF64NhwcDeconv},
    {"deconv2d", "nhwc_k3_stride2_pad1_outpad1", nullptr, kNoF64NhwcDeconv},
    {"deconv2d", "nhwc_rect", nullptr, kNoF64NhwcDeconv},
    {"depthwise_conv2d", "depthwise", nullptr},
    {"depthwise_conv2d", "depthwise_dilated", nullptr},
    {"maxpool2d", "max_k2s2", nullptr},
    {"maxpool2d", "max_k3s1p1", nullptr},
    {"maxpool2d", "max_same_k3s2", nullptr},        // evened out with a row of -inf on the device
    {"maxpool2d", "max_dilation2", kDilatedPool},
    {"maxpool2d", "max_rect", kDilatedPool},
    {"maxpool2d", "nhwc_max_k3s1p1", nullptr},
    {"maxpool2d", "nhwc_max_same_k3s2", nullptr},
    {"maxpool2d", "nhwc_max_rect", kDilatedPool},
    {"maxpool2d", "max_ceil_k3s2", kCeilMode},
    {"maxpool2d", "max_ceil_last_window_dropped", nullptr},  // ceil gives floor's extents here
    {"maxpool2d", "nhwc_max_ceil_k3s2", kCeilMode},
    {"avgpool2d", "avg_ceil_k2s2", kCeilMode},
    {"avgpool2d", "avg_ceil_k3s2p1_incpad", kCeilMode},
    {"maxpool2d", "max_wide_k3s2p1", nullptr},
    {"maxpool2d", "max_wide_k3s3p1", nullptr},
    {"avgpool2d", "avg_k2s2", nullptr},
    {"avgpool2d", "avg_k3s1p1", nullptr},
    {"avgpool2d", "avg_k3s1p1_incpad", nullptr},
    {"avgpool2d", "avg_same_k3s2", kOddSame},
    {"avgpool2d", "avg_same_k3s2_incpad", kOddSame},
    {"avgpool2d", "avg_dilation2", kDilatedPool},
    {"avgpool2d", "avg_rect", kDilatedPool},
    {"avgpool2d", "nhwc_avg_k3s1p1", nullptr},
    {"avgpool2d", "nhwc_avg_same_k3s2_incpad", kOddSame},
    {"avgpool2d", "nhwc_avg_rect", kDilatedPool},
    {"avgpool2d", "avg_wide_k3s2p1", nullptr},
    {"avgpool2d", "avg_wide_k3s3p1", nullptr},
    {"batchnorm", "nchw", nullptr},
    {"batchnorm", "nhwc_offset_only", nullptr},
    {"batchnorm", "features_scale_only", nullptr},
};

class CudaNnGolden : public ::testing::TestWithParam<std::tuple<GoldenRow, DataType>> {};

TEST_P(CudaNnGolden, MatchesNumpyOrIsRefused) {
  REQUIRE_CUDA_DEVICE();
  const auto [row, dtype] = GetParam();
  const std::string prefix = std::string(row.op) + "_" + row.name;
  const bool bn = std::string(row.op) == "batchnorm";
  // Inputs in file order; optional ones are absent files.
  std::vector<NDArray> arrays;
  for (const char* name : bn ? std::vector<const char*>{"x", "mean", "var", "gamma", "beta"}
                             : std::vector<const char*>{"x", "w", "b"}) {
    NDArray a = test::nn_golden_if_present(prefix, name, dtype);
    if (!a.is_null()) arrays.push_back(a);
  }
  std::vector<NDArray*> in;
  for (NDArray& a : arrays) in.push_back(&a);
  test::OpCall call{.in = in, .i = test::nn_golden_ints(prefix, "iargs")};
  if (bn) call.t = {test::nn_golden(prefix, "targs").get_double(0)};

  Context ctx;
  Status s = run_on(Device::cuda(0), row.op, call, ctx);
  const char* refusal = row.refusal != nullptr ? row.refusal : dtype == DataType::kFloat64 ? row.f64_refusal : nullptr;
  if (refusal != nullptr) {
    EXPECT_EQ(s.code(), StatusCode::kNotImplemented) << s.message();
    EXPECT_TRUE(test::has_substr(s.message(), std::string(row.op) + ": cuDNN on cuda:0 cannot run x["));
    EXPECT_TRUE(test::has_substr(s.message(), refusal));
    // Refused before any data moved.
    for (const NDArray& a : arrays) EXPECT_EQ(a.buffer()->sync(), DataBuffer::Sync::kHostOnly);
    return;
  }
  ASSERT_OK(s);
  NDArray want = test::nn_golden(prefix, "z");
  EXPECT_EQ(ctx.output(0)->dtype(), dtype);
  EXPECT_EQ(ctx.output(0)->shape(), want.shape());
  const double tol = test::golden_tolerance(dtype);
  EXPECT_TRUE(test::all_close(*ctx.output(0), values(want), tol, tol));
}

INSTANTIATE_TEST_SUITE_P(Rows, CudaNnGolden,
                         ::testing::Combine(::testing::ValuesIn(kGoldenRows),
                                            ::testing::Values(DataType::kFloat32, DataType::kFloat64,
                                                              DataType::kFloat16)),
                         [](const auto& info) {
                           const GoldenRow& r = std::get<0>(info.param);
                           return std::string(r.op) + "_" + r.name + "_" + dtype_name(std::get<1>(info.param));
                         });

// ---- CUDA against the CPU ----

// Tolerances of cuDNN against the CPU (absolute and relative): float32 and
// float64 sums differ in order (and algorithm: Winograd, FFT) only; float16
// and bfloat16 may round the sum and the bias separately.
double cpu_tolerance(DataType t) {
  switch (t) {
    case DataType::kFloat64: return 1e-10;
    case DataType::kFloat32: return 5e-5;
    case DataType::kFloat16: return 1e-2;
    default: return 4e-2;  // bfloat16
  }
}

// Runs `op` on the CPU and on cuda:0 over the arrays `make_inputs` builds
// (twice, so neither run sees the other's buffers) and compares.
template <typename MakeInputs>
void expect_cuda_matches_cpu(const char* op, MakeInputs make_inputs, std::vector<int64_t> iargs,
                             std::vector<double> targs, DataType t, const std::string& what) {
  std::vector<NDArray> c = make_inputs(t), g = make_inputs(t);
  std::vector<NDArray*> cin, gin;
  for (NDArray& a : c) cin.push_back(&a);
  for (NDArray& a : g) gin.push_back(&a);
  Context cc, gc;
  ASSERT_OK(run_on(Device::cpu(), op, {.in = cin, .t = targs, .i = iargs}, cc));
  ASSERT_OK(run_on(Device::cuda(0), op, {.in = gin, .t = targs, .i = iargs}, gc));
  EXPECT_EQ(gc.output(0)->shape(), cc.output(0)->shape()) << what;
  const double tol = cpu_tolerance(t);
  EXPECT_TRUE(test::all_close(*gc.output(0), values(*cc.output(0)), tol, tol)) << what << " " << dtype_name(t);
}

struct ConvGeometry {
  const char* name;
  Dims x;  // NCHW extents; NHWC rows get them permuted
  int64_t cout;
  std::vector<int64_t> iargs;  // 0..8 of Note [Window arguments]
  bool nhwc, bias;
  int64_t groups = 1;  // Note [Grouped convolution]
};

const ConvGeometry kConvGeometries[] = {
    {"3x3_pad1", {2, 8, 13, 11}, 16, {3, 3, 1, 1, 1, 1, 1, 1, 0}, false, true},
    {"3x3_pad1_nhwc", {2, 8, 13, 11}, 16, {3, 3, 1, 1, 1, 1, 1, 1, 0}, true, true},
    // SAME with an even total: 13 rows, stride 2 -> 7 rows, 2 padded.
    {"same_stride2", {2, 8, 13, 11}, 12, {3, 3, 2, 2, 0, 0, 1, 1, 1}, false, false},
    {"same_stride2_nhwc", {2, 8, 13, 11}, 12, {3, 3, 2, 2, 0, 0, 1, 1, 1}, true, true},
    {"rect_dilated", {1, 5, 9, 10}, 7, {5, 3, 2, 1, 2, 1, 1, 2, 0}, false, true},
    {"rect_dilated_nhwc", {1, 5, 9, 10}, 7, {5, 3, 2, 1, 2, 1, 1, 2, 0}, true, false},
    {"same_dilated", {2, 3, 8, 8}, 4, {3, 3, 1, 1, 0, 0, 2, 2, 1}, false, true},
    {"pointwise", {3, 4, 6, 6}, 8, {1, 1, 1, 1, 0, 0, 1, 1, 0}, false, true},
    {"pointwise_nhwc", {3, 4, 6, 6}, 8, {1, 1, 1, 1, 0, 0, 1, 1, 0}, true, true},
    {"groups4_3x3", {2, 8, 13, 11}, 12, {3, 3, 1, 1, 1, 1, 1, 1, 0}, false, true, 4},
    {"groups2_3x3_nhwc", {2, 8, 13, 11}, 12, {3, 3, 2, 2, 1, 1, 1, 1, 0}, true, false, 2},
    {"depthwise_3x3_s2", {2, 16, 14, 14}, 16, {3, 3, 2, 2, 1, 1, 1, 1, 0}, false, true, 16},
    {"depthwise_mult2_nhwc", {1, 6, 9, 10}, 12, {3, 3, 1, 1, 1, 1, 1, 1, 0}, true, true, 6},
};

auto conv_inputs(const ConvGeometry& c) {
  return [c](DataType t) {
    const Dims& s = c.x;
    const Dims xs = c.nhwc ? Dims{s[0], s[2], s[3], s[1]} : s;
    std::vector<NDArray> v = {make(t, xs, ramp(xs.product(), 1.0)),
                              make(t, {c.cout, s[1] / c.groups, c.iargs[0], c.iargs[1]},
                                   ramp(c.cout * (s[1] / c.groups) * c.iargs[0] * c.iargs[1], 0.2, 1.1))};
    if (c.bias) v.push_back(make(t, {c.cout}, ramp(c.cout, 0.5, 2.3)));
    return v;
  };
}

std::vector<int64_t> with_format(std::vector<int64_t> iargs, bool nhwc, int64_t groups = 1) {
  iargs.push_back(nhwc ? 1 : 0);
  if (groups > 1) {
    iargs.push_back(1);  // weights_format [Cout, Cin / groups, kH, kW]
    iargs.push_back(groups);
  }
  return iargs;
}

// Each geometry twice: the second call runs the algorithm cuDNN's ranking
// gave the first (Note [cuDNN algorithm cache]).
TEST(CudaNn, Conv2dMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (DataType t : {DataType::kFloat32, DataType::kFloat16})
    for (const ConvGeometry& c : kConvGeometries)
      for (const char* pass : {"", " (remembered algorithm)"})
        expect_cuda_matches_cpu("conv2d", conv_inputs(c), with_format(c.iargs, c.nhwc, c.groups), {}, t,
                                std::string(c.name) + pass);
}

// conv2d's activation arg (i arg 12): relu and relu6 after the bias, by
// the relu / relu6 kernels on the device.
TEST(CudaNn, Conv2dFusedActivationMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (int64_t act : {1, 2})
    for (const ConvGeometry& c : kConvGeometries) {
      std::vector<int64_t> iargs = with_format(c.iargs, c.nhwc);
      iargs.push_back(1);  // weights_format
      iargs.push_back(c.groups);
      iargs.push_back(act);
      expect_cuda_matches_cpu("conv2d", conv_inputs(c), iargs, {}, DataType::kFloat32,
                              std::string(c.name) + (act == 1 ? " relu" : " relu6"));
    }
}

// deconv2d on larger shapes, float32 and float16, both layouts.
TEST(CudaNn, Deconv2dMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  struct Case {
    const char* name;
    Dims x;  // NCHW
    int64_t cout;
    std::vector<int64_t> iargs;  // 0..8, then data_format, weights_format, opH, opW
  };
  const Case cases[] = {
      {"k2_s2_unet", {2, 16, 9, 7}, 8, {2, 2, 2, 2, 0, 0, 1, 1, 0, 0, 1, 0, 0}},
      {"k3_s2_p1_op1", {1, 8, 6, 5}, 12, {3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 1, 1, 1}},
      {"k3_s1_p1_nhwc", {2, 6, 7, 8}, 5, {3, 3, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0}},
  };
  for (DataType t : {DataType::kFloat32, DataType::kFloat16})
    for (const Case& c : cases) {
      auto inputs = [&c](DataType dt) {
        const Dims& s = c.x;
        const bool nhwc = c.iargs[9] == 1;
        const Dims xs = nhwc ? Dims{s[0], s[2], s[3], s[1]} : s;
        return std::vector<NDArray>{
            make(dt, xs, ramp(xs.product(), 1.0)),
            make(dt, {s[1], c.cout, c.iargs[0], c.iargs[1]}, ramp(s[1] * c.cout * c.iargs[0] * c.iargs[1], 0.2, 1.1)),
            make(dt, {c.cout}, ramp(c.cout, 0.5, 2.3))};
      };
      for (const char* pass : {"", " (remembered algorithm)"})  // Note [cuDNN algorithm cache]
        expect_cuda_matches_cpu("deconv2d", inputs, c.iargs, {}, t, std::string(c.name) + pass);
    }
}

// The NCHWc layout (Note [Channel-blocked layout]) on the device: the
// conversions, conv2d and deconv2d through NCHW views (an NCHW image in,
// NCHWc out; and NCHWc in, with a partial last block) and the pools as NHWC
// views, against the CPU.
TEST(CudaNn, ChannelBlockedLayoutMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  auto image = [](DataType dt) {
    return std::vector<NDArray>{make(dt, {2, 3, 13, 11}, ramp(2 * 3 * 13 * 11, 1.0)),
                                make(dt, {20, 3, 3, 3}, ramp(20 * 27, 0.2, 1.1)), make(dt, {20}, ramp(20, 0.5, 2.3))};
  };
  expect_cuda_matches_cpu("conv2d", image, {3, 3, 2, 2, 1, 1, 1, 1, 0, 2, 1, 1, 2, 16}, {}, DataType::kFloat32,
                          "NCHW image in, NCHWc out");
  auto blocked = [](DataType dt) {
    NDArray x = make(dt, {2, 20, 7, 6}, ramp(2 * 20 * 42, 1.0));
    Context ctx;
    EXPECT_OK(test::run_op("block_channels", {.in = {&x}, .i = {16}}, ctx));
    return std::vector<NDArray>{*ctx.output(0), make(dt, {24, 20, 3, 3}, ramp(24 * 180, 0.2, 1.1))};
  };
  expect_cuda_matches_cpu("conv2d", blocked, {3, 3, 1, 1, 1, 1, 1, 1, 0, 2}, {}, DataType::kFloat32, "NCHWc in");
  auto pooled = [&blocked](DataType dt) { return std::vector<NDArray>{blocked(dt)[0]}; };
  expect_cuda_matches_cpu("maxpool2d", pooled, {3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 2}, {}, DataType::kFloat32,
                          "maxpool NCHWc");
  expect_cuda_matches_cpu("avgpool2d", pooled, {2, 2, 2, 2, 0, 0, 1, 1, 0, 1, 2}, {}, DataType::kFloat32,
                          "avgpool NCHWc");
  auto deconv = [&blocked](DataType dt) {
    return std::vector<NDArray>{blocked(dt)[0], make(dt, {20, 12, 2, 2}, ramp(960, 0.2, 0.4))};
  };
  expect_cuda_matches_cpu("deconv2d", deconv, {2, 2, 2, 2, 0, 0, 1, 1, 0, 2}, {}, DataType::kFloat32,
                          "deconv2d NCHWc");
  auto plain = [](DataType dt) { return std::vector<NDArray>{make(dt, {2, 20, 5, 3}, ramp(600, 1.0))}; };
  expect_cuda_matches_cpu("block_channels", plain, {8}, {}, DataType::kFloat32, "block_channels");
  expect_cuda_matches_cpu("unblock_channels", pooled, {20}, {}, DataType::kFloat32, "unblock_channels");
}

// conv2d's residual input (input 3), added before the activation: after
// cuDNN's convolution, on the device; NCHW and NCHWc.
TEST(CudaNn, Conv2dResidualMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  auto inputs = [](DataType dt) {
    return std::vector<NDArray>{make(dt, {2, 8, 9, 7}, ramp(2 * 8 * 63, 1.0)),
                                make(dt, {12, 8, 3, 3}, ramp(864, 0.2, 1.1)), make(dt, {12}, ramp(12, 0.5, 2.3)),
                                make(dt, {2, 12, 9, 7}, ramp(2 * 12 * 63, 2.0, 0.7))};
  };
  for (int64_t act : {0, 1})
    expect_cuda_matches_cpu("conv2d", inputs, {3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, act}, {}, DataType::kFloat32,
                            act ? "residual relu" : "residual");
  auto blocked = [&inputs](DataType dt) {
    std::vector<NDArray> v = inputs(dt);
    for (size_t k : {size_t{0}, size_t{3}}) {
      Context ctx;
      EXPECT_OK(test::run_op("block_channels", {.in = {&v[k]}, .i = {16}}, ctx));
      v[k] = *ctx.output(0);
    }
    return v;
  };
  expect_cuda_matches_cpu("conv2d", blocked, {3, 3, 1, 1, 1, 1, 1, 1, 0, 2, 1, 1, 1}, {}, DataType::kFloat32,
                          "NCHWc residual relu");
}

struct PoolGeometry {
  const char* name;
  const char* op;
  Dims x;  // NCHW extents
  std::vector<int64_t> iargs;  // 0..9
  bool nhwc;
};

const PoolGeometry kPoolGeometries[] = {
    {"max_k3s2p1", "maxpool2d", {2, 6, 11, 9}, {3, 3, 2, 2, 1, 1, 1, 1, 0, 0}, false},
    {"max_k3s2p1_nhwc", "maxpool2d", {2, 6, 11, 9}, {3, 3, 2, 2, 1, 1, 1, 1, 0, 0}, true},
    {"max_same_k2s2", "maxpool2d", {2, 6, 10, 8}, {2, 2, 2, 2, 0, 0, 1, 1, 1, 0}, false},
    {"max_rect", "maxpool2d", {1, 4, 9, 12}, {2, 4, 1, 3, 1, 2, 1, 1, 0, 0}, true},
    {"avg_k3s1p1", "avgpool2d", {2, 6, 11, 9}, {3, 3, 1, 1, 1, 1, 1, 1, 0, 0}, false},
    {"avg_k3s1p1_incpad", "avgpool2d", {2, 6, 11, 9}, {3, 3, 1, 1, 1, 1, 1, 1, 0, 1}, true},
    {"avg_same_k3s1", "avgpool2d", {2, 6, 7, 7}, {3, 3, 1, 1, 0, 0, 1, 1, 1, 0}, false},
    {"avg_same_k3s1_incpad", "avgpool2d", {2, 6, 7, 7}, {3, 3, 1, 1, 0, 0, 1, 1, 1, 1}, true},
    {"avg_rect_incpad", "avgpool2d", {1, 4, 9, 12}, {2, 4, 1, 3, 1, 2, 1, 1, 0, 1}, false},
};

// x for pooling: all negative, so a zero from the padding would win a max.
auto pool_inputs(const PoolGeometry& p) {
  return [p](DataType t) {
    const Dims& s = p.x;
    const Dims xs = p.nhwc ? Dims{s[0], s[2], s[3], s[1]} : s;
    std::vector<double> v = ramp(xs.product(), 1.0);
    for (double& e : v) e = -1.5 - e;
    return std::vector<NDArray>{make(t, xs, v)};
  };
}

TEST(CudaNn, PoolingMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16})
    for (const PoolGeometry& p : kPoolGeometries)
      expect_cuda_matches_cpu(p.op, pool_inputs(p), with_format(p.iargs, p.nhwc), {}, t, p.name);
}

TEST(CudaNn, MaxPoolPropagatesNan) {
  REQUIRE_CUDA_DEVICE();
  auto inputs = [](DataType t) {
    std::vector<double> v = ramp(2 * 3 * 6 * 6, 1.0);
    v[7] = std::numeric_limits<double>::quiet_NaN();
    v[100] = std::numeric_limits<double>::quiet_NaN();
    return std::vector<NDArray>{make(t, {2, 3, 6, 6}, v)};
  };
  // The CPU gives NaN exactly for the windows that hold one, and all_close
  // matches NaN only with NaN.
  for (DataType t : {DataType::kFloat32, DataType::kFloat16})
    expect_cuda_matches_cpu("maxpool2d", inputs, {3, 3, 2, 2, 1, 1, 1, 1, 0}, {}, t, "nan");
}

struct BnCase {
  const char* name;
  Dims x;
  std::vector<int64_t> iargs;  // apply_scale, apply_offset, axis
  bool broadcast_params;       // parameters shaped like x with 1s, in float64
};

const BnCase kBnCases[] = {
    {"nchw_scale_offset", {2, 5, 4, 3}, {1, 1, 1}, false},
    {"nhwc_plain", {2, 4, 3, 5}, {0, 0, -1}, false},
    {"features_scale", {6, 5}, {1, 0, 1}, false},
    {"nchw_float64_params", {2, 5, 4, 3}, {1, 1, 1}, true},
    {"rank3_offset_axis2", {3, 2, 5}, {0, 1, 2}, true},
};

auto bn_inputs(const BnCase& b) {
  return [b](DataType t) {
    const int axis = static_cast<int>(b.iargs[2] < 0 ? b.iargs[2] + b.x.size() : b.iargs[2]);
    const int64_t c = b.x[axis];
    Dims ps{c};
    if (b.broadcast_params) {
      ps = Dims{};
      for (int d = 0; d < b.x.size(); ++d) ps.push_back(d == axis ? c : 1);
    }
    const DataType pt = b.broadcast_params ? DataType::kFloat64 : t;
    std::vector<double> var = ramp(c, 0.5, 0.7);
    for (double& v : var) v += 1.0;  // in [0.5, 1.5]
    std::vector<NDArray> v = {make(t, b.x, ramp(b.x.product(), 2.0)), make(pt, ps, ramp(c, 0.3, 1.9)),
                              make(pt, ps, var)};
    if (b.iargs[0] == 1) v.push_back(make(pt, ps, ramp(c, 1.5, 0.4)));
    if (b.iargs[1] == 1) v.push_back(make(pt, ps, ramp(c, 0.8, 2.9)));
    return v;
  };
}

TEST(CudaNn, BatchnormMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16})
    for (const BnCase& b : kBnCases) expect_cuda_matches_cpu("batchnorm", bn_inputs(b), b.iargs, {1e-3}, t, b.name);
}

TEST(CudaNn, Bfloat16MatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  const DataType t = DataType::kBFloat16;
  for (const ConvGeometry& c : kConvGeometries)
    expect_cuda_matches_cpu("conv2d", conv_inputs(c), with_format(c.iargs, c.nhwc, c.groups), {}, t, c.name);
  for (const PoolGeometry& p : kPoolGeometries)
    expect_cuda_matches_cpu(p.op, pool_inputs(p), with_format(p.iargs, p.nhwc), {}, t, p.name);
  for (const BnCase& b : kBnCases) expect_cuda_matches_cpu("batchnorm", bn_inputs(b), b.iargs, {1e-3}, t, b.name);
}

// softmax: cuDNN for float16/32/64, the legacy-kernel device path for
// bfloat16 (cuDNN's softmax is refused for it); axes first, middle, last,
// a long row, and in place.
TEST(CudaNn, SoftmaxMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  struct Case {
    const char* name;
    Dims x;
    int64_t axis;
  };
  const Case cases[] = {{"axis0", {3, 5, 7}, 0}, {"axis1", {3, 5, 7}, 1}, {"last", {3, 5, 7}, -1},
                        {"long_row", {4, 3000}, -1}, {"column", {3000, 2}, 0}};
  for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16})
    for (const Case& c : cases) {
      auto inputs = [&c](DataType dt) { return std::vector<NDArray>{make(dt, c.x, ramp(c.x.product(), 4.0))}; };
      expect_cuda_matches_cpu("softmax", inputs, {c.axis}, {}, t, c.name);
    }
}

TEST(CudaNn, SoftmaxSpecialRowsAndInPlace) {
  REQUIRE_CUDA_DEVICE();
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // Rows: plain, large values, one NaN, one +inf, all -inf.
  const std::vector<double> xv = {1, 2, 3, 1000, 1001, 999, 1, nan, 2, 1, inf, 0, -inf, -inf, -inf};
  for (DataType t : {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16}) {
    NDArray xc = make(t, {5, 3}, xv), xg = make(t, {5, 3}, xv);
    Context cc, gc;
    ASSERT_OK(run_on(Device::cpu(), "softmax", {.in = {&xc}}, cc));
    ASSERT_OK(run_on(Device::cuda(0), "softmax", {.in = {&xg}, .inplace = true}, gc));
    ASSERT_OK(xg.buffer()->sync_to_host());
    const std::vector<double> want = values(*cc.output(0)), got = values(xg);
    for (size_t i = 0; i < want.size(); ++i) {
      if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got[i])) << dtype_name(t) << " element " << i;
      else EXPECT_NEAR(got[i], want[i], cpu_tolerance(t)) << dtype_name(t) << " element " << i;
    }
    EXPECT_TRUE(std::isnan(got[6]) && std::isnan(got[9]) && std::isnan(got[12])) << dtype_name(t);
  }
}

TEST(CudaNn, BatchnormInPlace) {
  REQUIRE_CUDA_DEVICE();
  const std::vector<double> xv = ramp(2 * 3 * 4, 2.0);
  NDArray xc = make(DataType::kFloat32, {2, 3, 4}, xv), xg = make(DataType::kFloat32, {2, 3, 4}, xv);
  NDArray mean = make(DataType::kFloat32, {3}, {0.5, -0.25, 1});
  NDArray var = make(DataType::kFloat32, {3}, {1, 2, 0.5});
  Context cc, gc;
  ASSERT_OK(run_on(Device::cpu(), "batchnorm", {.in = {&xc, &mean, &var}}, cc));
  ASSERT_OK(run_on(Device::cuda(0), "batchnorm", {.in = {&xg, &mean, &var}, .inplace = true}, gc));
  EXPECT_EQ(gc.output(0)->buffer(), xg.buffer());
  EXPECT_TRUE(test::all_close(xg, values(*cc.output(0)), 1e-5, 1e-5));
}

TEST(CudaNn, StridedInputsAreMadeDenseOnTheDevice) {
  REQUIRE_CUDA_DEVICE();
  // NHWC x as a permuted view of an NCHW array, and weights transposed
  // in their kernel dims: both copied on the device before cuDNN runs.
  auto inputs = [](DataType t) {
    NDArray nchw = make(t, {2, 4, 7, 6}, ramp(2 * 4 * 7 * 6, 1.0)), x, w;
    EXPECT_OK(nchw.permute(Dims{0, 2, 3, 1}, x));
    NDArray wt = make(t, {5, 4, 3, 3}, ramp(5 * 4 * 9, 0.3));
    EXPECT_OK(wt.permute(Dims{0, 1, 3, 2}, w));
    return std::vector<NDArray>{x, w, make(t, {5}, {1, -1, 0.5, 0, 2})};
  };
  expect_cuda_matches_cpu("conv2d", inputs, {3, 3, 1, 1, 1, 1, 1, 1, 0, 1}, {}, DataType::kFloat32, "strided");
  auto pool = [](DataType t) {
    NDArray base = make(t, {2, 3, 8, 10}, ramp(480, 1.0)), x;
    EXPECT_OK(base.slice(3, 1, 10, 2, x));  // every other column: [2, 3, 8, 5]
    return std::vector<NDArray>{x};
  };
  expect_cuda_matches_cpu("avgpool2d", pool, {2, 2, 1, 1, 1, 1, 1, 1, 0, 0}, {}, DataType::kFloat32, "sliced");
}

TEST(CudaNn, InputsWithoutChannelsGiveTheBias) {
  REQUIRE_CUDA_DEVICE();
  auto inputs = [](DataType t) {
    return std::vector<NDArray>{make(t, {2, 0, 4, 4}, {}), make(t, {3, 0, 3, 3}, {}), make(t, {3}, {1.5, -2, 0.25})};
  };
  expect_cuda_matches_cpu("conv2d", inputs, {3, 3, 1, 1, 1, 1, 1, 1, 0}, {}, DataType::kFloat32, "no channels");
}

TEST(CudaNn, CallsCudnnCannotExpressAreErrorsThatMoveNoData) {
  REQUIRE_CUDA_DEVICE();
  // SAME over 6 rows with kernel 3 and stride 2 pads 0 on top and 1 below:
  // conv2d evens that out on the device (Note [Asymmetric padding on
  // devices]) and matches the CPU; pooling cannot, and says so.
  NDArray x = make(DataType::kFloat32, {1, 2, 6, 6}, ramp(72, 1.0));
  NDArray w = make(DataType::kFloat32, {4, 2, 3, 3}, ramp(72, 0.5));
  {
    std::vector<NDArray> host = {x, w};
    Context cpu, gpu;
    ASSERT_OK(test::run_on_cpu_and_gpu("conv2d", host, {.i = {3, 3, 2, 2, 0, 0, 1, 1, 1}}, cpu, gpu));
    ASSERT_OK(gpu.output(0)->buffer()->sync_to_host());
    EXPECT_EQ(gpu.output(0)->shape(), (Dims{1, 4, 3, 3}));
    EXPECT_TRUE(test::all_close(*gpu.output(0), values(*cpu.output(0)), 1e-5, 1e-5));
  }
  Status s;
  // Pooling with dilation.
  Context c2;
  s = run_on(Device::cuda(0), "maxpool2d", {.in = {&x}, .i = {2, 2, 1, 1, 0, 0, 2, 1, 0}}, c2);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented);
  EXPECT_TRUE(test::has_substr(s.message(), "maxpool2d: cuDNN on cuda:0 cannot run x[1,2,6,6] (NCHW), kernel 2x2, "
                                            "stride 1x1, dilation 2x1, padding 0x0, max pooling: cuDNN's pooling has "
                                            "no dilation"));
  // Odd SAME along the width only, NHWC, average pooling.
  NDArray xn = make(DataType::kFloat16, {1, 4, 5, 2}, ramp(40, 1.0));
  Context c3;
  s = run_on(Device::cuda(0), "avgpool2d", {.in = {&xn}, .i = {2, 2, 2, 2, 0, 0, 1, 1, 1, 0, 1}}, c3);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented);
  EXPECT_TRUE(test::has_substr(s.message(), "avgpool2d: cuDNN on cuda:0 cannot run x[1,4,5,2] (NHWC)"));
  EXPECT_TRUE(test::has_substr(s.message(), "it pads 0 column(s) on the left and 1 on the right"));
  for (const NDArray* a : {&x, &xn}) EXPECT_EQ(a->buffer()->sync(), DataBuffer::Sync::kHostOnly);
}

}  // namespace
}  // namespace libops
