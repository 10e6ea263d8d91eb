// conv2d, maxpool2d, avgpool2d and batchnorm on a device, tested on the CPU
// (Note [nn ops on devices] in libops/ops/nn/nn_device.h). The fake "cuda"
// device of fake_device.h keeps its memory on the host; a fake NnDeviceOps
// records what each op hands it and computes with the CPU op over the
// device copies; a fake transform-any kernel makes the device-side copies
// the ops stage. Each test checks the geometry the backend received, that
// its arrays were dense and on the device, that the output's newest copy is
// on the device, and the values once synced back. cuDNN itself is tested in
// tests_cuda/nn_test.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "fake_device.h"
#include "libops/legacy/device_tables.h"
#include "libops/legacy/legacy.h"
#include "libops/legacy/tables.h"
#include "libops/ops/nn/nn_device.h"
#include "libops/ops/nn/softmax.h"
#include "op_test_util.h"

namespace libops {
namespace {

using ops::nn::BatchnormDesc;
using ops::nn::Conv2dDesc;
using ops::nn::NnDeviceOps;
using ops::nn::Pool2dDesc;
using ops::nn::PoolMode;
using ops::SoftmaxDesc;
using test::make;
using test::values;

std::vector<double> ramp(int64_t n, double scale) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = scale * std::cos(0.37 * static_cast<double>(i) + 0.2);
  return v;
}

// What the fake backend saw.
struct Seen {
  int usable = 0, runs = 0, copies = 0;
  Conv2dDesc conv;
  Pool2dDesc pool;
  BatchnormDesc bn;
  SoftmaxDesc softmax;
  std::vector<Dims> shapes;     // of the arrays a run got, inputs then output
  std::vector<DataType> types;  // likewise
  bool dense = true;
  Status refusal;  // what every usable function returns
};
Seen g_seen;

// Records the run's arrays, syncs them as a backend does and returns views
// of their device copies (the output last).
Status take_arrays(Device d, std::vector<const NDArray*> in, NDArray& z, std::vector<NDArray>& views) {
  ++g_seen.runs;
  in.push_back(&z);
  for (const NDArray* a : in) {
    g_seen.shapes.push_back(a->shape());
    g_seen.types.push_back(a->dtype());
    g_seen.dense = g_seen.dense && a->is_c_contiguous();
  }
  for (size_t i = 0; i + 1 < in.size(); ++i) RETURN_IF_ERROR(in[i]->buffer()->sync_to_device(d));
  RETURN_IF_ERROR(z.buffer()->sync_to_device(d, true));
  views.resize(in.size());
  for (size_t i = 0; i < in.size(); ++i) RETURN_IF_ERROR(test::device_view(*in[i], views[i]));
  return Status::ok();
}

// Runs CPU op `name` over device views; the result lands in z's device copy.
Status run_cpu_op(const char* name, const test::OpCall& call, NDArray& z) {
  Context ctx;
  RETURN_IF_ERROR(test::run_op(name, call, ctx));
  z.buffer()->mark_device_written();
  return Status::ok();
}

std::vector<int64_t> window_iargs(const ops::nn::Window2d& w) {
  return {w.kh, w.kw, w.sh, w.sw, w.ph, w.pw, w.dh, w.dw, w.same ? 1 : 0};
}

Status fake_conv2d_usable(Device, const Conv2dDesc& desc) {
  ++g_seen.usable;
  g_seen.conv = desc;
  return g_seen.refusal;
}

Status fake_conv2d(Device d, const Conv2dDesc& desc, const NDArray& x, const NDArray& w, const NDArray* bias,
                   NDArray& z) {
  std::vector<NDArray> v;
  std::vector<const NDArray*> in = {&x, &w};
  if (bias != nullptr) in.push_back(bias);
  RETURN_IF_ERROR(take_arrays(d, in, z, v));
  NDArray wv = v[1];  // back to the CPU op's [Cout, Cin, kH, kW]
  if (!desc.g.nchw) RETURN_IF_ERROR(v[1].permute(Dims{0, 3, 1, 2}, wv));
  std::vector<int64_t> i = window_iargs(desc.win);
  i.push_back(desc.g.nchw ? 0 : 1);
  i.push_back(1);  // weights_format: [Cout, Cin, kH, kW]
  std::vector<NDArray*> cpu_in = {&v[0], &wv};
  if (bias != nullptr) cpu_in.push_back(&v[2]);
  return run_cpu_op("conv2d", {.in = cpu_in, .out = {&v.back()}, .i = i}, z);
}

Status fake_pool2d_usable(Device, const Pool2dDesc& desc) {
  ++g_seen.usable;
  g_seen.pool = desc;
  return g_seen.refusal;
}

Status fake_pool2d(Device d, const Pool2dDesc& desc, const NDArray& x, NDArray& z) {
  std::vector<NDArray> v;
  RETURN_IF_ERROR(take_arrays(d, {&x}, z, v));
  std::vector<int64_t> i = window_iargs(desc.win);
  i.push_back(desc.mode == PoolMode::kAvgIncludePadding ? 1 : 0);
  i.push_back(desc.g.nchw ? 0 : 1);
  return run_cpu_op(desc.mode == PoolMode::kMax ? "maxpool2d" : "avgpool2d", {.in = {&v[0]}, .out = {&v[1]}, .i = i},
                    z);
}

Status fake_batchnorm_usable(Device, const BatchnormDesc& desc) {
  ++g_seen.usable;
  g_seen.bn = desc;
  return g_seen.refusal;
}

Status fake_batchnorm(Device d, const BatchnormDesc& desc, const NDArray& x, const NDArray& mean,
                      const NDArray& variance, const NDArray& gamma, const NDArray& beta, NDArray& z) {
  std::vector<NDArray> v;
  RETURN_IF_ERROR(take_arrays(d, {&x, &mean, &variance, &gamma, &beta}, z, v));
  return run_cpu_op("batchnorm",
                    {.in = {&v[0], &v[1], &v[2], &v[3], &v[4]}, .out = {&v[5]}, .t = {desc.epsilon}, .i = {1, 1, 1}},
                    z);
}

// softmax's fused device kernel (ops/nn/softmax.h), not an NnDeviceOps entry.
Status fake_softmax(Device d, const SoftmaxDesc& desc, const NDArray& x, NDArray& z) {
  g_seen.softmax = desc;
  std::vector<NDArray> v;
  RETURN_IF_ERROR(take_arrays(d, {&x}, z, v));
  NDArray x3, z3;  // the [outer, n, inner] view the contract promises
  RETURN_IF_ERROR(v[0].reshape(Dims{desc.outer, desc.n, desc.inner}, x3));
  RETURN_IF_ERROR(v[1].reshape(Dims{desc.outer, desc.n, desc.inner}, z3));
  return run_cpu_op(desc.log ? "log_softmax" : "softmax", {.in = {&x3}, .out = {&z3}, .i = {1}}, z);
}

const NnDeviceOps kFakeNnOps{fake_conv2d_usable,    fake_conv2d,    fake_pool2d_usable, fake_pool2d,
                             fake_batchnorm_usable, fake_batchnorm};

// The CPU transform-any kernel over device copies: the ops' staging copies.
Status fake_transform_any(int num, ComputeType, const NDArray& x, const NDArray*, NDArray& z, const Dims&,
                          const ExtraParams& e) {
  ++g_seen.copies;
  return test::transform_any_on_device_copies(num, x, z, e);
}

// The fake device, backend and copy kernel; the previous registrations come
// back after each test.
class NnOnDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ops_ = ops::nn::nn_device_ops(DeviceType::kCuda);
    saved_copy_ = legacy::device_table(DeviceType::kCuda, legacy::Table::kTransformAny);
    saved_softmax_ = ops::softmax_device_kernel.get(DeviceType::kCuda);
    ops::nn::register_nn_device_ops(DeviceType::kCuda, &kFakeNnOps);
    ops::softmax_device_kernel.set(DeviceType::kCuda, fake_softmax);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny, fake_transform_any);
    g_seen = Seen{};
  }
  void TearDown() override {
    ops::nn::register_nn_device_ops(DeviceType::kCuda, saved_ops_);
    ops::softmax_device_kernel.set(DeviceType::kCuda, saved_softmax_);
    legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformAny, saved_copy_);
  }

  // `a`'s newest copy on the device and its host copy scribbled over, so a
  // host read by mistake shows in the values.
  static void move_to_device(NDArray& a) {
    ASSERT_OK(test::move_to_device(a));
  }

  // Runs `op` on the CPU (fresh arrays) and on cuda:0 (arrays moved there
  // first) and expects the same values, with the output newest on the device
  // and nothing copied back to the host on the way.
  static void expect_device_matches_cpu(const char* op, const test::OpCall& cpu, const test::OpCall& dev,
                                        Context& dev_ctx) {
    Context cpu_ctx;
    ASSERT_OK(test::run_op(op, cpu, cpu_ctx));
    for (NDArray* a : dev.in) move_to_device(*a);
    dev_ctx.set_device(Device::cuda(0));
    const int to_host = test::FakeDevice::to_host;
    ASSERT_OK(test::run_op(op, dev, dev_ctx));
    EXPECT_EQ(test::FakeDevice::to_host, to_host) << op;
    NDArray& z = *dev_ctx.output(0);
    EXPECT_EQ(z.buffer()->sync(), DataBuffer::Sync::kDeviceNewer) << op;
    ASSERT_OK(z.buffer()->sync_to_host());
    EXPECT_EQ(z.shape(), cpu_ctx.output(0)->shape()) << op;
    EXPECT_TRUE(test::all_close(z, values(*cpu_ctx.output(0)), 0, 0)) << op;
    EXPECT_TRUE(g_seen.dense) << op;
  }

  test::ScopedFakeCuda fake_;
  const NnDeviceOps* saved_ops_ = nullptr;
  ops::SoftmaxDeviceFn saved_softmax_ = nullptr;
  legacy::TableRunFn saved_copy_ = nullptr;
};

TEST_F(NnOnDevice, Conv2dNchwHandsTheBackendItsGeometry) {
  // x [2, 3, 5, 6], 4 filters of 3x3, stride 2x1, padding 1x0, dilation 1x2:
  // oH = (5 + 2 - 3) / 2 + 1 = 3, oW = (6 + 0 - 5) / 1 + 1 = 2.
  const std::vector<int64_t> iargs = {3, 3, 2, 1, 1, 0, 1, 2, 0};
  auto arrays = [] {
    return std::vector<NDArray>{make(DataType::kFloat32, {2, 3, 5, 6}, ramp(180, 1.0)),
                                make(DataType::kFloat32, {4, 3, 3, 3}, ramp(108, 0.5)),
                                make(DataType::kFloat32, {4}, {0.5, -1, 2, 0.25})};
  };
  std::vector<NDArray> c = arrays(), d = arrays();
  Context ctx;
  expect_device_matches_cpu("conv2d", {.in = {&c[0], &c[1], &c[2]}, .i = iargs},
                            {.in = {&d[0], &d[1], &d[2]}, .i = iargs}, ctx);
  EXPECT_EQ(g_seen.usable, 1);
  EXPECT_EQ(g_seen.runs, 1);
  const Conv2dDesc& cd = g_seen.conv;
  EXPECT_TRUE(cd.g.nchw);
  EXPECT_EQ((Dims{cd.g.n, cd.g.c, cd.g.h, cd.g.w, cd.g.oh, cd.g.ow}), (Dims{2, 3, 5, 6, 3, 2}));
  EXPECT_EQ(cd.g.pad_top, 1);
  EXPECT_EQ(cd.g.pad_left, 0);
  EXPECT_EQ((Dims{cd.win.kh, cd.win.kw, cd.win.sh, cd.win.sw, cd.win.dh, cd.win.dw}), (Dims{3, 3, 2, 1, 1, 2}));
  EXPECT_FALSE(cd.win.same);
  EXPECT_EQ(cd.cout, 4);
  EXPECT_TRUE(cd.has_bias);
  EXPECT_EQ(cd.dtype, DataType::kFloat32);
  // Dense inputs go to the backend as they are: no copies.
  EXPECT_EQ(g_seen.shapes, (std::vector<Dims>{{2, 3, 5, 6}, {4, 3, 3, 3}, {4}, {2, 4, 3, 2}}));
  EXPECT_EQ(g_seen.copies, 0);
}

TEST_F(NnOnDevice, Conv2dNhwcGetsFiltersInItsLayoutAndDenseStridedInputs) {
  // NHWC x given as a permuted view of an NCHW array; kernel from the
  // weights (kH = kW = 0); SAME, stride 1: pad_top = pad_left = 1.
  auto arrays = [] {
    NDArray nchw = make(DataType::kFloat64, {1, 2, 4, 5}, ramp(40, 1.0)), x;
    EXPECT_OK(nchw.permute(Dims{0, 2, 3, 1}, x));
    return std::vector<NDArray>{x, make(DataType::kFloat64, {3, 2, 3, 3}, ramp(54, 0.3))};
  };
  std::vector<NDArray> c = arrays(), d = arrays();
  const std::vector<int64_t> iargs = {0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1};  // NHWC, [Cout, Cin, kH, kW] weights
  Context ctx;
  expect_device_matches_cpu("conv2d", {.in = {&c[0], &c[1]}, .i = iargs}, {.in = {&d[0], &d[1]}, .i = iargs}, ctx);
  const Conv2dDesc& cd = g_seen.conv;
  EXPECT_FALSE(cd.g.nchw);
  EXPECT_EQ((Dims{cd.g.n, cd.g.c, cd.g.h, cd.g.w, cd.g.oh, cd.g.ow}), (Dims{1, 2, 4, 5, 4, 5}));
  EXPECT_EQ(cd.g.pad_top, 1);
  EXPECT_EQ(cd.g.pad_left, 1);
  EXPECT_EQ(cd.win.kh, 3);
  EXPECT_TRUE(cd.win.same);
  EXPECT_FALSE(cd.has_bias);
  EXPECT_EQ(cd.dtype, DataType::kFloat64);
  // x made dense, weights [Cout, kH, kW, Cin]: two copies on the device.
  EXPECT_EQ(g_seen.shapes, (std::vector<Dims>{{1, 4, 5, 2}, {3, 3, 3, 2}, {1, 4, 5, 3}}));
  EXPECT_EQ(g_seen.copies, 2);
}

TEST_F(NnOnDevice, Conv2dSamePaddingWithAnOddTotalReachesTheBackendSymmetric) {
  // SAME with a 2x2 kernel pads 0 before and 1 after (stride 1 over 4 rows,
  // stride 2 over 5 columns). The backend pads both sides equally, so the
  // op adds the zero row and column on the device and asks for explicit
  // padding 0 (Note [Asymmetric padding on devices]).
  struct Case {
    bool nhwc;
    Dims x;
    std::vector<int64_t> iargs;
    Dims seen_hw_out;  // h, w, oh, ow the backend got
  };
  const Case cases[] = {
      {false, {1, 2, 4, 5}, {2, 2, 1, 1, 0, 0, 1, 1, 1, 0}, {5, 6, 4, 5}},
      {true, {2, 4, 5, 3}, {2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1}, {5, 6, 4, 3}},  // weights [Cout, Cin, kH, kW]
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.nhwc ? "NHWC" : "NCHW");
    g_seen = Seen{};
    const int64_t cin = k.nhwc ? k.x[3] : k.x[1];
    auto arrays = [&] {
      return std::vector<NDArray>{make(DataType::kFloat32, k.x, ramp(k.x.product(), 1.0)),
                                  make(DataType::kFloat32, {3, cin, 2, 2}, ramp(12 * cin, 0.5))};
    };
    std::vector<NDArray> c = arrays(), d = arrays();
    Context ctx;
    expect_device_matches_cpu("conv2d", {.in = {&c[0], &c[1]}, .i = k.iargs}, {.in = {&d[0], &d[1]}, .i = k.iargs},
                              ctx);
    const Conv2dDesc& cd = g_seen.conv;
    EXPECT_EQ((Dims{cd.g.h, cd.g.w, cd.g.oh, cd.g.ow}), k.seen_hw_out);
    EXPECT_EQ((Dims{cd.g.pad_top, cd.g.pad_left, cd.win.ph, cd.win.pw}), (Dims{0, 0, 0, 0}));
    EXPECT_FALSE(cd.win.same);
  }
}

TEST_F(NnOnDevice, PoolingModesAndGeometry) {
  struct Case {
    const char* op;
    std::vector<int64_t> iargs;
    PoolMode mode;
    bool nchw;
    Dims out;  // oH, oW, pad_top, pad_left
    int64_t seen_h = 5;  // the input height the backend got
  };
  // x [2, 3, 5, 6] (NCHW) or [2, 5, 6, 3] (NHWC). The last case is SAME with
  // an odd total along H (0 before, 1 after): max pooling adds a row of -inf
  // on the device and hands the backend explicit padding 0 (Note
  // [Asymmetric padding on devices]), and the values stay the CPU's.
  const Case cases[] = {
      {"maxpool2d", {3, 2, 2, 2, 1, 0, 1, 1, 0}, PoolMode::kMax, true, {3, 3, 1, 0}},
      {"avgpool2d", {3, 3, 1, 1, 1, 1, 1, 1, 0}, PoolMode::kAvgExcludePadding, true, {5, 6, 1, 1}},
      {"avgpool2d", {3, 3, 1, 1, 1, 1, 1, 1, 0, 1, 1}, PoolMode::kAvgIncludePadding, false, {5, 6, 1, 1}},
      {"maxpool2d", {2, 2, 2, 2, 0, 0, 1, 1, 1, 0, 1}, PoolMode::kMax, false, {3, 3, 0, 0}, 6},
  };
  for (const Case& k : cases) {
    g_seen = Seen{};
    const Dims shape = k.nchw ? Dims{2, 3, 5, 6} : Dims{2, 5, 6, 3};
    NDArray xc = make(DataType::kFloat32, shape, ramp(180, 2.0));
    NDArray xd = make(DataType::kFloat32, shape, ramp(180, 2.0));
    Context ctx;
    expect_device_matches_cpu(k.op, {.in = {&xc}, .i = k.iargs}, {.in = {&xd}, .i = k.iargs}, ctx);
    const Pool2dDesc& p = g_seen.pool;
    EXPECT_EQ(p.mode, k.mode) << k.op;
    EXPECT_EQ(p.g.nchw, k.nchw) << k.op;
    EXPECT_EQ((Dims{p.g.n, p.g.c, p.g.h, p.g.w}), (Dims{2, 3, k.seen_h, 6})) << k.op;
    if (k.seen_h != 5) {
      EXPECT_FALSE(p.win.same) << "explicit padding after evening out";
    }
    EXPECT_EQ((Dims{p.g.oh, p.g.ow, p.g.pad_top, p.g.pad_left}), k.out) << k.op;
    EXPECT_EQ((Dims{p.win.kh, p.win.kw, p.win.sh, p.win.sw}), (Dims{k.iargs[0], k.iargs[1], k.iargs[2], k.iargs[3]}))
        << k.op;
    EXPECT_EQ(g_seen.runs, 1) << k.op;
  }
}

TEST_F(NnOnDevice, BatchnormViewsXAroundTheChannelAxisAndConvertsItsParameters) {
  // x float32 [2, 3, 4] along axis 1; parameters float64, gamma shaped
  // [1, 3, 1] like x: the backend gets [3] float32 arrays.
  auto arrays = [] {
    return std::vector<NDArray>{make(DataType::kFloat32, {2, 3, 4}, ramp(24, 3.0)),
                                make(DataType::kFloat64, {3}, {0.5, -1, 0.25}),
                                make(DataType::kFloat64, {3}, {1.5, 0.25, 4}),
                                make(DataType::kFloat64, {1, 3, 1}, {2, -0.5, 1}),
                                make(DataType::kFloat64, {3}, {0, 1, -2})};
  };
  std::vector<NDArray> c = arrays(), d = arrays();
  Context ctx;
  expect_device_matches_cpu("batchnorm", {.in = {&c[0], &c[1], &c[2], &c[3], &c[4]}, .t = {1e-3}},
                            {.in = {&d[0], &d[1], &d[2], &d[3], &d[4]}, .t = {1e-3}}, ctx);
  const BatchnormDesc& b = g_seen.bn;
  EXPECT_EQ((Dims{b.outer, b.channels, b.inner}), (Dims{2, 3, 4}));
  EXPECT_EQ(b.epsilon, 1e-3);
  EXPECT_EQ(b.dtype, DataType::kFloat32);
  EXPECT_EQ(g_seen.shapes, (std::vector<Dims>{{2, 3, 4}, {3}, {3}, {3}, {3}, {2, 3, 4}}));
  EXPECT_EQ(g_seen.types, std::vector<DataType>(6, DataType::kFloat32));
  EXPECT_EQ(g_seen.copies, 4);  // the four parameters, converted on the device
}

TEST_F(NnOnDevice, BatchnormWithoutScaleOrOffsetInPlaceOnNhwc) {
  // x [2, 2, 3] with channels last, no gamma or beta: the backend gets
  // gamma = 1 and beta = 0; in place, through a scratch array.
  const std::vector<double> xv = ramp(12, 2.0);
  NDArray xc = make(DataType::kFloat32, {2, 2, 3}, xv), xd = make(DataType::kFloat32, {2, 2, 3}, xv);
  auto params = [] {
    return std::vector<NDArray>{make(DataType::kFloat32, {3}, {0.1, -0.2, 0.3}),
                                make(DataType::kFloat32, {3}, {1, 2, 0.5})};
  };
  std::vector<NDArray> pc = params(), pd = params();
  Context ctx;
  expect_device_matches_cpu("batchnorm", {.in = {&xc, &pc[0], &pc[1]}, .i = {0, 0, -1}},
                            {.in = {&xd, &pd[0], &pd[1]}, .i = {0, 0, -1}, .inplace = true}, ctx);
  EXPECT_EQ(ctx.output(0)->buffer(), xd.buffer());
  const BatchnormDesc& b = g_seen.bn;
  EXPECT_EQ((Dims{b.outer, b.channels, b.inner}), (Dims{4, 3, 1}));
  ASSERT_EQ(g_seen.shapes.size(), 6u);
  EXPECT_EQ(g_seen.copies, 1);  // the scratch result into x
}

TEST_F(NnOnDevice, ARefusalNamesTheOpAndMovesNoData) {
  g_seen.refusal = Status::error(StatusCode::kNotImplemented, "backend on cuda:0 cannot run x[1,1,2,2]: a reason");
  NDArray x = make(DataType::kFloat32, {1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray w = make(DataType::kFloat32, {1, 1, 1, 1}, {2});
  NDArray m = make(DataType::kFloat32, {1}, {0}), v = make(DataType::kFloat32, {1}, {1});
  struct Case {
    const char* op;
    test::OpCall call;
  };
  const Case cases[] = {
      {"conv2d", {.in = {&x, &w}, .i = {1, 1, 1, 1, 0, 0, 1, 1, 0}}},
      {"maxpool2d", {.in = {&x}, .i = {2, 2, 1, 1, 0, 0, 1, 1, 0}}},
      {"avgpool2d", {.in = {&x}, .i = {2, 2, 1, 1, 0, 0, 1, 1, 0}}},
      {"batchnorm", {.in = {&x, &m, &v}}},
  };
  for (const Case& k : cases) {
    Context ctx;
    ctx.set_device(Device::cuda(0));
    Status s = test::run_op(k.op, k.call, ctx);
    EXPECT_EQ(s.code(), StatusCode::kNotImplemented) << k.op;
    EXPECT_EQ(s.message(), std::string(k.op) + ": backend on cuda:0 cannot run x[1,1,2,2]: a reason");
  }
  EXPECT_EQ(g_seen.usable, 4);
  EXPECT_EQ(g_seen.runs, 0);
  EXPECT_EQ(test::FakeDevice::allocations, 0);
  EXPECT_EQ(x.buffer()->sync(), DataBuffer::Sync::kHostOnly);
}

TEST_F(NnOnDevice, WithoutARegisteredImplementationTheOpsSaySo) {
  const NnDeviceOps partial{nullptr, nullptr, fake_pool2d_usable, nullptr, nullptr, nullptr};
  NDArray x = make(DataType::kFloat32, {1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray w = make(DataType::kFloat32, {1, 1, 1, 1}, {2});
  NDArray m = make(DataType::kFloat32, {1}, {0}), v = make(DataType::kFloat32, {1}, {1});
  struct Case {
    const char* op;
    test::OpCall call;
  };
  const Case cases[] = {
      {"conv2d", {.in = {&x, &w}, .i = {1, 1, 1, 1, 0, 0, 1, 1, 0}}},
      {"maxpool2d", {.in = {&x}, .i = {2, 2, 1, 1, 0, 0, 1, 1, 0}}},
      {"avgpool2d", {.in = {&x}, .i = {2, 2, 1, 1, 0, 0, 1, 1, 0}}},
      {"batchnorm", {.in = {&x, &m, &v}}},
  };
  for (const NnDeviceOps* registered : {static_cast<const NnDeviceOps*>(nullptr), &partial}) {
    ops::nn::register_nn_device_ops(DeviceType::kCuda, registered);
    for (const Case& k : cases) {
      EXPECT_TRUE(OpRegistry::instance().find(k.op)->descriptor().any_device) << k.op;
      Context ctx;
      ctx.set_device(Device::cuda(0));
      Status s = test::run_op(k.op, k.call, ctx);
      EXPECT_EQ(s.code(), StatusCode::kNotImplemented) << k.op;
      EXPECT_EQ(s.message(), std::string(k.op) + ": has no cuda implementation (asked to run on cuda:0)");
    }
  }
  EXPECT_EQ(g_seen.usable, 0);
  EXPECT_EQ(test::FakeDevice::allocations, 0);
}

TEST_F(NnOnDevice, SoftmaxGoesToItsDeviceKernelViewedAroundItsAxis) {
  // x [2, 3, 4] given as a permuted view of a [2, 4, 3] array: the kernel
  // gets it dense, and for axis 1 the view [outer 2, n 3, inner 4].
  auto arrays = [] {
    NDArray base = make(DataType::kFloat32, {2, 4, 3}, ramp(24, 3.0)), x;
    EXPECT_OK(base.permute(Dims{0, 2, 1}, x));
    return std::vector<NDArray>{x};
  };
  std::vector<NDArray> c = arrays(), d = arrays();
  Context ctx;
  expect_device_matches_cpu("softmax", {.in = {&c[0]}, .i = {1}}, {.in = {&d[0]}, .i = {1}}, ctx);
  EXPECT_EQ(g_seen.runs, 1);
  EXPECT_EQ((Dims{g_seen.softmax.outer, g_seen.softmax.n, g_seen.softmax.inner}), (Dims{2, 3, 4}));
  EXPECT_EQ(g_seen.softmax.dtype, DataType::kFloat32);
  EXPECT_EQ(g_seen.copies, 1);  // x made dense on the device
  // Each row along axis 1 sums to 1.
  const std::vector<double> z = values(*ctx.output(0));
  EXPECT_NEAR(z[0] + z[4] + z[8], 1.0, 1e-6);
}

TEST_F(NnOnDevice, SoftmaxWithoutADeviceKernelRunsLegacyKernelsOnTheDevice) {
  // A device with no fused softmax kernel runs softmax's legacy kernels
  // (max, subtract, exp, sum, divide) on that device, never on the host.
  ops::softmax_device_kernel.set(DeviceType::kCuda, nullptr);
  struct Saved {
    legacy::Table table;
    legacy::TableRunFn fn;
  };
  const Saved saved[] = {
      {legacy::Table::kReduceSame, legacy::device_table(DeviceType::kCuda, legacy::Table::kReduceSame)},
      {legacy::Table::kBinary, legacy::device_table(DeviceType::kCuda, legacy::Table::kBinary)},
      {legacy::Table::kTransformStrict, legacy::device_table(DeviceType::kCuda, legacy::Table::kTransformStrict)}};
  legacy::register_device_table(DeviceType::kCuda, legacy::Table::kReduceSame,
                                test::cpu_table_on_device_copies<legacy::reduce_same_run>);
  legacy::register_device_table(DeviceType::kCuda, legacy::Table::kBinary,
                                test::cpu_table_on_device_copies<legacy::binary_run>);
  legacy::register_device_table(DeviceType::kCuda, legacy::Table::kTransformStrict,
                                test::cpu_table_on_device_copies<legacy::transform_strict_run>);
  auto arrays = [] { return std::vector<NDArray>{make(DataType::kBFloat16, {2, 3}, {1, 2, 3, 4, 5, 7})}; };
  std::vector<NDArray> c = arrays(), d = arrays();
  Context cpu, dev;
  ASSERT_OK(test::run_op("softmax", {.in = {&c[0]}}, cpu));
  move_to_device(d[0]);
  dev.set_device(Device::cuda(0));
  const int to_host = test::FakeDevice::to_host;
  const Status s = test::run_op("softmax", {.in = {&d[0]}}, dev);
  for (const Saved& k : saved) legacy::register_device_table(DeviceType::kCuda, k.table, k.fn);
  ASSERT_OK(s);
  EXPECT_EQ(test::FakeDevice::to_host, to_host);
  EXPECT_EQ(g_seen.runs, 0);
  EXPECT_EQ(test::FakeDevice::table_kernels, 5);
  NDArray& z = *dev.output(0);
  EXPECT_EQ(z.buffer()->sync(), DataBuffer::Sync::kDeviceNewer);
  ASSERT_OK(z.buffer()->sync_to_host());
  // bfloat16 keeps 8 bits: the device path rounds its max and sum to it too.
  EXPECT_TRUE(test::all_close(z, values(*cpu.output(0)), 1e-2, 1e-2));
}

TEST_F(NnOnDevice, AnEmptyBatchIsDoneWithoutTheBackend) {
  NDArray x = make(DataType::kFloat32, {0, 3, 4, 4}, {});
  Context ctx;
  ctx.set_device(Device::cuda(0));
  ASSERT_OK(test::run_op("maxpool2d", {.in = {&x}, .i = {2, 2, 2, 2, 0, 0, 1, 1, 0}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{0, 3, 2, 2}));
  EXPECT_EQ(g_seen.usable + g_seen.runs, 0);
}

}  // namespace
}  // namespace libops
