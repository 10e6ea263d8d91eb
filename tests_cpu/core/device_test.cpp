// Device names, device checks, and the host/device sync state of DataBuffer
// (Note [Host and device copies]) and of NDArray's host copies, driven through a fake device runtime
// whose "device memory" is host memory and which counts the copies.
#include "libops/core/device.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "fake_device.h"
#include "libops/array/data_buffer.h"
#include "test_util.h"

namespace libops {
namespace {

TEST(Device, ParseAndPrint) {
  Device d;
  ASSERT_TRUE(Device::parse("cpu", d).is_ok());
  EXPECT_TRUE(d.is_cpu());
  EXPECT_EQ(d.str(), "cpu");
  ASSERT_TRUE(Device::parse("cuda", d).is_ok());
  EXPECT_EQ(d, Device::cuda(0));
  EXPECT_EQ(d.str(), "cuda:0");
  ASSERT_TRUE(Device::parse("cuda:3", d).is_ok());
  EXPECT_EQ(d, Device::cuda(3));
  for (const char* bad : {"", "gpu", "cuda:", "cuda:-1", "cuda:1x", "cuda0", "CPU", "cuda:99999999999"}) {
    Status s = Device::parse(bad, d);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("unknown device"), std::string::npos) << s.message();
  }
  EXPECT_EQ(Device::parse(nullptr, d).code(), StatusCode::kNullPointer);
}

TEST(Device, CpuIsAlwaysThere) {
  EXPECT_TRUE(check_device(Device::cpu()).is_ok());
  EXPECT_EQ(check_device(Device{DeviceType::kCpu, 1}).code(), StatusCode::kDevice);
}

TEST(Device, CudaWithoutBackendOrDeviceSaysWhy) {
  // In a CPU build there is no CUDA runtime; in a CUDA build on a machine
  // without a GPU there is no device. Either way: a kDevice error that says so.
  const DeviceRuntime* rt = device_runtime(DeviceType::kCuda);
  if (rt != nullptr && rt->device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  Status s = check_device(Device::cuda(0));
  EXPECT_EQ(s.code(), StatusCode::kDevice);
  if (rt == nullptr)
    EXPECT_NE(s.message().find("built without the cuda backend"), std::string::npos) << s.message();
  else
    EXPECT_NE(s.message().find("no CUDA device"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("cuda:0"), std::string::npos) << s.message();
}

class DataBufferSync : public ::testing::Test {
 protected:
  test::ScopedFakeCuda fake_;
};

using Sync = DataBuffer::Sync;

TEST_F(DataBufferSync, CopiesOnlyWhenTheSideThatNeedsItIsStale) {
  {
    auto b = DataBuffer::allocate(16);
    ASSERT_TRUE(b);
    float* h = static_cast<float*>(b->host());
    for (int i = 0; i < 4; ++i) h[i] = static_cast<float>(i + 1);
    EXPECT_EQ(b->sync(), Sync::kHostOnly);
    ASSERT_TRUE(b->sync_to_host().is_ok());  // nothing to do
    EXPECT_EQ(test::FakeDevice::to_host, 0);

    ASSERT_TRUE(b->sync_to_device(Device::cuda(0)).is_ok());
    EXPECT_EQ(b->sync(), Sync::kInSync);
    EXPECT_EQ(test::FakeDevice::allocations, 1);
    EXPECT_EQ(test::FakeDevice::to_device, 1);
    EXPECT_EQ(static_cast<float*>(b->device_data())[2], 3.0f);
    ASSERT_TRUE(b->sync_to_device(Device::cuda(0)).is_ok());  // already current
    EXPECT_EQ(test::FakeDevice::to_device, 1);

    // A "kernel" writes on the device: the host copy becomes stale.
    static_cast<float*>(b->device_data())[0] = 42.0f;
    b->mark_device_written();
    EXPECT_EQ(b->sync(), Sync::kDeviceNewer);
    EXPECT_EQ(h[0], 1.0f);
    ASSERT_TRUE(b->sync_to_host().is_ok());
    EXPECT_EQ(h[0], 42.0f);
    EXPECT_EQ(test::FakeDevice::to_host, 1);
    EXPECT_EQ(b->sync(), Sync::kInSync);

    // The host writes: the device copy becomes stale and is refreshed once.
    h[1] = -7.0f;
    b->mark_host_written();
    EXPECT_EQ(b->sync(), Sync::kHostNewer);
    ASSERT_TRUE(b->sync_to_device(Device::cuda(0)).is_ok());
    EXPECT_EQ(static_cast<float*>(b->device_data())[1], -7.0f);
    EXPECT_EQ(test::FakeDevice::to_device, 2);
    EXPECT_EQ(test::FakeDevice::allocations, 1);
  }
  EXPECT_EQ(test::FakeDevice::releases, 1);  // the device copy goes with the buffer
}

TEST_F(DataBufferSync, OverwriteSkipsTheUploadAndKeepsHostDataIfTheWriteNeverHappens) {
  auto b = DataBuffer::allocate(8);
  ASSERT_TRUE(b);
  static_cast<int32_t*>(b->host())[0] = 5;
  ASSERT_TRUE(b->sync_to_device(Device::cuda(0), /*overwrite=*/true).is_ok());
  EXPECT_EQ(test::FakeDevice::to_device, 0);
  EXPECT_EQ(b->sync(), Sync::kHostNewer);  // an op that fails now loses nothing
  ASSERT_TRUE(b->sync_to_host().is_ok());
  EXPECT_EQ(static_cast<int32_t*>(b->host())[0], 5);
  static_cast<int32_t*>(b->device_data())[0] = 9;
  b->mark_device_written();
  ASSERT_TRUE(b->sync_to_host().is_ok());
  EXPECT_EQ(static_cast<int32_t*>(b->host())[0], 9);
}

TEST_F(DataBufferSync, MovingToAnotherDeviceGoesThroughTheHost) {
  auto b = DataBuffer::allocate(4);
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->sync_to_device(Device::cuda(0), true).is_ok());
  static_cast<float*>(b->device_data())[0] = 2.5f;
  b->mark_device_written();
  ASSERT_TRUE(b->sync_to_device(Device::cuda(1)).is_ok());
  EXPECT_EQ(b->device(), Device::cuda(1));
  EXPECT_EQ(static_cast<float*>(b->device_data())[0], 2.5f);
  EXPECT_EQ(static_cast<float*>(b->host())[0], 2.5f);
  EXPECT_EQ(test::FakeDevice::releases, 1);
  EXPECT_EQ(test::FakeDevice::allocations, 2);
}

TEST_F(DataBufferSync, ErrorsNameTheDeviceAndLeaveTheBufferUsable) {
  auto b = DataBuffer::allocate(4);
  ASSERT_TRUE(b);
  Status s = b->sync_to_device(Device::cuda(7));
  EXPECT_EQ(s.code(), StatusCode::kDevice);
  EXPECT_NE(s.message().find("no fake device 7"), std::string::npos) << s.message();
  test::FakeDevice::fail_allocation = true;
  s = b->sync_to_device(Device::cuda(0));
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  EXPECT_NE(s.message().find("allocating 4 bytes on cuda:0"), std::string::npos) << s.message();
  EXPECT_EQ(b->sync(), Sync::kHostOnly);
  EXPECT_TRUE(b->sync_to_host().is_ok());
}

TEST_F(DataBufferSync, EmptyBuffersNeedNoDeviceMemory) {
  auto b = DataBuffer::allocate(0);
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->sync_to_device(Device::cuda(0)).is_ok());
  EXPECT_EQ(test::FakeDevice::allocations, 0);
  b->mark_device_written();
  ASSERT_TRUE(b->sync_to_host().is_ok());
  EXPECT_EQ(test::FakeDevice::to_host, 0);
}

TEST_F(DataBufferSync, DeviceWriteMarkWithoutADeviceCopyIsAnErrorNotACrash) {
  // An op that marks its output written on a device without syncing it
  // there first: no device copy exists to read back or move.
  for (bool move : {false, true}) {
    auto b = DataBuffer::allocate(8);
    ASSERT_TRUE(b);
    b->mark_device_written();
    Status s = move ? b->sync_to_device(Device::cuda(0)) : b->sync_to_host();
    EXPECT_EQ(s.code(), StatusCode::kInternal) << s.message();
    EXPECT_NE(s.message().find("8 bytes was marked written on a device but has no device copy"), std::string::npos)
        << s.message();
    EXPECT_EQ(test::FakeDevice::to_host, 0);
  }
}

TEST_F(DataBufferSync, DupAndAssignReadAndWriteTheNewestCopies) {
  NDArray x = test::make(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray z = test::make(DataType::kFloat32, {2, 3}, {-1, -2, -3, -4, -5, -6});
  ASSERT_OK(test::move_to_device(x));  // the host copy is now junk
  ASSERT_OK(test::move_to_device(z));
  // dup reads x's device copy back first.
  NDArray d;
  ASSERT_OK(x.dup('c', d));
  EXPECT_EQ(test::values(d), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(test::FakeDevice::to_host, 1);
  // A partial write into z keeps z's other values, which were on the device,
  // and leaves z's device copy stale.
  NDArray row, d_row;
  ASSERT_OK(z.slice(0, 1, 2, 1, row));
  ASSERT_OK(d.slice(0, 1, 2, 1, d_row));
  ASSERT_OK(row.assign(d_row));
  EXPECT_EQ(test::FakeDevice::to_host, 2);
  EXPECT_EQ(z.buffer()->sync(), DataBuffer::Sync::kHostNewer);
  EXPECT_EQ(test::values(z), (std::vector<double>{-1, -2, -3, 4, 5, 6}));
  // A write over the whole buffer needs no copy back first.
  NDArray w = test::make(DataType::kFloat32, {2, 3}, {0, 0, 0, 0, 0, 0});
  ASSERT_OK(test::move_to_device(w));
  ASSERT_OK(w.assign(d));
  EXPECT_EQ(test::FakeDevice::to_host, 2);
  EXPECT_EQ(w.buffer()->sync(), DataBuffer::Sync::kHostNewer);
  EXPECT_EQ(test::values(w), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

// An element set on the host after the array went to a device reaches the
// device's next kernel: set_double marks the host copy newest. (On an H200,
// svd of a matrix given a NaN this way after an earlier GPU op read the old
// device copy and found no NaN.)
TEST_F(DataBufferSync, SetDoubleAfterADeviceCopyReachesTheDevice) {
  NDArray a = test::make(DataType::kFloat64, {2, 2}, {1, 2, 3, 4});
  ASSERT_OK(a.buffer()->sync_to_device(Device::cuda(0)));  // both copies current, as after a kernel read a
  a.set_double(3, -7.5);
  EXPECT_EQ(a.buffer()->sync(), DataBuffer::Sync::kHostNewer);
  ASSERT_OK(a.buffer()->sync_to_device(Device::cuda(0)));
  NDArray on_device;
  ASSERT_OK(test::device_view(a, on_device));
  EXPECT_EQ(test::values(on_device), (std::vector<double>{1, 2, 3, -7.5}));
}

}  // namespace
}  // namespace libops
