// reverse_sequence beyond its goldens (shape_ops manifest): bad axes, a
// length outside [0, T] named by its row before anything is written, and the
// staging a device kernel receives (a fake device, its kernel checking what
// it is handed).
#include <gtest/gtest.h>

#include "fake_device.h"
#include "libops/ops/shape/reverse_sequence.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(ReverseSequenceOp, RejectsBadAxesAndLengths) {
  NDArray x = make(DataType::kFloat32, {3, 2}, {1, 2, 3, 4, 5, 6});
  NDArray n = make(DataType::kInt64, {2}, {3, 4});
  Context c1;
  EXPECT_EQ(run_op("reverse_sequence", {.in = {&x, &n}, .i = {0, 1}}, c1).message(),
            "reverse_sequence: seq_lengths[1] = 4 is not a length in [0, 4)");
  NDArray neg = make(DataType::kInt32, {2}, {-1, 0});
  Context c2;
  EXPECT_EQ(run_op("reverse_sequence", {.in = {&x, &neg}, .i = {0, 1}}, c2).message(),
            "reverse_sequence: seq_lengths[0] = -1 is not a length in [0, 4)");
  Context c3;
  EXPECT_EQ(run_op("reverse_sequence", {.in = {&x, &n}, .i = {1, -1}}, c3).message(),
            "reverse_sequence: seq_axis 1 and batch_axis -1 name one axis of x[3,2]");
  NDArray three = make(DataType::kInt64, {3}, {1, 1, 1});
  Context c4;
  EXPECT_EQ(run_op("reverse_sequence", {.in = {&x, &three}, .i = {0, 1}}, c4).message(),
            "reverse_sequence: seq_lengths[3] must hold one length per batch row: [2] for x[3,2] with batch_axis 1");
  NDArray fl = make(DataType::kFloat32, {2}, {1, 1});
  Context c5;
  EXPECT_FALSE(run_op("reverse_sequence", {.in = {&x, &fl}, .i = {0, 1}}, c5).is_ok());  // lengths are integers
  Context c6;
  EXPECT_FALSE(run_op("reverse_sequence", {.in = {&x, &n}}, c6).is_ok());  // seq_axis is required
}

TEST(ReverseSequenceOp, InPlaceReadsBeforeItWrites) {
  NDArray x = make(DataType::kInt32, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  NDArray n = make(DataType::kInt64, {2}, {3, 4});
  Context ctx;
  ASSERT_OK(run_op("reverse_sequence", {.in = {&x, &n}, .i = {1, 0}, .inplace = true}, ctx));
  EXPECT_EQ(values(*ctx.output(0)), (std::vector<double>{3, 2, 1, 4, 8, 7, 6, 5}));
}

namespace {

ops::ReverseSequenceDesc g_seen;
std::vector<int64_t> g_lengths;

// The device "kernel": records what the op hands it and writes z from the
// device copies (host memory on the fake device), as the CUDA kernel does.
Status fake_reverse_sequence(Device, const ops::ReverseSequenceDesc& d, const NDArray& x, const NDArray& lengths,
                             NDArray& z) {
  RETURN_IF_ERROR(sync_for_kernel(Device::cuda(0), {&x, &lengths}, z));
  g_seen = d;
  const auto* len = static_cast<const int64_t*>(lengths.device_data());
  g_lengths.assign(len, len + lengths.length());
  const auto* xs = static_cast<const float*>(x.device_data());
  auto* zs = static_cast<float*>(z.device_data());
  for (int64_t e = 0; e < z.length(); ++e) {  // [pre, a, mid, b, post] = [1, T, 1, B, 1] here
    const int64_t t = e / d.b, b = e % d.b;
    zs[e] = xs[ops::reversed_time(t, len[b]) * d.b + b];
  }
  z.buffer()->mark_device_written();
  return Status::ok();
}

}  // namespace

TEST(ReverseSequenceOp, DeviceKernelGetsCheckedLengthsAndTheLayout) {
  ScopedFakeCuda fake;
  ops::reverse_sequence_device_kernel.set(DeviceType::kCuda, fake_reverse_sequence);
  NDArray x = make(DataType::kFloat32, {3, 2}, {1, 2, 3, 4, 5, 6});  // [time, batch]
  NDArray n = make(DataType::kInt32, {2}, {3, 2});
  ASSERT_OK(move_to_device(x));
  Context ctx;
  ctx.set_device(Device::cuda(0));
  const Status s = run_op("reverse_sequence", {.in = {&x, &n}, .i = {0, 1}}, ctx);
  ops::reverse_sequence_device_kernel.set(DeviceType::kCuda, nullptr);
  ASSERT_OK(s);
  EXPECT_TRUE(g_seen.time_first);
  EXPECT_EQ(g_seen.a, 3);
  EXPECT_EQ(g_seen.b, 2);
  EXPECT_EQ(g_seen.elem_size, 4);
  EXPECT_EQ(g_lengths, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(ctx.output(0)->buffer()->sync(), DataBuffer::Sync::kDeviceNewer);
  ASSERT_OK(ctx.output(0)->buffer()->sync_to_host());
  EXPECT_EQ(values(*ctx.output(0)), (std::vector<double>{5, 4, 3, 2, 1, 6}));
}
