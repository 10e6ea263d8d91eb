// Device selection through every layer, on the CPU: legacy calls, custom
// ops, graph sessions and the C API either run on the CPU (syncing arrays
// whose newest copy is on a device) or fail with a message that says why a
// device cannot be used. Device-side kernels themselves are tested in
// tests_cuda.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fake_device.h"
#include "graph/executor.h"
#include "graph/graph_builder.h"
#include "libops/c_api.h"
#include "libops/legacy/device_tables.h"
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/registry.h"
#include "test_util.h"

// An op written without a device path (every registered op has one): a
// copy of x on the CPU. Declared but not registered, so it stays out of the
// registry the other tests list.
DECLARE_OP(copy_on_cpu_only, 1, 1, true)
LIBOPS_DEFAULT_SHAPE_FN(copy_on_cpu_only)
libops::Status libops::ops::copy_on_cpu_only::validate_and_execute(libops::Context& block) {
  return OUTPUT_VARIABLE(0)->assign(*INPUT_VARIABLE(0));
}
DECLARE_TYPES(copy_on_cpu_only) {
  descriptor.allow_inputs(libops::types::kFloat);
  descriptor.allow_outputs(libops::types::kFloat);
}
DECLARE_ARGS(copy_on_cpu_only) {
  args.describe("a copy of x, on the CPU only");
  args.input("x", "float array");
  args.output("z", "a copy of x");
}

namespace libops {
namespace {

using test::make;
using test::values;

bool cuda_usable() { return check_device(Device::cuda()).is_ok(); }

legacy::LegacyCall add_call(const NDArray& x, const NDArray& y, NDArray& z) {
  legacy::LegacyCall c;
  c.group = OPS_PAIRWISE;
  c.num = static_cast<int>(legacy::BinaryOp::add);
  c.x = &x;
  c.y = &y;
  c.z = &z;
  return c;
}

TEST(DeviceDispatch, LegacyCallOnAnUnusableDeviceNamesTheOpAndTheReason) {
  if (cuda_usable()) GTEST_SKIP() << "a CUDA device is usable here";
  NDArray x = make(DataType::kFloat32, {2}, {1, 2});
  NDArray z = test::zeros(DataType::kFloat32, {2});
  legacy::LegacyCall c = add_call(x, x, z);
  c.device = Device::cuda(0);
  Status s = legacy::exec(c);
  EXPECT_EQ(s.code(), StatusCode::kDevice);
  EXPECT_NE(s.message().find("add: cuda:0: "), std::string::npos) << s.message();
  EXPECT_EQ(values(z), (std::vector<double>{0, 0}));  // untouched
}

TEST(DeviceDispatch, LegacyTableWithoutKernelsOnTheDeviceIsNotImplemented) {
  if (legacy::device_table(DeviceType::kCuda, legacy::Table::kBinary) != nullptr)
    GTEST_SKIP() << "this build has CUDA kernels";
  test::ScopedFakeCuda fake;
  NDArray x = make(DataType::kFloat32, {2}, {1, 2});
  NDArray z = test::zeros(DataType::kFloat32, {2});
  legacy::LegacyCall c = add_call(x, x, z);
  c.device = Device::cuda(1);
  Status s = legacy::exec(c);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented);
  EXPECT_NE(s.message().find("add: this legacy op has no cuda kernels (device cuda:1)"), std::string::npos)
      << s.message();
  EXPECT_EQ(test::FakeDevice::allocations, 0);  // nothing moved
}

TEST(DeviceDispatch, CpuCallsReadTheNewestCopyAndMarkTheirOutputWritten) {
  test::ScopedFakeCuda fake;
  NDArray x = make(DataType::kFloat32, {3}, {1, 2, 3});
  NDArray z = test::zeros(DataType::kFloat32, {3});
  // x's newest data is on the (fake) device; z has a device copy too.
  ASSERT_OK(x.buffer()->sync_to_device(Device::cuda(0)));
  float* xd = static_cast<float*>(x.buffer()->device_data());
  xd[0] = 10, xd[1] = 20, xd[2] = 30;
  x.buffer()->mark_device_written();
  ASSERT_OK(z.buffer()->sync_to_device(Device::cuda(0)));

  // A legacy call on the CPU.
  ASSERT_OK(legacy::exec(add_call(x, x, z)));
  EXPECT_EQ(values(z), (std::vector<double>{20, 40, 60}));
  EXPECT_EQ(z.buffer()->sync(), DataBuffer::Sync::kHostNewer);

  // A custom op on the CPU (its body reads host memory).
  NDArray w = test::zeros(DataType::kFloat32, {3});
  xd[0] = -1;
  x.buffer()->mark_device_written();
  DeclarableOp* op = OpRegistry::instance().find("multiply");
  ASSERT_NE(op, nullptr);
  Context ctx;
  ctx.add_input(&x);
  ctx.add_input(&x);
  ctx.add_output(&w);
  ASSERT_OK(op->execute(ctx));
  EXPECT_EQ(values(w), (std::vector<double>{1, 400, 900}));
}

TEST(DeviceDispatch, EveryRegisteredOpHasADevicePath) {
  // An op that computes on the CPU only must say so when asked for a
  // device (the test below); none of the registered ones is such an op.
  std::vector<std::string> cpu_only;
  for (const DeclarableOp* op : OpRegistry::instance().list())
    if (!op->descriptor().any_device) cpu_only.emplace_back(op->name());
  EXPECT_TRUE(cpu_only.empty()) << "ops without a device path: " << ::testing::PrintToString(cpu_only);
  EXPECT_GE(OpRegistry::instance().size(), 20);
}

TEST(DeviceDispatch, CustomOpsThatOnlyRunOnTheCpuSaySo) {
  test::ScopedFakeCuda fake;  // a "usable" device, so only the op's own limit speaks
  ops::copy_on_cpu_only op;
  ASSERT_EQ(op.finish_declaration(), "");
  EXPECT_FALSE(op.descriptor().any_device);
  EXPECT_TRUE(OpRegistry::instance().find("add")->descriptor().any_device);
  NDArray x = make(DataType::kFloat32, {4}, {-1, 2, 7, 3});
  Context ctx;
  ctx.add_input(&x);
  ctx.set_device(Device::cuda(0));
  Status s = op.execute(ctx);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented) << s.message();
  EXPECT_NE(s.message().find("copy_on_cpu_only: has no cuda implementation (asked to run on cuda:0)"),
            std::string::npos)
      << s.message();
  Context cpu;  // and it does run on the CPU
  cpu.add_input(&x);
  ASSERT_OK(op.execute(cpu));
  EXPECT_EQ(values(*cpu.output(0)), (std::vector<double>{-1, 2, 7, 3}));
}

TEST(DeviceDispatch, GraphSessionOnAnUnusableDeviceFailsAtOnce) {
  if (cuda_usable()) GTEST_SKIP() << "a CUDA device is usable here";
  graph::test::GraphBuilder g;
  graph::test::BodyBuilder& m = g.main();
  graph::test::Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
  m.output("y", m.op("add", {x, x}, {}, "twice"));
  std::shared_ptr<const graph::Graph> graph;
  ASSERT_OK(graph::test::load(g.finish(), graph));
  graph::Session session(graph);
  session.set_device(Device::cuda(0));
  NDArray in = make(DataType::kFloat32, {2}, {1, 2});
  const NDArray* feeds[1] = {&in};
  Status s = session.run(feeds, 1);
  EXPECT_EQ(s.code(), StatusCode::kDevice);
  EXPECT_NE(s.message().find("graph: cuda:0: "), std::string::npos) << s.message();
  session.set_device(Device::cpu());
  ASSERT_OK(session.run(feeds, 1));
  EXPECT_EQ(values(session.output(0)), (std::vector<double>{2, 4}));
}

TEST(DeviceDispatch, CApiDeviceSelection) {
  EXPECT_EQ(ops_set_device(nullptr), OPS_ERR_NULL_POINTER);
  EXPECT_EQ(ops_set_device("tpu"), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ops_last_error()).find("unknown device 'tpu'"), std::string::npos) << ops_last_error();
  EXPECT_EQ(ops_set_device("cpu"), OPS_OK);
  if (!cuda_usable()) {
    EXPECT_EQ(ops_set_device("cuda"), OPS_ERR_DEVICE);
    EXPECT_NE(std::string(ops_last_error()).find("ops_set_device: cuda:0: "), std::string::npos) << ops_last_error();
  }
  // The failed call left the thread on the CPU.
  ops_array_t* a = nullptr;
  const float v[2] = {1.5f, 2.5f};
  const int64_t shape[1] = {2};
  ASSERT_EQ(ops_array_create_from(OPS_DTYPE_FLOAT32, 1, shape, v, sizeof v, &a), OPS_OK);
  ops_array_t** outs = nullptr;
  int n_out = 0;
  ops_array_t* in[2] = {a, a};
  ASSERT_EQ(ops_exec_alloc("add", in, 2, nullptr, &outs, &n_out), OPS_OK) << ops_last_error();
  ASSERT_EQ(n_out, 1);
  float got[2] = {};
  ASSERT_EQ(ops_array_copy_to(outs[0], got, sizeof got), OPS_OK);
  EXPECT_EQ(got[0], 3.0f);
  EXPECT_EQ(got[1], 5.0f);
  ops_array_list_free(outs, n_out);
  ops_array_free(a);
}

}  // namespace
}  // namespace libops
